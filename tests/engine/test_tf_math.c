// Tests of the private math helpers (tf_math.h): quaternion algebra against rotation
// matrices, the matrix / quaternion and rotation-vector round trips at their hard angles
// (tiny, near pi), the duality of the two spatial cross products, and the 10-parameter
// spatial inertia against an explicitly assembled 6x6 matrix.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "test_rng.h"
#include "tf_math.h"

#define TRIALS 200

// largest absolute entry difference of two n-vectors
static double max_abs_diff(const double* a, const double* b, int n) {
  double worst = 0;
  for (int i = 0; i < n; i++) worst = fmax(worst, fabs(a[i] - b[i]));
  return worst;
}

// distance between two quaternions as rotations (q and -q are the same rotation)
static double quat_distance(const double a[4], const double b[4]) {
  double plus = 0, minus = 0;
  for (int k = 0; k < 4; k++) {
    plus = fmax(plus, fabs(a[k] - b[k]));
    minus = fmax(minus, fabs(a[k] + b[k]));
  }
  return fmin(plus, minus);
}

// the quaternion product must compose rotations the way matrices do, conj must invert,
// and rotate must agree with the matrix (and with its transpose for the conjugate)
static void test_quat_algebra_matches_matrices(void** state) {
  (void)state;
  test_rng rng = {11};
  double worst = 0;
  for (int t = 0; t < TRIALS; t++) {
    double a[4], b[4], ab[4], ma[9], mb[9], mab[9], mprod[9];
    random_quat(&rng, a);
    random_quat(&rng, b);
    tf_quat_mul(ab, a, b);
    tf_quat_to_mat(ma, a);
    tf_quat_to_mat(mb, b);
    tf_quat_to_mat(mab, ab);
    tf_mat3_mul(mprod, ma, mb);
    worst = fmax(worst, max_abs_diff(mab, mprod, 9));

    // the matrix is orthonormal with determinant +1
    double mmt[9], mt[9];
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) mt[3 * r + c] = ma[3 * c + r];
    }
    tf_mat3_mul(mmt, ma, mt);
    double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    worst = fmax(worst, max_abs_diff(mmt, eye, 9));
    double det = ma[0] * (ma[4] * ma[8] - ma[5] * ma[7]) - ma[1] * (ma[3] * ma[8] - ma[5] * ma[6]) +
                 ma[2] * (ma[3] * ma[7] - ma[4] * ma[6]);
    worst = fmax(worst, fabs(det - 1));

    // q * conj(q) is the identity
    double ac[4], prod[4], ident[4];
    tf_quat_conj(ac, a);
    tf_quat_mul(prod, a, ac);
    tf_quat_identity(ident);
    worst = fmax(worst, max_abs_diff(prod, ident, 4));

    // rotate(q, v) = R v and rotate(conj q, v) = R^T v
    double v[3], rv[3], mv[3], rtv[3], mtv[3];
    for (int k = 0; k < 3; k++) v[k] = rng_uniform(&rng, -3, 3);
    tf_quat_rotate(rv, a, v);
    tf_mat3_mul_vec(mv, ma, v);
    tf_quat_rotate(rtv, ac, v);
    tf_mat3_mul_vec_t(mtv, ma, v);
    worst = fmax(worst, max_abs_diff(rv, mv, 3) / 3);
    worst = fmax(worst, max_abs_diff(rtv, mtv, 3) / 3);

    // the output may alias an input
    double alias[4] = {a[0], a[1], a[2], a[3]};
    tf_quat_mul(alias, alias, b);
    worst = fmax(worst, max_abs_diff(alias, ab, 4));
  }
  print_message("quat algebra vs matrices: worst error %.3e\n", worst);
  assert_true(worst < 1e-14);
}

// mat_to_quat must invert quat_to_mat for every angle, including the ones near 180
// degrees where the trace branch of Shepperd's method would lose all precision
static void test_mat_to_quat_round_trip(void** state) {
  (void)state;
  test_rng rng = {12};
  double worst_random = 0, worst_half_turn = 0;
  for (int t = 0; t < 4 * TRIALS; t++) {
    double q[4], axis[3];
    int half_turn = t >= TRIALS;
    if (half_turn) {
      // angles within 1e-12 .. 1e-2 of pi, and pi itself, about random axes
      random_unit_vec(&rng, axis);
      double gap = t % 7 == 0 ? 0 : pow(10, rng_uniform(&rng, -12, -2));
      tf_quat_from_axis_angle(q, axis, M_PI - gap);
    } else {
      random_quat(&rng, q);
    }
    double mat[9], back[4], mat_back[9];
    tf_quat_to_mat(mat, q);
    tf_mat_to_quat(back, mat);
    tf_quat_to_mat(mat_back, back);
    double norm =
        sqrt(back[0] * back[0] + back[1] * back[1] + back[2] * back[2] + back[3] * back[3]);
    double err = fmax(quat_distance(q, back), max_abs_diff(mat, mat_back, 9));
    err = fmax(err, fabs(norm - 1));
    if (back[0] < 0) {
      print_message("mat_to_quat returned w = %g < 0\n", back[0]);
      err = 1;
    }
    if (half_turn) {
      worst_half_turn = fmax(worst_half_turn, err);
    } else {
      worst_random = fmax(worst_random, err);
    }
  }
  print_message("mat_to_quat round trip: worst error %.3e random, %.3e near 180 degrees\n",
                worst_random, worst_half_turn);
  assert_true(worst_random < 1e-14);
  assert_true(worst_half_turn < 1e-14);
}

