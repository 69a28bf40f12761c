// Small dense algebra for the controllers (rotations are tf_math.h's): symmetric positive
// definite solves through the engine's Cholesky (column-major, allocating nothing, so an
// update stays free of malloc) and the Jacobian's singular value decomposition.
#include <float.h>
#include <math.h>
#include <string.h>

#include "controller_internal.h"
#include "linalg_dense.h"

int tf_ctrl_spd_solve(int n, double* a, int nrhs, double* b) {
  if (tf_cholesky(n, a) != 0) return -1;
  tf_cholesky_solve(n, nrhs, a, b);
  return 0;
}

// One-sided Jacobi (Hestenes; Demmel and Veselic 1992): plane rotations G applied to the six
// columns of W = J^T until every pair is orthogonal to rounding. Then J^T G = W, so
// J = G diag(s) V^T with s_r = |w_r| and v_r = w_r / s_r: U is the accumulated G. Unlike the
// eigenvectors of J J^T, whose eigenvalues are the squares s_r^2, this keeps the small
// singular values to full relative accuracy, and those are the ones the damped step is for.
int tf_ctrl_svd6(double s[6], double u[36], double* v, const double* jac, int n) {
  for (int i = 0; i < 36; i++) u[i] = i % 7 == 0;
  // v's columns hold W's while it is rotated: v[k * 6 + r] is row k of column r
  for (int k = 0; k < n; k++) {
    for (int r = 0; r < 6; r++) v[k * 6 + r] = jac[r * n + k];
  }
  // orthogonal to within the rounding of an n-term dot product
  double tol = n * DBL_EPSILON;
  int converged = 0;
  for (int sweep = 0; sweep < 60 && !converged; sweep++) {
    converged = 1;
    for (int p = 0; p < 5; p++) {
      for (int q = p + 1; q < 6; q++) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int k = 0; k < n; k++) {
          double wp = v[k * 6 + p], wq = v[k * 6 + q];
          alpha += wp * wp;
          beta += wq * wq;
          gamma += wp * wq;
        }
        if (!(fabs(gamma) > tol * sqrt(alpha * beta))) continue;
        converged = 0;
        double zeta = (beta - alpha) / (2 * gamma);
        double t = (zeta >= 0 ? 1 : -1) / (fabs(zeta) + sqrt(1 + zeta * zeta));
        double c = 1 / sqrt(1 + t * t), sn = c * t;
        for (int k = 0; k < n; k++) {
          double wp = v[k * 6 + p], wq = v[k * 6 + q];
          v[k * 6 + p] = c * wp - sn * wq;
          v[k * 6 + q] = sn * wp + c * wq;
        }
        for (int k = 0; k < 6; k++) {
          double gp = u[k * 6 + p], gq = u[k * 6 + q];
          u[k * 6 + p] = c * gp - sn * gq;
          u[k * 6 + q] = sn * gp + c * gq;
        }
      }
    }
  }
  if (!converged) return -1;
  for (int r = 0; r < 6; r++) {
    double norm = 0;
    for (int k = 0; k < n; k++) norm += v[k * 6 + r] * v[k * 6 + r];
    norm = sqrt(norm);
    s[r] = norm;
    double inv = norm > 0 ? 1 / norm : 0;
    for (int k = 0; k < n; k++) v[k * 6 + r] *= inv;
  }
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
