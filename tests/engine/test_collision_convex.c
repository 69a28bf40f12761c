// Tests of the convex narrow phase: qhull hulls (merged faces, outward planes, counter-
// clockwise corners, interior points dropped, degenerate input rejected silently), GJK / EPA
// distances against closed forms (sphere, capsule, box face-face and edge-edge, cylinder on a
// plane) and against the separating-axis characterisation of the signed distance for random
// pairs of every type, EPA depths of overlapping boxes against the 15-axis SAT, manifolds of
// resting polytopes and cylinders, and conservative-advancement times of impact (a sphere
// grazing a plate's edge, one hitting it head-on, a spinning box).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "test_rng.h"
#include "collision.h"
#include "collision_convex.h"
#include "tf_math.h"
#include "hull.h"

#define TRIALS 300

// uniformly distributed rotation matrix
static void random_rotation(test_rng* rng, double mat[9]) {
  double q[4], n;
  do {
    for (int k = 0; k < 4; k++) q[k] = rng_uniform(rng, -1, 1);
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1 || n > 1);
  for (int k = 0; k < 4; k++) q[k] /= n;
  tf_quat_to_mat(mat, q);
}

static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

// a shape of the given type and size at pos with orientation mat
static tf_shape make_shape(int type, double s0, double s1, double s2, const double pos[3],
                           const double mat[9]) {
  tf_shape s;
  memset(&s, 0, sizeof(s));
  s.type = type;
  s.size[0] = s0, s.size[1] = s1, s.size[2] = s2;
  tf_vec3_copy(s.pos, pos);
  memcpy(s.mat, mat, sizeof(s.mat));
  return s;
}

// a read-only view of a built hull
static tf_hull_view hull_view(const tf_hull_data* h) {
  tf_hull_view v = {h->nvert,        h->vert,         h->nface,     h->face_plane,
                    h->face_vertadr, h->face_vertnum, h->face_vert, h->rbound};
  return v;
}

// a hull shape from a built hull
static tf_shape make_hull_shape(const tf_hull_data* h, const double pos[3], const double mat[9]) {
  tf_shape s = make_shape(TF_GEOM_HULL, 0, 0, 0, pos, mat);
  s.hull = hull_view(h);
  return s;
}

// moves a shape by the rigid motion x -> R x + t
static void transform_shape(tf_shape* s, const double rot[9], const double t[3]) {
  double p[3], m[9];
  tf_mat3_mul_vec(p, rot, s->pos);
  tf_vec3_add(s->pos, p, t);
  tf_mat3_mul(m, rot, s->mat);
  memcpy(s->mat, m, sizeof(m));
}

// the 8 corners of a box with half-sizes h, centred at the origin
static void box_corners(double pts[24], const double h[3]) {
  for (int i = 0; i < 8; i++) {
    for (int k = 0; k < 3; k++) pts[3 * i + k] = ((i >> k) & 1) ? -h[k] : h[k];
  }
}

// separation of a and b along unit u: min over b of u . x minus max over a of u . x
static double separation_along(const tf_shape* a, const tf_shape* b, const double u[3]) {
  double pa[3], pb[3], neg[3];
  tf_vec3_scale(neg, u, -1);
  tf_support(pa, a, u);
  tf_support(pb, b, neg);
  return tf_vec3_dot(u, pb) - tf_vec3_dot(u, pa);
}

// ---------------------------------------------------------------------------------------------
// hulls

// checks every face: outward unit normal, all hull vertices inside, its own corners on the
// plane, corners counter-clockwise about the normal; returns the worst plane residual
static double check_hull_faces(const tf_hull_data* h) {
  double worst = 0;
  for (int f = 0; f < h->nface; f++) {
    const double* p = h->face_plane + 4 * f;
    assert_true(fabs(tf_vec3_norm(p) - 1) < 1e-12);
    for (int v = 0; v < h->nvert; v++) assert_true(tf_vec3_dot(p, h->vert + 3 * v) <= p[3] + 1e-12);
    int adr = h->face_vertadr[f], nv = h->face_vertnum[f];
    assert_true(nv >= 3);
    for (int k = 0; k < nv; k++) {
      int i = h->face_vert[adr + k];
      assert_true(i >= 0 && i < h->nvert);
      worst = fmax(worst, fabs(tf_vec3_dot(p, h->vert + 3 * i) - p[3]));
      // each turn of the polygon is counter-clockwise about the outward normal
      const double* a = h->vert + 3 * h->face_vert[adr + k];
      const double* b = h->vert + 3 * h->face_vert[adr + (k + 1) % nv];
      const double* c = h->vert + 3 * h->face_vert[adr + (k + 2) % nv];
      double ab[3], bc[3], cr[3];
      tf_vec3_sub(ab, b, a);
      tf_vec3_sub(bc, c, b);
      tf_vec3_cross(cr, ab, bc);
      assert_true(tf_vec3_dot(cr, p) > 0);
    }
  }
  return worst;
}

// cube corners plus interior points: 8 vertices, 6 quads on the planes x, y, z = +-h
static void test_hull_cube_with_interior_points(void** state) {
  (void)state;
  test_rng rng = {11};
  double h[3] = {0.5, 0.7, 0.9};
  double pts[3 * 208];
  box_corners(pts, h);
  for (int i = 8; i < 208; i++) {
    for (int k = 0; k < 3; k++) pts[3 * i + k] = rng_uniform(&rng, -0.99, 0.99) * h[k];
  }
  // shuffle the corners among the interior points
  for (int i = 0; i < 8; i++) {
    int j = 8 + 25 * i;
    for (int k = 0; k < 3; k++) {
      double t = pts[3 * i + k];
      pts[3 * i + k] = pts[3 * j + k];
      pts[3 * j + k] = t;
    }
  }
  tf_hull_data hull;
  char err[256];
  assert_int_equal(tf_hull_build(pts, 208, "cube", &hull, err, sizeof(err)), 0);
  assert_int_equal(hull.nvert, 8);
  assert_int_equal(hull.nface, 6);
  assert_int_equal(hull.nfacevert, 24);
  for (int v = 0; v < 8; v++) {
    for (int k = 0; k < 3; k++) assert_true(fabs(fabs(hull.vert[3 * v + k]) - h[k]) == 0);
  }
  int seen[6] = {0};
  for (int f = 0; f < 6; f++) {
    const double* p = hull.face_plane + 4 * f;
    assert_int_equal(hull.face_vertnum[f], 4);
    int axis = -1;
    for (int k = 0; k < 3; k++) {
      if (fabs(fabs(p[k]) - 1) < 1e-12) axis = k;
    }
    assert_true(axis >= 0);
    int slot = 2 * axis + (p[axis] < 0);
    seen[slot]++;
    assert_true(fabs(p[3] - h[axis]) < 1e-12);
  }
  for (int k = 0; k < 6; k++) assert_int_equal(seen[k], 1);
  double worst = check_hull_faces(&hull);
  assert_true(worst < 1e-12);
  assert_true(fabs(hull.rbound - tf_vec3_norm(h)) < 1e-12);
  tf_hull_free(&hull);
  tf_hull_free(&hull);  // a second free is harmless
}

