// Tests of the closed-form pair functions (collision_primitive.c) and the pair table
// (collision_table.c). Every pair gets hand-computed cases (separated, touching, overlapping,
// resting manifolds, degenerate input), then randomised checks shared by all pairs: no NaN,
// every point under margin, witness points (pos -+ dist/2 normal) inside or on both shapes,
// the deepest gap against an independent distance (golden-section search on signed distance
// functions), results that rotate and translate with the configuration, argument swaps through
// tf_collide, a deepest point that does not depend on margin, and resting stacks at random yaw.
// TRIALS and SEED can be set on the command line for longer runs.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "collision.h"
#include "collision_primitive.h"
#include "tf_math.h"

#ifndef TRIALS
#define TRIALS 400
#endif
#ifndef SEED
#define SEED 0
#endif

// fails with both values printed when |a - b| > tol
#define assert_near(a, b, tol)                                                                  \
  do {                                                                                          \
    double a_ = (a), b_ = (b);                                                                  \
    if (!(fabs(a_ - b_) <= (tol))) {                                                            \
      print_error("%s = %.17g, expected %s = %.17g (tol %g)\n", #a, a_, #b, b_, (double)(tol)); \
      fail();                                                                                   \
    }                                                                                           \
  } while (0)

typedef int (*pair_fn)(const tf_shape*, const tf_shape*, double, tf_contact_point*);

// splitmix64: a tiny deterministic generator, so every run sees the same numbers
typedef struct test_rng {
  uint64_t state;
} test_rng;

// next 64 random bits
static uint64_t rng_bits(test_rng* rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// uniform in [lo, hi)
static double rng_uniform(test_rng* rng, double lo, double hi) {
  return lo + (hi - lo) * (double)(rng_bits(rng) >> 11) * (1.0 / 9007199254740992.0);
}

// uniformly distributed rotation matrix (from a unit quaternion, rejection from the 4-cube)
static void random_rotation(test_rng* rng, double mat[9]) {
  double q[4], n;
  do {
    for (int k = 0; k < 4; k++) q[k] = rng_uniform(rng, -1, 1);
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1 || n > 1);
  for (int k = 0; k < 4; k++) q[k] /= n;
  tf_quat_to_mat(mat, q);
}

// rotation matrix about an axis
static void axis_rotation(double mat[9], double x, double y, double z, double angle) {
  double axis[3] = {x, y, z}, q[4];
  tf_vec3_normalize(axis);
  tf_quat_from_axis_angle(q, axis, angle);
  tf_quat_to_mat(mat, q);
}

static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

// a shape of the given type, sizes and pose (mat NULL = identity)
static tf_shape make_shape(int type, double s0, double s1, double s2, double x, double y, double z,
                           const double* mat) {
  tf_shape s;
  memset(&s, 0, sizeof s);
  s.type = type;
  s.size[0] = s0;
  s.size[1] = s1;
  s.size[2] = s2;
  s.pos[0] = x;
  s.pos[1] = y;
  s.pos[2] = z;
  memcpy(s.mat, mat ? mat : identity, sizeof s.mat);
  return s;
}

// the shape moved rigidly: rotated by rot about the world origin, then shifted
static tf_shape moved_shape(const tf_shape* s, const double rot[9], const double shift[3]) {
  tf_shape out = *s;
  tf_mat3_mul_vec(out.pos, rot, s->pos);
  tf_vec3_add(out.pos, out.pos, shift);
  tf_mat3_mul(out.mat, rot, s->mat);
  return out;
}

// world point into a shape's frame
static void local_point(double out[3], const tf_shape* s, const double p[3]) {
  double d[3];
  tf_vec3_sub(d, p, s->pos);
  tf_mat3_mul_vec_t(out, s->mat, d);
}

// signed distance from a world point to a shape's surface, written independently of the
// code under test
static double shape_sdf(const tf_shape* s, const double p[3]) {
  double x[3];
  local_point(x, s, p);
  switch (s->type) {
    case TF_GEOM_PLANE:
      return x[2];
    case TF_GEOM_SPHERE:
      return tf_vec3_norm(x) - s->size[0];
    case TF_GEOM_CAPSULE: {
      double z = fmax(-s->size[1], fmin(s->size[1], x[2]));
      return sqrt(x[0] * x[0] + x[1] * x[1] + (x[2] - z) * (x[2] - z)) - s->size[0];
    }
    case TF_GEOM_BOX: {
      double q[3], outside = 0, inside = -INFINITY;
      for (int k = 0; k < 3; k++) {
        q[k] = fabs(x[k]) - s->size[k];
        outside += q[k] > 0 ? q[k] * q[k] : 0;
        inside = fmax(inside, q[k]);
      }
      return sqrt(outside) + fmin(inside, 0);
    }
    case TF_GEOM_CYLINDER: {
      double dr = sqrt(x[0] * x[0] + x[1] * x[1]) - s->size[0], dz = fabs(x[2]) - s->size[1];
      double ur = fmax(dr, 0), uz = fmax(dz, 0);
      return sqrt(ur * ur + uz * uz) + fmin(fmax(dr, dz), 0);
    }
    default:
      fail();
      return 0;
  }
}

// minimum of a convex function of t in [lo, hi] by golden-section search
static double golden_min(double (*f)(const void*, double), const void* ctx, double lo, double hi) {
  const double g = 0.5 * (sqrt(5.0) - 1);
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = f(ctx, x1), f2 = f(ctx, x2);
  for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(ctx, x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(ctx, x2);
    }
  }
  return fmin(fmin(f1, f2), fmin(f(ctx, lo), f(ctx, hi)));
}

// a segment of one shape (centre, unit direction, half-length) against another shape's sdf
typedef struct segment_probe {
  double c[3], d[3], h;
  const tf_shape* other;
} segment_probe;

// sdf of the other shape at the segment point of parameter u in [0, 1]
static double segment_probe_sdf(const void* ctx, double u) {
  const segment_probe* p = ctx;
  double x[3];
  for (int k = 0; k < 3; k++) x[k] = p->c[k] + (2 * u - 1) * p->h * p->d[k];
  return shape_sdf(p->other, x);
}

// smallest sdf of shape other along a segment (convex, so the golden search is exact)
static double segment_min_sdf(const double c[3], const double d[3], double h,
                              const tf_shape* other) {
  segment_probe p = {{c[0], c[1], c[2]}, {d[0], d[1], d[2]}, h, other};
  return golden_min(segment_probe_sdf, &p, 0, 1);
}

// a shape's k-th axis
static void axis_of(double out[3], const tf_shape* s, int k) {
  out[0] = s->mat[k];
  out[1] = s->mat[3 + k];
  out[2] = s->mat[6 + k];
}

// the signed distance of a pair by brute force; for box x box the exact distance of separated
// boxes (min over the edges of each against the other), NAN when overlapping
static double reference_distance(const tf_shape* a, const tf_shape* b) {
  double w[3];
  if (a->type == TF_GEOM_PLANE) {
    double n[3], rel[3];
    axis_of(n, a, 2);
    tf_vec3_sub(rel, b->pos, a->pos);
    double hc = tf_vec3_dot(n, rel);
    if (b->type == TF_GEOM_SPHERE) return hc - b->size[0];
    axis_of(w, b, 2);
    double nw = fabs(tf_vec3_dot(n, w));
    if (b->type == TF_GEOM_CAPSULE) return hc - b->size[1] * nw - b->size[0];
    if (b->type == TF_GEOM_CYLINDER) {
      return hc - b->size[1] * nw - b->size[0] * sqrt(fmax(0, 1 - nw * nw));
    }
    double low = hc;
    for (int k = 0; k < 3; k++) {
      double ax[3];
      axis_of(ax, b, k);
      low -= b->size[k] * fabs(tf_vec3_dot(n, ax));
    }
    return low;
  }
  if (a->type == TF_GEOM_SPHERE) return shape_sdf(b, a->pos) - a->size[0];
  if (a->type == TF_GEOM_CAPSULE) {
    axis_of(w, a, 2);
    return segment_min_sdf(a->pos, w, a->size[1], b) - a->size[0];
  }
  // box x box: min over the 24 edges
  double best = INFINITY;
  for (int pass = 0; pass < 2; pass++) {
    const tf_shape* s = pass == 0 ? a : b;
    const tf_shape* o = pass == 0 ? b : a;
    for (int k = 0; k < 3; k++) {
      for (int e = 0; e < 4; e++) {
        double local[3], c[3], d[3];
        local[k] = 0;
        local[(k + 1) % 3] = (e & 1 ? 1 : -1) * s->size[(k + 1) % 3];
        local[(k + 2) % 3] = (e & 2 ? 1 : -1) * s->size[(k + 2) % 3];
        tf_mat3_mul_vec(c, s->mat, local);
        tf_vec3_add(c, c, s->pos);
        axis_of(d, s, k);
        best = fmin(best, segment_min_sdf(c, d, s->size[k], o));
      }
    }
  }
  return best > 1e-9 ? best : NAN;
}

// the common checks of any result: count in range, finite values, unit normals, every gap
// under margin, and the witness points pos -+ dist/2 normal inside or on shapes a and b. A
// single point's witnesses are on both surfaces; the other points of a manifold may sit
// inside a shape (the lowest point of a tilted capsule's upper end cap is inside the capsule)
static void check_result(const tf_shape* a, const tf_shape* b, double margin,
                         const tf_contact_point* out, int n) {
  assert_in_range(n, 0, TF_MAX_PAIR_CONTACTS);
  for (int i = 0; i < n; i++) {
    const tf_contact_point* c = out + i;
    for (int k = 0; k < 3; k++) {
      assert_true(isfinite(c->pos[k]));
      assert_true(isfinite(c->normal[k]));
    }
    assert_true(isfinite(c->dist));
    assert_true(c->dist < margin);
    assert_near(tf_vec3_norm(c->normal), 1, 1e-9);
    double pa[3], pb[3];
    for (int k = 0; k < 3; k++) {
      pa[k] = c->pos[k] - 0.5 * c->dist * c->normal[k];
      pb[k] = c->pos[k] + 0.5 * c->dist * c->normal[k];
    }
    assert_true(shape_sdf(a, pa) < 1e-9);
    assert_true(shape_sdf(b, pb) < 1e-9);
    if (n == 1 && a->type != TF_GEOM_CAPSULE && b->type != TF_GEOM_CAPSULE) {
      assert_near(shape_sdf(a, pa), 0, 1e-9);
      assert_near(shape_sdf(b, pb), 0, 1e-9);
    }
  }
}

// runs a pair function with the common checks
static int collide_checked(pair_fn fn, const tf_shape* a, const tf_shape* b, double margin,
                           tf_contact_point* out) {
  int n = fn(a, b, margin, out);
  check_result(a, b, margin, out, n);
  return n;
}

// smallest gap of a result
static double min_dist(const tf_contact_point* out, int n) {
  double d = INFINITY;
  for (int i = 0; i < n; i++) d = fmin(d, out[i].dist);
  return d;
}

// asserts a point with this position, normal and gap is in the result
static void expect_point(const tf_contact_point* out, int n, const double pos[3],
                         const double normal[3], double dist, double tol) {
  for (int i = 0; i < n; i++) {
    double dp[3], dn[3];
    tf_vec3_sub(dp, out[i].pos, pos);
    tf_vec3_sub(dn, out[i].normal, normal);
    if (tf_vec3_norm(dp) <= tol && tf_vec3_norm(dn) <= tol && fabs(out[i].dist - dist) <= tol) {
      return;
    }
  }
  print_error("no point at (%g %g %g) normal (%g %g %g) dist %g among %d:\n", pos[0], pos[1],
              pos[2], normal[0], normal[1], normal[2], dist, n);
  for (int i = 0; i < n; i++) {
    print_error("  (%g %g %g) (%g %g %g) %g\n", out[i].pos[0], out[i].pos[1], out[i].pos[2],
                out[i].normal[0], out[i].normal[1], out[i].normal[2], out[i].dist);
  }
  fail();
}

// the result of a moved configuration must be the moved result: same count, and every point
// mapped by the motion found among the new points with the same gap
static void check_moved(pair_fn fn, const tf_shape* a, const tf_shape* b, double margin,
                        test_rng* rng) {
  tf_contact_point base[TF_MAX_PAIR_CONTACTS], moved[TF_MAX_PAIR_CONTACTS];
  int n = collide_checked(fn, a, b, margin, base);
  for (int trial = 0; trial < 3; trial++) {
    double rot[9], shift[3];
    random_rotation(rng, rot);
    for (int k = 0; k < 3; k++) shift[k] = rng_uniform(rng, -2, 2);
    tf_shape a2 = moved_shape(a, rot, shift), b2 = moved_shape(b, rot, shift);
    int m = collide_checked(fn, &a2, &b2, margin, moved);
    assert_int_equal(m, n);
    for (int i = 0; i < n; i++) {
      double pos[3], normal[3];
      tf_mat3_mul_vec(pos, rot, base[i].pos);
      tf_vec3_add(pos, pos, shift);
      tf_mat3_mul_vec(normal, rot, base[i].normal);
      expect_point(moved, m, pos, normal, base[i].dist, 1e-8);
    }
  }
}

// tf_collide in both orders: the same points with opposite normals. Pairs of different types
// run the same function on the same arguments, so they agree exactly; pairs of one type run
// it on swapped arguments and agree to rounding
static void check_swap(const tf_shape* a, const tf_shape* b, double margin) {
  tf_contact_point ab[TF_MAX_PAIR_CONTACTS], ba[TF_MAX_PAIR_CONTACTS];
  int n = tf_collide(a, b, margin, ab);
  int m = tf_collide(b, a, margin, ba);
  assert_int_equal(n, m);
  check_result(a, b, margin, ab, n);
  check_result(b, a, margin, ba, m);
  for (int i = 0; i < n; i++) {
    if (a->type != b->type) {
      assert_near(ab[i].dist, ba[i].dist, 0);
      for (int k = 0; k < 3; k++) {
        assert_near(ab[i].pos[k], ba[i].pos[k], 0);
        assert_near(ab[i].normal[k], -ba[i].normal[k], 0);
      }
    } else {
      double flipped[3];
      tf_vec3_scale(flipped, ab[i].normal, -1);
      expect_point(ba, m, ab[i].pos, flipped, ab[i].dist, 1e-9);
    }
  }
}

// a swap at a tie, where each argument order prefers its own first shape (a reference face,
// the ends of a segment) and finds an equally good manifold: the same number of points and
// the same gaps, in some order
static void check_swap_tie(const tf_shape* a, const tf_shape* b, double margin) {
  tf_contact_point ab[TF_MAX_PAIR_CONTACTS], ba[TF_MAX_PAIR_CONTACTS];
  int n = tf_collide(a, b, margin, ab);
  int m = tf_collide(b, a, margin, ba);
  assert_int_equal(n, m);
  check_result(a, b, margin, ab, n);
  check_result(b, a, margin, ba, m);
  for (int i = 0; i < n; i++) {
    double d = INFINITY;
    for (int j = 0; j < m; j++) d = fmin(d, fabs(ab[i].dist - ba[j].dist));
    assert_near(d, 0, 1e-9);
  }
}

// ---------------------------------------------------------------------------------------------
// plane pairs

static void test_plane_sphere(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  tf_shape plane = make_shape(TF_GEOM_PLANE, 0, 0, 0, 0, 0, 0, NULL);
  tf_shape ball = make_shape(TF_GEOM_SPHERE, 0.5, 0, 0, 1, 2, 1, NULL);
  // separated by 0.5: found under margin 1, not under margin 0.5 (strict)
  assert_int_equal(collide_checked(tf_collide_plane_sphere, &plane, &ball, 1, out), 1);
  expect_point(out, 1, (double[3]){1, 2, 0.25}, (double[3]){0, 0, 1}, 0.5, 1e-12);
  assert_int_equal(collide_checked(tf_collide_plane_sphere, &plane, &ball, 0.5, out), 0);
  // touching and overlapping
  ball.pos[2] = 0.5;
  assert_int_equal(collide_checked(tf_collide_plane_sphere, &plane, &ball, 1e-9, out), 1);
  expect_point(out, 1, (double[3]){1, 2, 0}, (double[3]){0, 0, 1}, 0, 1e-12);
  ball.pos[2] = 0.4;
  assert_int_equal(collide_checked(tf_collide_plane_sphere, &plane, &ball, 0, out), 1);
  expect_point(out, 1, (double[3]){1, 2, -0.05}, (double[3]){0, 0, 1}, -0.1, 1e-12);
  // a tilted, offset plane: the normal is its frame's z
  double rot[9];
  axis_rotation(rot, 1, 0, 0, M_PI / 2);  // z -> -y
  plane = make_shape(TF_GEOM_PLANE, 0, 0, 0, 0, 3, 0, rot);
  ball = make_shape(TF_GEOM_SPHERE, 0.5, 0, 0, 1, 2.7, 5, NULL);
  assert_int_equal(collide_checked(tf_collide_plane_sphere, &plane, &ball, 0.1, out), 1);
  expect_point(out, 1, (double[3]){1, 3.1, 5}, (double[3]){0, -1, 0}, -0.2, 1e-12);
  check_swap(&plane, &ball, 0.1);
}

static void test_plane_capsule(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  tf_shape plane = make_shape(TF_GEOM_PLANE, 0, 0, 0, 0, 0, 0, NULL);
  double flat[9], tilt[9];
  axis_rotation(flat, 0, 1, 0, M_PI / 2);  // capsule axis along x
  // lying flat, 0.01 deep: both end caps
  tf_shape cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.5, 0, 0, 0, 0.09, flat);
  assert_int_equal(collide_checked(tf_collide_plane_capsule, &plane, &cap, 0.02, out), 2);
  expect_point(out, 2, (double[3]){0.5, 0, -0.005}, (double[3]){0, 0, 1}, -0.01, 1e-12);
  expect_point(out, 2, (double[3]){-0.5, 0, -0.005}, (double[3]){0, 0, 1}, -0.01, 1e-12);
  // tilted by 30 degrees, lower cap touching: one point under a small margin, two under a big
  axis_rotation(tilt, 0, 1, 0, M_PI / 3);
  cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.5, 0, 0, 0, 0.1 + 0.5 * cos(M_PI / 3), tilt);
  assert_int_equal(collide_checked(tf_collide_plane_capsule, &plane, &cap, 0.01, out), 1);
  expect_point(out, 1, (double[3]){-0.5 * sin(M_PI / 3), 0, 0}, (double[3]){0, 0, 1}, 0, 1e-12);
  assert_int_equal(collide_checked(tf_collide_plane_capsule, &plane, &cap, 0.6, out), 2);
  expect_point(out, 2, (double[3]){0.5 * sin(M_PI / 3), 0, 0.25}, (double[3]){0, 0, 1}, 0.5, 1e-12);
  // no length: one cap
  cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0, 0, 0, 0, 0.05, NULL);
  assert_int_equal(collide_checked(tf_collide_plane_capsule, &plane, &cap, 0, out), 1);
  assert_near(out[0].dist, -0.05, 1e-12);
  check_swap(&plane, &cap, 0.1);
}

