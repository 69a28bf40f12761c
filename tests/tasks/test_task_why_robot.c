// Every robot mode's "why" (peg_robot.c, boltnut_robot.c, gears_robot.c, connectors_robot.c,
// task_robot_script.c): a run cut short before the part reaches its seat names the failed
// criterion and that the run ended before the script did, and a run that succeeds leaves it
// empty, as the rigs' (test_task_why.c).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "task.h"
#include "task_checks.h"

// runs one robot-mode environment of task (seed 0) for duration s (0: the task's default) with
// "key", "value", ..., NULL; returns the row
static tf_metrics* run(const char* task, double duration, ...) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = task;
  o.mode = TF_MODE_ROBOT;
  o.duration = duration;
  o.envs = 1;
  o.seed = 0;
  va_list ap;
  va_start(ap, duration);
  task_set_pairs(&o, ap);
  va_end(ap);
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256] = "";
  int rc = tf_task_run(&o, row, err, sizeof(err));
  if (rc) print_message("%s: %s\n", task, err);
  assert_int_equal(rc, 0);
  assert_string_equal(tf_metrics_text(row, "status"), "ok");
  return row;
}

// a missed run: success false, and why holds `needle` and says the script was cut short
static void expect_miss(tf_metrics* row, const char* needle) {
  const char* why = tf_metrics_text(row, "why");
  assert_non_null(why);
  print_message("why: %s\n", why);
  assert_true(tf_metrics_get(row, "success") == 0);
  assert_non_null(strstr(why, needle));
  assert_non_null(strstr(why, "before the script's end"));
  test_free(row);
}

// a run that succeeded: why is present and empty
static void expect_pass(tf_metrics* row) {
  const char* why = tf_metrics_text(row, "why");
  assert_non_null(why);
  if (why[0]) print_message("why of a success: %s\n", why);
  assert_true(tf_metrics_get(row, "success") == 1);
  assert_string_equal(why, "");
  test_free(row);
}

// 2 s: every script is still carrying its part (or picking it up)
static void test_short_runs_say_not_seated(void** state) {
  (void)state;
  expect_miss(run("peg", 2, NULL), "not seated: tip");
  expect_miss(run("connectors", 2, NULL), "not seated: plug");
  expect_miss(run("gears", 2, NULL), "not seated: gear");
  expect_miss(run("boltnut", 2, NULL), "not seated: nut");
}

// the default runs succeed (about 3, 7 and 10 s); boltnut's default (about 40 s, the turning's
// contacts) is the welded run of its suite instead (about 27 s)
static void test_successes_leave_why_empty(void** state) {
  (void)state;
  expect_pass(run("peg", 0, NULL));
  expect_pass(run("connectors", 0, NULL));
  expect_pass(run("gears", 0, NULL));
  expect_pass(run("boltnut", 0, "grasp", "weld", "travel_turns", "2.7", NULL));
}

int main(void) {
  tf_engine_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_short_runs_say_not_seated),
      cmocka_unit_test(test_successes_leave_why_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