// hexagonal prism: 12 vertices, 2 hexagons and 6 quads
static void test_hull_hexagonal_prism(void** state) {
  (void)state;
  double pts[3 * 13];
  for (int i = 0; i < 6; i++) {
    double ang = i * M_PI / 3;
    for (int s = 0; s < 2; s++) {
      double* p = pts + 3 * (2 * i + s);
      p[0] = 0.3 * cos(ang), p[1] = 0.3 * sin(ang), p[2] = s ? -0.1 : 0.1;
    }
  }
  pts[36] = 0.01, pts[37] = -0.02, pts[38] = 0.0;  // one interior point
  tf_hull_data hull;
  char err[256];
  assert_int_equal(tf_hull_build(pts, 13, "hex", &hull, err, sizeof(err)), 0);
  assert_int_equal(hull.nvert, 12);
  assert_int_equal(hull.nface, 8);
  int hexagons = 0, quads = 0;
  for (int f = 0; f < hull.nface; f++) {
    hexagons += hull.face_vertnum[f] == 6;
    quads += hull.face_vertnum[f] == 4;
  }
  assert_int_equal(hexagons, 2);
  assert_int_equal(quads, 6);
  assert_true(check_hull_faces(&hull) < 1e-12);
  tf_hull_free(&hull);
}

// random point clouds: the hull holds every input point and its faces are consistent
static void test_hull_random_clouds(void** state) {
  (void)state;
  test_rng rng = {12};
  for (int trial = 0; trial < 20; trial++) {
    int n = 10 + (int)(rng_bits(&rng) % 300);
    double pts[3 * 310];
    for (int i = 0; i < n; i++) {
      double u[3];
      random_unit_vec(&rng, u);
      tf_vec3_scale(pts + 3 * i, u, rng_uniform(&rng, 0.2, 1.0));
    }
    tf_hull_data hull;
    char err[256];
    assert_int_equal(tf_hull_build(pts, n, "cloud", &hull, err, sizeof(err)), 0);
    check_hull_faces(&hull);
    // Euler: V - E + F = 2 with E = (sum of face sizes) / 2
    assert_int_equal(hull.nvert - hull.nfacevert / 2 + hull.nface, 2);
    for (int i = 0; i < n; i++) {
      for (int f = 0; f < hull.nface; f++) {
        const double* p = hull.face_plane + 4 * f;
        assert_true(tf_vec3_dot(p, pts + 3 * i) <= p[3] + 1e-12);
      }
    }
    tf_hull_free(&hull);
  }
}

// runs tf_hull_build with stdout and stderr redirected to a file; returns the status and
// how many bytes reached the two streams
static int build_silently(const double* pts, int n, const char* name, char* err, size_t errlen,
                          long* printed) {
  fflush(stdout);
  fflush(stderr);
  FILE* sink = tmpfile();
  assert_non_null(sink);
  int out_fd = dup(1), err_fd = dup(2);
  dup2(fileno(sink), 1);
  dup2(fileno(sink), 2);
  tf_hull_data hull;
  int status = tf_hull_build(pts, n, name, &hull, err, errlen);
  fflush(stdout);
  fflush(stderr);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  close(out_fd);
  close(err_fd);
  fseek(sink, 0, SEEK_END);
  *printed = ftell(sink);
  fclose(sink);
  if (status == 0) tf_hull_free(&hull);
  return status;
}

// too few, coplanar, collinear, coincident or non-finite points: -1, a message naming the
// mesh, nothing printed
static void test_hull_degenerate_input(void** state) {
  (void)state;
  test_rng rng = {13};
  double pts[3 * 100];
  char err[256];
  long printed;

  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 3; k++) pts[3 * i + k] = rng_uniform(&rng, -1, 1);
  }
  assert_int_equal(build_silently(pts, 3, "three_points", err, sizeof(err), &printed), -1);
  assert_non_null(strstr(err, "three_points"));
  assert_int_equal(printed, 0);

  // 100 points on a tilted plane
  double nrm[3], t1[3], t2[3], u[3] = {0.3, 0.1, 0.95};
  tf_vec3_copy(nrm, u);
  tf_vec3_normalize(nrm);
  double ex[3] = {1, 0, 0};
  tf_vec3_cross(t1, nrm, ex);
  tf_vec3_normalize(t1);
  tf_vec3_cross(t2, nrm, t1);
  for (int i = 0; i < 100; i++) {
    double x = rng_uniform(&rng, -1, 1), y = rng_uniform(&rng, -1, 1);
    for (int k = 0; k < 3; k++) pts[3 * i + k] = 0.2 * nrm[k] + x * t1[k] + y * t2[k];
  }
  assert_int_equal(build_silently(pts, 100, "flat_mesh", err, sizeof(err), &printed), -1);
  assert_non_null(strstr(err, "flat_mesh"));
  assert_null(strchr(err, '\n'));
  assert_int_equal(printed, 0);

  // the same plane in exact coordinates (z = 0), which qhull would reject too
  for (int i = 0; i < 100; i++) pts[3 * i + 2] = 0;
  assert_int_equal(build_silently(pts, 100, "z_plane", err, sizeof(err), &printed), -1);
  assert_non_null(strstr(err, "z_plane"));
  assert_int_equal(printed, 0);

  // collinear
  for (int i = 0; i < 20; i++) {
    double s = rng_uniform(&rng, -1, 1);
    for (int k = 0; k < 3; k++) pts[3 * i + k] = 0.1 + s * nrm[k];
  }
  assert_int_equal(build_silently(pts, 20, "stick", err, sizeof(err), &printed), -1);
  assert_non_null(strstr(err, "stick"));
  assert_int_equal(printed, 0);

  // coincident
  for (int i = 0; i < 10; i++) pts[3 * i] = 1, pts[3 * i + 1] = 2, pts[3 * i + 2] = 3;
  assert_int_equal(build_silently(pts, 10, "dot", err, sizeof(err), &printed), -1);
  assert_non_null(strstr(err, "dot"));

  // a NaN and an inf among good points
  double h[3] = {1, 1, 1};
  box_corners(pts, h);
  pts[3 * 5 + 1] = NAN;
  assert_int_equal(build_silently(pts, 8, "nan_mesh", err, sizeof(err), &printed), -1);
  assert_non_null(strstr(err, "nan_mesh"));
  assert_int_equal(printed, 0);
  box_corners(pts, h);
  pts[3 * 2] = INFINITY;
  assert_int_equal(build_silently(pts, 8, "inf_mesh", err, sizeof(err), &printed), -1);
  assert_non_null(strstr(err, "inf_mesh"));

  // no room for a message is fine too
  assert_int_equal(build_silently(pts, 3, "x", NULL, 0, &printed), -1);
}

// ---------------------------------------------------------------------------------------------
// distances against closed forms