static void test_plane_box(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  tf_shape plane = make_shape(TF_GEOM_PLANE, 0, 0, 0, 0, 0, 0, NULL);
  // resting flat: exactly the four bottom corners, even under a margin that reaches the top
  tf_shape box = make_shape(TF_GEOM_BOX, 0.3, 0.2, 0.1, 1, 1, 0.1, NULL);
  for (int pass = 0; pass < 2; pass++) {
    double margin = pass == 0 ? 0.01 : 0.5;
    assert_int_equal(collide_checked(tf_collide_plane_box, &plane, &box, margin, out), 4);
    for (int i = 0; i < 4; i++) assert_near(out[i].dist, 0, 1e-12);
    for (int c = 0; c < 4; c++) {
      double pos[3] = {1 + (c & 1 ? 0.3 : -0.3), 1 + (c & 2 ? 0.2 : -0.2), 0};
      expect_point(out, 4, pos, (double[3]){0, 0, 1}, 0, 1e-12);
    }
  }
  // on an edge, tilted 10 degrees about y: the two corners of the low edge come first
  double rot[9];
  axis_rotation(rot, 0, 1, 0, 10 * M_PI / 180);
  box = make_shape(TF_GEOM_BOX, 0.3, 0.2, 0.1, 0, 0, 0, rot);
  double low = 0.3 * sin(10 * M_PI / 180) + 0.1 * cos(10 * M_PI / 180);
  box.pos[2] = low - 0.002;
  int n = collide_checked(tf_collide_plane_box, &plane, &box, 0.01, out);
  assert_int_equal(n, 2);
  assert_near(out[0].dist, -0.002, 1e-12);
  assert_near(out[1].dist, -0.002, 1e-12);
  // under a big margin more corners qualify: the four deepest, deepest first
  n = collide_checked(tf_collide_plane_box, &plane, &box, 1, out);
  assert_int_equal(n, 4);
  for (int i = 1; i < n; i++) assert_true(out[i].dist >= out[i - 1].dist);
  assert_near(out[2].dist, -0.002 + 0.6 * sin(10 * M_PI / 180), 1e-12);
  // corner down
  double r1[9], r2[9], r3[9];
  axis_rotation(r1, 1, 0, 0, M_PI / 4);
  axis_rotation(r2, 0, 1, 0, atan(1 / sqrt(2)));
  tf_mat3_mul(r3, r2, r1);
  box = make_shape(TF_GEOM_BOX, 0.1, 0.1, 0.1, 0, 0, 0.1 * sqrt(3) + 0.01, r3);
  n = collide_checked(tf_collide_plane_box, &plane, &box, 0.05, out);
  assert_int_equal(n, 1);
  assert_near(out[0].dist, 0.01, 1e-12);
  check_swap(&plane, &box, 0.05);
}