// the exponential and logarithm maps must invert each other to relative precision at
// every angle: tiny rotations (the series branches) and angles just below pi; beyond pi
// the logarithm returns the same rotation the short way round
static void test_rotvec_round_trip(void** state) {
  (void)state;
  test_rng rng = {13};
  double worst_tiny = 0, worst_mid = 0, worst_pi = 0, worst_wrap = 0;
  for (int t = 0; t < 4 * TRIALS; t++) {
    double axis[3], rotvec[3], q[4], back[3];
    random_unit_vec(&rng, axis);
    int kind = t % 4;
    double angle;
    if (kind == 0) {
      angle = pow(10, rng_uniform(&rng, -14, -4));  // includes 1e-12
    } else if (kind == 1) {
      angle = rng_uniform(&rng, 1e-3, M_PI - 1e-3);
    } else if (kind == 2) {
      angle = M_PI - pow(10, rng_uniform(&rng, -9, -3));
    } else {
      // short of 2 pi: there the short-way angle 2 pi - angle is all rounding of the input
      angle = rng_uniform(&rng, M_PI + 1e-3, 2 * M_PI - 0.1);
    }
    tf_vec3_scale(rotvec, axis, angle);
    tf_quat_from_rotvec(q, rotvec);
    double qnorm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    tf_quat_to_rotvec(back, q);

    // the quaternion must be the axis-angle one
    double expect_q[4];
    tf_quat_from_axis_angle(expect_q, axis, angle);
    double qerr = fmax(max_abs_diff(q, expect_q, 4), fabs(qnorm - 1));

    double expect[3];
    if (kind == 3) {
      tf_vec3_scale(expect, axis, angle - 2 * M_PI);  // same rotation, angle in (-pi, pi]
    } else {
      tf_vec3_copy(expect, rotvec);
    }
    double diff[3];
    tf_vec3_sub(diff, back, expect);
    double err = fmax(tf_vec3_norm(diff) / tf_vec3_norm(expect), qerr);
    if (kind == 0) worst_tiny = fmax(worst_tiny, err);
    if (kind == 1) worst_mid = fmax(worst_mid, err);
    if (kind == 2) worst_pi = fmax(worst_pi, err);
    if (kind == 3) worst_wrap = fmax(worst_wrap, err);
  }
  // exactly 1e-12 and exactly pi about one axis
  double axis[3] = {0.48, -0.6, 0.64};
  double special[2] = {1e-12, M_PI};
  for (int i = 0; i < 2; i++) {
    double rotvec[3], q[4], back[3], diff[3];
    tf_vec3_scale(rotvec, axis, special[i]);
    tf_quat_from_rotvec(q, rotvec);
    tf_quat_to_rotvec(back, q);
    tf_vec3_sub(diff, back, rotvec);
    double err = tf_vec3_norm(diff) / special[i];
    if (i == 0) worst_tiny = fmax(worst_tiny, err);
    if (i == 1) worst_pi = fmax(worst_pi, err);
  }
  // the zero rotation
  double zero[3] = {0, 0, 0}, q0[4], back0[3];
  tf_quat_from_rotvec(q0, zero);
  tf_quat_to_rotvec(back0, q0);
  double zero_err = fmax(fabs(q0[0] - 1), tf_vec3_norm(back0));

  print_message(
      "rotvec round trip: relative error %.3e tiny, %.3e mid, %.3e near pi, %.3e past pi, "
      "%.3e at zero\n",
      worst_tiny, worst_mid, worst_pi, worst_wrap, zero_err);
  assert_true(worst_tiny < 1e-14);
  assert_true(worst_mid < 1e-13);
  assert_true(worst_pi < 1e-13);
  assert_true(worst_wrap < 1e-13);
  assert_true(zero_err == 0);
}

