// Every rig task's "why": a run cut short before anything seats names the failed criterion in
// words, and a run that succeeds leaves it empty, so the report's why column never shows a
// reason beside a pass or a blank beside a miss.
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

// runs one environment of task for duration s with "key", "value", ..., NULL; returns the row
static tf_metrics* run(const char* task, double duration, ...) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = task;
  o.duration = duration;
  o.envs = 1;
  va_list ap;
  va_start(ap, duration);
  task_set_pairs(&o, ap);
  va_end(ap);
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256] = "";
  int rc = tf_task_run(&o, row, err, sizeof(err));
  if (rc) print_message("%s: %s\n", task, err);
  assert_int_equal(rc, 0);
  return row;
}

// a missed run: success false, and why holds `needle`
static void expect_miss(tf_metrics* row, const char* needle) {
  const char* why = tf_metrics_text(row, "why");
  assert_non_null(why);
  print_message("why: %s\n", why);
  assert_true(tf_metrics_get(row, "success") == 0);
  assert_non_null(strstr(why, needle));
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
  expect_miss(run("peg", 0.02, NULL), "not seated: tip");
  expect_miss(run("boltnut", 0.02, NULL), "not reached: nut");
  expect_miss(run("connectors", 0.02, NULL), "short of the floor");
  expect_miss(run("gears", 0.02, "impact_speed", "0.5", NULL), "not seated");
  expect_miss(run("gears", 0.02, NULL), "the input did not turn");
}

// a convex hull of the hole block has no bore: the peg stops on top, far from the bottom
static void test_peg_hull_says_why(void** state) {
  (void)state;
  expect_miss(run("peg", 0.3, "collider", "hull", NULL), "mm from the hole's bottom > 1 mm");
}

static void test_successes_leave_why_empty(void** state) {
  (void)state;
  expect_pass(run("peg", 0, NULL));
  expect_pass(run("connectors", 0, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_short_runs_say_not_seated),
      cmocka_unit_test(test_peg_hull_says_why),
      cmocka_unit_test(test_successes_leave_why_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
