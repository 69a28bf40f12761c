// Dense Cholesky, LU and 3 x 3 symmetric eigen-decomposition (see linalg_dense.h for why
// they are written out). Column-major; each inner loop runs down a column, so it is
// contiguous and the compiler vectorises it without changing the order of any sum.
#include "linalg_dense.h"

#include <math.h>
#include <stddef.h>

// element (i, j) of a column-major n x n matrix
#define AT(a, n, i, j) ((a)[(size_t)(j) * (size_t)(n) + (size_t)(i)])

// left-looking by columns: column j takes the updates of every column k < j, then its pivot
int tf_cholesky(int n, double* a) {
  for (int j = 0; j < n; j++) {
    double* cj = &AT(a, n, 0, j);
    for (int k = 0; k < j; k++) {
      const double* ck = &AT(a, n, 0, k);
      double ljk = ck[j];
      if (ljk == 0) continue;
      for (int i = j; i < n; i++) cj[i] -= ck[i] * ljk;
    }
    double d = cj[j];
    if (!(d > 0)) return j + 1;
    d = sqrt(d);
    cj[j] = d;
    double inv = 1 / d;
    for (int i = j + 1; i < n; i++) cj[i] *= inv;
  }
  return 0;
}

void tf_lower_solve(int n, const double* l, double* x) {
  for (int j = 0; j < n; j++) {
    const double* cj = &AT(l, n, 0, j);
    double xj = x[j] / cj[j];
    x[j] = xj;
    if (xj == 0) continue;
    for (int i = j + 1; i < n; i++) x[i] -= cj[i] * xj;
  }
}

// x <- L^-T x: each unknown is a dot product down its column of L
static void lower_transpose_solve(int n, const double* l, double* x) {
  for (int j = n - 1; j >= 0; j--) {
    const double* cj = &AT(l, n, 0, j);
    double s = x[j];
    for (int i = j + 1; i < n; i++) s -= cj[i] * x[i];
    x[j] = s / cj[j];
  }
}

void tf_cholesky_solve(int n, int nrhs, const double* l, double* b) {
  for (int c = 0; c < nrhs; c++) {
    double* x = b + (size_t)c * (size_t)n;
    tf_lower_solve(n, l, x);
    lower_transpose_solve(n, l, x);
  }
}

// right-looking: pick the largest pivot of column k (the first, on ties), swap its row in,
// scale the multipliers, and update the trailing block column by column
int tf_lu(int n, double* a, int* piv) {
  int info = 0;
  for (int k = 0; k < n; k++) {
    double* ck = &AT(a, n, 0, k);
    int p = k;
    double best = fabs(ck[k]);
    for (int i = k + 1; i < n; i++) {
      double v = fabs(ck[i]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    piv[k] = p;
    if (p != k) {
      for (int j = 0; j < n; j++) {
        double t = AT(a, n, k, j);
        AT(a, n, k, j) = AT(a, n, p, j);
        AT(a, n, p, j) = t;
      }
    }
    double pivot = ck[k];
    if (pivot == 0) {
      if (!info) info = k + 1;
      continue;
    }
    double inv = 1 / pivot;
    for (int i = k + 1; i < n; i++) ck[i] *= inv;
    for (int j = k + 1; j < n; j++) {
      double* cj = &AT(a, n, 0, j);
      double ukj = cj[k];
      if (ukj == 0) continue;
      for (int i = k + 1; i < n; i++) cj[i] -= ck[i] * ukj;
    }
  }
  return info;
}

void tf_lu_solve(int n, const double* lu, const int* piv, double* b) {
  for (int k = 0; k < n; k++) {
    int p = piv[k];
    if (p != k) {
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
  }
  // L y = P b (unit diagonal), column by column
  for (int j = 0; j < n; j++) {
    const double* cj = &AT(lu, n, 0, j);
    double yj = b[j];
    if (yj == 0) continue;
    for (int i = j + 1; i < n; i++) b[i] -= cj[i] * yj;
  }
  // U x = y, column by column from the last
  for (int j = n - 1; j >= 0; j--) {
    const double* cj = &AT(lu, n, 0, j);
    double xj = b[j] / cj[j];
    b[j] = xj;
    if (xj == 0) continue;
    for (int i = 0; i < j; i++) b[i] -= cj[i] * xj;
  }
}

// one Jacobi rotation in the (p, q) plane that zeroes a[p][q] (Golub and Van Loan,
// "Matrix Computations", sym.schur2), applied to a (row-major, symmetric) and accumulated
// into v's columns
static void jacobi_rotate(double a[9], double v[9], int p, int q) {
  double apq = a[3 * p + q];
  if (apq == 0) return;
  double tau = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
  double t = (tau >= 0 ? 1 : -1) / (fabs(tau) + sqrt(1 + tau * tau));
  double c = 1 / sqrt(1 + t * t), s = t * c;
  for (int k = 0; k < 3; k++) {
    double akp = a[3 * k + p], akq = a[3 * k + q];
    a[3 * k + p] = c * akp - s * akq;
    a[3 * k + q] = s * akp + c * akq;
  }
  for (int k = 0; k < 3; k++) {
    double apk = a[3 * p + k], aqk = a[3 * q + k];
    a[3 * p + k] = c * apk - s * aqk;
    a[3 * q + k] = s * apk + c * aqk;
  }
  a[3 * p + q] = a[3 * q + p] = 0;
  for (int k = 0; k < 3; k++) {
    double vkp = v[3 * k + p], vkq = v[3 * k + q];
    v[3 * k + p] = c * vkp - s * vkq;
    v[3 * k + q] = s * vkp + c * vkq;
  }
}

int tf_sym3_eigen(double w[3], double v[9], const double a_in[9]) {
  double a[9];
  for (int i = 0; i < 9; i++) {
    if (!isfinite(a_in[i])) return -1;
    a[i] = a_in[i];
  }
  for (int i = 0; i < 9; i++) v[i] = i % 4 == 0;
  // quadratic convergence: a handful of sweeps reach the rounding floor; 50 bounds a pathology
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    double diag = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
    if (off <= 1e-36 * diag || off == 0) break;
    jacobi_rotate(a, v, 0, 1);
    jacobi_rotate(a, v, 0, 2);
    jacobi_rotate(a, v, 1, 2);
  }
  int order[3] = {0, 1, 2};
  for (int i = 0; i < 3; i++) {
    for (int j = i + 1; j < 3; j++) {
      if (a[4 * order[j]] < a[4 * order[i]]) {
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
  }
  double vs[9];
  for (int i = 0; i < 9; i++) vs[i] = v[i];
  for (int c = 0; c < 3; c++) {
    w[c] = a[4 * order[c]];
    for (int r = 0; r < 3; r++) v[3 * r + c] = vs[3 * r + order[c]];
  }
  return 0;
}
