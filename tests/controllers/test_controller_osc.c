// Operational-space control: a step of the target along x moves the TCP along x only (y and z
// by under 5 % of the step), reaches the target as the configured spring-damper does, and
// keeps the orientation; impedance control on the same step is shown for contrast.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "arm_fixture.h"

#define STEP 0.05  // m along x

typedef struct step_result {
  double cross;      // largest |dy|, |dz| during the motion (m)
  double final_err;  // |x - target| at the end (m)
  double turned;     // largest orientation change (rad)
  double x_at_02;    // progress along x at 0.2 s (m)
} step_result;

static step_result step_response(tf_controller_kind kind, double dt) {
  arm_fixture f;
  arm_fixture_init(&f, dt, NULL);
  tf_controller_config cfg = tf_controller_config_default(kind);
  tf_controller* c = arm_controller(&f, &cfg);
  tf_panda_def def = tf_panda_def_default();
  arm_set_q(&f, def.qpos0);
  tf_controller_reset(c, f.m, f.d);
  double start[3], quat0[4], pos[3], quat[4], target[3];
  arm_tcp(&f, start, quat0);
  target[0] = start[0] + STEP, target[1] = start[1], target[2] = start[2];
  tf_controller_set_pose(c, target, quat0);
  step_result r = {0, 0, 0, 0};
  int steps = (int)lround(2.0 / dt);
  for (int s = 1; s <= steps; s++) {
    arm_run(&f, c, 1);
    arm_tcp(&f, pos, quat);
    r.cross = fmax(r.cross, fmax(fabs(pos[1] - start[1]), fabs(pos[2] - start[2])));
    r.turned = fmax(r.turned, quat_angle(quat, quat0));
    if (s == (int)lround(0.2 / dt)) r.x_at_02 = pos[0] - start[0];
  }
  r.final_err = fabs(pos[0] - target[0]);
  tf_controller_destroy(c);
  arm_fixture_free(&f);
  return r;
}

static void test_osc_step_decoupled(void** state) {
  (void)state;
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_OSC);
  double dts[2] = {0.001, 0.002};
  for (int i = 0; i < 2; i++) {
    step_result osc = step_response(TF_CTRL_OSC, dts[i]);
    step_result imp = step_response(TF_CTRL_IMPEDANCE, dts[i]);
    // critically damped unit mass: x(t) / step = 1 - (1 + w t) exp(-w t)
    double w = sqrt(cfg.osc_kp[0]), t = 0.2;
    double ideal = STEP * (1 - (1 + w * t) * exp(-w * t));
    print_message(
        "dt %g ms, 5 cm step along x: osc moves y/z by %.3g %% of the step (impedance "
        "%.3g %%), turns %.3g deg, x at 0.2 s %.2f mm (spring-damper %.2f mm), final "
        "error %.3g mm\n",
        dts[i] * 1e3, 100 * osc.cross / STEP, 100 * imp.cross / STEP, osc.turned * 180 / M_PI,
        osc.x_at_02 * 1e3, ideal * 1e3, osc.final_err * 1e3);
    assert_true(osc.cross < 0.05 * STEP);
    assert_true(osc.final_err < 1e-4);
    assert_true(fabs(osc.x_at_02 - ideal) < 0.05 * STEP);
    assert_true(osc.turned < 0.01);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_osc_step_decoupled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