static void test_plane_cylinder(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  tf_shape plane = make_shape(TF_GEOM_PLANE, 0, 0, 0, 0, 0, 0, NULL);
  // on its side: the two ends of the line contact
  double side[9];
  axis_rotation(side, 1, 0, 0, M_PI / 2);  // axis along -y
  tf_shape cyl = make_shape(TF_GEOM_CYLINDER, 0.2, 0.5, 0, 0, 0, 0.199, side);
  int n = collide_checked(tf_collide_plane_cylinder, &plane, &cyl, 0.01, out);
  assert_int_equal(n, 2);
  expect_point(out, n, (double[3]){0, 0.5, -0.0005}, (double[3]){0, 0, 1}, -0.001, 1e-12);
  expect_point(out, n, (double[3]){0, -0.5, -0.0005}, (double[3]){0, 0, 1}, -0.001, 1e-12);
  // standing on a cap: four rim points at 90 degrees
  cyl = make_shape(TF_GEOM_CYLINDER, 0.2, 0.5, 0, 0, 0, 0.5, NULL);
  n = collide_checked(tf_collide_plane_cylinder, &plane, &cyl, 0.01, out);
  assert_int_equal(n, 4);
  for (int i = 0; i < 4; i++) {
    double pos[3] = {0, 0, 0};
    pos[i & 1] = i < 2 ? 0.2 : -0.2;
    expect_point(out, n, pos, (double[3]){0, 0, 1}, 0, 1e-12);
  }
  // tipped 20 degrees about an axis between x and y: the deepest rim point plus the four
  // body-fixed ones of the lower cap, under a margin that reaches them
  double tip[9];
  double phi = 20 * M_PI / 180;
  axis_rotation(tip, 1, 1, 0, phi);
  cyl = make_shape(TF_GEOM_CYLINDER, 0.2, 0.5, 0, 0, 0, 0, tip);
  double deepest = -0.5 * cos(phi) - 0.2 * sin(phi);
  cyl.pos[2] = -deepest - 0.003;
  n = collide_checked(tf_collide_plane_cylinder, &plane, &cyl, 0.01, out);
  assert_int_equal(n, 1);
  assert_near(out[0].dist, -0.003, 1e-12);
  n = collide_checked(tf_collide_plane_cylinder, &plane, &cyl, 0.2, out);
  assert_int_equal(n, 5);
  assert_near(min_dist(out, n), -0.003, 1e-12);
  // the upper cap's deepest rim point joins under a margin that reaches it
  n = collide_checked(tf_collide_plane_cylinder, &plane, &cyl, 1.0, out);
  assert_int_equal(n, 6);
  check_swap(&plane, &cyl, 1.0);
}

