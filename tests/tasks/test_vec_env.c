// Batched environments (tasks/vec_env.c): the outputs' shapes for a robot mode and a rig; the
// same numbers, bit for bit, on one and two threads; reset reproduces an episode and a masked
// reset touches only its environments; auto-reset starts the next episode on the step after
// the last (Gymnasium's next-step mode) and autoreset=0 leaves an ended environment put; bad
// arguments are refused with one line naming the problem; every rig, stepped with its
// scripted action (the rig's own drive), reports the run's metrics bit for bit; and robot
// mode's observation reads the held peg (its weight in the wrench, the gripper's opening).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "task_checks.h"
#include "vec_env.h"

#define MAX_KEYS 16

// a batch of `n` environments of task from NULL-terminated "key", "value" pairs; fails the
// test when it is refused
static tf_vec_env* make(const char* task, int n, ...) {
  const char* keys[MAX_KEYS];
  const char* values[MAX_KEYS];
  int nset = 0;
  va_list ap;
  va_start(ap, n);
  for (const char* key = va_arg(ap, const char*); key; key = va_arg(ap, const char*)) {
    keys[nset] = key;
    values[nset++] = va_arg(ap, const char*);
  }
  va_end(ap);
  char err[256] = "";
  tf_vec_env* v = tf_vec_env_create(task, n, keys, values, nset, err, sizeof(err));
  if (!v) print_message("create: %s\n", err);
  assert_non_null(v);
  return v;
}

// the same refused, the message holding needle and no newline
static void expect_refused(const char* needle, const char* task, int n, int nset,
                           const char* const* keys, const char* const* values) {
  char err[256] = "";
  tf_vec_env* v = tf_vec_env_create(task, n, keys, values, nset, err, sizeof(err));
  assert_null(v);
  if (!strstr(err, needle)) print_message("message '%s' lacks '%s'\n", err, needle);
  assert_non_null(strstr(err, needle));
  assert_null(strchr(err, '\n'));
}

static void reset_ok(tf_vec_env* v, uint64_t seed) {
  char err[256] = "";
  int rc = tf_vec_env_reset(v, seed, err, sizeof(err));
  if (rc) print_message("reset: %s\n", err);
  assert_int_equal(rc, 0);
}

static void step_ok(tf_vec_env* v, const double* actions) {
  char err[256] = "";
  int rc = tf_vec_env_step(v, actions, err, sizeof(err));
  if (rc) print_message("step: %s\n", err);
  assert_int_equal(rc, 0);
}

// a fixed random policy: uniform actions in [-1, 1] from splitmix (tasks/task_rng.c)
static void random_actions(tf_rng* rng, double* a, int n) {
  for (int k = 0; k < n; k++) a[k] = tf_rng_uniform(rng, -1, 1);
}

// every output of a batch, copied
typedef struct outputs {
  double obs[4 * 64];
  double rewards[4];
  uint8_t terminated[4], truncated[4], success[4];
} outputs;

static void copy_outputs(const tf_vec_env* v, outputs* o) {
  int n = tf_vec_env_num_envs(v), no = tf_vec_env_obs_dim(v);
  assert_true(n <= 4 && no <= 64);
  memset(o, 0, sizeof(*o));
  memcpy(o->obs, tf_vec_env_obs(v), sizeof(double) * (size_t)(n * no));
  memcpy(o->rewards, tf_vec_env_rewards(v), sizeof(double) * (size_t)n);
  memcpy(o->terminated, tf_vec_env_terminated(v), (size_t)n);
  memcpy(o->truncated, tf_vec_env_truncated(v), (size_t)n);
  memcpy(o->success, tf_vec_env_success(v), (size_t)n);
}

