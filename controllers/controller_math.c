// Small dense algebra for the controllers (rotations are tf_math.h's): symmetric positive
// definite solves through LAPACK (the _work variants in column-major order, which allocate
// nothing, so an update stays free of malloc).
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "controller_internal.h"

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