// ---------------------------------------------------------------------------------------------
// sphere and capsule pairs

static void test_sphere_sphere(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  tf_shape a = make_shape(TF_GEOM_SPHERE, 0.5, 0, 0, 0, 0, 0, NULL);
  tf_shape b = make_shape(TF_GEOM_SPHERE, 0.25, 0, 0, 0, 1, 0, NULL);
  assert_int_equal(collide_checked(tf_collide_sphere_sphere, &a, &b, 0.3, out), 1);
  expect_point(out, 1, (double[3]){0, 0.625, 0}, (double[3]){0, 1, 0}, 0.25, 1e-12);
  assert_int_equal(collide_checked(tf_collide_sphere_sphere, &a, &b, 0.25, out), 0);
  b.pos[1] = 0.75;
  assert_int_equal(collide_checked(tf_collide_sphere_sphere, &a, &b, 1e-9, out), 1);
  expect_point(out, 1, (double[3]){0, 0.5, 0}, (double[3]){0, 1, 0}, 0, 1e-12);
  b.pos[1] = -0.6;
  assert_int_equal(collide_checked(tf_collide_sphere_sphere, &a, &b, 0, out), 1);
  expect_point(out, 1, (double[3]){0, -0.425, 0}, (double[3]){0, -1, 0}, -0.15, 1e-12);
  check_swap(&a, &b, 0);
}

static void test_sphere_capsule(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  tf_shape cap = make_shape(TF_GEOM_CAPSULE, 0.1, 1, 0, 0, 0, 0, NULL);  // along z
  // beside the middle of the segment
  tf_shape ball = make_shape(TF_GEOM_SPHERE, 0.2, 0, 0, 0.5, 0, 0.3, NULL);
  assert_int_equal(collide_checked(tf_collide_sphere_capsule, &ball, &cap, 0.5, out), 1);
  expect_point(out, 1, (double[3]){0.2, 0, 0.3}, (double[3]){-1, 0, 0}, 0.2, 1e-12);
  // beyond an end cap, overlapping
  ball.pos[0] = 0;
  ball.pos[2] = -1.25;
  assert_int_equal(collide_checked(tf_collide_sphere_capsule, &ball, &cap, 0, out), 1);
  expect_point(out, 1, (double[3]){0, 0, -1.075}, (double[3]){0, 0, 1}, -0.05, 1e-12);
  check_swap(&ball, &cap, 0);
}

static void test_capsule_capsule(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  double alongx[9], alongy[9], alongmx[9];
  axis_rotation(alongx, 0, 1, 0, M_PI / 2);
  axis_rotation(alongmx, 0, 1, 0, -M_PI / 2);
  axis_rotation(alongy, 1, 0, 0, -M_PI / 2);
  // crossing at right angles, separated by 0.1 along z
  tf_shape a = make_shape(TF_GEOM_CAPSULE, 0.1, 1, 0, 0, 0, 0, alongx);
  tf_shape b = make_shape(TF_GEOM_CAPSULE, 0.2, 1, 0, 0.3, -0.4, 0.4, alongy);
  assert_int_equal(collide_checked(tf_collide_capsule_capsule, &a, &b, 0.2, out), 1);
  expect_point(out, 1, (double[3]){0.3, 0, 0.15}, (double[3]){0, 0, 1}, 0.1, 1e-12);
  // crossing past the end of a: the end cap against b's side
  b.pos[0] = 1.2;
  b.pos[2] = 0;
  assert_int_equal(collide_checked(tf_collide_capsule_capsule, &a, &b, 0.2, out), 1);
  expect_point(out, 1, (double[3]){1.05, 0, 0}, (double[3]){1, 0, 0}, -0.1, 1e-12);
  // parallel, overlapping over x in [-0.5, 1]: the two ends of the overlap
  b = make_shape(TF_GEOM_CAPSULE, 0.1, 1, 0, 0.5, 0.25, 0, alongx);
  int n = collide_checked(tf_collide_capsule_capsule, &a, &b, 0.1, out);
  assert_int_equal(n, 2);
  expect_point(out, n, (double[3]){-0.5, 0.125, 0}, (double[3]){0, 1, 0}, 0.05, 1e-12);
  expect_point(out, n, (double[3]){1, 0.125, 0}, (double[3]){0, 1, 0}, 0.05, 1e-12);
  // antiparallel is the same
  b = make_shape(TF_GEOM_CAPSULE, 0.1, 1, 0, 0.5, 0.25, 0, alongmx);
  n = collide_checked(tf_collide_capsule_capsule, &a, &b, 0.1, out);
  assert_int_equal(n, 2);
  expect_point(out, n, (double[3]){-0.5, 0.125, 0}, (double[3]){0, 1, 0}, 0.05, 1e-12);
  expect_point(out, n, (double[3]){1, 0.125, 0}, (double[3]){0, 1, 0}, 0.05, 1e-12);
  // parallel and end to end on one line: one point between the caps
  b = make_shape(TF_GEOM_CAPSULE, 0.1, 1, 0, 2.3, 0, 0, alongx);
  n = collide_checked(tf_collide_capsule_capsule, &a, &b, 0.2, out);
  assert_int_equal(n, 1);
  expect_point(out, n, (double[3]){1.15, 0, 0}, (double[3]){1, 0, 0}, 0.1, 1e-12);
  // a capsule lying on a longer one at 1 degree: the ends of the shorter one plus the closest
  // pair between them
  double skew[9];
  axis_rotation(skew, 0, 0, 1, M_PI / 180);
  tf_mat3_mul(skew, skew, alongx);
  b = make_shape(TF_GEOM_CAPSULE, 0.1, 0.8, 0, 0, 0, 0.199, skew);
  n = collide_checked(tf_collide_capsule_capsule, &a, &b, 0.01, out);
  assert_int_equal(n, 3);
  assert_near(min_dist(out, n), -0.001, 1e-12);
  for (int e = 0; e < 2; e++) {
    double c = 0.8 * cos(M_PI / 180) * (e ? 1 : -1), s = 0.8 * sin(M_PI / 180) * (e ? 1 : -1);
    double dist = hypot(s, 0.199) - 0.2;
    double nrm[3] = {0, s / hypot(s, 0.199), 0.199 / hypot(s, 0.199)};
    expect_point(out, n, (double[3]){c, 0.5 * s, 0.0995}, nrm, dist, 1e-12);
  }
  check_swap(&a, &b, 0.01);
  // equal lengths: each order pairs its own ends, with the same gaps
  b.size[1] = 1;
  check_swap_tie(&a, &b, 0.01);
}

// ---------------------------------------------------------------------------------------------
// box pairs