// robot mode: 7 actions, 49 observations, the names list them; after a reset the observation
// is finite, the rewards and flags zero, the target the TCP's pose; a step moves the time on
// by decimation x dt
static void test_shapes_robot(void** state) {
  (void)state;
  tf_vec_env* v = make("peg", 3, "mode", "robot", "decimation", "4", NULL);
  assert_int_equal(tf_vec_env_num_envs(v), 3);
  assert_int_equal(tf_vec_env_action_dim(v), 7);
  assert_int_equal(tf_vec_env_obs_dim(v), 49);
  assert_int_equal(tf_vec_env_decimation(v), 4);
  assert_int_equal(tf_vec_env_threads(v), 1);
  assert_true(fabs(tf_vec_env_policy_dt(v) - 0.008) < 1e-15);
  assert_int_equal(tf_vec_env_max_steps(v), 1188);  // 4750 control steps over 4
  assert_string_equal(tf_vec_env_action_names(v), "dx,dy,dz,rx,ry,rz,gripper");
  assert_string_equal(tf_vec_env_mode(v), "robot");
  assert_true(tf_vec_env_has_script(v));
  // the observation's groups add up to its size
  int total = 0;
  for (const char* s = strchr(tf_vec_env_obs_names(v), ':'); s; s = strchr(s + 1, ':')) {
    total += atoi(s + 1);
  }
  assert_int_equal(total, 49);
  reset_ok(v, 0);
  const double* obs = tf_vec_env_obs(v);
  for (int i = 0; i < 3 * 49; i++) assert_true(isfinite(obs[i]));
  for (int i = 0; i < 3; i++) {
    assert_true(tf_vec_env_rewards(v)[i] == 0);
    assert_int_equal(tf_vec_env_terminated(v)[i] + tf_vec_env_truncated(v)[i], 0);
    const double* o = obs + 49 * i;
    // target (41..47) = TCP pose (14..20) at the start, time 0
    for (int k = 0; k < 7; k++) assert_true(fabs(o[41 + k] - o[14 + k]) < 1e-9);
    assert_true(o[48] == 0);
    assert_int_equal(tf_vec_env_index(v, i), i);
    assert_int_equal((int)tf_vec_env_seed(v, i), 0);
  }
  double actions[3 * 7] = {0};
  step_ok(v, actions);
  for (int i = 0; i < 3; i++) {
    assert_true(fabs(obs[49 * i + 48] - 0.008) < 1e-12);
    assert_true(isfinite(tf_vec_env_rewards(v)[i]));
    assert_int_equal(tf_vec_env_episode_steps(v, i), 1);
  }
  // the metrics of a run's environment, one per name
  tf_metrics* m = test_malloc(sizeof(tf_metrics));
  assert_int_equal(tf_vec_env_metrics(v, 1, m), 0);
  assert_string_equal(tf_metrics_text(m, "status"), "ok");
  assert_non_null(tf_metrics_find(m, "overlap.peak_m"));
  assert_non_null(tf_metrics_find(m, "success"));
  assert_string_equal(tf_vec_env_metric_name(v, 1, 0), "status");
  assert_null(tf_vec_env_metric_name(v, 1, m->n));
  assert_int_equal(tf_vec_env_metrics(v, 3, m), -1);
  double peak[3];
  char err[256];
  assert_int_equal(tf_vec_env_metric(v, "overlap.peak_m", peak, err, sizeof(err)), 0);
  for (int i = 0; i < 3; i++) assert_true(peak[i] >= 0);
  assert_int_equal(tf_vec_env_metric(v, "no.such_metric", peak, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "no.such_metric"));
  test_free(m);
  tf_vec_env_destroy(v);
}

// a rig: one action (its drive), 15 observations
static void test_shapes_rig(void** state) {
  (void)state;
  const char* tasks[] = {"peg", "connectors", "gears", "boltnut"};
  for (int k = 0; k < 4; k++) {
    tf_vec_env* v = make(tasks[k], 2, "duration", "0.02", "decimation", "2", NULL);
    assert_int_equal(tf_vec_env_action_dim(v), 1);
    assert_int_equal(tf_vec_env_obs_dim(v), 15);
    assert_string_equal(tf_vec_env_mode(v), "rig");
    reset_ok(v, 0);
    double a[2] = {1, 1};
    step_ok(v, a);
    for (int i = 0; i < 2 * 15; i++) assert_true(isfinite(tf_vec_env_obs(v)[i]));
    tf_vec_env_destroy(v);
  }
}

// n policy steps of the fixed random policy; the outputs of each step into out (NULL: none)
static void run_random(tf_vec_env* v, int nstep, uint64_t seed, outputs* out) {
  int na = tf_vec_env_action_dim(v), n = tf_vec_env_num_envs(v);
  double a[4 * 8];
  tf_rng rng;
  tf_rng_seed(&rng, seed, 0);
  for (int t = 0; t < nstep; t++) {
    random_actions(&rng, a, n * na);
    step_ok(v, a);
    if (out) copy_outputs(v, &out[t]);
  }
}