// sphere-sphere and sphere-box (separated and overlapping), random poses
static void test_distance_sphere_closed_forms(void** state) {
  (void)state;
  test_rng rng = {21};
  double worst_ss = 0, worst_sb = 0, worst_deep = 0;
  for (int trial = 0; trial < TRIALS; trial++) {
    double ca[3], cb[3], rot[9], pa[3], pb[3], n[3];
    for (int k = 0; k < 3; k++) ca[k] = rng_uniform(&rng, -1, 1), cb[k] = rng_uniform(&rng, -1, 1);
    double ra = rng_uniform(&rng, 0.05, 0.8), rb = rng_uniform(&rng, 0.05, 0.8);
    random_rotation(&rng, rot);
    tf_shape a = make_shape(TF_GEOM_SPHERE, ra, 0, 0, ca, rot);
    tf_shape b = make_shape(TF_GEOM_SPHERE, rb, 0, 0, cb, identity);
    double d = tf_shape_distance(&a, &b, pa, pb, n), diff[3];
    tf_vec3_sub(diff, cb, ca);
    double expect = tf_vec3_norm(diff) - ra - rb;
    worst_ss = fmax(worst_ss, fabs(d - expect));
    tf_vec3_normalize(diff);
    for (int k = 0; k < 3; k++) worst_ss = fmax(worst_ss, fabs(n[k] - diff[k]));

    // sphere against a rotated box: clamp the centre in the box frame
    double h[3] = {rng_uniform(&rng, 0.1, 0.6), rng_uniform(&rng, 0.1, 0.6),
                   rng_uniform(&rng, 0.1, 0.6)};
    tf_shape box = make_shape(TF_GEOM_BOX, h[0], h[1], h[2], ca, rot);
    double local[3], rel[3], clamped[3], inside = INFINITY;
    tf_vec3_sub(rel, cb, ca);
    tf_mat3_mul_vec_t(local, rot, rel);
    int in = 1;
    for (int k = 0; k < 3; k++) {
      clamped[k] = fmax(-h[k], fmin(h[k], local[k]));
      in &= fabs(local[k]) < h[k];
      inside = fmin(inside, h[k] - fabs(local[k]));
    }
    double off[3];
    tf_vec3_sub(off, local, clamped);
    double expect_b = in ? -inside - rb : tf_vec3_norm(off) - rb;
    d = tf_shape_distance(&box, &b, pa, pb, n);
    if (in) {
      worst_deep = fmax(worst_deep, fabs(d - expect_b));
    } else {
      worst_sb = fmax(worst_sb, fabs(d - expect_b));
    }
    // witness points: pb - pa = d n
    for (int k = 0; k < 3; k++) assert_true(fabs(pb[k] - pa[k] - d * n[k]) < 1e-9);
  }
  print_message("sphere-sphere %.2e, sphere-box outside %.2e, centre inside %.2e\n", worst_ss,
                worst_sb, worst_deep);
  assert_true(worst_ss < 1e-12);
  assert_true(worst_sb < 1e-12);
  assert_true(worst_deep < 1e-10);
}

// capsules: parallel side by side, and crossing at right angles
static void test_distance_capsule_closed_forms(void** state) {
  (void)state;
  test_rng rng = {22};
  double worst = 0;
  for (int trial = 0; trial < TRIALS; trial++) {
    double rot[9], t[3], pa[3], pb[3], n[3];
    random_rotation(&rng, rot);
    for (int k = 0; k < 3; k++) t[k] = rng_uniform(&rng, -1, 1);
    double ra = rng_uniform(&rng, 0.02, 0.2), rb = rng_uniform(&rng, 0.02, 0.2);
    double gap = rng_uniform(&rng, -0.3, 0.3) * fmin(ra, rb) + (trial % 3 == 0 ? 0.5 : 0);
    // parallel along z, offset along x
    double p0[3] = {0, 0, 0}, p1[3] = {ra + rb + gap, 0, rng_uniform(&rng, -0.2, 0.2)};
    tf_shape a = make_shape(TF_GEOM_CAPSULE, ra, 0.4, 0, p0, identity);
    tf_shape b = make_shape(TF_GEOM_CAPSULE, rb, 0.3, 0, p1, identity);
    transform_shape(&a, rot, t);
    transform_shape(&b, rot, t);
    double d = tf_shape_distance(&a, &b, pa, pb, n);
    worst = fmax(worst, fabs(d - gap));
    // crossed: c's axis along x, beside a's middle along y (perpendicular axes)
    double q[4], rx[9], ax[3] = {0, 1, 0};
    tf_quat_from_axis_angle(q, ax, M_PI / 2);
    tf_quat_to_mat(rx, q);
    double p2[3] = {0, ra + rb + gap, 0.05};
    tf_shape c = make_shape(TF_GEOM_CAPSULE, rb, 0.3, 0, p2, rx);
    a = make_shape(TF_GEOM_CAPSULE, ra, 0.4, 0, p0, identity);
    transform_shape(&a, rot, t);
    transform_shape(&c, rot, t);
    d = tf_shape_distance(&a, &c, pa, pb, n);
    worst = fmax(worst, fabs(d - gap));
  }
  print_message("capsule closed forms: worst %.2e\n", worst);
  assert_true(worst < 1e-12);
}

// box (and hull of its corners) face-face and edge-edge at known gaps, random rigid poses
static void test_distance_box_closed_forms(void** state) {
  (void)state;
  test_rng rng = {23};
  double h1[3] = {0.3, 0.2, 0.25}, h2[3] = {0.15, 0.35, 0.1}, cube[3] = {0.2, 0.2, 0.2};
  double c1[24], c2[24], cc[24];
  box_corners(c1, h1);
  box_corners(c2, h2);
  box_corners(cc, cube);
  tf_hull_data hull1, hull2, hullc;
  char err[128];
  assert_int_equal(tf_hull_build(c1, 8, "h1", &hull1, err, sizeof(err)), 0);
  assert_int_equal(tf_hull_build(c2, 8, "h2", &hull2, err, sizeof(err)), 0);
  assert_int_equal(tf_hull_build(cc, 8, "hc", &hullc, err, sizeof(err)), 0);
  double worst_ff = 0, worst_ee = 0, worst_hull = 0;
  for (int trial = 0; trial < TRIALS; trial++) {
    double rot[9], t[3], pa[3], pb[3], n[3];
    random_rotation(&rng, rot);
    for (int k = 0; k < 3; k++) t[k] = rng_uniform(&rng, -2, 2);
    double gap = trial % 4 == 0 ? rng_uniform(&rng, 1e-9, 1e-6) : rng_uniform(&rng, 1e-4, 0.5);
    // face-face: b above a, shifted sideways but overlapping in x, y
    double p0[3] = {0, 0, 0};
    double p1[3] = {rng_uniform(&rng, -0.3, 0.3), rng_uniform(&rng, -0.3, 0.3),
                    h1[2] + h2[2] + gap};
    tf_shape a = make_shape(TF_GEOM_BOX, h1[0], h1[1], h1[2], p0, identity);
    tf_shape b = make_shape(TF_GEOM_BOX, h2[0], h2[1], h2[2], p1, identity);
    tf_shape ha = make_hull_shape(&hull1, p0, identity);
    tf_shape hb = make_hull_shape(&hull2, p1, identity);
    transform_shape(&a, rot, t);
    transform_shape(&b, rot, t);
    transform_shape(&ha, rot, t);
    transform_shape(&hb, rot, t);
    double d = tf_shape_distance(&a, &b, pa, pb, n);
    worst_ff = fmax(worst_ff, fabs(d - gap));
    double up[3] = {rot[2], rot[5], rot[8]};
    for (int k = 0; k < 3; k++) worst_ff = fmax(worst_ff, fabs(n[k] - up[k]) * 1e-3);
    d = tf_shape_distance(&ha, &hb, pa, pb, n);
    worst_hull = fmax(worst_hull, fabs(d - gap));
    d = tf_shape_distance(&a, &hb, pa, pb, n);
    worst_hull = fmax(worst_hull, fabs(d - gap));

    // edge-edge: cube a turned 45 deg about x (top edge along x), cube b turned 45 deg about
    // y (bottom edge along y), the edges crossing at the origin's vertical
    double q[4], ra[9], rb[9], ax[3] = {1, 0, 0}, ay[3] = {0, 1, 0};
    tf_quat_from_axis_angle(q, ax, M_PI / 4);
    tf_quat_to_mat(ra, q);
    tf_quat_from_axis_angle(q, ay, M_PI / 4);
    tf_quat_to_mat(rb, q);
    double e = 0.2 * sqrt(2.0);
    double pe[3] = {rng_uniform(&rng, -0.1, 0.1), 0, 0};
    double pf[3] = {0, rng_uniform(&rng, -0.1, 0.1), 2 * e + gap};
    tf_shape ea = make_shape(TF_GEOM_BOX, 0.2, 0.2, 0.2, pe, ra);
    tf_shape eb = make_hull_shape(&hullc, pf, rb);
    transform_shape(&ea, rot, t);
    transform_shape(&eb, rot, t);
    d = tf_shape_distance(&ea, &eb, pa, pb, n);
    worst_ee = fmax(worst_ee, fabs(d - gap));
  }
  print_message("box face-face %.2e, edge-edge %.2e, hull pairs %.2e\n", worst_ff, worst_ee,
                worst_hull);
  assert_true(worst_ff < 1e-10);
  assert_true(worst_ee < 1e-10);
  assert_true(worst_hull < 1e-10);
  tf_hull_free(&hull1);
  tf_hull_free(&hull2);
  tf_hull_free(&hullc);
}

