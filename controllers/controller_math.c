// Small dense algebra for the controllers: quaternions, the orientation error, and symmetric
// positive definite solves through LAPACK (the _work variants in column-major order, which
// allocate nothing, so an update stays free of malloc).
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "controller_internal.h"

void tf_ctrl_quat_mul(double out[4], const double a[4], const double b[4]) {
  double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                 a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                 a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  memcpy(out, r, sizeof(r));
}

void tf_ctrl_quat_rotate(double out[3], const double q[4], const double v[3]) {
  // v + 2 w (u x v) + 2 u x (u x v), u the vector part
  const double* u = q + 1;
  double t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
                 2 * (u[0] * v[1] - u[1] * v[0])};
  double r[3] = {v[0] + q[0] * t[0] + (u[1] * t[2] - u[2] * t[1]),
                 v[1] + q[0] * t[1] + (u[2] * t[0] - u[0] * t[2]),
                 v[2] + q[0] * t[2] + (u[0] * t[1] - u[1] * t[0])};
  memcpy(out, r, sizeof(r));
}

void tf_ctrl_rotation_error(double out[3], const double to[4], const double from[4]) {
  double inv[4] = {from[0], -from[1], -from[2], -from[3]}, rel[4];
  tf_ctrl_quat_mul(rel, to, inv);
  double n = sqrt(rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2] + rel[3] * rel[3]);
  if (n > 0) {
    for (int k = 0; k < 4; k++) rel[k] /= n;
  }
  // q and -q are the same rotation: take w >= 0 for the angle in [0, pi]
  if (rel[0] < 0) {
    for (int k = 0; k < 4; k++) rel[k] = -rel[k];
  }
  double s = sqrt(rel[1] * rel[1] + rel[2] * rel[2] + rel[3] * rel[3]);
  // angle / sin(angle / 2) without cancellation near zero: 2 atan2(s, w) / s
  double scale = s > 1e-12 ? 2 * atan2(s, rel[0]) / s : 2 / (rel[0] > 0 ? rel[0] : 1);
  for (int k = 0; k < 3; k++) out[k] = scale * rel[1 + k];
}

int tf_ctrl_spd_solve(int n, double* a, int nrhs, double* b) {
  if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, n) != 0) return -1;
  if (LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, a, n, b, n) != 0) return -1;
  return 0;
}

void tf_ctrl_jjt(double out[36], const double* jac, int n, double damping) {
  for (int r = 0; r < 6; r++) {
    for (int c = r; c < 6; c++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += jac[r * n + k] * jac[c * n + k];
      out[6 * r + c] = out[6 * c + r] = s;
    }
    out[7 * r] += damping;
  }
}
