// Checks the task suites share: run options from "key", "value" pairs, a run refused with a
// message naming the problem (before anything runs, or by the task's build), a run that must
// go through, two rows equal bit for bit but for their timings, and robot mode's "the part
// starts in the hand". Include after cmocka.h.
#ifndef TF_TEST_TASK_CHECKS_H
#define TF_TEST_TASK_CHECKS_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "task.h"
#include "task_robot.h"
#include "tf_math.h"

// appends the NULL-terminated "key", "value", ... pairs of ap to o's parameters
static inline void task_set_pairs(tf_run_options* o, va_list ap) {
  for (const char* key = va_arg(ap, const char*); key; key = va_arg(ap, const char*)) {
    o->set[o->nset].key = key;
    o->set[o->nset].value = va_arg(ap, const char*);
    o->nset++;
  }
}

// a run refused before anything runs: -1 and a one-line message holding `needle`
static inline void task_expect_refused(const tf_run_options* o, const char* needle) {
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256] = "";
  assert_int_equal(tf_task_run(o, row, err, sizeof(err)), -1);
  if (!strstr(err, needle)) print_message("message '%s' lacks '%s'\n", err, needle);
  assert_non_null(strstr(err, needle));
  assert_null(strchr(err, '\n'));
  test_free(row);
}

// a configuration only the build can judge: tf_task_run_env refuses it, naming `needle`
static inline void task_expect_build_refused(const tf_run_options* o, const char* needle) {
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  tf_env env;
  char err[256] = "";
  assert_int_equal(tf_task_run_env(o, 0, &env, row, err, sizeof(err)), -1);
  if (!strstr(err, needle)) print_message("message '%s' lacks '%s'\n", err, needle);
  assert_non_null(strstr(err, needle));
  test_free(row);
}

// runs environment 0 of o and keeps it (free it with tf_env_free)
static inline void task_run_env(const tf_run_options* o, tf_env* env, tf_metrics* row) {
  char err[256] = "";
  int rc = tf_task_run_env(o, 0, env, row, err, sizeof(err));
  if (rc) print_message("run: %s\n", err);
  assert_int_equal(rc, 0);
}

// the task's robot mode: an entry of its own under the same name, with no mode of its own
static inline const tf_task_info* task_robot_mode(const char* name) {
  const tf_task_info* t = tf_task_for_mode(tf_task_find(name), TF_MODE_ROBOT);
  assert_non_null(t);
  assert_string_equal(t->name, name);
  assert_null(t->robot);
  return t;
}

// a task run without a mode is its rig: the row says so and carries neither a controller nor
// the robot-only metric robot_key
static inline void task_assert_rig_default(const char* task, const char* robot_key,
                                           tf_metrics* row) {
  tf_run_options o;
  char err[256];
  tf_run_options_default(&o);
  o.task = task;
  o.duration = 0.01;
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), 0);
  assert_string_equal(tf_metrics_text(row, "mode"), "rig");
  assert_null(tf_metrics_find(row, "controller"));
  assert_null(tf_metrics_find(row, robot_key));
}

// every metric but the timings, bit for bit
static inline void task_assert_same_metrics(const tf_metrics* a, const tf_metrics* b) {
  assert_int_equal(a->n, b->n);
  for (int i = 0; i < a->n; i++) {
    const tf_metric* x = &a->item[i];
    const tf_metric* y = &b->item[i];
    assert_string_equal(x->name, y->name);
    if (strncmp(x->name, "throughput.", 11) == 0 || strcmp(x->name, "steps_per_s") == 0 ||
        strcmp(x->name, "realtime_factor") == 0) {
      continue;
    }
    if (x->kind == TF_METRIC_TEXT) {
      assert_string_equal(x->text, y->text);
    } else if (!(isnan(x->value) && isnan(y->value))) {
      if (memcmp(&x->value, &y->value, sizeof(double)) != 0) {
        print_message("%s: %.17g vs %.17g\n", x->name, x->value, y->value);
        fail();
      }
    }
  }
}

// o run twice (environment 0) ends in the same state, bit for bit
static inline void task_assert_same_end_state(const tf_run_options* o) {
  const tf_task_info* task = tf_task_for_mode(tf_task_find(o->task), o->mode);
  assert_non_null(task);
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  double qpos[2][64];
  int nq = 0;
  for (int k = 0; k < 2; k++) {
    tf_env env;
    task_run_env(o, &env, row);
    nq = env.model->nq;
    assert_true(nq <= 64);
    memcpy(qpos[k], env.data->qpos, sizeof(double) * (size_t)nq);
    tf_env_free(task, &env);
  }
  assert_memory_equal(qpos[0], qpos[1], sizeof(double) * (size_t)nq);
  test_free(row);
}

// a welded part starts in the hand: its frame grip_height along the TCP's z axis past the
// TCP, its own z axis along the TCP's -z (within 1 um and 1e-6)
static inline void task_assert_in_hand(const tf_robot* r, const tf_model* m, const tf_data* d,
                                       int body, double grip_height) {
  double tcp[3], tq[4], z[3], axis[3];
  tf_robot_tcp(r, m, d, tcp, tq);
  tf_quat_rotate(z, tq, (const double[3]){0, 0, 1});
  tf_quat_rotate(axis, d->xquat + 4 * body, (const double[3]){0, 0, 1});
  const double* x = d->xpos + 3 * body;
  for (int k = 0; k < 3; k++) {
    assert_true(fabs(x[k] - (tcp[k] + grip_height * z[k])) < 1e-6);
    assert_true(fabs(axis[k] + z[k]) < 1e-6);
  }
}

#endif  // TF_TEST_TASK_CHECKS_H