// cylinders: tilted against a plane (closed form), against a box top face, coaxial, side by side
static void test_distance_cylinder_closed_forms(void** state) {
  (void)state;
  test_rng rng = {24};
  double worst_plane = 0, worst_box = 0, worst_pair = 0;
  for (int trial = 0; trial < TRIALS; trial++) {
    double r = rng_uniform(&rng, 0.05, 0.3), h = rng_uniform(&rng, 0.05, 0.3);
    double tilt = rng_uniform(&rng, 0, M_PI / 2), spin = rng_uniform(&rng, 0, 2 * M_PI);
    double gap = rng_uniform(&rng, -0.02, 0.2);
    // axis tilted by `tilt` from z toward direction `spin`: lowest point at
    // z_c - h cos(tilt) - r sin(tilt)
    double axis[3] = {-sin(spin), cos(spin), 0}, q[4], m[9], pa[3], pb[3], n[3];
    tf_quat_from_axis_angle(q, axis, tilt);
    tf_quat_to_mat(m, q);
    double zc = h * cos(tilt) + r * sin(tilt) + gap;
    double pc[3] = {rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), zc}, p0[3] = {0, 0, 0};
    double lift[3] = {0, 0, 0.7};
    tf_shape cyl = make_shape(TF_GEOM_CYLINDER, r, h, 0, pc, m);
    tf_shape plane = make_shape(TF_GEOM_PLANE, 0, 0, 0, p0, identity);
    double rot[9];
    random_rotation(&rng, rot);
    tf_shape cyl2 = cyl, plane2 = plane;
    transform_shape(&cyl2, rot, lift);
    transform_shape(&plane2, rot, lift);
    double d = tf_shape_distance(&plane2, &cyl2, pa, pb, n);
    worst_plane = fmax(worst_plane, fabs(d - gap));
    d = tf_shape_distance(&cyl2, &plane2, pa, pb, n);
    worst_plane = fmax(worst_plane, fabs(d - gap));

    // the same cylinder above a big box's top face (separated cases only: overlapping ones
    // may push out sideways)
    double pbx[3] = {0, 0, -1};
    tf_shape box = make_shape(TF_GEOM_BOX, 3, 3, 1, pbx, identity);
    transform_shape(&box, rot, lift);
    if (gap > 0) {
      d = tf_shape_distance(&box, &cyl2, pa, pb, n);
      worst_box = fmax(worst_box, fabs(d - gap));
    }

    // coaxial, one above the other; side by side, parallel
    double p1[3] = {0, 0, 0}, p2[3] = {0, 0, 2 * h + gap}, p3[3] = {2 * r + gap, 0, 0.3 * h};
    tf_shape c1 = make_shape(TF_GEOM_CYLINDER, r, h, 0, p1, identity);
    tf_shape c2 = make_shape(TF_GEOM_CYLINDER, 0.7 * r, h, 0, p2, identity);
    tf_shape c3 = make_shape(TF_GEOM_CYLINDER, r, h, 0, p3, identity);
    transform_shape(&c1, rot, lift);
    transform_shape(&c2, rot, lift);
    transform_shape(&c3, rot, lift);
    if (gap > 0) {
      d = tf_shape_distance(&c1, &c2, pa, pb, n);
      worst_pair = fmax(worst_pair, fabs(d - gap));
      d = tf_shape_distance(&c1, &c3, pa, pb, n);
      worst_pair = fmax(worst_pair, fabs(d - gap));
    }
  }
  print_message("cylinder-plane %.2e, cylinder-box %.2e, cylinder-cylinder %.2e\n", worst_plane,
                worst_box, worst_pair);
  assert_true(worst_plane < 1e-12);
  assert_true(worst_box < 1e-9);
  assert_true(worst_pair < 1e-9);
}

// ---------------------------------------------------------------------------------------------
// penetration

// overlap of two boxes along axis u (projected radii minus centre distance)
static double box_overlap_along(const tf_shape* a, const tf_shape* b, const double u[3]) {
  double ra = 0, rb = 0, d[3];
  for (int k = 0; k < 3; k++) {
    double ea[3] = {a->mat[k], a->mat[3 + k], a->mat[6 + k]};
    double eb[3] = {b->mat[k], b->mat[3 + k], b->mat[6 + k]};
    ra += a->size[k] * fabs(tf_vec3_dot(ea, u));
    rb += b->size[k] * fabs(tf_vec3_dot(eb, u));
  }
  tf_vec3_sub(d, b->pos, a->pos);
  return ra + rb - fabs(tf_vec3_dot(d, u));
}

// penetration depth of two boxes by the separating-axis theorem: the least overlap over the
// 3 + 3 face normals and 9 edge cross products
static double box_sat_depth(const tf_shape* a, const tf_shape* b) {
  double best = INFINITY;
  double ea[3][3], eb[3][3];
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 3; i++) ea[k][i] = a->mat[3 * i + k], eb[k][i] = b->mat[3 * i + k];
  }
  for (int k = 0; k < 3; k++) {
    best = fmin(best, box_overlap_along(a, b, ea[k]));
    best = fmin(best, box_overlap_along(a, b, eb[k]));
    for (int j = 0; j < 3; j++) {
      double u[3];
      tf_vec3_cross(u, ea[k], eb[j]);
      if (tf_vec3_normalize(u) > 1e-9) best = fmin(best, box_overlap_along(a, b, u));
    }
  }
  return best;
}

