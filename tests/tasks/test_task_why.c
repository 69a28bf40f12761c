// Every task's "why", rig and robot mode (tasks/*/<task>.c, <task>_robot.c,
// task_robot_script.c): a run cut short before anything seats names the failed criterion in
// words (a robot run also that it ended before its script did), and a run that succeeds
// leaves it empty, so the report's why column never shows a reason beside a pass or a blank
// beside a miss.
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

// runs one environment of task in mode (seed 0) for duration s (0: the task's default) with
// "key", "value", ..., NULL; returns the row
static tf_metrics* run(const char* task, tf_task_mode mode, double duration, ...) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = task;
  o.mode = mode;
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

// a missed run: success false, and why holds `needle` (and `also`, when not NULL)
static void expect_miss(tf_metrics* row, const char* needle, const char* also) {
  const char* why = tf_metrics_text(row, "why");
  assert_non_null(why);
  print_message("why: %s\n", why);
  assert_true(tf_metrics_get(row, "success") == 0);
  assert_non_null(strstr(why, needle));
  if (also) assert_non_null(strstr(why, also));
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

// 20 ms is far too short for any part to reach its seat
static void test_short_runs_say_not_seated(void** state) {
  (void)state;
  expect_miss(run("peg", TF_MODE_RIG, 0.02, NULL), "not seated: tip", NULL);
  expect_miss(run("boltnut", TF_MODE_RIG, 0.02, NULL), "not reached: nut", NULL);
  expect_miss(run("connectors", TF_MODE_RIG, 0.02, NULL), "short of the floor", NULL);
  expect_miss(run("gears", TF_MODE_RIG, 0.02, "impact_speed", "0.5", NULL), "not seated", NULL);
  expect_miss(run("gears", TF_MODE_RIG, 0.02, NULL), "the input did not turn", NULL);
}

// a convex hull of the hole block has no bore: the peg stops on top, far from the bottom
static void test_peg_hull_says_why(void** state) {
  (void)state;
  expect_miss(run("peg", TF_MODE_RIG, 0.3, "collider", "hull", NULL),
              "mm from the hole's bottom > 1 mm", NULL);
}

static void test_successes_leave_why_empty(void** state) {
  (void)state;
  expect_pass(run("peg", TF_MODE_RIG, 0, NULL));
  expect_pass(run("connectors", TF_MODE_RIG, 0, NULL));
}

// 2 s: every robot script is still carrying its part (or picking it up)
static void test_short_robot_runs_say_not_seated(void** state) {
  (void)state;
  const char* cut = "before the script's end";
  expect_miss(run("peg", TF_MODE_ROBOT, 2, NULL), "not seated: tip", cut);
  expect_miss(run("connectors", TF_MODE_ROBOT, 2, NULL), "not seated: plug", cut);
  expect_miss(run("gears", TF_MODE_ROBOT, 2, NULL), "not seated: gear", cut);
  expect_miss(run("boltnut", TF_MODE_ROBOT, 2, NULL), "not seated: nut", cut);
}

// the default robot runs succeed (about 3, 7 and 10 s); boltnut's default (about 40 s, the
// turning's contacts) is the welded run of its suite instead (about 27 s)
static void test_robot_successes_leave_why_empty(void** state) {
  (void)state;
  expect_pass(run("peg", TF_MODE_ROBOT, 0, NULL));
  expect_pass(run("connectors", TF_MODE_ROBOT, 0, NULL));
  expect_pass(run("gears", TF_MODE_ROBOT, 0, NULL));
  expect_pass(run("boltnut", TF_MODE_ROBOT, 0, "grasp", "weld", "travel_turns", "2.7", NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_short_runs_say_not_seated),
      cmocka_unit_test(test_peg_hull_says_why),
      cmocka_unit_test(test_successes_leave_why_empty),
      cmocka_unit_test(test_short_robot_runs_say_not_seated),
      cmocka_unit_test(test_robot_successes_leave_why_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