static void test_sphere_box(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  tf_shape box = make_shape(TF_GEOM_BOX, 0.5, 0.3, 0.2, 0, 0, 0, NULL);
  // over a face, over an edge, over a corner
  tf_shape ball = make_shape(TF_GEOM_SPHERE, 0.1, 0, 0, 0.1, 0.1, 0.4, NULL);
  assert_int_equal(collide_checked(tf_collide_sphere_box, &ball, &box, 0.2, out), 1);
  expect_point(out, 1, (double[3]){0.1, 0.1, 0.25}, (double[3]){0, 0, -1}, 0.1, 1e-12);
  ball.pos[0] = 0.8;
  ball.pos[1] = 0;
  ball.pos[2] = 0.6;
  assert_int_equal(collide_checked(tf_collide_sphere_box, &ball, &box, 1, out), 1);
  expect_point(out, 1, (double[3]){0.62, 0, 0.36}, (double[3]){-0.6, 0, -0.8}, 0.4, 1e-12);
  ball.pos[1] = 0.3 + 0.2;
  assert_int_equal(collide_checked(tf_collide_sphere_box, &ball, &box, 1, out), 1);
  assert_near(out[0].dist, sqrt(0.09 + 0.04 + 0.16) - 0.1, 1e-12);
  // centre inside, nearest the +y face
  ball.pos[0] = 0.1;
  ball.pos[1] = 0.25;
  ball.pos[2] = 0;
  assert_int_equal(collide_checked(tf_collide_sphere_box, &ball, &box, 0, out), 1);
  expect_point(out, 1, (double[3]){0.1, 0.225, 0}, (double[3]){0, -1, 0}, -0.15, 1e-12);
  // centre at the box centre: out through the thinnest direction
  ball.pos[1] = 0;
  ball.pos[0] = 0;
  assert_int_equal(collide_checked(tf_collide_sphere_box, &ball, &box, 0, out), 1);
  assert_near(out[0].dist, -0.3, 1e-12);
  assert_near(fabs(out[0].normal[2]), 1, 1e-12);
  check_swap(&ball, &box, 0);
}

static void test_capsule_box(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  double alongx[9], alongy[9];
  axis_rotation(alongx, 0, 1, 0, M_PI / 2);
  axis_rotation(alongy, 1, 0, 0, -M_PI / 2);
  tf_shape box = make_shape(TF_GEOM_BOX, 1, 1, 0.5, 0, 0, 0, NULL);
  // lying flat on the top face, 0.01 deep: two points at the segment ends
  tf_shape cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.4, 0, 0.2, 0.3, 0.59, alongx);
  int n = collide_checked(tf_collide_capsule_box, &cap, &box, 0.02, out);
  assert_int_equal(n, 2);
  expect_point(out, n, (double[3]){-0.2, 0.3, 0.495}, (double[3]){0, 0, -1}, -0.01, 1e-12);
  expect_point(out, n, (double[3]){0.6, 0.3, 0.495}, (double[3]){0, 0, -1}, -0.01, 1e-12);
  // touching and separated the same way
  cap.pos[2] = 0.6;
  assert_int_equal(collide_checked(tf_collide_capsule_box, &cap, &box, 1e-9, out), 2);
  cap.pos[2] = 0.65;
  n = collide_checked(tf_collide_capsule_box, &cap, &box, 0.1, out);
  assert_int_equal(n, 2);
  expect_point(out, n, (double[3]){-0.2, 0.3, 0.525}, (double[3]){0, 0, -1}, 0.05, 1e-12);
  assert_int_equal(collide_checked(tf_collide_capsule_box, &cap, &box, 0.049, out), 0);
  // longer than the face: the points sit where the segment leaves the face
  cap = make_shape(TF_GEOM_CAPSULE, 0.1, 2, 0, 0.5, 0, 0.6, alongx);
  n = collide_checked(tf_collide_capsule_box, &cap, &box, 0.01, out);
  assert_int_equal(n, 2);
  expect_point(out, n, (double[3]){-1, 0, 0.5}, (double[3]){0, 0, -1}, 0, 1e-12);
  expect_point(out, n, (double[3]){1, 0, 0.5}, (double[3]){0, 0, -1}, 0, 1e-12);
  // standing on the face: one point under a small margin
  cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.4, 0, 0.2, 0.3, 0.99, NULL);
  n = collide_checked(tf_collide_capsule_box, &cap, &box, 0.02, out);
  assert_int_equal(n, 1);
  expect_point(out, n, (double[3]){0.2, 0.3, 0.495}, (double[3]){0, 0, -1}, -0.01, 1e-12);
  // along an edge, parallel to it: two points at the capsule's ends along the edge normal
  double s = sqrt(0.5), gap = 0.2 * sqrt(2) - 0.1, mid = 0.5 * gap * s;
  cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.5, 0, 1.2, 0, 0.7, alongy);
  n = collide_checked(tf_collide_capsule_box, &cap, &box, 0.5, out);
  assert_int_equal(n, 2);
  expect_point(out, n, (double[3]){1 + mid, -0.5, 0.5 + mid}, (double[3]){-s, 0, -s}, gap, 1e-12);
  expect_point(out, n, (double[3]){1 + mid, 0.5, 0.5 + mid}, (double[3]){-s, 0, -s}, gap, 1e-12);
  // across an edge, at right angles to it and to the edge normal: one point
  double across[9];
  axis_rotation(across, 0, 1, 0, -M_PI / 4);
  cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.5, 0, 1.2, 0.3, 0.7, across);
  n = collide_checked(tf_collide_capsule_box, &cap, &box, 0.5, out);
  assert_int_equal(n, 1);
  expect_point(out, n, (double[3]){1 + mid, 0.3, 0.5 + mid}, (double[3]){-s, 0, -s}, gap, 1e-12);
  // pushed through the side face (deepest point 0.05 inside the +x face)
  cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.3, 0, 0.95, 0.2, 0, NULL);
  n = collide_checked(tf_collide_capsule_box, &cap, &box, 0, out);
  assert_int_equal(n, 2);
  expect_point(out, n, (double[3]){0.925, 0.2, 0.3}, (double[3]){-1, 0, 0}, -0.15, 1e-12);
  expect_point(out, n, (double[3]){0.925, 0.2, -0.3}, (double[3]){-1, 0, 0}, -0.15, 1e-12);
  // a capsule without length is a sphere
  cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0, 0, 0.3, 0.2, 0.55, NULL);
  n = collide_checked(tf_collide_capsule_box, &cap, &box, 0, out);
  assert_int_equal(n, 1);
  expect_point(out, n, (double[3]){0.3, 0.2, 0.475}, (double[3]){0, 0, -1}, -0.05, 1e-12);
  check_swap(&cap, &box, 0);
}

// the area of the polygon through the points, in the order given, projected on z
static double xy_area(const tf_contact_point* out, const int* order, int n) {
  double area = 0;
  for (int i = 0; i < n; i++) {
    const double* p = out[order[i]].pos;
    const double* q = out[order[(i + 1) % n]].pos;
    area += p[0] * q[1] - q[0] * p[1];
  }
  return 0.5 * fabs(area);
}

static void test_box_box_resting(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  // a small box on a big one, in both roles: exactly its four bottom corners
  tf_shape big = make_shape(TF_GEOM_BOX, 1, 1, 0.5, 0, 0, 0, NULL);
  tf_shape small = make_shape(TF_GEOM_BOX, 0.2, 0.1, 0.1, 0.3, -0.2, 0.6, NULL);
  for (int pass = 0; pass < 2; pass++) {
    const tf_shape* a = pass == 0 ? &big : &small;
    const tf_shape* b = pass == 0 ? &small : &big;
    double nz = pass == 0 ? 1 : -1;
    int n = collide_checked(tf_collide_box_box, a, b, 0.01, out);
    assert_int_equal(n, 4);
    for (int c = 0; c < 4; c++) {
      double pos[3] = {0.3 + (c & 1 ? 0.2 : -0.2), -0.2 + (c & 2 ? 0.1 : -0.1), 0.5};
      expect_point(out, n, pos, (double[3]){0, 0, nz}, 0, 1e-12);
    }
    check_swap_tie(a, b, 0.01);
  }
  // sunk 0.01, or floating 0.02 with a margin that reaches it
  small.pos[2] = 0.59;
  int n = collide_checked(tf_collide_box_box, &big, &small, 0.01, out);
  assert_int_equal(n, 4);
  for (int i = 0; i < n; i++) assert_near(out[i].dist, -0.01, 1e-12);
  small.pos[2] = 0.62;
  n = collide_checked(tf_collide_box_box, &big, &small, 0.05, out);
  assert_int_equal(n, 4);
  for (int i = 0; i < n; i++) assert_near(out[i].dist, 0.02, 1e-12);
  assert_int_equal(collide_checked(tf_collide_box_box, &big, &small, 0.02, out), 0);
  // equal boxes stacked exactly
  tf_shape lower = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, 0, 0, 0, NULL);
  tf_shape upper = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, 0, 0, 1, NULL);
  n = collide_checked(tf_collide_box_box, &lower, &upper, 0.01, out);
  assert_int_equal(n, 4);
  for (int c = 0; c < 4; c++) {
    double pos[3] = {c & 1 ? 0.5 : -0.5, c & 2 ? 0.5 : -0.5, 0.5};
    expect_point(out, n, pos, (double[3]){0, 0, 1}, 0, 1e-12);
  }
  // hanging half over the edge: the corners of the overlap
  upper.pos[0] = 0.7;
  n = collide_checked(tf_collide_box_box, &lower, &upper, 0.01, out);
  assert_int_equal(n, 4);
  for (int c = 0; c < 4; c++) {
    double pos[3] = {c & 1 ? 0.5 : 0.2, c & 2 ? 0.5 : -0.5, 0.5};
    expect_point(out, n, pos, (double[3]){0, 0, 1}, 0, 1e-12);
  }
}

