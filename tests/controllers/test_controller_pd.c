// Joint PD with min-jerk keyframes and gravity compensation: gravity compensation alone
// (zero gains) holds an outstretched pose with under 0.1 mm of TCP drift over 5 s, and so
// does the PD with a decimated (held) command; the min-jerk blend has its textbook values;
// a keyframe trajectory is followed and its keyframes reached.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "arm_fixture.h"

// joint 2 and 4 opened up: the arm reaches forward, gravity loads joints 2 and 4 heavily
static const double outstretched[TF_PANDA_NJOINT] = {0.3, 0.4, -0.2, -1.2, 0.3, 1.8, 0.5};

// holds `outstretched` for 5 s with cfg; returns the largest TCP drift (m)
static double hold_drift(const tf_controller_config* cfg, double dt) {
  arm_fixture f;
  arm_fixture_init(&f, dt, NULL);
  tf_controller* c = arm_controller(&f, cfg);
  arm_set_q(&f, outstretched);
  tf_controller_reset(c, f.m, f.d);
  double start[3], quat[4], pos[3], drift = 0;
  arm_tcp(&f, start, quat);
  int steps = (int)lround(5.0 / dt);
  for (int s = 0; s < steps; s++) {
    arm_run(&f, c, 1);
    arm_tcp(&f, pos, quat);
    drift = fmax(drift, dist3(pos, start));
  }
  // the gravity torques are far from zero: the hold is not trivial
  double largest = 0;
  for (int k = 0; k < TF_PANDA_NJOINT; k++)
    largest = fmax(largest, fabs(tf_controller_torque(c)[k]));
  assert_true(largest > 10);
  tf_controller_destroy(c);
  arm_fixture_free(&f);
  return drift;
}

static void test_gravity_compensation_alone(void** state) {
  (void)state;
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_PD);
  for (int k = 0; k < TF_ARM_MAX_JOINTS; k++) cfg.joint_kp[k] = cfg.joint_kd[k] = 0;
  double drift = hold_drift(&cfg, 0.001);
  print_message("gravity compensation alone: TCP drift %.3g mm over 5 s (dt 1 ms)\n", drift * 1e3);
  assert_true(drift < 1e-4);
}

static void test_gravity_compensation_pd_decimated(void** state) {
  (void)state;
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_PD);
  cfg.decimation = 4;  // 250 Hz control over 1 kHz physics
  double drift = hold_drift(&cfg, 0.001);
  print_message("pd + gravity compensation at 250 Hz: TCP drift %.3g mm over 5 s\n", drift * 1e3);
  assert_true(drift < 1e-4);
}

// without gravity compensation the same PD sags by g / Kp: the compensation is doing the work
static void test_without_compensation_sags(void** state) {
  (void)state;
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_PD);
  cfg.gravity_compensation = 0;
  arm_fixture f;
  arm_fixture_init(&f, 0.002, NULL);
  tf_controller* c = arm_controller(&f, &cfg);
  arm_set_q(&f, outstretched);
  tf_controller_reset(c, f.m, f.d);
  double start[3], pos[3], quat[4];
  arm_tcp(&f, start, quat);
  arm_run(&f, c, 1000);
  arm_tcp(&f, pos, quat);
  print_message("pd without gravity compensation sags %.3g mm\n", dist3(pos, start) * 1e3);
  assert_true(dist3(pos, start) > 5e-3);
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

static void test_min_jerk(void** state) {
  (void)state;
  double s, ds, dds;
  tf_min_jerk(0, &s, &ds, &dds);
  assert_true(s == 0 && ds == 0 && dds == 0);
  tf_min_jerk(1, &s, &ds, &dds);
  assert_true(fabs(s - 1) < 1e-15 && fabs(ds) < 1e-15 && fabs(dds) < 1e-12);
  tf_min_jerk(0.5, &s, &ds, &dds);
  assert_true(fabs(s - 0.5) < 1e-15 && fabs(ds - 1.875) < 1e-12 && fabs(dds) < 1e-12);
  tf_min_jerk(2, &s, NULL, NULL);  // clamped
  assert_true(s == 1);
  // the derivative matches a finite difference
  double a, b;
  tf_min_jerk(0.3 - 1e-6, &a, NULL, NULL);
  tf_min_jerk(0.3 + 1e-6, &b, NULL, NULL);
  tf_min_jerk(0.3, NULL, &ds, NULL);
  assert_true(fabs((b - a) / 2e-6 - ds) < 1e-6);
}

// three keyframes a second apart: the arm passes through each and settles on the last
static void test_keyframes(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.002, NULL);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_PD);
  tf_controller* c = arm_controller(&f, &cfg);
  tf_panda_def def = tf_panda_def_default();
  arm_set_q(&f, def.qpos0);
  tf_controller_reset(c, f.m, f.d);
  double keys[3 * TF_PANDA_NJOINT], times[3] = {0, 1, 2};
  for (int k = 0; k < TF_PANDA_NJOINT; k++) {
    keys[k] = def.qpos0[k];
    keys[TF_PANDA_NJOINT + k] = outstretched[k];
    keys[2 * TF_PANDA_NJOINT + k] = 0.5 * (def.qpos0[k] + outstretched[k]) + 0.1;
  }
  char err[128];
  assert_int_equal(tf_controller_set_keyframes(c, 3, times, keys, err, sizeof(err)), 0);
  double ref[TF_PANDA_NJOINT], q[TF_PANDA_NJOINT], worst_track = 0;
  for (int s = 0; s < 1750; s++) {  // 3.5 s
    arm_run(&f, c, 1);
    tf_controller_joint_reference(c, f.d->time, ref, NULL, NULL);
    arm_get_q(&f, q);
    for (int k = 0; k < TF_PANDA_NJOINT; k++) worst_track = fmax(worst_track, fabs(q[k] - ref[k]));
  }
  double final = 0;
  for (int k = 0; k < TF_PANDA_NJOINT; k++) {
    final = fmax(final, fabs(q[k] - keys[2 * TF_PANDA_NJOINT + k]));
  }
  print_message("pd keyframes: worst tracking error %.3g rad, final %.3g rad\n", worst_track,
                final);
  assert_true(worst_track < 0.03);
  assert_true(final < 1e-4);
  // bad keyframes are refused
  double bad_times[2] = {1, 1};
  assert_int_equal(tf_controller_set_keyframes(c, 2, bad_times, keys, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "increasing"));
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gravity_compensation_alone),
      cmocka_unit_test(test_gravity_compensation_pd_decimated),
      cmocka_unit_test(test_without_compensation_sags),
      cmocka_unit_test(test_min_jerk),
      cmocka_unit_test(test_keyframes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
