// The assembly tasks' rig gates in `make test` (tasks/task_gates.h): every registered gate
// but robot mode's and the large steps' (test_task_gates_robot.c, test_task_gates_large_dt.c:
// each a process of its own, so that `make test` runs them side by side) passes its limits
// and prints each metric against its limit; and the task registry's checks.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "task.h"
#include "task_gates.h"
#include "gate_checks.h"

// every task is listed once and found by name; every task gate by its name
static void test_registries(void** state) {
  (void)state;
  for (int i = 0; i < tf_task_count(); i++) {
    const tf_task_info* t = tf_task_at(i);
    assert_non_null(t);
    assert_ptr_equal(tf_task_find(t->name), t);
    assert_true(t->default_dt > 0);
    assert_true(t->default_duration > 0);
    assert_non_null(t->build);
    // a robot mode is an entry of its own under the same name, with no mode of its own
    const tf_task_info* robot = tf_task_for_mode(t, TF_MODE_ROBOT);
    assert_ptr_equal(tf_task_for_mode(t, TF_MODE_RIG), t);
    if (robot) {
      assert_string_equal(robot->name, t->name);
      assert_null(robot->robot);
      assert_non_null(robot->build);
      assert_true(robot->default_dt > 0 && robot->default_duration > 0);
    }
  }
  assert_null(tf_task_find("no_such_task"));
  assert_null(tf_task_at(tf_task_count()));
  // the built-in tasks first, the user-scene ones (an assembly file's) after them
  assert_true(tf_task_builtin_count() >= 4);
  for (int i = 0; i < tf_task_count(); i++) {
    assert_int_equal(tf_task_at(i)->user_scene, i >= tf_task_builtin_count());
  }
  for (int i = 0; i < tf_task_gate_count(); i++) {
    assert_ptr_equal(tf_task_gate_find(tf_task_gate_at(i)->name), tf_task_gate_at(i));
  }
}

// bad run options are refused before anything runs, with a message naming the problem
static void test_bad_options(void** state) {
  (void)state;
  tf_run_options o;
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256];
  tf_run_options_default(&o);
  o.task = "no_such_task";
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "unknown task 'no_such_task'"));
  if (tf_task_count() > 0) {
    o.task = tf_task_at(0)->name;
    o.envs = 0;
    assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "envs"));
    o.envs = 1;
    // a task without a robot mode refuses one, naming the mode (tasks with it run it)
    for (int i = 0; i < tf_task_count(); i++) {
      if (tf_task_for_mode(tf_task_at(i), TF_MODE_ROBOT)) continue;
      o.task = tf_task_at(i)->name;
      o.mode = TF_MODE_ROBOT;
      assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), -1);
      assert_non_null(strstr(err, "mode 'robot' is not available"));
      break;
    }
    o.task = tf_task_at(0)->name;
    o.mode = TF_MODE_RIG;
    o.nset = 1;
    o.set[0].key = "no_such_key";
    o.set[0].value = "1";
    assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "unknown parameter 'no_such_key'"));
  }
  test_free(row);
}

int main(void) {
  enum { MAX_TESTS = 64 };
  struct CMUnitTest tests[MAX_TESTS];
  int n = 0;
  struct CMUnitTest fixed[] = {cmocka_unit_test(test_registries),
                               cmocka_unit_test(test_bad_options)};
  for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) tests[n++] = fixed[i];
  n += gate_tests(tests + n, MAX_TESTS - n, GATE_RIG, test_task_gate);
  return _cmocka_run_group_tests("task_gates", tests, (size_t)n, NULL, NULL);
}