static void test_box_box_rotated(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  // equal boxes, the upper one turned 45 degrees about z: an octagon reduced to four points
  double rot[9];
  axis_rotation(rot, 0, 0, 1, M_PI / 4);
  tf_shape lower = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, 0, 0, 0, NULL);
  tf_shape upper = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, 0, 0, 0.999, rot);
  int n = collide_checked(tf_collide_box_box, &lower, &upper, 0.01, out);
  assert_int_equal(n, 4);
  for (int i = 0; i < n; i++) {
    assert_near(out[i].dist, -0.001, 1e-12);
    assert_near(out[i].normal[2], 1, 1e-12);
    // inside both squares
    assert_true(fabs(out[i].pos[0]) <= 0.5 + 1e-12 && fabs(out[i].pos[1]) <= 0.5 + 1e-12);
    assert_true(fabs(out[i].pos[0] + out[i].pos[1]) <= sqrt(0.5) + 1e-12);
    assert_true(fabs(out[i].pos[0] - out[i].pos[1]) <= sqrt(0.5) + 1e-12);
    // on the octagon's boundary (a vertex of it)
    double r = hypot(out[i].pos[0], out[i].pos[1]);
    assert_true(r > 0.5);
  }
  // the kept quadrilateral spans most of the octagon (area 8 (sqrt(2) - 1) / 4 ~ 0.828);
  // order the points by angle before measuring
  int order[4] = {0, 1, 2, 3};
  for (int i = 1; i < 4; i++) {
    for (int j = i; j > 0; j--) {
      double aj = atan2(out[order[j]].pos[1], out[order[j]].pos[0]);
      double ak = atan2(out[order[j - 1]].pos[1], out[order[j - 1]].pos[0]);
      if (aj < ak) {
        int t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    }
  }
  assert_true(xy_area(out, order, 4) > 0.55);
  check_swap_tie(&lower, &upper, 0.01);
}

static void test_box_box_edges(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  // a's top is an edge along y, b's bottom an edge along x: they cross at the z axis
  double ra[9], rb[9];
  axis_rotation(ra, 0, 1, 0, M_PI / 4);
  axis_rotation(rb, 1, 0, 0, M_PI / 4);
  double e = 0.5 * sqrt(2);
  for (int pass = 0; pass < 3; pass++) {
    double gap = pass == 0 ? -0.01 : (pass == 1 ? 0 : 0.03);
    tf_shape a = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, 0, 0, 0, ra);
    tf_shape b = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, 0, 0, 2 * e + gap, rb);
    int n = collide_checked(tf_collide_box_box, &a, &b, 0.05, out);
    assert_int_equal(n, 1);
    expect_point(out, n, (double[3]){0, 0, e + 0.5 * gap}, (double[3]){0, 0, 1}, gap, 1e-12);
    check_swap(&a, &b, 0.05);
    assert_int_equal(collide_checked(tf_collide_box_box, &a, &b, gap, out), 0);
  }
  // separated side by side and offset diagonally, so the faces miss each other: the exact
  // closest points of the two parallel vertical edges, under a margin that reaches them
  tf_shape a = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, 0, 0, 0, NULL);
  tf_shape b = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, 1.02, 1.01, 0, NULL);
  int n = collide_checked(tf_collide_box_box, &a, &b, 0.05, out);
  assert_int_equal(n, 1);
  double d = hypot(0.02, 0.01);
  assert_near(out[0].dist, d, 1e-12);
  expect_point(out, n, (double[3]){0.51, 0.505, out[0].pos[2]}, (double[3]){0.02 / d, 0.01 / d, 0},
               d, 1e-12);
  assert_int_equal(collide_checked(tf_collide_box_box, &a, &b, 0.0223, out), 0);
  check_swap(&a, &b, 0.05);
}

// ---------------------------------------------------------------------------------------------
// all pairs, randomised

typedef struct pair_case {
  pair_fn fn;
  int type_a, type_b;
} pair_case;

static const pair_case all_pairs[] = {
    {tf_collide_plane_sphere, TF_GEOM_PLANE, TF_GEOM_SPHERE},
    {tf_collide_plane_capsule, TF_GEOM_PLANE, TF_GEOM_CAPSULE},
    {tf_collide_plane_box, TF_GEOM_PLANE, TF_GEOM_BOX},
    {tf_collide_plane_cylinder, TF_GEOM_PLANE, TF_GEOM_CYLINDER},
    {tf_collide_sphere_sphere, TF_GEOM_SPHERE, TF_GEOM_SPHERE},
    {tf_collide_sphere_capsule, TF_GEOM_SPHERE, TF_GEOM_CAPSULE},
    {tf_collide_sphere_box, TF_GEOM_SPHERE, TF_GEOM_BOX},
    {tf_collide_capsule_capsule, TF_GEOM_CAPSULE, TF_GEOM_CAPSULE},
    {tf_collide_capsule_box, TF_GEOM_CAPSULE, TF_GEOM_BOX},
    {tf_collide_box_box, TF_GEOM_BOX, TF_GEOM_BOX},
};
#define NPAIRS ((int)(sizeof all_pairs / sizeof all_pairs[0]))

// a random shape of a type near the origin
static tf_shape random_shape(test_rng* rng, int type) {
  double rot[9];
  random_rotation(rng, rot);
  tf_shape s = make_shape(type, rng_uniform(rng, 0.05, 0.5), rng_uniform(rng, 0.05, 0.5),
                          rng_uniform(rng, 0.05, 0.5), rng_uniform(rng, -0.6, 0.6),
                          rng_uniform(rng, -0.6, 0.6), rng_uniform(rng, -0.6, 0.6), rot);
  if (type == TF_GEOM_PLANE) s.pos[2] -= 0.5;
  return s;
}

static void test_random_pairs(void** state) {
  (void)state;
  test_rng rng = {12345 + SEED};
  static const double margins[4] = {0, 0.01, 0.05, 0.3};
  for (int p = 0; p < NPAIRS; p++) {
    int found = 0, checked = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
      tf_shape a = random_shape(&rng, all_pairs[p].type_a);
      tf_shape b = random_shape(&rng, all_pairs[p].type_b);
      double margin = margins[trial % 4];
      tf_contact_point out[TF_MAX_PAIR_CONTACTS];
      int n = collide_checked(all_pairs[p].fn, &a, &b, margin, out);
      found += n > 0;
      check_moved(all_pairs[p].fn, &a, &b, margin, &rng);
      check_swap(&a, &b, margin);
      // the deepest gap against the brute-force distance: equal for every pair except box x
      // box, whose separating-axis gap may only be smaller (a lower bound), and the deep
      // penetrations of capsule x box, whose face depth may only be larger
      double ref = reference_distance(&a, &b);
      if (isnan(ref)) continue;
      if (ref < margin) assert_true(n > 0);
      if (n == 0) continue;
      checked++;
      double got = min_dist(out, n);
      if (all_pairs[p].type_a == TF_GEOM_BOX) {
        assert_true(got <= ref + 1e-8);
        assert_true(got > 0);
      } else if (all_pairs[p].type_b == TF_GEOM_BOX && ref < 0 &&
                 all_pairs[p].type_a == TF_GEOM_CAPSULE) {
        assert_true(got <= ref + 1e-9);
      } else {
        assert_near(got, ref, 1e-9);
      }
    }
    // the configurations do exercise the pair
    assert_true(found > TRIALS / 10);
    assert_true(checked > TRIALS / 20);
  }
}

