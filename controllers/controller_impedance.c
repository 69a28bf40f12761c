// Task-space impedance (the law libfranka's Cartesian impedance example runs on the robot):
//   tau = J^T (K e - D v) [+ g(q)] + N^T tau_posture
// The TCP behaves as a spring K and damper D toward the target pose in world axes, its mass
// the arm's own: in a static push J^T (K e + F_ext) = 0, so K dx = F exactly where J has full
// row rank. The posture torque keeps the redundant joint from drifting.
#include "controller_internal.h"

int tf_ctrl_impedance(tf_controller* c, const tf_model* m, tf_data* d, double* tau) {
  (void)m, (void)d;
  const tf_arm_state* st = &c->st;
  double f[6];
  for (int r = 0; r < 6; r++)
    f[r] = c->cfg.task_kp[r] * st->error[r] - c->cfg.task_kd[r] * st->twist[r];
  for (int k = 0; k < c->n; k++) tau[k] = c->cfg.gravity_compensation ? st->grav[k] : 0;
  tf_ctrl_add_jt(c, f, tau);
  tf_ctrl_add_null_torque(c, tau);
  return 0;
}
