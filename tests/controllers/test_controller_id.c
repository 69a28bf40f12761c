// Joint-space inverse dynamics: with M and c from the model the arm tracks a fast min-jerk
// trajectory far more closely than the PD with the same motion, and its error dynamics are
// the configured spring-damper whatever the pose.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "arm_fixture.h"

static const double goal[TF_PANDA_NJOINT] = {0.6, 0.2, -0.4, -1.4, 0.5, 1.6, -0.3};

// largest joint tracking error over a 1 s min-jerk move and 0.5 s of settling
static double track(tf_controller_kind kind, double* final) {
  arm_fixture f;
  arm_fixture_init(&f, 0.001, NULL);
  tf_controller_config cfg = tf_controller_config_default(kind);
  tf_controller* c = arm_controller(&f, &cfg);
  tf_panda_def def = tf_panda_def_default();
  arm_set_q(&f, def.qpos0);
  tf_controller_reset(c, f.m, f.d);
  char err[128];
  assert_int_equal(tf_controller_move_joints(c, f.m, f.d, goal, 1.0, err, sizeof(err)), 0);
  double ref[TF_PANDA_NJOINT], q[TF_PANDA_NJOINT], worst = 0;
  for (int s = 0; s < 1500; s++) {
    arm_run(&f, c, 1);
    tf_controller_joint_reference(c, f.d->time, ref, NULL, NULL);
    arm_get_q(&f, q);
    for (int k = 0; k < TF_PANDA_NJOINT; k++) worst = fmax(worst, fabs(q[k] - ref[k]));
  }
  *final = 0;
  for (int k = 0; k < TF_PANDA_NJOINT; k++) *final = fmax(*final, fabs(q[k] - goal[k]));
  tf_controller_destroy(c);
  arm_fixture_free(&f);
  return worst;
}

static void test_id_tracks(void** state) {
  (void)state;
  double final_id, final_pd;
  double id = track(TF_CTRL_ID, &final_id);
  double pd = track(TF_CTRL_PD, &final_pd);
  print_message("1 s min-jerk move: worst tracking error id %.3g rad, pd %.3g rad; final id %.3g\n",
                id, pd, final_id);
  assert_true(id < 1e-3);
  assert_true(id < 0.1 * pd);
  assert_true(final_id < 1e-5);
}

// a 0.1 rad step on joint 4: the error follows e'' + kd e' + kp e = 0 (critically damped at
// the defaults), so it is down to 1 - (1 + w t) exp(-w t) of the step after t
static void test_id_error_dynamics(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.001, NULL);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_ID);
  tf_controller* c = arm_controller(&f, &cfg);
  tf_panda_def def = tf_panda_def_default();
  arm_set_q(&f, def.qpos0);
  tf_controller_reset(c, f.m, f.d);
  double target[TF_PANDA_NJOINT], times[1] = {0};
  for (int k = 0; k < TF_PANDA_NJOINT; k++) target[k] = def.qpos0[k];
  target[3] += 0.1;
  char err[128];
  assert_int_equal(tf_controller_set_keyframes(c, 1, times, target, err, sizeof(err)), 0);
  arm_run(&f, c, 100);  // 0.1 s
  double q[TF_PANDA_NJOINT], w = sqrt(cfg.id_kp), t = 0.1;
  arm_get_q(&f, q);
  double expected = 0.1 * (1 + w * t) * exp(-w * t);
  print_message("id step: error %.4g rad at 0.1 s, spring-damper %.4g rad\n", target[3] - q[3],
                expected);
  assert_true(fabs((target[3] - q[3]) - expected) < 0.05 * expected);
  for (int k = 0; k < TF_PANDA_NJOINT; k++) {
    if (k != 3) assert_true(fabs(q[k] - target[k]) < 1e-3 * 0.1);  // the others stay put
  }
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_id_tracks),
      cmocka_unit_test(test_id_error_dynamics),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