// the same batch on one and two threads: every output of every step, bit for bit (a robot mode
// and a rig)
static void test_threads_same_bits(void** state) {
  (void)state;
  enum { NSTEP = 25 };
  outputs* one = test_malloc(sizeof(outputs) * NSTEP);
  outputs* two = test_malloc(sizeof(outputs) * NSTEP);
  const char* modes[][2] = {{"peg", "robot"}, {"connectors", "rig"}};
  for (int k = 0; k < 2; k++) {
    for (int threads = 1; threads <= 2; threads++) {
      const char* th = threads == 1 ? "1" : "2";
      tf_vec_env* v =
          make(modes[k][0], 4, "mode", modes[k][1], "threads", th, "decimation", "2", NULL);
      assert_int_equal(tf_vec_env_threads(v), threads);
      reset_ok(v, 11);
      run_random(v, NSTEP, 5, threads == 1 ? one : two);
      tf_vec_env_destroy(v);
    }
    assert_memory_equal(one, two, sizeof(outputs) * NSTEP);
  }
  test_free(two);
  test_free(one);
}

// a reset gives the same episode again; reset_seeds with a mask rebuilds only the masked
// environments, each as environment 0 of its own seed (the start does not depend on its slot)
static void test_reset_reproducible(void** state) {
  (void)state;
  enum { NSTEP = 10 };
  outputs* a = test_malloc(sizeof(outputs) * NSTEP);
  outputs* b = test_malloc(sizeof(outputs) * NSTEP);
  outputs* first = test_malloc(sizeof(outputs));
  outputs* now = test_malloc(sizeof(outputs));
  tf_vec_env* v = make("peg", 3, "mode", "robot", "decimation", "3", NULL);
  reset_ok(v, 4);
  copy_outputs(v, first);
  run_random(v, NSTEP, 9, a);
  reset_ok(v, 4);
  copy_outputs(v, now);
  assert_memory_equal(first, now, sizeof(outputs));
  run_random(v, NSTEP, 9, b);
  assert_memory_equal(a, b, sizeof(outputs) * NSTEP);

  // environment 2 alone back to the start of seed 7's environment 0; 0 and 1 keep theirs
  char err[256];
  uint64_t seeds[3] = {7, 7, 7};
  uint8_t mask[3] = {0, 0, 1};
  copy_outputs(v, first);
  assert_int_equal(tf_vec_env_reset_seeds(v, seeds, mask, err, sizeof(err)), 0);
  copy_outputs(v, now);
  assert_memory_equal(first->obs, now->obs, sizeof(double) * 2 * 49);
  assert_int_equal(tf_vec_env_index(v, 2), 0);
  assert_int_equal((int)tf_vec_env_seed(v, 2), 7);
  assert_int_equal(tf_vec_env_episode_steps(v, 2), 0);
  assert_int_equal(tf_vec_env_episode_steps(v, 0), NSTEP);
  // slot 2 with seed 7 starts as slot 0 with seed 7 does
  uint8_t mask0[3] = {1, 0, 0};
  assert_int_equal(tf_vec_env_reset_seeds(v, seeds, mask0, err, sizeof(err)), 0);
  assert_memory_equal(tf_vec_env_obs(v), tf_vec_env_obs(v) + 2 * 49, sizeof(double) * 49);
  tf_vec_env_destroy(v);
  test_free(now);
  test_free(first);
  test_free(b);
  test_free(a);
}

