// The task gates as cmocka tests (test_task_gates.c: the rigs', test_task_gates_robot.c:
// robot mode's, a gate named "<task>_robot"; test_task_gates_large_dt.c: the large steps',
// "<task>_large_dt"; test_task_gates_full_search.c: the rigs' with every contact pair searched
// every step): a gate passes when it ran, nothing diverged, it
// measured something and every metric is within its limit; each metric is printed against
// its limit.
#ifndef TF_TEST_GATE_CHECKS_H
#define TF_TEST_GATE_CHECKS_H

#include <string.h>

#include "task_gates.h"

// runs the gate named name with settings
static inline void check_task_gate(const char* name, const tf_task_gate_settings* settings) {
  const tf_task_gate* gate = tf_task_gate_find(name);
  assert_non_null(gate);
  tf_gate_result r;
  memset(&r, 0, sizeof(r));
  gate->run(settings, &r);
  if (r.error[0]) print_message("%s: %s\n", gate->name, r.error);
  for (int i = 0; i < r.nmetric; i++) {
    const tf_gate_metric* g = &r.metric[i];
    print_message("%-18s %-34s %12.4g %s %-10.4g %s\n", gate->name, g->name, g->value,
                  g->at_most ? "<=" : ">=", g->limit, g->pass ? "pass" : "FAIL");
  }
  assert_int_equal(r.error[0], 0);
  assert_false(r.diverged);
  assert_true(r.nmetric > 0);
  assert_true(tf_gate_passed(&r));
}

// the gate named *state with the default settings
static inline void test_task_gate(void** state) {
  tf_task_gate_settings settings = tf_task_gate_settings_default();
  check_task_gate((const char*)*state, &settings);
}

// the gate named *state with every contact pair searched every step (persist_tol 0)
static inline void test_task_gate_full_search(void** state) {
  tf_task_gate_settings settings = tf_task_gate_settings_default();
  settings.persist_tol = 0;
  check_task_gate((const char*)*state, &settings);
}

// the suites the gates run in: the rigs' (twice: with and without persistent contacts),
// robot mode's ("<task>_robot") and the large steps' ("<task>_large_dt": each solve a step
// several times, a process of their own so that `make test` runs them beside the others)
enum { GATE_RIG = 0, GATE_ROBOT, GATE_LARGE_DT };

static inline int name_ends_with(const char* name, const char* suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n > k && strcmp(name + n - k, suffix) == 0;
}

static inline int gate_kind(const char* name) {
  if (name_ends_with(name, "_robot")) return GATE_ROBOT;
  if (name_ends_with(name, "_large_dt")) return GATE_LARGE_DT;
  return GATE_RIG;
}

// the registered gates of one kind as tests running fn, at most max; the count
static inline int gate_tests(struct CMUnitTest* tests, int max, int kind, CMUnitTestFunction fn) {
  int n = 0;
  for (int i = 0; i < tf_task_gate_count() && n < max; i++) {
    const char* name = tf_task_gate_at(i)->name;
    if (gate_kind(name) != kind) continue;
    struct CMUnitTest t = {name, fn, NULL, NULL, (void*)name};
    tests[n++] = t;
  }
  return n;
}

#endif  // TF_TEST_GATE_CHECKS_H
