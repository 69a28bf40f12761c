// Force control of the TCP wrench (the two force controllers of the Factory paper):
//   open loop:    F = F_d
//   closed loop:  F = F_d + Kf (F_d - F_meas)       (P on the force error)
//   tau = J^T (F - D v) [+ g(q)] + N^T tau_posture
// F_meas is the wrench the robot exerts at the TCP, estimated from the external joint torques
// (constraint forces of the last step and user body wrenches) through (J J^T)^-1 J, as the
// real arm estimates it from its joint torque sensors. D damps the TCP's motion, which in free
// space would otherwise accelerate without bound under F_d.
#include "controller_internal.h"

int tf_ctrl_force(tf_controller* c, const tf_model* m, tf_data* d, double* tau) {
  (void)m, (void)d;
  double f[6];
  tf_ctrl_force_command(c, f);
  for (int k = 0; k < c->n; k++) tau[k] = c->cfg.gravity_compensation ? c->st.grav[k] : 0;
  tf_ctrl_add_jt(c, f, tau);
  tf_ctrl_add_null_torque(c, tau);
  return 0;
}