// episodes of 3 policy steps (duration 6 control steps, decimation 2): the third step
// truncates, the fourth starts the next episode (reward 0, flags 0, the first observation of a
// new seed at the same index); with autoreset=0 the ended environment stays put
static void test_autoreset(void** state) {
  (void)state;
  for (int autoreset = 1; autoreset >= 0; autoreset--) {
    tf_vec_env* v = make("peg", 2, "mode", "robot", "duration", "0.012", "decimation", "2",
                         "autoreset", autoreset ? "1" : "0", NULL);
    assert_int_equal(tf_vec_env_max_steps(v), 3);
    reset_ok(v, 3);
    double start[49];
    memcpy(start, tf_vec_env_obs(v) + 49, sizeof(start));
    double a[2 * 7] = {0};
    for (int t = 0; t < 3; t++) {
      step_ok(v, a);
      for (int i = 0; i < 2; i++) {
        assert_int_equal(tf_vec_env_truncated(v)[i], t == 2);
        assert_int_equal(tf_vec_env_terminated(v)[i], 0);
      }
    }
    double end[49];
    memcpy(end, tf_vec_env_obs(v) + 49, sizeof(end));
    assert_true(fabs(end[48] - 0.012) < 1e-12);
    // the action of an ended environment is not read: NaN passes
    a[7] = NAN;
    step_ok(v, a);
    const double* obs = tf_vec_env_obs(v) + 49;
    assert_true(tf_vec_env_rewards(v)[1] == 0);
    if (autoreset) {
      assert_int_equal(tf_vec_env_truncated(v)[1], 0);
      assert_true(obs[48] == 0);
      assert_int_equal(tf_vec_env_index(v, 1), 1);
      assert_true(tf_vec_env_seed(v, 1) != 3);
      assert_int_equal(tf_vec_env_episode_steps(v, 1), 0);
      // a new draw: not the first episode's start
      assert_true(memcmp(obs, start, sizeof(start)) != 0);
    } else {
      assert_int_equal(tf_vec_env_truncated(v)[1], 1);
      assert_memory_equal(obs, end, sizeof(end));
    }
    tf_vec_env_destroy(v);
  }
}

// refused with one line naming the problem: unknown task, unknown key, a bad value, no
// environments, a NaN action, a step before any reset, a mode without a policy
static void test_bad_arguments(void** state) {
  (void)state;
  const char* none[1] = {NULL};
  expect_refused("unknown task 'pegg'", "pegg", 2, 0, none, none);
  const char* k1[] = {"mode", "clearence_um"};
  const char* v1[] = {"robot", "50"};
  expect_refused("unknown parameter 'clearence_um'", "peg", 2, 2, k1, v1);
  const char* k2[] = {"decimation"};
  const char* v2[] = {"0"};
  expect_refused("decimation", "peg", 2, 1, k2, v2);
  const char* v3[] = {"two"};
  expect_refused("decimation: not a number", "peg", 2, 1, k2, v3);
  const char* k4[] = {"solver"};
  const char* v4[] = {"simplex"};
  expect_refused("unknown solver 'simplex'", "peg", 2, 1, k4, v4);
  const char* k5[] = {"mode"};
  const char* v5[] = {"arm"};
  expect_refused("unknown mode 'arm'", "peg", 2, 1, k5, v5);
  const char* k6[] = {"dt"};
  const char* v6[] = {"5"};
  expect_refused("dt must be in", "peg", 2, 1, k6, v6);
  expect_refused("num_envs must be in [1, 65536] (got 0)", "peg", 0, 0, none, none);
  const char* k7[] = {"threads"};
  const char* v7[] = {"0"};
  expect_refused("threads must be in", "peg", 2, 1, k7, v7);
  const char* k8[] = {"mode", "mode"};
  const char* v8[] = {"robot", "rig"};
  expect_refused("mode: key given twice", "peg", 2, 2, k8, v8);

  tf_vec_env* v = make("peg", 2, "mode", "robot", NULL);
  char err[256] = "";
  double a[2 * 7] = {0};
  assert_int_equal(tf_vec_env_step(v, a, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "reset"));
  reset_ok(v, 0);
  a[7 + 2] = NAN;
  assert_int_equal(tf_vec_env_step(v, a, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "action[1][2] is NaN"));
  a[7 + 2] = INFINITY;
  assert_int_equal(tf_vec_env_step(v, a, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "action[1][2] is infinite"));
  // nothing ran: still at time 0
  assert_true(tf_vec_env_obs(v)[49 + 48] == 0);
  assert_int_equal(tf_vec_env_reset_seeds(v, NULL, NULL, err, sizeof(err)), -1);
  tf_vec_env_destroy(v);
}

// a configuration the task cannot build: the reset names the environment and the task's reason
static void test_build_refused(void** state) {
  (void)state;
  tf_vec_env* v = make("peg", 2, "mode", "robot", "depth_mm", "80", NULL);
  char err[256] = "";
  assert_int_equal(tf_vec_env_reset(v, 0, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "env 0: task 'peg'"));
  double a[2 * 7] = {0};
  assert_int_equal(tf_vec_env_step(v, a, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "env 0 is not built"));
  tf_vec_env_destroy(v);
}

