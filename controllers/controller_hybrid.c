// Hybrid force-motion control (Raibert and Craig 1981; Khatib 1987 for the osc form) with a
// diagonal selection matrix S in world axes (1 = motion, 0 = force):
//   impedance:  F = S (K e - D v) + (I - S) F_force,        tau = J^T F [+ g] + N^T tau_p
//   osc:        F = Lambda S a* + (I - S) F_force,          tau = J^T F + c + N_dyn^T tau_p
// F_force is the open- or closed-loop force command of controller_force.c. Typical use: push
// along the insertion axis with a set force while holding the other axes and the orientation.
#include "controller_internal.h"

int tf_ctrl_hybrid(tf_controller* c, const tf_model* m, tf_data* d, double* tau) {
  (void)m, (void)d;
  const tf_arm_state* st = &c->st;
  const double* sel = c->cfg.selection;
  double force[6], f[6];
  tf_ctrl_force_command(c, force);
  if (c->cfg.hybrid_motion == TF_HYBRID_OSC) {
    double lambda[36], a[6];
    if (tf_ctrl_task_inertia(c, lambda)) return -1;
    for (int r = 0; r < 6; r++) {
      a[r] = sel[r] *
             (c->cfg.osc_kp[r] * st->error[r] - c->cfg.osc_kd[r] * st->twist[r] - st->jdot_qd[r]);
    }
    for (int r = 0; r < 6; r++) {
      double s = 0;
      for (int q = 0; q < 6; q++) s += lambda[6 * r + q] * a[q];
      f[r] = s + (1 - sel[r]) * force[r];
    }
    for (int k = 0; k < c->n; k++) tau[k] = st->bias[k];
    tf_ctrl_add_jt(c, f, tau);
    tf_ctrl_add_dynamic_null_torque(c, lambda, tau);
    return 0;
  }
  for (int r = 0; r < 6; r++) {
    double motion = c->cfg.task_kp[r] * st->error[r] - c->cfg.task_kd[r] * st->twist[r];
    f[r] = sel[r] * motion + (1 - sel[r]) * force[r];
  }
  for (int k = 0; k < c->n; k++) tau[k] = c->cfg.gravity_compensation ? st->grav[k] : 0;
  tf_ctrl_add_jt(c, f, tau);
  tf_ctrl_add_null_torque(c, tau);
  return 0;
}
