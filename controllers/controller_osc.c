// Operational-space control (Khatib 1987):
//   a* = Kp e - Kd v - Jdot qd,   F = Lambda a*,   Lambda = (J M^-1 J^T)^-1
//   tau = J^T F + c(q, qd) + N_dyn^T tau_posture,  N_dyn^T = I - J^T Lambda J M^-1
// With the model's own M and c the TCP obeys e'' + Kd e' + Kp e = 0 on each axis separately:
// a step along x leaves y and z (and the orientation) still, unlike impedance control, whose
// TCP mass couples the axes. The posture acts only in the dynamically consistent null space.
#include "controller_internal.h"

int tf_ctrl_osc(tf_controller* c, const tf_model* m, tf_data* d, double* tau) {
  (void)m, (void)d;
  const tf_arm_state* st = &c->st;
  double lambda[36], a[6], f[6];
  if (tf_ctrl_task_inertia(c, lambda)) return -1;
  for (int r = 0; r < 6; r++) {
    a[r] = c->cfg.osc_kp[r] * st->error[r] - c->cfg.osc_kd[r] * st->twist[r] - st->jdot_qd[r];
  }
  for (int r = 0; r < 6; r++) {
    double s = 0;
    for (int q = 0; q < 6; q++) s += lambda[6 * r + q] * a[q];
    f[r] = s;
  }
  for (int k = 0; k < c->n; k++) tau[k] = st->bias[k];
  tf_ctrl_add_jt(c, f, tau);
  tf_ctrl_add_dynamic_null_torque(c, lambda, tau);
  return 0;
}