// the motion and force cross products are each other's negative adjoint:
// (a x b) . f = -b . (a x* f); both also match the explicit 6x6 matrices
static void test_cross_duality(void** state) {
  (void)state;
  test_rng rng = {14};
  double worst = 0, worst_matrix = 0;
  for (int t = 0; t < TRIALS; t++) {
    double a[6], b[6], f[6], axb[6], axf[6];
    for (int k = 0; k < 6; k++) {
      a[k] = rng_uniform(&rng, -2, 2);
      b[k] = rng_uniform(&rng, -2, 2);
      f[k] = rng_uniform(&rng, -2, 2);
    }
    tf_cross_motion(axb, a, b);
    tf_cross_force(axf, a, f);
    double lhs = tf_dot6(axb, f), rhs = -tf_dot6(b, axf);
    double scale = tf_dot6(a, a) * sqrt(tf_dot6(b, b) * tf_dot6(f, f));
    worst = fmax(worst, fabs(lhs - rhs) / scale);

    // crm(a) = [[wx, 0], [vx, wx]], crf(a) = -crm(a)^T = [[wx, vx], [0, wx]]
    double wx[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
    double vx[9] = {0, -a[5], a[4], a[5], 0, -a[3], -a[4], a[3], 0};
    double expect_m[6], expect_f[6], t1[3], t2[3];
    tf_mat3_mul_vec(expect_m, wx, b);
    tf_mat3_mul_vec(t1, vx, b);
    tf_mat3_mul_vec(t2, wx, b + 3);
    tf_vec3_add(expect_m + 3, t1, t2);
    tf_mat3_mul_vec(t1, wx, f);
    tf_mat3_mul_vec(t2, vx, f + 3);
    tf_vec3_add(expect_f, t1, t2);
    tf_mat3_mul_vec(expect_f + 3, wx, f + 3);
    worst_matrix = fmax(worst_matrix, max_abs_diff(axb, expect_m, 6));
    worst_matrix = fmax(worst_matrix, max_abs_diff(axf, expect_f, 6));

    // a x a = 0 for motions
    double axa[6];
    tf_cross_motion(axa, a, a);
    for (int k = 0; k < 6; k++) worst_matrix = fmax(worst_matrix, fabs(axa[k]));
  }
  print_message("cross duality: worst relative %.3e, worst against matrices %.3e\n", worst,
                worst_matrix);
  assert_true(worst < 1e-14);
  assert_true(worst_matrix < 1e-14);
}

// random symmetric positive definite inertia about the com with the triangle inequality
static void random_com_inertia(test_rng* rng, double ic[9]) {
  double q[4], r[9];
  random_quat(rng, q);
  tf_quat_to_mat(r, q);
  double moments[3];
  for (int k = 0; k < 3; k++) moments[k] = rng_uniform(rng, 0.5, 1.0);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      ic[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) ic[3 * i + j] += r[3 * i + k] * moments[k] * r[3 * j + k];
    }
  }
}

// the 10-parameter product must equal the textbook 6x6 spatial inertia about the origin
//   [[Ic - m [c]x [c]x, m [c]x], [-m [c]x, m 1]]
// built here from (m, c, Ic) without tf_inertia_from_com, and its quadratic form must be
// twice the kinetic energy m |v_c|^2 + w Ic w
static void test_inertia_mul_matches_6x6(void** state) {
  (void)state;
  test_rng rng = {15};
  double worst = 0, worst_energy = 0;
  for (int t = 0; t < TRIALS; t++) {
    double mass = rng_uniform(&rng, 0.1, 5), c[3], ic[9];
    for (int k = 0; k < 3; k++) c[k] = rng_uniform(&rng, -2, 2);
    random_com_inertia(&rng, ic);
    double inert[10];
    tf_inertia_from_com(inert, mass, c, ic);

    double cx[9] = {0, -c[2], c[1], c[2], 0, -c[0], -c[1], c[0], 0};
    double cxcx[9];
    tf_mat3_mul(cxcx, cx, cx);
    double big[36] = {0};
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        big[6 * i + j] = ic[3 * i + j] - mass * cxcx[3 * i + j];
        big[6 * i + 3 + j] = mass * cx[3 * i + j];
        big[6 * (3 + i) + j] = -mass * cx[3 * i + j];
      }
      big[6 * (3 + i) + 3 + i] = mass;
    }

    double v[6], out[6], expect[6] = {0};
    for (int k = 0; k < 6; k++) v[k] = rng_uniform(&rng, -2, 2);
    tf_inertia_mul_motion(out, inert, v);
    double scale = 0;
    for (int i = 0; i < 6; i++) {
      for (int j = 0; j < 6; j++) expect[i] += big[6 * i + j] * v[j];
      scale = fmax(scale, fabs(expect[i]));
    }
    worst = fmax(worst, max_abs_diff(out, expect, 6) / scale);

    // v_c = v_O + w x c
    double wxc[3], vc[3], icw[3];
    tf_vec3_cross(wxc, v, c);
    tf_vec3_add(vc, v + 3, wxc);
    tf_mat3_mul_vec(icw, ic, v);
    double twice_t = mass * tf_vec3_dot(vc, vc) + tf_vec3_dot(v, icw);
    worst_energy = fmax(worst_energy, fabs(tf_dot6(v, out) - twice_t) / twice_t);
  }
  print_message("inertia_mul vs 6x6: worst relative %.3e, energy form %.3e\n", worst, worst_energy);
  assert_true(worst < 1e-13);
  assert_true(worst_energy < 1e-13);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quat_algebra_matches_matrices),
      cmocka_unit_test(test_mat_to_quat_round_trip),
      cmocka_unit_test(test_rotvec_round_trip),
      cmocka_unit_test(test_cross_duality),
      cmocka_unit_test(test_inertia_mul_matches_6x6),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
