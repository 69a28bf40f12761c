// The runner's environments on worker threads (task_run.c): a run of four peg environments
// gives the same row, bit for bit outside the timings, on one, two or three threads (and on
// more threads than environments); a configuration the task cannot build gives the same
// failed row at any thread count; a thread count out of [1, 256] is refused before anything
// runs.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "task_checks.h"

// a short peg run (50 ms at dt = 2 ms) of four environments on `threads` threads
static void options(tf_run_options* o, int threads, ...) {
  tf_run_options_default(o);
  o->task = "peg";
  o->physics.dt = 0.002;
  o->duration = 0.05;
  o->envs = 4;
  o->seed = 7;
  o->threads = threads;
  va_list ap;
  va_start(ap, threads);
  task_set_pairs(o, ap);
  va_end(ap);
}

static void run_ok(const tf_run_options* o, tf_metrics* row) {
  char err[256] = "";
  int rc = tf_task_run(o, row, err, sizeof(err));
  if (rc) print_message("run: %s\n", err);
  assert_int_equal(rc, 0);
  assert_int_equal(row->overflow, 0);
}

// rows at 2, 3 and 8 threads equal the 1-thread row in every key but the timings, and say
// how many threads ran (never more than the environments)
static void test_same_row_any_thread_count(void** state) {
  (void)state;
  tf_metrics* serial = test_malloc(sizeof(tf_metrics));
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  tf_run_options o;
  options(&o, 1, NULL);
  run_ok(&o, serial);
  assert_string_equal(tf_metrics_text(serial, "status"), "ok");
  assert_int_equal((int)tf_metrics_get(serial, "envs"), 4);
  assert_int_equal((int)tf_metrics_get(serial, "throughput.threads"), 1);
  assert_true(tf_metrics_get(serial, "throughput.wall_s") > 0);
  assert_true(tf_metrics_get(serial, "throughput.aggregate_env_steps_per_s") > 0);
  const int threads[] = {2, 3, 8};
  for (size_t k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
    options(&o, threads[k], NULL);
    run_ok(&o, row);
    print_message("threads %d: %d keys, aggregate %.0f env steps/s\n", threads[k], row->n,
                  tf_metrics_get(row, "throughput.aggregate_env_steps_per_s"));
    task_assert_same_metrics(serial, row);
    int ran = threads[k] < o.envs ? threads[k] : o.envs;
    assert_int_equal((int)tf_metrics_get(row, "throughput.threads"), ran);
  }
  test_free(row);
  test_free(serial);
}

// environments the task cannot build: the same failed row, the same error, on any count
static void test_failed_row_any_thread_count(void** state) {
  (void)state;
  tf_metrics* serial = test_malloc(sizeof(tf_metrics));
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  tf_run_options o;
  // the tilted peg would start inside the bore
  options(&o, 1, "gap_mm", "10", "tilt_deg", "2", NULL);
  run_ok(&o, serial);
  assert_string_equal(tf_metrics_text(serial, "status"), "failed");
  assert_non_null(strstr(tf_metrics_text(serial, "error"), "gap_mm"));
  for (int threads = 2; threads <= 4; threads++) {
    options(&o, threads, "gap_mm", "10", "tilt_deg", "2", NULL);
    run_ok(&o, row);
    task_assert_same_metrics(serial, row);
  }
  test_free(row);
  test_free(serial);
}

// 0 and 257 threads are refused with a message naming threads
static void test_thread_count_refused(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, 0, NULL);
  task_expect_refused(&o, "threads");
  options(&o, TF_TASK_MAX_THREADS + 1, NULL);
  task_expect_refused(&o, "threads");
  tf_run_options_default(&o);
  assert_int_equal(o.threads, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_row_any_thread_count),
      cmocka_unit_test(test_failed_row_any_thread_count),
      cmocka_unit_test(test_thread_count_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
