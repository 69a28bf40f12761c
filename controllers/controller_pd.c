// Joint PD on a min-jerk keyframe trajectory, optionally with gravity compensation:
//   tau = Kp (q_r - q) + Kd (qd_r - qd) [+ g(q)]
// Tracking the reference velocity as well as the position keeps the lag of a moving
// reference small; g(q) removes the steady error gravity would otherwise leave (g / Kp).
#include "controller_internal.h"

int tf_ctrl_pd(tf_controller* c, const tf_model* m, tf_data* d, double* tau) {
  (void)m;
  const tf_arm_state* st = &c->st;
  double q_r[NJ], qd_r[NJ];
  tf_controller_joint_reference(c, d->time, q_r, qd_r, NULL);
  for (int k = 0; k < c->n; k++) {
    tau[k] = c->cfg.joint_kp[k] * (q_r[k] - st->q[k]) + c->cfg.joint_kd[k] * (qd_r[k] - st->qd[k]);
    if (c->cfg.gravity_compensation) tau[k] += st->grav[k];
  }
  return 0;
}