// EPA depth of overlapping boxes (and hulls of their corners) against SAT
static void test_penetration_boxes(void** state) {
  (void)state;
  test_rng rng = {31};
  double worst_axis = 0, worst_random = 0, worst_hull = 0;
  int tested = 0;
  for (int trial = 0; trial < TRIALS; trial++) {
    double rot[9], t[3], pa[3], pb[3], n[3];
    random_rotation(&rng, rot);
    for (int k = 0; k < 3; k++) t[k] = rng_uniform(&rng, -1, 1);
    // axis aligned: the known overlap along x
    double ov = rng_uniform(&rng, 1e-6, 0.3);
    double p0[3] = {0, 0, 0},
           p1[3] = {0.5 + 0.4 - ov, rng_uniform(&rng, -0.2, 0.2), rng_uniform(&rng, -0.2, 0.2)};
    tf_shape a = make_shape(TF_GEOM_BOX, 0.5, 0.6, 0.7, p0, identity);
    tf_shape b = make_shape(TF_GEOM_BOX, 0.4, 0.5, 0.6, p1, identity);
    transform_shape(&a, rot, t);
    transform_shape(&b, rot, t);
    double d = tf_shape_distance(&a, &b, pa, pb, n);
    worst_axis = fmax(worst_axis, fabs(d + ov));
    double ex[3] = {rot[0], rot[3], rot[6]};
    for (int k = 0; k < 3; k++) worst_axis = fmax(worst_axis, fabs(n[k] - ex[k]) * 1e-2);

    // random orientations
    double ma[9], mb[9], pc[3];
    random_rotation(&rng, ma);
    random_rotation(&rng, mb);
    for (int k = 0; k < 3; k++) pc[k] = rng_uniform(&rng, -0.5, 0.5);
    tf_shape c = make_shape(TF_GEOM_BOX, rng_uniform(&rng, 0.1, 0.5), rng_uniform(&rng, 0.1, 0.5),
                            rng_uniform(&rng, 0.1, 0.5), p0, ma);
    tf_shape e = make_shape(TF_GEOM_BOX, rng_uniform(&rng, 0.1, 0.5), rng_uniform(&rng, 0.1, 0.5),
                            rng_uniform(&rng, 0.1, 0.5), pc, mb);
    double depth = box_sat_depth(&c, &e);
    if (depth <= 0) continue;
    tested++;
    d = tf_shape_distance(&c, &e, pa, pb, n);
    worst_random = fmax(worst_random, fabs(d + depth));
    // the hull of e's corners gives the same answer
    double corners[24];
    box_corners(corners, e.size);
    tf_hull_data hull;
    char err[64];
    assert_int_equal(tf_hull_build(corners, 8, "e", &hull, err, sizeof(err)), 0);
    tf_shape he = make_hull_shape(&hull, e.pos, e.mat);
    d = tf_shape_distance(&c, &he, pa, pb, n);
    worst_hull = fmax(worst_hull, fabs(d + depth));
    tf_hull_free(&hull);
  }
  print_message("EPA boxes: axis-aligned %.2e, random %.2e (%d pairs), hull %.2e\n", worst_axis,
                worst_random, tested, worst_hull);
  assert_true(tested > 50);
  assert_true(worst_axis < 1e-8);
  assert_true(worst_random < 1e-8);
  assert_true(worst_hull < 1e-8);
}

// a random shape of any convex type, using the hull for TF_GEOM_HULL
static tf_shape random_shape(test_rng* rng, const tf_hull_data* hull) {
  int type = TF_GEOM_SPHERE + (int)(rng_bits(rng) % 5);
  double pos[3], mat[9];
  for (int k = 0; k < 3; k++) pos[k] = rng_uniform(rng, -0.4, 0.4);
  random_rotation(rng, mat);
  if (type == TF_GEOM_HULL) return make_hull_shape(hull, pos, mat);
  return make_shape(type, rng_uniform(rng, 0.05, 0.4), rng_uniform(rng, 0.05, 0.4),
                    rng_uniform(rng, 0.05, 0.4), pos, mat);
}

// every pair type at random poses: the signed distance is the largest separation over
// directions, reached along the returned normal, and the witnesses are support points
static void test_distance_separating_axis_property(void** state) {
  (void)state;
  test_rng rng = {32};
  double cloud[3 * 40];
  for (int i = 0; i < 40; i++) {
    double u[3];
    random_unit_vec(&rng, u);
    tf_vec3_scale(cloud + 3 * i, u, rng_uniform(&rng, 0.1, 0.3));
  }
  tf_hull_data hull;
  char err[64];
  assert_int_equal(tf_hull_build(cloud, 40, "cloud", &hull, err, sizeof(err)), 0);
  double worst_normal[2] = {0, 0}, worst_opt[2] = {0, 0}, worst_wit = 0;
  for (int trial = 0; trial < 3000; trial++) {
    tf_shape a = random_shape(&rng, &hull), b = random_shape(&rng, &hull);
    double pa[3], pb[3], n[3];
    double d = tf_shape_distance(&a, &b, pa, pb, n);
    assert_false(isnan(d));
    assert_true(fabs(tf_vec3_norm(n) - 1) < 1e-12);
    int curved = a.type == TF_GEOM_CYLINDER || b.type == TF_GEOM_CYLINDER;
    int over = d < 0;
    // along n the separation is d; no direction separates more
    worst_normal[over] = fmax(worst_normal[over], fabs(separation_along(&a, &b, n) - d));
    for (int k = 0; k < 50; k++) {
      double u[3];
      random_unit_vec(&rng, u);
      worst_opt[over] = fmax(worst_opt[over], separation_along(&a, &b, u) - d);
    }
    // witnesses: pb - pa = d n, and each lies on its shape's supporting plane
    double sa[3], sb[3], neg[3];
    tf_vec3_scale(neg, n, -1);
    tf_support(sa, &a, n);
    tf_support(sb, &b, neg);
    double wit = fmax(fabs(tf_vec3_dot(n, pa) - tf_vec3_dot(n, sa)),
                      fabs(tf_vec3_dot(n, pb) - tf_vec3_dot(n, sb)));
    for (int k = 0; k < 3; k++) wit = fmax(wit, fabs(pb[k] - pa[k] - d * n[k]));
    if (!curved) worst_wit = fmax(worst_wit, wit);
  }
  print_message(
      "SAT property: |sep(n) - d| separated %.2e overlapping %.2e; "
      "max sep(u) - d separated %.2e overlapping %.2e; witnesses %.2e\n",
      worst_normal[0], worst_normal[1], worst_opt[0], worst_opt[1], worst_wit);
  assert_true(worst_normal[0] < 1e-9);
  assert_true(worst_normal[1] < 1e-6);
  assert_true(worst_opt[0] < 1e-9);
  assert_true(worst_opt[1] < 1e-6);
  assert_true(worst_wit < 1e-9);
  tf_hull_free(&hull);
}

// identical shapes on top of each other, and other degenerate configurations: a finite
// depth, a unit normal, no NaN
static void test_distance_coincident_shapes(void** state) {
  (void)state;
  double cloud[24], h[3] = {0.2, 0.3, 0.4}, rot[9], p[3] = {0.1, -0.2, 0.3};
  box_corners(cloud, h);
  tf_hull_data hull;
  char err[64];
  assert_int_equal(tf_hull_build(cloud, 8, "box", &hull, err, sizeof(err)), 0);
  test_rng rng = {33};
  random_rotation(&rng, rot);
  // expected depths of a shape against its own copy
  double expect[TF_GEOM_NTYPE] = {0};
  expect[TF_GEOM_SPHERE] = 0.4;
  expect[TF_GEOM_CAPSULE] = 0.4;
  expect[TF_GEOM_BOX] = 0.4;
  expect[TF_GEOM_CYLINDER] = 0.4;
  expect[TF_GEOM_HULL] = 0.4;
  for (int type = TF_GEOM_SPHERE; type < TF_GEOM_NTYPE; type++) {
    tf_shape s = type == TF_GEOM_HULL ? make_hull_shape(&hull, p, rot)
                                      : make_shape(type, 0.2, 0.3, 0.4, p, rot);
    if (type == TF_GEOM_CYLINDER) s.size[1] = 0.3;
    double pa[3], pb[3], n[3];
    double d = tf_shape_distance(&s, &s, pa, pb, n);
    print_message("coincident %d: depth %.12f\n", type, -d);
    assert_false(isnan(d) || isnan(n[0]) || isnan(pa[0]) || isnan(pb[0]));
    assert_true(fabs(tf_vec3_norm(n) - 1) < 1e-12);
    // a curved C with a circle of deepest directions: EPA stops at its cap with an upper bound
    assert_true(fabs(-d - expect[type]) < (type == TF_GEOM_CYLINDER ? 1e-3 : 1e-10));
  }
  // a sphere centred on a capsule's axis, crossing capsule axes, zero-size shapes
  double q0[3] = {0, 0, 0}, q1[3] = {0, 0, 0.1}, pa[3], pb[3], n[3], m[9], ax[3] = {1, 0, 0};
  double qq[4];
  tf_quat_from_axis_angle(qq, ax, M_PI / 2);
  tf_quat_to_mat(m, qq);
  tf_shape cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.5, 0, q0, identity);
  tf_shape sph = make_shape(TF_GEOM_SPHERE, 0.05, 0, 0, q1, identity);
  tf_shape cap2 = make_shape(TF_GEOM_CAPSULE, 0.2, 0.5, 0, q1, m);
  tf_shape dot = make_shape(TF_GEOM_SPHERE, 0, 0, 0, q0, identity);
  tf_shape flat_box = make_shape(TF_GEOM_BOX, 0, 0, 0, q0, identity);
  double d = tf_shape_distance(&cap, &sph, pa, pb, n);
  assert_true(fabs(d + 0.15) < 1e-12);
  d = tf_shape_distance(&cap, &cap2, pa, pb, n);
  assert_true(fabs(d + 0.3) < 1e-12);
  assert_true(fabs(n[0]) > 1 - 1e-12);  // axes along z and y cross: C is flat, normal x
  d = tf_shape_distance(&dot, &dot, pa, pb, n);
  assert_false(isnan(d) || isnan(n[0]));
  d = tf_shape_distance(&flat_box, &dot, pa, pb, n);
  assert_false(isnan(d) || isnan(n[0]));
  tf_hull_free(&hull);
}