// every rig stepped with its scripted action (its own drive) to the run's end reports the
// run's metrics for each environment, bit for bit but for the timings
static void test_rig_scripted_is_the_run(void** state) {
  (void)state;
  const char* cases[][3] = {{"peg", "0.1", NULL},
                            {"connectors", "0.06", NULL},
                            {"gears", "0.06", "shaft"},
                            {"boltnut", "0.2", NULL}};
  tf_metrics* run = test_malloc(sizeof(tf_metrics));
  tf_metrics* vec = test_malloc(sizeof(tf_metrics));
  for (int k = 0; k < 4; k++) {
    tf_vec_env* v = cases[k][2] ? make(cases[k][0], 2, "duration", cases[k][1], "decimation", "3",
                                       "terminate_on_success", "0", "mount", cases[k][2], NULL)
                                : make(cases[k][0], 2, "duration", cases[k][1], "decimation", "3",
                                       "terminate_on_success", "0", NULL);
    reset_ok(v, 5);
    double a[2];
    char err[256];
    for (long t = 0; t < tf_vec_env_max_steps(v); t++) {
      assert_int_equal(tf_vec_env_scripted_actions(v, a, err, sizeof(err)), 0);
      step_ok(v, a);
    }
    assert_int_equal(tf_vec_env_truncated(v)[1], 1);
    tf_run_options o;
    tf_run_options_default(&o);
    o.task = cases[k][0];
    o.duration = atof(cases[k][1]);
    o.envs = 2;
    o.seed = 5;
    if (cases[k][2]) {
      o.set[0] = (tf_kv){"mount", cases[k][2]};
      o.nset = 1;
    }
    for (int i = 0; i < 2; i++) {
      tf_env env;
      char e[256] = "";
      int rc = tf_task_run_env(&o, i, &env, run, e, sizeof(e));
      if (rc) print_message("run: %s\n", e);
      assert_int_equal(rc, 0);
      tf_env_free(tf_task_find(cases[k][0]), &env);
      assert_int_equal(tf_vec_env_metrics(v, i, vec), 0);
      task_assert_same_metrics(run, vec);
    }
    tf_vec_env_destroy(v);
  }
  test_free(vec);
  test_free(run);
}

// the observation while the scripted policy holds the peg over the hole (2.8 s at decimation
// 8): the gripper closed on its 50 mm, the estimated wrench its weight (1.53 kg: 15 N down)
// and little else, the peg above its seat and the reward below the seated one; seated at the
// end, the peg at its target and the reward the shaping's 0.917 and the success bonus
static void test_observation_held_peg(void** state) {
  (void)state;
  tf_vec_env* v = make("peg", 1, "mode", "robot", "terminate_on_success", "0", NULL);
  reset_ok(v, 0);
  double a[7];
  char err[256];
  const double* o = tf_vec_env_obs(v);
  for (int t = 0; t < 350; t++) {
    assert_int_equal(tf_vec_env_scripted_actions(v, a, err, sizeof(err)), 0);
    step_ok(v, a);
    if (t == 175) {
      assert_true(fabs(o[48] - 2.816) < 1e-9);
      assert_true(fabs(o[40] - 0.05) < 1e-3);
      assert_true(o[36] < -13 && o[36] > -17);
      assert_true(fabs(o[34]) < 1 && fabs(o[35]) < 1);
      assert_true(o[29] > 0.01 && hypot(o[27], o[28]) < 1e-3);
      assert_true(tf_vec_env_rewards(v)[0] < 0.9);
    }
  }
  assert_int_equal(tf_vec_env_success(v)[0], 1);
  for (int k = 0; k < 3; k++) assert_true(fabs(o[27 + k]) < 1e-3);
  assert_true(fabs(tf_vec_env_rewards(v)[0] - 1.917) < 0.01);
  tf_vec_env_destroy(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shapes_robot),
      cmocka_unit_test(test_shapes_rig),
      cmocka_unit_test(test_threads_same_bits),
      cmocka_unit_test(test_reset_reproducible),
      cmocka_unit_test(test_autoreset),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_build_refused),
      cmocka_unit_test(test_rig_scripted_is_the_run),
      cmocka_unit_test(test_observation_held_peg),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
