// Task-space impedance: a static push on the TCP (an external force through d->xfrc_applied)
// moves it by F / K along the push, within 2 %, for each axis with its own stiffness, and a
// pure torque turns it by T / K_rot; the target pose is tracked without a push.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "arm_fixture.h"

// applies wrench (force, torque) at the TCP point as the com wrench of the TCP body
static void push_tcp(arm_fixture* f, const double force[3], const double torque[3]) {
  double pos[3], quat[4];
  arm_tcp(f, pos, quat);
  int b = f->arm.tcp_body;
  const double* com = f->d->xipos + 3 * b;
  double r[3] = {pos[0] - com[0], pos[1] - com[1], pos[2] - com[2]};
  double* w = f->d->xfrc_applied + 6 * b;
  w[0] = force[0], w[1] = force[1], w[2] = force[2];
  w[3] = torque[0] + r[1] * force[2] - r[2] * force[1];
  w[4] = torque[1] + r[2] * force[0] - r[0] * force[2];
  w[5] = torque[2] + r[0] * force[1] - r[1] * force[0];
}

static void test_static_push(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.002, NULL);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_IMPEDANCE);
  const double stiffness[3] = {800, 1200, 1600};  // N / m, a different one per axis
  for (int k = 0; k < 3; k++) cfg.task_kp[k] = stiffness[k];
  tf_controller* c = arm_controller(&f, &cfg);
  tf_panda_def def = tf_panda_def_default();
  for (int axis = 0; axis < 3; axis++) {
    arm_set_q(&f, def.qpos0);
    tf_controller_reset(c, f.m, f.d);
    double start[3], quat0[4], pos[3], quat[4];
    arm_tcp(&f, start, quat0);
    double force[3] = {0, 0, 0}, torque[3] = {0, 0, 0};
    force[axis] = 12;                 // N
    for (int s = 0; s < 1500; s++) {  // 3 s: the push follows the TCP as it moves
      push_tcp(&f, force, torque);
      arm_run(&f, c, 1);
    }
    arm_tcp(&f, pos, quat);
    double moved = pos[axis] - start[axis], expected = force[axis] / stiffness[axis];
    double off_axis = 0;
    for (int k = 0; k < 3; k++) {
      if (k != axis) off_axis = fmax(off_axis, fabs(pos[k] - start[k]));
    }
    print_message(
        "impedance push %.0f N along %c: moved %.4f mm, F / K = %.4f mm (%.3f %%), "
        "off-axis %.3g mm, turned %.3g deg\n",
        force[axis], "xyz"[axis], moved * 1e3, expected * 1e3, 100 * (moved - expected) / expected,
        off_axis * 1e3, quat_angle(quat, quat0) * 180 / M_PI);
    assert_true(fabs(moved - expected) < 0.02 * expected);
    assert_true(off_axis < 0.02 * expected);
  }
  // a pure torque about z: the TCP turns by T / K_rot
  arm_set_q(&f, def.qpos0);
  tf_controller_reset(c, f.m, f.d);
  double start[3], quat0[4], pos[3], quat[4], force[3] = {0, 0, 0}, torque[3] = {0, 0, 1.2};
  arm_tcp(&f, start, quat0);
  for (int s = 0; s < 1500; s++) {
    push_tcp(&f, force, torque);
    arm_run(&f, c, 1);
  }
  arm_tcp(&f, pos, quat);
  double turned = quat_angle(quat, quat0), expected = torque[2] / cfg.task_kp[5];
  print_message("impedance torque 1.2 N m about z: turned %.4f rad, T / K = %.4f rad\n", turned,
                expected);
  assert_true(fabs(turned - expected) < 0.02 * expected);
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

// without a push the TCP goes to a new target pose
static void test_tracks_target(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.002, NULL);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_IMPEDANCE);
  tf_controller* c = arm_controller(&f, &cfg);
  tf_panda_def def = tf_panda_def_default();
  arm_set_q(&f, def.qpos0);
  tf_controller_reset(c, f.m, f.d);
  double pos[3], quat[4], target[3];
  arm_tcp(&f, pos, quat);
  target[0] = pos[0] + 0.05, target[1] = pos[1] - 0.04, target[2] = pos[2] + 0.03;
  tf_controller_set_pose(c, target, quat);
  arm_run(&f, c, 1500);
  double now[3], nq[4];
  arm_tcp(&f, now, nq);
  print_message("impedance to a target 7 cm away: %.3g mm, %.3g deg off after 3 s\n",
                dist3(now, target) * 1e3, quat_angle(nq, quat) * 180 / M_PI);
  assert_true(dist3(now, target) < 1e-3);
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_static_push),
      cmocka_unit_test(test_tracks_target),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