// ---------------------------------------------------------------------------------------------
// manifolds

// the count of contacts within tol of the given points
static int count_points_at(const tf_contact_point* c, int nc, const double (*pts)[3], int np,
                           double tol) {
  int found = 0;
  for (int i = 0; i < np; i++) {
    for (int k = 0; k < nc; k++) {
      double d[3];
      tf_vec3_sub(d, c[k].pos, pts[i]);
      if (tf_vec3_norm(d) < tol) {
        found++;
        break;
      }
    }
  }
  return found;
}

// a hull cube resting on a bigger hull cube (and a box on a box, a hull on a box): the four
// bottom corners at gap ~0
static void test_manifold_resting_polytopes(void** state) {
  (void)state;
  test_rng rng = {41};
  double big[3] = {0.5, 0.5, 0.5}, small[3] = {0.2, 0.2, 0.2}, cb[24], cs[24];
  box_corners(cb, big);
  box_corners(cs, small);
  tf_hull_data hb, hs;
  char err[64];
  assert_int_equal(tf_hull_build(cb, 8, "big", &hb, err, sizeof(err)), 0);
  assert_int_equal(tf_hull_build(cs, 8, "small", &hs, err, sizeof(err)), 0);
  double worst_gap = 0;
  int min_points = 100;
  for (int trial = 0; trial < 100; trial++) {
    double rot[9], t[3], q[4], yaw[9], z[3] = {0, 0, 1};
    random_rotation(&rng, rot);
    for (int k = 0; k < 3; k++) t[k] = rng_uniform(&rng, -1, 1);
    tf_quat_from_axis_angle(q, z, rng_uniform(&rng, 0, M_PI));
    tf_quat_to_mat(yaw, q);
    double p0[3] = {0, 0, 0};
    double p1[3] = {rng_uniform(&rng, -0.2, 0.2), rng_uniform(&rng, -0.2, 0.2), 0.7};
    for (int kind = 0; kind < 3; kind++) {
      tf_shape a = kind == 1 ? make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, p0, identity)
                             : make_hull_shape(&hb, p0, identity);
      tf_shape b = kind == 0 ? make_hull_shape(&hs, p1, yaw)
                             : make_shape(TF_GEOM_BOX, 0.2, 0.2, 0.2, p1, yaw);
      transform_shape(&a, rot, t);
      transform_shape(&b, rot, t);
      tf_contact_point c[TF_MAX_PAIR_CONTACTS];
      int nc = tf_collide_convex(&a, &b, 1e-3, c);
      // the expected corners: b's bottom face
      double corners[4][3];
      int m = 0;
      for (int i = 0; i < 8; i++) {
        if (!((i >> 2) & 1)) continue;  // z = -h
        double local[3] = {((i & 1) ? -0.2 : 0.2), (((i >> 1) & 1) ? -0.2 : 0.2), -0.2}, w[3];
        tf_mat3_mul_vec(w, b.mat, local);
        tf_vec3_add(corners[m++], w, b.pos);
      }
      // corners hanging over the edge of the big cube are clipped away
      int inside = 0;
      for (int i = 0; i < 4; i++) {
        double rel[3], l[3];
        tf_vec3_sub(rel, corners[i], a.pos);
        tf_mat3_mul_vec_t(l, a.mat, rel);
        inside += fabs(l[0]) < 0.5 && fabs(l[1]) < 0.5;
      }
      min_points = nc < min_points ? nc : min_points;
      assert_true(nc >= 4);
      assert_int_equal(count_points_at(c, nc, (const double(*)[3])corners, 4, 1e-9), inside);
      double up[3] = {rot[2], rot[5], rot[8]};
      for (int k = 0; k < nc; k++) {
        worst_gap = fmax(worst_gap, fabs(c[k].dist));
        assert_true(tf_vec3_dot(c[k].normal, up) > 1 - 1e-9);
      }
    }
  }
  print_message("resting polytopes: at least %d points, worst |gap| %.2e\n", min_points, worst_gap);
  assert_true(worst_gap < 1e-10);
  tf_hull_free(&hb);
  tf_hull_free(&hs);
}

// a box tilted onto one edge gives the edge's two ends; a slightly sunk cube gives four
// corners at the sunk depth
static void test_manifold_edge_and_sunk(void** state) {
  (void)state;
  double p0[3] = {0, 0, 0}, q[4], m[9], ax[3] = {1, 0, 0};
  tf_quat_from_axis_angle(q, ax, M_PI / 4);
  tf_quat_to_mat(m, q);
  double e = 0.1 * sqrt(2.0);
  double p1[3] = {0, 0, 0.5 + e + 1e-5};
  tf_shape a = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.5, p0, identity);
  tf_shape b = make_shape(TF_GEOM_BOX, 0.1, 0.1, 0.1, p1, m);
  tf_contact_point c[TF_MAX_PAIR_CONTACTS];
  int nc = tf_collide_convex(&a, &b, 1e-3, c);
  assert_int_equal(nc, 2);
  for (int k = 0; k < nc; k++) {
    assert_true(fabs(c[k].dist - 1e-5) < 1e-12);
    assert_true(fabs(fabs(c[k].pos[0]) - 0.1) < 1e-12);
  }
  // sunk by 2 mm, yawed: 4 corners at -2 mm
  double z[3] = {0, 0, 1};
  tf_quat_from_axis_angle(q, z, 0.3);
  tf_quat_to_mat(m, q);
  double p2[3] = {0.1, 0.05, 0.5 + 0.1 - 0.002};
  tf_shape s = make_shape(TF_GEOM_BOX, 0.1, 0.1, 0.1, p2, m);
  nc = tf_collide_convex(&a, &s, 0, c);
  assert_int_equal(nc, 4);
  for (int k = 0; k < nc; k++) assert_true(fabs(c[k].dist + 0.002) < 1e-10);
  // far apart: nothing
  double p3[3] = {0, 0, 2};
  tf_shape f = make_shape(TF_GEOM_BOX, 0.1, 0.1, 0.1, p3, m);
  assert_int_equal(tf_collide_convex(&a, &f, 1e-3, c), 0);
}

