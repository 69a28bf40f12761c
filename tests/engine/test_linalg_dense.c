// The engine's dense algebra (engine/linalg_dense.c) against answers known in closed form:
// a Cholesky factor worked by hand, solves whose residual must be at rounding level on
// matrices of the engine's sizes, the pivot a factorisation stops at, LU with the pivoting
// that a zero diagonal forces, and the eigen-decomposition of a rotated diagonal inertia.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "linalg_dense.h"
#include "tf_math.h"

enum { NMAX = 64 };

// a reproducible value in [-1, 1) (a 64-bit LCG; the test needs no better randomness)
static double next_value(uint64_t* s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / 4503599627370496.0 - 1;
}

// column-major SPD matrix B B^T + n I
static void make_spd(int n, double* a, uint64_t seed) {
  static double b[NMAX * NMAX];
  for (int i = 0; i < n * n; i++) b[i] = next_value(&seed);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double s = i == j ? n : 0;
      for (int k = 0; k < n; k++) s += b[i + k * n] * b[j + k * n];
      a[i + j * n] = s;
    }
  }
}

// the normwise backward error of x: |A x - b| over |A| |x| + |b| (infinity norms), which a
// stable solve keeps to a small multiple of n times the rounding unit however ill-conditioned
// A is; column-major A
static double residual(int n, const double* a, const double* x, const double* b) {
  double worst = 0, norm_a = 0, norm_x = 0, norm_b = 0;
  for (int i = 0; i < n; i++) {
    double s = 0, row = 0;
    for (int k = 0; k < n; k++) {
      s += a[i + k * n] * x[k];
      row += fabs(a[i + k * n]);
    }
    worst = fmax(worst, fabs(s - b[i]));
    norm_a = fmax(norm_a, row);
    norm_x = fmax(norm_x, fabs(x[i]));
    norm_b = fmax(norm_b, fabs(b[i]));
  }
  return worst / (norm_a * norm_x + norm_b);
}

// [4 2 -2; 2 10 2; -2 2 6] = L L^T with L = [2 0 0; 1 3 0; -1 1 2], and the strict upper
// triangle left as it was
static void test_cholesky_by_hand(void** state) {
  (void)state;
  double a[9] = {4, 2, -2, 2, 10, 2, -2, 2, 6};
  a[3] = a[6] = a[7] = 99;  // upper triangle, column-major (0,1) (0,2) (1,2)
  assert_int_equal(tf_cholesky(3, a), 0);
  const double l[9] = {2, 1, -1, 99, 3, 1, 99, 99, 2};
  for (int i = 0; i < 9; i++) assert_true(a[i] == l[i]);
  double x[3] = {4, 14, 6};  // A (1, 1, 1)^T
  tf_cholesky_solve(3, 1, a, x);
  for (int i = 0; i < 3; i++) assert_true(fabs(x[i] - 1) < 4 * DBL_EPSILON);
  double y[3] = {2, 4, 2};  // L (1, 1, 1)^T
  tf_lower_solve(3, a, y);
  for (int i = 0; i < 3; i++) assert_true(fabs(y[i] - 1) < 4 * DBL_EPSILON);
}

// engine-sized SPD systems, one and several right-hand sides: residuals at rounding level
static void test_cholesky_solves(void** state) {
  (void)state;
  static double a[NMAX * NMAX], l[NMAX * NMAX], b[NMAX * 3], x[NMAX * 3];
  const int sizes[] = {1, 2, 7, 18, 40, NMAX};
  for (int t = 0; t < (int)(sizeof(sizes) / sizeof(sizes[0])); t++) {
    int n = sizes[t];
    make_spd(n, a, 17 + (uint64_t)n);
    memcpy(l, a, sizeof(double) * (size_t)(n * n));
    assert_int_equal(tf_cholesky(n, l), 0);
    uint64_t seed = 5;
    for (int i = 0; i < 3 * n; i++) b[i] = x[i] = next_value(&seed);
    tf_cholesky_solve(n, 3, l, x);
    for (int c = 0; c < 3; c++) {
      double r = residual(n, a, x + c * n, b + c * n);
      if (r > n * DBL_EPSILON) print_message("n %d rhs %d: residual %g\n", n, c, r);
      assert_true(r < n * DBL_EPSILON);
    }
  }
}

// a matrix that is not positive definite is reported at the column whose pivot fails, NaN
// included, as LAPACK's dpotrf numbers it
static void test_cholesky_reports_pivot(void** state) {
  (void)state;
  double indefinite[9] = {1, 2, 0, 2, 1, 0, 0, 0, 1};  // 1 - 2^2 < 0 at column 2
  assert_int_equal(tf_cholesky(3, indefinite), 2);
  double zero_first[4] = {0, 0, 0, 1};
  assert_int_equal(tf_cholesky(2, zero_first), 1);
  double with_nan[4] = {1, 0, 0, NAN};
  assert_int_equal(tf_cholesky(2, with_nan), 2);
}