// random configurations brought to a near touch (deepest gap 0.001, by sliding b along the
// deepest normal a few times), so that manifolds in contact get compared too
static void test_random_touching(void** state) {
  (void)state;
  test_rng rng = {777 + SEED};
  for (int p = 0; p < NPAIRS; p++) {
    int touching = 0;
    for (int trial = 0; trial < TRIALS / 4; trial++) {
      tf_shape a = random_shape(&rng, all_pairs[p].type_a);
      tf_shape b = random_shape(&rng, all_pairs[p].type_b);
      tf_contact_point out[TF_MAX_PAIR_CONTACTS];
      for (int iter = 0; iter < 6; iter++) {
        int n = all_pairs[p].fn(&a, &b, 10, out);
        if (n == 0) break;
        int deepest = 0;
        for (int i = 1; i < n; i++) {
          if (out[i].dist < out[deepest].dist) deepest = i;
        }
        double shift = 0.001 - out[deepest].dist;
        for (int k = 0; k < 3; k++) b.pos[k] += shift * out[deepest].normal[k];
      }
      int n = collide_checked(all_pairs[p].fn, &a, &b, 0.05, out);
      if (n > 0 && fabs(min_dist(out, n) - 0.001) < 1e-6) touching++;
      check_moved(all_pairs[p].fn, &a, &b, 0.05, &rng);
      check_swap(&a, &b, 0.05);
    }
    assert_true(touching > TRIALS / 5);
  }
}

// resting stacks at random yaw, offset and sizes (ties everywhere: parallel faces, equal gaps):
// a box on a box gets 3 or 4 points, all at the stacking gap, inside both footprints, stable
// under moving the whole stack; a capsule on a box gets 2 points
static void test_random_resting(void** state) {
  (void)state;
  test_rng rng = {99 + SEED};
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  for (int trial = 0; trial < TRIALS; trial++) {
    double yaw[9], gap = (trial % 3 - 1) * 0.001;
    axis_rotation(yaw, 0, 0, 1, rng_uniform(&rng, -M_PI, M_PI));
    tf_shape lower =
        make_shape(TF_GEOM_BOX, rng_uniform(&rng, 0.1, 0.5), rng_uniform(&rng, 0.1, 0.5),
                   rng_uniform(&rng, 0.1, 0.5), 0, 0, 0, NULL);
    // the upper centre over the lower face, so that the footprints overlap
    tf_shape upper =
        make_shape(TF_GEOM_BOX, rng_uniform(&rng, 0.1, 0.5), rng_uniform(&rng, 0.1, 0.5),
                   rng_uniform(&rng, 0.1, 0.5), rng_uniform(&rng, -0.9, 0.9) * lower.size[0],
                   rng_uniform(&rng, -0.9, 0.9) * lower.size[1], 0, yaw);
    upper.pos[2] = lower.size[2] + upper.size[2] + gap;
    int n = collide_checked(tf_collide_box_box, &lower, &upper, 0.01, out);
    assert_true(n == 3 || n == 4);
    for (int i = 0; i < n; i++) {
      assert_near(out[i].dist, gap, 1e-12);
      assert_near(out[i].normal[2], 1, 1e-12);
      double local[3];
      local_point(local, &upper, out[i].pos);
      assert_true(fabs(out[i].pos[0]) <= lower.size[0] + 1e-9);
      assert_true(fabs(out[i].pos[1]) <= lower.size[1] + 1e-9);
      assert_true(fabs(local[0]) <= upper.size[0] + 1e-9);
      assert_true(fabs(local[1]) <= upper.size[1] + 1e-9);
    }
    check_moved(tf_collide_box_box, &lower, &upper, 0.01, &rng);
    check_swap_tie(&lower, &upper, 0.01);

    // a capsule lying on the lower box, at a random yaw, its middle over the face
    double lying[9], flat[9];
    axis_rotation(flat, 0, 1, 0, M_PI / 2);
    tf_mat3_mul(lying, yaw, flat);
    tf_shape cap =
        make_shape(TF_GEOM_CAPSULE, rng_uniform(&rng, 0.02, 0.2), rng_uniform(&rng, 0.05, 0.6), 0,
                   rng_uniform(&rng, -0.05, 0.05), rng_uniform(&rng, -0.05, 0.05), 0, lying);
    cap.pos[2] = lower.size[2] + cap.size[0] + gap;
    n = collide_checked(tf_collide_capsule_box, &cap, &lower, 0.01, out);
    assert_int_equal(n, 2);
    for (int i = 0; i < n; i++) {
      assert_near(out[i].dist, gap, 1e-12);
      assert_near(out[i].normal[2], -1, 1e-12);
    }
    check_moved(tf_collide_capsule_box, &cap, &lower, 0.01, &rng);
    check_swap(&cap, &lower, 0.01);
  }
}

// the deepest point does not depend on margin: under any margin the result holds a point
// exactly when the deepest gap under a huge margin is below it, and then that same gap
static void test_margins(void** state) {
  (void)state;
  test_rng rng = {4242 + SEED};
  static const double margins[6] = {-0.05, 0, 0.001, 0.02, 0.1, 0.4};
  for (int p = 0; p < NPAIRS; p++) {
    for (int trial = 0; trial < TRIALS / 4; trial++) {
      tf_shape a = random_shape(&rng, all_pairs[p].type_a);
      tf_shape b = random_shape(&rng, all_pairs[p].type_b);
      tf_contact_point out[TF_MAX_PAIR_CONTACTS];
      int n = collide_checked(all_pairs[p].fn, &a, &b, 100, out);
      double deepest = min_dist(out, n);
      for (int i = 0; i < 6; i++) {
        int m = collide_checked(all_pairs[p].fn, &a, &b, margins[i], out);
        assert_int_equal(m > 0, deepest < margins[i]);
        if (m > 0) assert_near(min_dist(out, m), deepest, 1e-12);
      }
    }
  }
}

