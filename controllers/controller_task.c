// Task-space pieces shared by impedance, osc, force and hybrid control: J^T f, the posture
// torque and its null-space projections, the force command, and the task-space inertia.
//
// Null space (Khatib): a posture torque tau0 must not disturb the TCP. With the plain
// pseudoinverse J^+ = J^T (J J^T)^-1 the projection N^T = I - J^T (J^+)^T removes its static
// effect on the TCP wrench; the dynamically consistent Jbar = M^-1 J^T Lambda also removes
// its effect on the TCP's acceleration (J M^-1 N_dyn^T = 0), which osc needs to stay decoupled.
#include <string.h>

#include "controller_internal.h"

void tf_ctrl_add_jt(const tf_controller* c, const double f[6], double* tau) {
  int n = c->n;
  for (int k = 0; k < n; k++) {
    double s = 0;
    for (int r = 0; r < 6; r++) s += c->st.jac[r * n + k] * f[r];
    tau[k] += s;
  }
}

void tf_ctrl_posture_torque(const tf_controller* c, double* tau0) {
  for (int k = 0; k < c->n; k++) {
    tau0[k] = c->cfg.null_kp[k] * (c->posture[k] - c->st.q[k]) - c->cfg.null_kd[k] * c->st.qd[k];
  }
}

void tf_ctrl_add_null_torque(const tf_controller* c, double* tau) {
  int n = c->n;
  double tau0[NJ], f[6];
  tf_ctrl_posture_torque(c, tau0);
  // (J^+)^T tau0 = K tau0, K = (J J^T)^-1 J stored column-major
  for (int r = 0; r < 6; r++) {
    double s = 0;
    for (int k = 0; k < n; k++) s += c->st.pinv_k[6 * k + r] * tau0[k];
    f[r] = -s;
  }
  for (int k = 0; k < n; k++) tau[k] += tau0[k];
  tf_ctrl_add_jt(c, f, tau);
}

void tf_ctrl_force_command(const tf_controller* c, double f[6]) {
  for (int r = 0; r < 6; r++) {
    f[r] = c->wrench[r];
    if (c->cfg.force_feedback) f[r] += c->cfg.force_kp[r] * (c->wrench[r] - c->measured[r]);
    f[r] -= c->cfg.force_kd[r] * c->st.twist[r];
  }
}

int tf_ctrl_task_inertia(const tf_controller* c, double lambda[36]) {
  int n = c->n;
  const double* jac = c->st.jac;
  double jm[6 * NJ], a[36];  // J M^-1 (6 x n), then A = J M^-1 J^T
  for (int r = 0; r < 6; r++) {
    for (int k = 0; k < n; k++) {
      double s = 0;
      for (int i = 0; i < n; i++) s += jac[r * n + i] * c->st.minv[i * n + k];
      jm[r * n + k] = s;
    }
  }
  for (int attempt = 0; attempt < 2; attempt++) {
    double trace = 0;
    for (int r = 0; r < 6; r++) {
      for (int s = 0; s < 6; s++) {
        double v = 0;
        for (int k = 0; k < n; k++) v += jm[r * n + k] * jac[s * n + k];
        a[6 * r + s] = v;
      }
      trace += a[7 * r];
    }
    // near a singularity A loses rank; a tiny regularisation keeps Lambda finite
    if (attempt) {
      for (int r = 0; r < 6; r++) a[7 * r] += 1e-9 * trace / 6 + 1e-12;
    }
    memset(lambda, 0, sizeof(double) * 36);
    for (int r = 0; r < 6; r++) lambda[7 * r] = 1;
    if (tf_ctrl_spd_solve(6, a, 6, lambda) == 0) return 0;
  }
  return -1;
}

void tf_ctrl_add_dynamic_null_torque(const tf_controller* c, const double lambda[36], double* tau) {
  int n = c->n;
  double tau0[NJ], y[NJ], z[6], f[6];
  tf_ctrl_posture_torque(c, tau0);
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = 0; k < n; k++) s += c->st.minv[i * n + k] * tau0[k];
    y[i] = s;
  }
  for (int r = 0; r < 6; r++) {
    double s = 0;
    for (int k = 0; k < n; k++) s += c->st.jac[r * n + k] * y[k];
    z[r] = s;
  }
  for (int r = 0; r < 6; r++) {
    double s = 0;
    for (int q = 0; q < 6; q++) s += lambda[6 * r + q] * z[q];
    f[r] = -s;
  }
  for (int k = 0; k < n; k++) tau[k] += tau0[k];
  tf_ctrl_add_jt(c, f, tau);
}
