// The task gates as cmocka tests (test_task_gates.c: the rigs', test_task_gates_robot.c:
// robot mode's, a gate named "<task>_robot"; test_task_gates_full_search.c: the rigs' with
// every contact pair searched every step): a gate passes when it ran, nothing diverged, it
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

// whether a gate is robot mode's
static inline int gate_is_robot(const char* name) {
  size_t n = strlen(name);
  return n > 6 && strcmp(name + n - 6, "_robot") == 0;
}

// the registered gates of one kind (robot 1: robot mode's) as tests running fn, at most max;
// the count
static inline int gate_tests(struct CMUnitTest* tests, int max, int robot, CMUnitTestFunction fn) {
  int n = 0;
  for (int i = 0; i < tf_task_gate_count() && n < max; i++) {
    const char* name = tf_task_gate_at(i)->name;
    if (gate_is_robot(name) != robot) continue;
    struct CMUnitTest t = {name, fn, NULL, NULL, (void*)name};
    tests[n++] = t;
  }
  return n;
}

#endif  // TF_TEST_GATE_CHECKS_H