static void test_degenerate(void** state) {
  (void)state;
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  // coincident sphere centres
  tf_shape a = make_shape(TF_GEOM_SPHERE, 0.3, 0, 0, 1, 1, 1, NULL);
  tf_shape b = make_shape(TF_GEOM_SPHERE, 0.2, 0, 0, 1, 1, 1, NULL);
  assert_int_equal(collide_checked(tf_collide_sphere_sphere, &a, &b, 0, out), 1);
  assert_near(out[0].dist, -0.5, 1e-12);
  // a sphere centred on a capsule's axis
  tf_shape cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.5, 0, 1, 1, 1.2, NULL);
  assert_int_equal(collide_checked(tf_collide_sphere_capsule, &a, &cap, 0, out), 1);
  assert_near(out[0].dist, -0.4, 1e-12);
  // zero-length capsules, at one point and apart
  tf_shape c1 = make_shape(TF_GEOM_CAPSULE, 0.1, 0, 0, 0, 0, 0, NULL);
  tf_shape c2 = make_shape(TF_GEOM_CAPSULE, 0.2, 0, 0, 0, 0, 0, NULL);
  assert_int_equal(collide_checked(tf_collide_capsule_capsule, &c1, &c2, 0, out), 1);
  assert_near(out[0].dist, -0.3, 1e-12);
  c2.pos[1] = 0.5;
  assert_int_equal(collide_checked(tf_collide_capsule_capsule, &c1, &c2, 0.5, out), 1);
  assert_near(out[0].dist, 0.2, 1e-12);
  // a zero-length capsule against a long one, and on its axis
  tf_shape c3 = make_shape(TF_GEOM_CAPSULE, 0.1, 1, 0, 0, 0, 0, NULL);
  c2.pos[1] = 0;
  assert_int_equal(collide_checked(tf_collide_capsule_capsule, &c2, &c3, 0, out), 1);
  assert_near(out[0].dist, -0.3, 1e-12);
  // coincident parallel capsules, and crossing axes through one point
  tf_shape c4 = c3;
  int n = collide_checked(tf_collide_capsule_capsule, &c3, &c4, 0, out);
  assert_int_equal(n, 2);
  for (int i = 0; i < n; i++) assert_near(out[i].dist, -0.2, 1e-12);
  double rot[9];
  axis_rotation(rot, 1, 0, 0, M_PI / 2);
  memcpy(c4.mat, rot, sizeof rot);
  assert_int_equal(collide_checked(tf_collide_capsule_capsule, &c3, &c4, 0, out), 1);
  assert_near(out[0].dist, -0.2, 1e-12);
  // a degenerate frame (all zero): no direction at all, still finite
  tf_shape z1 = c3, z2 = c3;
  memset(z1.mat, 0, sizeof z1.mat);
  memset(z2.mat, 0, sizeof z2.mat);
  z2.pos[0] = 0.1;
  n = tf_collide_capsule_capsule(&z1, &z2, 1, out);
  for (int i = 0; i < n; i++) {
    assert_true(isfinite(out[i].dist) && isfinite(out[i].normal[0]) && isfinite(out[i].pos[0]));
  }
  // capsule and sphere centred at a box centre; coincident boxes
  tf_shape box = make_shape(TF_GEOM_BOX, 0.3, 0.3, 0.3, 0, 0, 0, NULL);
  assert_int_equal(collide_checked(tf_collide_capsule_box, &c3, &box, 0, out) > 0, 1);
  assert_int_equal(collide_checked(tf_collide_capsule_box, &c1, &box, 0, out), 1);
  assert_near(out[0].dist, -0.4, 1e-12);
  n = collide_checked(tf_collide_box_box, &box, &box, 0, out);
  assert_int_equal(n, 4);
  for (int i = 0; i < n; i++) assert_near(out[i].dist, -0.6, 1e-12);
  // a capsule lying exactly along a box edge
  double alongx[9];
  axis_rotation(alongx, 0, 1, 0, M_PI / 2);
  tf_shape edge = make_shape(TF_GEOM_CAPSULE, 0.1, 0.2, 0, 0, 0.3, 0.3, alongx);
  n = collide_checked(tf_collide_capsule_box, &edge, &box, 0, out);
  assert_true(n >= 1);
  assert_near(min_dist(out, n), -0.1, 1e-12);

  // every pair with sizes of zero, coincident or axis-aligned poses: finite, unit normals
  test_rng rng = {5 + SEED};
  for (int p = 0; p < NPAIRS; p++) {
    for (int trial = 0; trial < 200; trial++) {
      tf_shape s[2];
      for (int j = 0; j < 2; j++) {
        s[j] = random_shape(&rng, j == 0 ? all_pairs[p].type_a : all_pairs[p].type_b);
        for (int k = 0; k < 3; k++) {
          if (rng_bits(&rng) & 1) s[j].size[k] = 0;
          if (rng_bits(&rng) & 1) s[j].pos[k] = 0;
        }
        if (rng_bits(&rng) & 1) memcpy(s[j].mat, identity, sizeof identity);
      }
      n = all_pairs[p].fn(&s[0], &s[1], 0.1, out);
      assert_in_range(n, 0, TF_MAX_PAIR_CONTACTS);
      for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
          assert_true(isfinite(out[i].pos[k]) && isfinite(out[i].normal[k]));
        }
        assert_true(out[i].dist < 0.1);
        assert_near(tf_vec3_norm(out[i].normal), 1, 1e-9);
      }
    }
  }
}

static void test_table(void** state) {
  (void)state;
  // every pair but plane x plane (mesh and SDF pairs are tested in test_collision_sdf.c)
  for (int i = 0; i < TF_GEOM_NTYPE; i++) {
    for (int j = 0; j < TF_GEOM_NTYPE; j++) {
      int expected = !(i == TF_GEOM_PLANE && j == TF_GEOM_PLANE);
      assert_int_equal(tf_collide_supported(i, j), expected);
    }
  }
  tf_contact_point out[TF_MAX_PAIR_CONTACTS];
  tf_shape p1 = make_shape(TF_GEOM_PLANE, 0, 0, 0, 0, 0, 0, NULL);
  tf_shape p2 = make_shape(TF_GEOM_PLANE, 0, 0, 0, 0, 0, -1, NULL);
  assert_int_equal(tf_collide(&p1, &p2, 1, out), 0);
  // both orders of every closed-form pair reach the same function
  tf_shape ball = make_shape(TF_GEOM_SPHERE, 0.5, 0, 0, 0, 0, 0.4, NULL);
  assert_int_equal(tf_collide(&ball, &p1, 0, out), 1);
  expect_point(out, 1, (double[3]){0, 0, -0.05}, (double[3]){0, 0, -1}, -0.1, 1e-12);
  assert_int_equal(tf_collide(&p1, &ball, 0, out), 1);
  expect_point(out, 1, (double[3]){0, 0, -0.05}, (double[3]){0, 0, 1}, -0.1, 1e-12);
  tf_shape box = make_shape(TF_GEOM_BOX, 1, 1, 0.5, 0, 0, -0.5, NULL);
  assert_int_equal(tf_collide(&box, &ball, 0, out), 1);
  expect_point(out, 1, (double[3]){0, 0, -0.05}, (double[3]){0, 0, 1}, -0.1, 1e-12);
  // pairs without a closed form reach the convex code in either order: far apart, so that
  // the real code and this build's stand-in both find nothing
  static const double tet_vert[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double c = 1 / sqrt(3.0);
  const double tet_plane[16] = {0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0, 0, c, c, c, c};
  static const int tet_adr[4] = {0, 3, 6, 9}, tet_num[4] = {3, 3, 3, 3};
  static const int tet_face[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  tf_shape cyl = make_shape(TF_GEOM_CYLINDER, 0.5, 0.5, 0, 5, 0, 0, NULL);
  tf_shape hull = make_shape(TF_GEOM_HULL, 0, 0, 0, -5, 0, 5, NULL);
  hull.hull = (tf_hull_view){4, tet_vert, 4, tet_plane, tet_adr, tet_num, tet_face, 1};
  const tf_shape* convex_pairs[5][2] = {
      {&cyl, &ball}, {&box, &cyl}, {&cyl, &hull}, {&hull, &box}, {&p1, &hull}};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(tf_collide(convex_pairs[i][0], convex_pairs[i][1], 0.1, out), 0);
    assert_int_equal(tf_collide(convex_pairs[i][1], convex_pairs[i][0], 0.1, out), 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plane_sphere),    cmocka_unit_test(test_plane_capsule),
      cmocka_unit_test(test_plane_box),       cmocka_unit_test(test_plane_cylinder),
      cmocka_unit_test(test_sphere_sphere),   cmocka_unit_test(test_sphere_capsule),
      cmocka_unit_test(test_capsule_capsule), cmocka_unit_test(test_sphere_box),
      cmocka_unit_test(test_capsule_box),     cmocka_unit_test(test_box_box_resting),
      cmocka_unit_test(test_box_box_rotated), cmocka_unit_test(test_box_box_edges),
      cmocka_unit_test(test_random_pairs),    cmocka_unit_test(test_random_touching),
      cmocka_unit_test(test_random_resting),  cmocka_unit_test(test_margins),
      cmocka_unit_test(test_degenerate),      cmocka_unit_test(test_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
