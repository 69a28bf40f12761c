// Joint-space inverse dynamics (computed torque) on the keyframe trajectory:
//   qdd* = qdd_r + Kp (q_r - q) + Kd (qd_r - qd),   tau = M qdd* + c(q, qd)
// With M and c from the same model the arm behaves as n decoupled unit-mass spring-dampers
// (natural frequency sqrt(Kp), damping ratio Kd / (2 sqrt(Kp))), whatever its pose. M is the
// arm block: the gripper's fingers, light and driven by their own servos, are taken at rest.
#include "controller_internal.h"

int tf_ctrl_id(tf_controller* c, const tf_model* m, tf_data* d, double* tau) {
  (void)m;
  const tf_arm_state* st = &c->st;
  int n = c->n;
  double q_r[NJ], qd_r[NJ], qdd_r[NJ], acc[NJ];
  tf_controller_joint_reference(c, d->time, q_r, qd_r, qdd_r);
  for (int k = 0; k < n; k++) {
    acc[k] = qdd_r[k] + c->cfg.id_kp * (q_r[k] - st->q[k]) + c->cfg.id_kd * (qd_r[k] - st->qd[k]);
  }
  for (int i = 0; i < n; i++) {
    double s = st->bias[i];
    for (int k = 0; k < n; k++) s += st->mass[i * n + k] * acc[k];
    tau[i] = s;
  }
  return 0;
}
