// Controller configuration and interface: bad values are refused with a message naming the
// field, bad arms are refused, the registry names round-trip, and decimation holds the
// command between updates (a zero-order hold at control rate over the physics rate).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "arm_fixture.h"

static void expect_refused(arm_fixture* f, const tf_controller_config* cfg, const char* needle) {
  char err[256] = "";
  tf_controller* c = tf_controller_create(f->m, &f->arm, cfg, err, sizeof(err));
  assert_null(c);
  if (!strstr(err, needle)) print_message("message '%s' lacks '%s'\n", err, needle);
  assert_non_null(strstr(err, needle));
}

static void test_bad_config(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.002, NULL);
  tf_controller_config cfg;
  cfg = tf_controller_config_default(TF_CTRL_PD);
  cfg.decimation = 0;
  expect_refused(&f, &cfg, "decimation");
  cfg = tf_controller_config_default(TF_CTRL_PD);
  cfg.joint_kp[3] = -1;
  expect_refused(&f, &cfg, "joint_kp[3]");
  cfg = tf_controller_config_default(TF_CTRL_OSC);
  cfg.osc_kd[1] = NAN;
  expect_refused(&f, &cfg, "osc_kd[1]");
  cfg = tf_controller_config_default(TF_CTRL_IK);
  cfg.ik_damping = 0;
  expect_refused(&f, &cfg, "ik_damping");
  cfg = tf_controller_config_default(TF_CTRL_IK);
  cfg.ik_method = (tf_ik_method)9;
  expect_refused(&f, &cfg, "ik_method");
  cfg = tf_controller_config_default(TF_CTRL_IK);
  cfg.ik_length = 0;
  expect_refused(&f, &cfg, "ik_length");
  cfg = tf_controller_config_default(TF_CTRL_HYBRID);
  cfg.selection[4] = 0.5;
  expect_refused(&f, &cfg, "selection[4]");
  cfg = tf_controller_config_default(TF_CTRL_HYBRID);
  cfg.hybrid_motion = (tf_hybrid_motion)5;
  expect_refused(&f, &cfg, "hybrid_motion");
  cfg = tf_controller_config_default(TF_CTRL_FORCE);
  cfg.force_feedback = 2;
  expect_refused(&f, &cfg, "force_feedback");
  cfg = tf_controller_config_default(TF_CTRL_PD);
  cfg.gravity_compensation = -1;
  expect_refused(&f, &cfg, "gravity_compensation");
  cfg = tf_controller_config_default(TF_CTRL_PD);
  cfg.kind = (tf_controller_kind)42;
  expect_refused(&f, &cfg, "kind");
  // every default is accepted
  for (int k = 0; k < TF_CTRL_N; k++) {
    cfg = tf_controller_config_default((tf_controller_kind)k);
    tf_controller* c = arm_controller(&f, &cfg);
    tf_controller_destroy(c);
  }
  arm_fixture_free(&f);
}

static void test_bad_arm(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.002, NULL);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_PD);
  char err[256];
  tf_arm arm = f.arm;
  arm.actuator[2] = f.panda.finger_actuator[0];  // a servo on another joint
  assert_null(tf_controller_create(f.m, &arm, &cfg, err, sizeof(err)));
  assert_non_null(strstr(err, "actuator[2]"));
  arm = f.arm;
  arm.joint[6] = f.panda.finger_joint[0];  // does not move the hand
  assert_null(tf_controller_create(f.m, &arm, &cfg, err, sizeof(err)));
  assert_non_null(strstr(err, "does not move the TCP"));
  arm = f.arm;
  arm.njoint = 0;
  assert_null(tf_controller_create(f.m, &arm, &cfg, err, sizeof(err)));
  assert_non_null(strstr(err, "njoint"));
  arm = f.arm;
  arm.tcp_body = 999;
  assert_null(tf_controller_create(f.m, &arm, &cfg, err, sizeof(err)));
  assert_non_null(strstr(err, "tcp_body"));
  arm_fixture_free(&f);
}

static void test_names(void** state) {
  (void)state;
  for (int k = 0; k < TF_CTRL_N; k++) {
    const char* name = tf_controller_kind_name((tf_controller_kind)k);
    assert_int_equal(tf_controller_kind_from_name(name), k);
    assert_true(strlen(tf_controller_kind_description((tf_controller_kind)k)) > 0);
  }
  for (int k = 0; k < TF_IK_N; k++) {
    assert_int_equal(tf_ik_method_from_name(tf_ik_method_name((tf_ik_method)k)), k);
  }
  assert_int_equal(tf_controller_kind_from_name("osc"), TF_CTRL_OSC);
  assert_int_equal(tf_controller_kind_from_name("nope"), -1);
  assert_int_equal(tf_ik_method_from_name(NULL), -1);
}

// decimation 5: the torques change only on every fifth update and are held in between
static void test_decimation_holds(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.001, NULL);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_PD);
  cfg.decimation = 5;
  tf_controller* c = arm_controller(&f, &cfg);
  tf_panda_def def = tf_panda_def_default();
  arm_set_q(&f, def.qpos0);
  tf_controller_reset(c, f.m, f.d);
  double target[TF_PANDA_NJOINT];
  for (int k = 0; k < TF_PANDA_NJOINT; k++) target[k] = def.qpos0[k] + 0.2;
  char err[128];
  assert_int_equal(tf_controller_move_joints(c, f.m, f.d, target, 0.5, err, sizeof(err)), 0);
  double held[TF_PANDA_NJOINT];
  int changes = 0;
  for (int s = 0; s < 100; s++) {
    assert_int_equal(tf_controller_update(c, f.m, f.d), 0);
    int changed = 0;
    for (int k = 0; k < TF_PANDA_NJOINT; k++) {
      double ctrl = f.d->ctrl[f.panda.actuator[k]];
      if (s > 0 && ctrl != held[k]) changed = 1;
      held[k] = ctrl;
    }
    if (changed) {
      assert_int_equal(s % 5, 0);
      changes++;
    }
    assert_int_equal(tf_step(f.m, f.d), 0);
  }
  assert_true(changes >= 15);  // it does update at the control rate
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

// torques never leave the motors' ranges, and the controller writes only its own motors
static void test_torque_clamp(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.002, NULL);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_PD);
  for (int k = 0; k < TF_ARM_MAX_JOINTS; k++) cfg.joint_kp[k] = 1e5;
  tf_controller* c = arm_controller(&f, &cfg);
  tf_panda_def def = tf_panda_def_default();
  arm_set_q(&f, def.qpos0);
  tf_controller_reset(c, f.m, f.d);
  double far[TF_PANDA_NJOINT] = {2, 1, 2, -0.5, 2, 3, 2}, times[1] = {0};
  char err[128];
  assert_int_equal(tf_controller_set_keyframes(c, 1, times, far, err, sizeof(err)), 0);
  f.d->ctrl[f.panda.finger_actuator[0]] = 0.01;
  assert_int_equal(tf_controller_compute(c, f.m, f.d), 0);
  const tf_panda_params* p = tf_panda_params_get();
  for (int k = 0; k < TF_PANDA_NJOINT; k++) {
    assert_true(fabs(tf_controller_torque(c)[k]) <= p->tau_max[k]);
    assert_true(fabs(f.d->ctrl[f.panda.actuator[k]]) <= p->tau_max[k]);
  }
  assert_true(f.d->ctrl[f.panda.finger_actuator[0]] == 0.01);
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_config),   cmocka_unit_test(test_bad_arm),
      cmocka_unit_test(test_names),        cmocka_unit_test(test_decimation_holds),
      cmocka_unit_test(test_torque_clamp),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