// LU of nonsymmetric systems, one with a zero diagonal that only pivoting gets past
static void test_lu_solves(void** state) {
  (void)state;
  static double a[NMAX * NMAX], f[NMAX * NMAX], b[NMAX], x[NMAX];
  static int piv[NMAX];
  const int sizes[] = {1, 3, 18, 40, NMAX};
  for (int t = 0; t < (int)(sizeof(sizes) / sizeof(sizes[0])); t++) {
    int n = sizes[t];
    uint64_t seed = 91 + (uint64_t)n;
    for (int i = 0; i < n * n; i++) a[i] = next_value(&seed);
    for (int i = 0; i < n; i++) a[i + i * n] = 0;
    if (n == 1) a[0] = 0.5;
    memcpy(f, a, sizeof(double) * (size_t)(n * n));
    assert_int_equal(tf_lu(n, f, piv), 0);
    for (int i = 0; i < n; i++) b[i] = x[i] = next_value(&seed);
    tf_lu_solve(n, f, piv, x);
    double r = residual(n, a, x, b);
    if (r > n * DBL_EPSILON) print_message("n %d: residual %g\n", n, r);
    assert_true(r < n * DBL_EPSILON);
  }
  // [0 1; 1 0] x = (2, 3): x = (3, 2), through one row swap
  double p[4] = {0, 1, 1, 0}, y[2] = {2, 3};
  assert_int_equal(tf_lu(2, p, piv), 0);
  assert_int_equal(piv[0], 1);
  tf_lu_solve(2, p, piv, y);
  assert_true(y[0] == 3 && y[1] == 2);
}

// a singular matrix is reported at its first zero pivot
static void test_lu_reports_singular(void** state) {
  (void)state;
  double a[9] = {1, 2, 3, 2, 4, 6, 0, 1, 1};  // column 1 = 2 x column 0
  int piv[3];
  assert_int_equal(tf_lu(3, a, piv), 2);
}

// R diag(1, 2, 5) R^T for a rotation R: the values back in ascending order, R's columns back
// up to sign, A v = w v for each pair, and v orthonormal
static void test_sym3_eigen_rotated(void** state) {
  (void)state;
  double q[4] = {0.9, 0.2, -0.3, 0.25}, r[9];
  tf_quat_normalize(q);
  tf_quat_to_mat(r, q);
  const double d[3] = {5, 1, 2};
  double a[9];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      a[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) a[3 * i + j] += r[3 * i + k] * d[k] * r[3 * j + k];
    }
  }
  double w[3], v[9];
  assert_int_equal(tf_sym3_eigen(w, v, a), 0);
  const double want[3] = {1, 2, 5};
  const int column[3] = {1, 2, 0};  // where each value sits in d
  for (int c = 0; c < 3; c++) {
    assert_true(fabs(w[c] - want[c]) < 1e-14);
    double dot = 0;
    for (int i = 0; i < 3; i++) dot += v[3 * i + c] * r[3 * i + column[c]];
    assert_true(fabs(fabs(dot) - 1) < 1e-14);
    for (int i = 0; i < 3; i++) {
      double av = 0;
      for (int k = 0; k < 3; k++) av += a[3 * i + k] * v[3 * k + c];
      assert_true(fabs(av - w[c] * v[3 * i + c]) < 1e-14);
    }
    for (int c2 = 0; c2 < 3; c2++) {
      double s = 0;
      for (int i = 0; i < 3; i++) s += v[3 * i + c] * v[3 * i + c2];
      assert_true(fabs(s - (c == c2)) < 1e-15);
    }
  }
  // already diagonal: the identity frame, no rotation at all
  double diag[9] = {3, 0, 0, 0, 1, 0, 0, 0, 2};
  assert_int_equal(tf_sym3_eigen(w, v, diag), 0);
  assert_true(w[0] == 1 && w[1] == 2 && w[2] == 3);
  const double perm[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
  for (int i = 0; i < 9; i++) assert_true(v[i] == perm[i]);
  double bad[9] = {1, 0, 0, 0, INFINITY, 0, 0, 0, 1};
  assert_int_equal(tf_sym3_eigen(w, v, bad), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cholesky_by_hand),       cmocka_unit_test(test_cholesky_solves),
      cmocka_unit_test(test_cholesky_reports_pivot), cmocka_unit_test(test_lu_solves),
      cmocka_unit_test(test_lu_reports_singular),    cmocka_unit_test(test_sym3_eigen_rotated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
