// The scripted robot mode as one policy over the batch API (tasks/vec_env.h, issue 20): ten
// environments of the peg in robot mode, reset as `tightfit run --task peg --mode robot --envs
// 10 --seed 0` builds them, stepped with tf_vec_env_scripted_actions at the default
// decimation until each episode ends, seat as many as that run does (10 of 10, README.md).
// Each environment's episode ends on success (the seat), so the seat rate is the share of
// episodes that terminated, not truncated.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "task.h"
#include "vec_env.h"

#define NENV 10

// the run's environments seated (its success_envs)
static int run_seated(void) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = "peg";
  o.mode = TF_MODE_ROBOT;
  o.envs = NENV;
  o.threads = 2;
  o.seed = 0;
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256] = "";
  int rc = tf_task_run(&o, row, err, sizeof(err));
  if (rc) print_message("run: %s\n", err);
  assert_int_equal(rc, 0);
  int seated = (int)tf_metrics_get(row, "success_envs");
  print_message("tightfit run: %d of %d seated, seat time %.3f s (mean)\n", seated, NENV,
                tf_metrics_get(row, "robot.seat_time_s"));
  test_free(row);
  return seated;
}

// environment i's episode has ended (its action is not read)
static int already_ended(const tf_vec_env* v, int i) {
  return tf_vec_env_terminated(v)[i] || tf_vec_env_truncated(v)[i];
}

// the batch's episodes that ended in success, with the scripted policy
static int batch_seated(const char* decimation) {
  const char* keys[] = {"mode", "threads", "decimation", "autoreset"};
  const char* values[] = {"robot", "2", decimation, "0"};
  char err[256] = "";
  tf_vec_env* v = tf_vec_env_create("peg", NENV, keys, values, 4, err, sizeof(err));
  if (!v) print_message("create: %s\n", err);
  assert_non_null(v);
  assert_int_equal(tf_vec_env_reset(v, 0, err, sizeof(err)), 0);
  double actions[NENV * 7];
  int ended = 0, seated = 0;
  int ended_at[NENV];
  for (long t = 0; t < tf_vec_env_max_steps(v) && ended < NENV; t++) {
    assert_int_equal(tf_vec_env_scripted_actions(v, actions, err, sizeof(err)), 0);
    // the script's moves fit the speed limits: no pose component reaches the clip (the
    // gripper's -1 and 1 are closed and open)
    for (int k = 0; k < NENV * 7; k++) {
      if (k % 7 < 6 && !already_ended(v, k / 7)) assert_true(fabs(actions[k]) < 1);
    }
    int already[NENV];
    for (int i = 0; i < NENV; i++) already[i] = already_ended(v, i);
    assert_int_equal(tf_vec_env_step(v, actions, err, sizeof(err)), 0);
    for (int i = 0; i < NENV; i++) {
      if (already[i] || !already_ended(v, i)) continue;
      ended++;
      seated += tf_vec_env_success(v)[i];
      ended_at[i] = (int)t + 1;
    }
  }
  assert_int_equal(ended, NENV);
  double mean = 0;
  for (int i = 0; i < NENV; i++) mean += ended_at[i] * tf_vec_env_policy_dt(v) / NENV;
  print_message("batch, decimation %s: %d of %d seated, episodes end at %.3f s (mean)\n",
                decimation, seated, NENV, mean);
  tf_vec_env_destroy(v);
  return seated;
}

static void test_scripted_seat_rate(void** state) {
  (void)state;
  int run = run_seated();
  int batch = batch_seated("8");
  assert_int_equal(run, NENV);
  assert_int_equal(batch, run);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scripted_seat_rate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