// hulls and boxes flat on a plane: at least the four bottom corners; cylinders and capsules
// by the closed-form candidates
static void test_manifold_plane(void** state) {
  (void)state;
  test_rng rng = {42};
  double cube[3] = {0.1, 0.15, 0.2}, cs[24];
  box_corners(cs, cube);
  tf_hull_data hull;
  char err[64];
  assert_int_equal(tf_hull_build(cs, 8, "cube", &hull, err, sizeof(err)), 0);
  for (int trial = 0; trial < 50; trial++) {
    double rot[9], t[3], q[4], yaw[9], z[3] = {0, 0, 1}, p0[3] = {0, 0, 0};
    random_rotation(&rng, rot);
    for (int k = 0; k < 3; k++) t[k] = rng_uniform(&rng, -1, 1);
    tf_quat_from_axis_angle(q, z, rng_uniform(&rng, 0, M_PI));
    tf_quat_to_mat(yaw, q);
    double sink = rng_uniform(&rng, 0, 1e-3);
    double p1[3] = {rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), 0.2 - sink};
    tf_shape plane = make_shape(TF_GEOM_PLANE, 0, 0, 0, p0, identity);
    tf_shape h = make_hull_shape(&hull, p1, yaw);
    tf_shape box = make_shape(TF_GEOM_BOX, 0.1, 0.15, 0.2, p1, yaw);
    double p2[3] = {p1[0], p1[1], 0.25 - sink};
    tf_shape cyl = make_shape(TF_GEOM_CYLINDER, 0.1, 0.25, 0, p2, yaw);
    transform_shape(&plane, rot, t);
    transform_shape(&h, rot, t);
    transform_shape(&box, rot, t);
    transform_shape(&cyl, rot, t);
    double up[3] = {rot[2], rot[5], rot[8]};
    const tf_shape* shapes[3] = {&h, &box, &cyl};
    for (int s = 0; s < 3; s++) {
      tf_contact_point c[TF_MAX_PAIR_CONTACTS];
      int nc = tf_collide_plane_convex(&plane, shapes[s], 1e-4, c);
      assert_int_equal(nc, 4);
      for (int k = 0; k < nc; k++) {
        assert_true(fabs(c[k].dist + sink) < 1e-12);
        assert_true(tf_vec3_dot(c[k].normal, up) > 1 - 1e-12);
      }
      // the general entry point agrees, with the plane on either side
      tf_contact_point c2[TF_MAX_PAIR_CONTACTS];
      assert_int_equal(tf_collide_convex(shapes[s], &plane, 1e-4, c2), 4);
      assert_true(tf_vec3_dot(c2[0].normal, up) < -1 + 1e-12);
    }
  }
  // a cylinder on its side touches along a line: two points
  double p0[3] = {0, 0, 0}, q[4], m[9], ax[3] = {1, 0, 0};
  tf_quat_from_axis_angle(q, ax, M_PI / 2);
  tf_quat_to_mat(m, q);
  double p1[3] = {0, 0, 0.1 - 1e-4};
  tf_shape plane = make_shape(TF_GEOM_PLANE, 0, 0, 0, p0, identity);
  tf_shape cyl = make_shape(TF_GEOM_CYLINDER, 0.1, 0.3, 0, p1, m);
  tf_shape cap = make_shape(TF_GEOM_CAPSULE, 0.1, 0.3, 0, p1, m);
  tf_contact_point c[TF_MAX_PAIR_CONTACTS];
  assert_int_equal(tf_collide_plane_convex(&plane, &cyl, 1e-3, c), 2);
  assert_int_equal(tf_collide_plane_convex(&plane, &cap, 1e-3, c), 2);
  // a hull with many vertices flat on the plane: reduced to 8
  double ring[3 * 64];
  for (int i = 0; i < 32; i++) {
    double ang = 2 * M_PI * i / 32;
    for (int s = 0; s < 2; s++) {
      double* p = ring + 3 * (2 * i + s);
      p[0] = 0.2 * cos(ang), p[1] = 0.2 * sin(ang), p[2] = s ? 0.1 : -0.1;
    }
  }
  tf_hull_data prism;
  assert_int_equal(tf_hull_build(ring, 64, "ring", &prism, err, sizeof(err)), 0);
  double p3[3] = {0, 0, 0.1};
  tf_shape hp = make_hull_shape(&prism, p3, identity);
  int nc = tf_collide_plane_convex(&plane, &hp, 1e-4, c);
  assert_int_equal(nc, TF_MAX_PAIR_CONTACTS);
  tf_hull_free(&prism);
  tf_hull_free(&hull);
}

// curved shapes by perturbation: a cylinder standing on a box (rim points), lying on it
// (line ends), a capsule lying on a hull
static void test_manifold_curved(void** state) {
  (void)state;
  double cs[24], h[3] = {0.5, 0.5, 0.1};
  box_corners(cs, h);
  tf_hull_data slab;
  char err[64];
  assert_int_equal(tf_hull_build(cs, 8, "slab", &slab, err, sizeof(err)), 0);
  double p0[3] = {0, 0, 0};
  tf_shape box = make_shape(TF_GEOM_BOX, 0.5, 0.5, 0.1, p0, identity);
  tf_shape hb = make_hull_shape(&slab, p0, identity);
  tf_contact_point c[TF_MAX_PAIR_CONTACTS];
  // standing cylinder, 0.05 mm into the box
  double p1[3] = {0.1, 0, 0.1 + 0.2 - 5e-5};
  tf_shape cyl = make_shape(TF_GEOM_CYLINDER, 0.08, 0.2, 0, p1, identity);
  int nc = tf_collide_convex(&box, &cyl, 1e-4, c);
  print_message("standing cylinder on box: %d points\n", nc);
  assert_true(nc >= 4);
  int rim = 0;
  for (int k = 0; k < nc; k++) {
    assert_true(c[k].dist < 1e-4 && c[k].dist > -5e-5 - 1e-9);
    double r = hypot(c[k].pos[0] - 0.1, c[k].pos[1]);
    rim += fabs(r - 0.08) < 1e-3;
    assert_true(c[k].normal[2] > 1 - 1e-9);
  }
  assert_true(rim >= 4);
  // lying cylinder along x on the hull slab: both ends of the line
  double q[4], m[9], ay[3] = {0, 1, 0};
  tf_quat_from_axis_angle(q, ay, M_PI / 2);
  tf_quat_to_mat(m, q);
  double p2[3] = {0, 0.1, 0.1 + 0.08 - 1e-5};
  tf_shape lying = make_shape(TF_GEOM_CYLINDER, 0.08, 0.2, 0, p2, m);
  nc = tf_collide_convex(&hb, &lying, 1e-4, c);
  assert_true(nc >= 2);
  double ends[2][3] = {{-0.2, 0.1, 0.1}, {0.2, 0.1, 0.1}};
  assert_int_equal(count_points_at(c, nc, (const double(*)[3])ends, 2, 1e-3), 2);
  // capsule lying on the box: both ends
  tf_shape cap = make_shape(TF_GEOM_CAPSULE, 0.08, 0.2, 0, p2, m);
  nc = tf_collide_convex(&cap, &box, 1e-4, c);
  assert_true(nc >= 2);
  assert_int_equal(count_points_at(c, nc, (const double(*)[3])ends, 2, 1e-3), 2);
  for (int k = 0; k < nc; k++) assert_true(c[k].normal[2] < -1 + 1e-9);
  // a sphere: one point
  double p3[3] = {0, 0, 0.1 + 0.05 - 1e-4};
  tf_shape sph = make_shape(TF_GEOM_SPHERE, 0.05, 0, 0, p3, identity);
  assert_int_equal(tf_collide_convex(&hb, &sph, 0, c), 1);
  assert_true(fabs(c[0].dist + 1e-4) < 1e-12);
  tf_hull_free(&slab);
}

