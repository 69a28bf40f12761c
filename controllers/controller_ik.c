// Differential inverse kinematics into a joint PD (the Factory paper's IK controller):
//   e  = [p_target - p; log(R_target R^T)], each part clipped to a largest norm
//   dq = J# e + (I - J^+ J) k0 (q_posture - q),   q_r = clamp(q + dq, joint range)
//   tau = Kp (q_r - q) - Kd qd [+ g(q)]
// J# is one of (Buss, "Introduction to Inverse Kinematics with Jacobian Transpose,
// Pseudoinverse and Damped Least Squares methods", 2004; Chiaverini 1997 for the adaptive
// damping):
//   pinv       J^T (J J^T)^-1                       exact, blows up near singularities
//   transpose  alpha J^T, alpha = <e, J J^T e> / |J J^T e|^2  (the best step along J^T e)
//   dls        J^T (J J^T + lambda^2 I)^-1         bounded near singularities, slightly slow
//   svd        V diag(s_i / (s_i^2 + lambda_i^2)) U^T, lambda_i^2 = lambda^2 (1 - (s_i/eps)^2)
//              for s_i < eps, 0 above: exact away from singularities, damped only near them
// Clipping the error bounds the first steps toward a far target (the PD then moves at about
// Kp / Kd times the clipped step per second); the joint range clamp keeps the PD from pushing
// into the limits.
#include <math.h>
#include <string.h>

#include "controller_internal.h"

// dq = J^T y for J (6 x n, row-major)
static void jt_mul(const double* jac, int n, const double y[6], double* dq) {
  for (int k = 0; k < n; k++) {
    double s = 0;
    for (int r = 0; r < 6; r++) s += jac[r * n + k] * y[r];
    dq[k] = s;
  }
}

// dq = J^T (J J^T + damping I)^-1 e; a singular J J^T gets a tiny extra damping
static int damped_step(int n, const double* jac, const double e[6], double damping, double* dq) {
  double a[36], y[6];
  for (int attempt = 0; attempt < 2; attempt++) {
    tf_ctrl_jjt(a, jac, n, damping);
    if (attempt) {
      double trace = 0;
      for (int r = 0; r < 6; r++) trace += a[7 * r];
      for (int r = 0; r < 6; r++) a[7 * r] += 1e-9 * trace / 6 + 1e-12;
    }
    memcpy(y, e, sizeof(y));
    if (tf_ctrl_spd_solve(6, a, 1, y) == 0) {
      jt_mul(jac, n, y, dq);
      return 0;
    }
  }
  return -1;
}

// the best step along J^T e: alpha minimises |e - alpha J J^T e| (Buss)
static int transpose_step(int n, const double* jac, const double e[6], double* dq) {
  double num = 0, den = 0;
  jt_mul(jac, n, e, dq);
  for (int r = 0; r < 6; r++) {
    double s = 0;
    for (int k = 0; k < n; k++) s += jac[r * n + k] * dq[k];
    num += e[r] * s;
    den += s * s;
  }
  double alpha = den > 0 ? num / den : 0;
  for (int k = 0; k < n; k++) dq[k] *= alpha;
  return 0;
}

static int svd_step(tf_controller* c, const double* jac, const double e[6], double* dq) {
  int n = c->n;
  double s[6], u[36], v[6 * NJ];
  if (tf_ctrl_svd6(s, u, v, jac, n) != 0) return -1;
  double lambda2 = c->cfg.ik_damping * c->cfg.ik_damping, eps = c->cfg.ik_svd_threshold;
  memset(dq, 0, sizeof(double) * (size_t)n);
  for (int i = 0; i < 6; i++) {
    double ratio = s[i] / eps;
    double damp = s[i] < eps ? lambda2 * (1 - ratio * ratio) : 0;
    double denom = s[i] * s[i] + damp;
    if (!(denom > 0)) continue;
    double ue = 0;
    for (int r = 0; r < 6; r++) ue += u[6 * r + i] * e[r];
    double gain = s[i] / denom * ue;
    for (int k = 0; k < n; k++) dq[k] += gain * v[6 * k + i];
  }
  return 0;
}

int tf_ctrl_ik_step(tf_controller* c, const double e[6], double* dq) {
  // position rows in units of ik_length: a rotation of 1 rad weighs as much as moving by it
  int n = c->n;
  double jac[6 * NJ], ew[6];
  for (int r = 0; r < 6; r++) {
    double w = r < 3 ? 1 / c->cfg.ik_length : 1;
    ew[r] = w * e[r];
    for (int k = 0; k < n; k++) jac[r * n + k] = w * c->st.jac[r * n + k];
  }
  switch (c->cfg.ik_method) {
    case TF_IK_PINV:
      return damped_step(n, jac, ew, 0, dq);
    case TF_IK_TRANSPOSE:
      return transpose_step(n, jac, ew, dq);
    case TF_IK_DLS:
      return damped_step(n, jac, ew, c->cfg.ik_damping * c->cfg.ik_damping, dq);
    case TF_IK_SVD:
      return svd_step(c, jac, ew, dq);
    default:
      return -1;
  }
}

// scales v (3) down to at most limit in norm
static void clip_norm(double v[3], double limit) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n > limit) {
    for (int k = 0; k < 3; k++) v[k] *= limit / n;
  }
}

int tf_ctrl_ik(tf_controller* c, const tf_model* m, tf_data* d, double* tau) {
  (void)m, (void)d;
  const tf_arm_state* st = &c->st;
  int n = c->n;
  double e[6], dq[NJ], x[NJ], jx[6];
  memcpy(e, st->error, sizeof(e));
  clip_norm(e, c->cfg.ik_max_pos_error);
  clip_norm(e + 3, c->cfg.ik_max_rot_error);
  if (tf_ctrl_ik_step(c, e, dq)) return -1;
  for (int k = 0; k < n; k++) dq[k] *= c->cfg.ik_gain;
  if (c->cfg.ik_null_gain > 0) {
    // (I - J^+ J) x with J^+ = K^T
    for (int k = 0; k < n; k++) x[k] = c->cfg.ik_null_gain * (c->posture[k] - st->q[k]);
    for (int r = 0; r < 6; r++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += st->jac[r * n + k] * x[k];
      jx[r] = s;
    }
    for (int k = 0; k < n; k++) {
      double s = 0;
      for (int r = 0; r < 6; r++) s += st->pinv_k[6 * k + r] * jx[r];
      dq[k] += x[k] - s;
    }
  }
  for (int k = 0; k < n; k++) {
    double q_r = st->q[k] + dq[k];
    if (c->limited[k]) q_r = fmin(fmax(q_r, c->q_lo[k]), c->q_hi[k]);
    tau[k] = c->cfg.joint_kp[k] * (q_r - st->q[k]) - c->cfg.joint_kd[k] * st->qd[k];
    if (c->cfg.gravity_compensation) tau[k] += st->grav[k];
  }
  return 0;
}