// ---------------------------------------------------------------------------------------------
// times of impact

// a 5 mm sphere falling at 8 m/s past the edge of a 0.2 x 0.2 x 0.005 m plate, 0.5 mm clear:
// no impact in any 1 ms step; aimed at the plate: the analytic impact time
static void test_toi_plate_edge_and_head_on(void** state) {
  (void)state;
  double p0[3] = {0, 0, 0}, n[3], pa[3], pb[3];
  tf_shape plate = make_shape(TF_GEOM_BOX, 0.1, 0.1, 0.0025, p0, identity);
  tf_shape_motion still = {{0, 0, 0}, {0, 0, 0}}, fall = {{0, 0, -8}, {0, 0, 0}};
  double r = 0.005, dt = 1e-3;
  double closest = INFINITY;
  for (int step = 0; step < 40; step++) {
    double z = 0.08 - 8 * dt * step;
    double c[3] = {0.1 + 0.0005 + r, 0.03, z};
    tf_shape ball = make_shape(TF_GEOM_SPHERE, r, 0, 0, c, identity);
    double t = tf_time_of_impact(&plate, &still, &ball, &fall, dt, 1e-7, n, pa, pb);
    assert_true(t > dt);
    // sampled distances along the step never drop under the clearance
    for (int s = 0; s <= 20; s++) {
      tf_shape moved;
      tf_shape_advance(&moved, &ball, &fall, dt * s / 20);
      closest = fmin(closest, tf_shape_distance(&plate, &moved, pa, pb, n));
    }
  }
  print_message("grazing sphere: closest approach %.6e m, no impact reported\n", closest);
  assert_true(fabs(closest - 0.0005) < 1e-12);

  // head-on, over the middle and near the corner: contact when z - r = 0.0025
  double worst = 0;
  for (int k = 0; k < 3; k++) {
    double x = k == 0 ? 0.0 : (k == 1 ? 0.0995 : 0.1 + 0.0004);  // last one clips the edge
    double z0 = 0.05;
    double t_exact = (z0 - r - 0.0025) / 8;
    if (k == 2) {
      // the sphere's side meets the top edge x = 0.1, z = 0.0025 at lateral offset 0.4 mm
      double dx = 0.0004;
      t_exact = (z0 - 0.0025 - sqrt(r * r - dx * dx)) / 8;
    }
    int hit_step = (int)floor(t_exact / dt);
    for (int step = 0; step <= hit_step; step++) {
      double c[3] = {x, 0.01, z0 - 8 * dt * step};
      tf_shape ball = make_shape(TF_GEOM_SPHERE, r, 0, 0, c, identity);
      double t = tf_time_of_impact(&plate, &still, &ball, &fall, dt, 1e-9, n, pa, pb);
      if (step < hit_step) {
        assert_true(t > dt);
      } else {
        worst = fmax(worst, fabs(t - (t_exact - step * dt)));
        assert_true(t <= t_exact - step * dt + 1e-12);  // never late
      }
    }
  }
  print_message("head-on sphere: worst impact-time error %.2e s\n", worst);
  assert_true(worst < 1e-7);
}

// a spinning, moving box hits a static one: conservative (never late) and within tolerance
static void test_toi_rotating_box(void** state) {
  (void)state;
  test_rng rng = {51};
  double worst_late = -INFINITY, worst_gap = 0;
  for (int trial = 0; trial < 50; trial++) {
    double p0[3] = {0, 0, 0}, n[3], pa[3], pb[3], rot[9];
    random_rotation(&rng, rot);
    tf_shape a = make_shape(TF_GEOM_BOX, 0.3, 0.3, 0.1, p0, identity);
    double p1[3] = {rng_uniform(&rng, -0.2, 0.2), rng_uniform(&rng, -0.2, 0.2), 0.6};
    tf_shape b = make_shape(TF_GEOM_BOX, 0.1, 0.05, 0.08, p1, rot);
    tf_shape_motion ma = {{0, 0, 0}, {0, 0, 0}};
    tf_shape_motion mb = {
        {rng_uniform(&rng, -0.5, 0.5), rng_uniform(&rng, -0.5, 0.5), -3},
        {rng_uniform(&rng, -20, 20), rng_uniform(&rng, -20, 20), rng_uniform(&rng, -20, 20)}};
    double tol = 1e-6, horizon = 0.5;
    double t = tf_time_of_impact(&a, &ma, &b, &mb, horizon, tol, n, pa, pb);
    assert_true(t <= horizon);
    tf_shape bt;
    tf_shape_advance(&bt, &b, &mb, t);
    double d = tf_shape_distance(&a, &bt, pa, pb, n);
    worst_gap = fmax(worst_gap, d);
    assert_true(d <= tol && d >= -1e-12);
    // never late: no contact earlier on a fine sampling
    for (int s = 0; s < 200; s++) {
      tf_shape_advance(&bt, &b, &mb, t * s / 200);
      double ds = tf_shape_distance(&a, &bt, pa, pb, n);
      worst_late = fmax(worst_late, -ds);
    }
  }
  print_message("rotating box TOI: gap at impact <= %.2e, earliest sampled overlap %.2e\n",
                worst_gap, worst_late);
  assert_true(worst_late < 0);
}

// shape advance: translation of the origin, rotation of the frame about it
static void test_shape_advance(void** state) {
  (void)state;
  double p[3] = {1, 2, 3}, m[9];
  test_rng rng = {52};
  random_rotation(&rng, m);
  tf_shape s = make_shape(TF_GEOM_BOX, 0.1, 0.2, 0.3, p, m), out;
  tf_shape_motion mo = {{0.5, -1, 2}, {0, 0, M_PI}};  // half a turn per second about z
  tf_shape_advance(&out, &s, &mo, 1.0);
  assert_true(fabs(out.pos[0] - 1.5) < 1e-15 && fabs(out.pos[1] - 1) < 1e-15 &&
              fabs(out.pos[2] - 5) < 1e-15);
  // columns: x, y flipped, z kept
  for (int c = 0; c < 3; c++) {
    assert_true(fabs(out.mat[c] + m[c]) < 1e-12);
    assert_true(fabs(out.mat[3 + c] + m[3 + c]) < 1e-12);
    assert_true(fabs(out.mat[6 + c] - m[6 + c]) < 1e-12);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hull_cube_with_interior_points),
      cmocka_unit_test(test_hull_hexagonal_prism),
      cmocka_unit_test(test_hull_random_clouds),
      cmocka_unit_test(test_hull_degenerate_input),
      cmocka_unit_test(test_distance_sphere_closed_forms),
      cmocka_unit_test(test_distance_capsule_closed_forms),
      cmocka_unit_test(test_distance_box_closed_forms),
      cmocka_unit_test(test_distance_cylinder_closed_forms),
      cmocka_unit_test(test_penetration_boxes),
      cmocka_unit_test(test_distance_separating_axis_property),
      cmocka_unit_test(test_distance_coincident_shapes),
      cmocka_unit_test(test_manifold_resting_polytopes),
      cmocka_unit_test(test_manifold_edge_and_sunk),
      cmocka_unit_test(test_manifold_plane),
      cmocka_unit_test(test_manifold_curved),
      cmocka_unit_test(test_toi_plate_edge_and_head_on),
      cmocka_unit_test(test_toi_rotating_box),
      cmocka_unit_test(test_shape_advance),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
