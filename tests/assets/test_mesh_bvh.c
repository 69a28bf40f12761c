// Tests of the mesh distance queries (mesh_bvh.h): the closest point on a triangle against
// dense sampling, degenerate triangles, the BVH's nearest triangle against brute force on
// tessellated spheres and tori, and the pseudo-normal sign against the analytic torus, at
// random points and at the points that break naive sign tests (on the axis of symmetry, above
// vertices, on the mesh's own vertex lattice), with and without welded vertices; exact values
// on a cube and a concave L prism at lattice points where faces, edges and corners tie; the
// winding-number fallback where the pseudo-normal cannot decide.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_check.h"
#include "mesh_bvh.h"
#include "mesh_reference.h"

static double dist2(const double a[3], const double b[3]) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

// the smallest distance from p to any triangle, the slow way
static double brute_force_dist2(const tf_mesh* m, const double p[3]) {
  double best = INFINITY;
  for (int t = 0; t < m->nface; t++) {
    const int* f = m->face + 3 * t;
    double q[3];
    tf_triangle_closest(q, p, m->vert + 3 * f[0], m->vert + 3 * f[1], m->vert + 3 * f[2]);
    best = fmin(best, dist2(p, q));
  }
  return best;
}

static void test_triangle_closest_beats_dense_sampling(void** state) {
  (void)state;
  test_rng rng = {1};
  for (int trial = 0; trial < 200; trial++) {
    double v[3][3], p[3], q[3];
    for (int i = 0; i < 3; i++) {
      for (int k = 0; k < 3; k++) v[i][k] = rng_uniform(&rng, -1, 1);
    }
    if (trial % 4 == 0) {  // thin, obtuse triangles
      for (int k = 0; k < 3; k++) v[2][k] = 0.5 * (v[0][k] + v[1][k]) + 0.01 * v[2][k];
    }
    for (int k = 0; k < 3; k++) p[k] = rng_uniform(&rng, -2, 2);
    int feature = tf_triangle_closest(q, p, v[0], v[1], v[2]);
    double d2 = dist2(p, q);
    // q lies on the triangle: inside its plane and on the right side of each edge
    double e1[3], e2[3], n[3];
    for (int k = 0; k < 3; k++) e1[k] = v[1][k] - v[0][k], e2[k] = v[2][k] - v[0][k];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double off = (n[0] * (q[0] - v[0][0]) + n[1] * (q[1] - v[0][1]) + n[2] * (q[2] - v[0][2])) / nn;
    assert_true(fabs(off) < 1e-12);
    // no sample of the triangle is closer
    int steps = 80;
    for (int i = 0; i <= steps; i++) {
      for (int j = 0; i + j <= steps; j++) {
        double s[3], u = (double)i / steps, w = (double)j / steps;
        for (int k = 0; k < 3; k++) s[k] = v[0][k] + u * e1[k] + w * e2[k];
        assert_true(d2 <= dist2(p, s) + 1e-12);
      }
    }
    if (feature >= TF_TRI_VERT_A && feature <= TF_TRI_VERT_C) {
      assert_memory_equal(q, v[feature - TF_TRI_VERT_A], sizeof(q));
    }
  }
}

static void test_degenerate_triangles_stay_finite(void** state) {
  (void)state;
  double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {2, 0, 0}, p[3] = {1.5, 1, 0}, q[3];
  tf_triangle_closest(q, p, a, b, c);  // collinear
  assert_true(fabs(q[0] - 1.5) < 1e-15 && fabs(q[1]) < 1e-15);
  tf_triangle_closest(q, p, a, a, a);  // a point
  assert_true(q[0] == 0 && q[1] == 0 && q[2] == 0);
  tf_triangle_closest(q, p, a, b, b);  // a segment twice
  assert_true(fabs(q[0] - 1.0) < 1e-15 && fabs(q[1]) < 1e-15);
}

// random points around the mesh: the BVH finds the same distance as brute force
static void check_nearest(const tf_mesh* m, uint64_t seed) {
  tf_mesh_bvh bvh;
  char err[256];
  assert_int_equal(tf_mesh_bvh_build(&bvh, m->vert, m->nvert, m->face, m->nface, err, sizeof(err)),
                   0);
  test_rng rng = {seed};
  int hint = -1;
  for (int i = 0; i < 400; i++) {
    double p[3];
    for (int k = 0; k < 3; k++) {
      double span = bvh.hi[k] - bvh.lo[k];
      p[k] = rng_uniform(&rng, bvh.lo[k] - 0.5 * span, bvh.hi[k] + 0.5 * span);
    }
    tf_mesh_hit hit;
    tf_mesh_bvh_nearest(&hit, &bvh, p, (i % 3) ? hint : -1);
    double want = brute_force_dist2(m, p);
    assert_true(fabs(hit.dist2 - want) <= 1e-14 * (1 + want));
    assert_true(fabs(dist2(p, hit.point) - hit.dist2) <= 1e-14 * (1 + want));
    assert_true(hit.face >= 0 && hit.face < m->nface);
    hint = hit.tri;
  }
  tf_mesh_bvh_free(&bvh);
}

static void test_nearest_matches_brute_force(void** state) {
  (void)state;
  char err[256];
  tf_mesh m;
  assert_int_equal(tf_mesh_sphere(&m, 0.7, 24, 12, err, sizeof(err)), 0);
  check_nearest(&m, 11);
  tf_mesh_free(&m);
  assert_int_equal(tf_mesh_torus(&m, 0.3, 0.1, 40, 16, err, sizeof(err)), 0);
  check_nearest(&m, 12);
  // a perturbed torus: no symmetry to hide behind
  test_rng rng = {13};
  for (int k = 0; k < 3 * m.nvert; k++) m.vert[k] += rng_uniform(&rng, -0.01, 0.01);
  check_nearest(&m, 14);
  tf_mesh_free(&m);
}

// the sign at p agrees with the analytic torus wherever the mesh and the torus agree
static void check_torus_sign(const tf_mesh_bvh* bvh, const double r[2], const double p[3],
                             double chord) {
  double g[3];
  double exact = sdf_torus(r, p, g);
  if (fabs(exact) <= 2 * chord) return;  // between the mesh and the true surface
  int fell_back = 0;
  double d = tf_mesh_bvh_signed_distance(NULL, bvh, p, -1, &fell_back);
  if ((d < 0) != (exact < 0)) {
    print_message("sign wrong at (%g %g %g): mesh %g, analytic %g\n", p[0], p[1], p[2], d, exact);
    fail();
  }
}

static void check_signs(const tf_mesh* m, const double r[2], double chord) {
  tf_mesh_bvh bvh;
  char err[256];
  assert_int_equal(tf_mesh_bvh_build(&bvh, m->vert, m->nvert, m->face, m->nface, err, sizeof(err)),
                   0);
  assert_int_equal(bvh.open_edges, 0);
  assert_int_equal(bvh.nonmanifold_edges, 0);
  test_rng rng = {21};
  for (int i = 0; i < 3000; i++) {
    double p[3] = {rng_uniform(&rng, -0.5, 0.5), rng_uniform(&rng, -0.5, 0.5),
                   rng_uniform(&rng, -0.2, 0.2)};
    check_torus_sign(&bvh, r, p, chord);
  }
  // on the axis: every direction ties
  for (int i = -10; i <= 10; i++) {
    double p[3] = {0, 0, 0.03 * i};
    check_torus_sign(&bvh, r, p, chord);
  }
  // along each vertex's own direction from the tube centre, in and out, and the vertex lattice
  // scaled about the origin (points that land on edges and vertices of the closest features)
  for (int v = 0; v < m->nvert; v += 7) {
    const double* x = m->vert + 3 * v;
    double rho = sqrt(x[0] * x[0] + x[1] * x[1]);
    double c[3] = {r[0] * x[0] / rho, r[0] * x[1] / rho, 0};
    for (int s = 0; s < 6; s++) {
      double t = 0.3 + 0.3 * s, p[3];
      for (int k = 0; k < 3; k++) p[k] = c[k] + t * (x[k] - c[k]);
      check_torus_sign(&bvh, r, p, chord);
      for (int k = 0; k < 3; k++) p[k] = x[k] * (0.5 + 0.2 * s);
      check_torus_sign(&bvh, r, p, chord);
    }
  }
  // the winding number agrees deep inside and far outside
  double inside[3] = {r[0], 0, 0}, outside[3] = {0, 0, 0}, far[3] = {3, 2, 1};
  assert_true(fabs(tf_mesh_bvh_winding(&bvh, inside) - 1) < 1e-9);
  assert_true(fabs(tf_mesh_bvh_winding(&bvh, outside)) < 1e-9);
  assert_true(fabs(tf_mesh_bvh_winding(&bvh, far)) < 1e-9);
  tf_mesh_bvh_free(&bvh);
}

static void test_sign_is_robust_on_a_torus(void** state) {
  (void)state;
  char err[256];
  double r[2] = {0.3, 0.1};
  tf_mesh m;
  int nu = 48, nv = 24;
  assert_int_equal(tf_mesh_torus(&m, r[0], r[1], nu, nv, err, sizeof(err)), 0);
  // the inscribed mesh is at most this far inside the torus
  double chord = (r[0] + r[1]) * (1 - cos(M_PI / nu)) + r[1] * (1 - cos(M_PI / nv));
  check_signs(&m, r, chord);
  // the same triangles with every corner its own vertex (STL before welding)
  tf_mesh split;
  split.nface = m.nface;
  split.nvert = 3 * m.nface;
  split.vert = malloc(sizeof(double) * 3 * (size_t)split.nvert);
  split.face = malloc(sizeof(int) * 3 * (size_t)split.nface);
  for (int t = 0; t < m.nface; t++) {
    for (int c = 0; c < 3; c++) {
      memcpy(split.vert + 9 * t + 3 * c, m.vert + 3 * m.face[3 * t + c], sizeof(double) * 3);
      split.face[3 * t + c] = 3 * t + c;
    }
  }
  check_signs(&split, r, chord);
  tf_mesh_free(&split);
  tf_mesh_free(&m);
}

// exact SDF of the box |x| <= h about the origin
static double box_sdf(const double h[3], const double p[3]) {
  double q[3], out = 0, in = -INFINITY;
  for (int k = 0; k < 3; k++) {
    q[k] = fabs(p[k]) - h[k];
    out += q[k] > 0 ? q[k] * q[k] : 0;
    in = fmax(in, q[k]);
  }
  return sqrt(out) + fmin(in, 0);
}

// an L-shaped polygon (0,0) (2,0) (2,1) (1,1) (1,2) (0,2), counter-clockwise, extruded to
// height 1: a concave edge along (1, 1, z)
static void l_prism(double vert[36], int face[60]) {
  const double xy[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  for (int i = 0; i < 6; i++) {
    vert[3 * i] = vert[3 * (i + 6)] = xy[i][0];
    vert[3 * i + 1] = vert[3 * (i + 6) + 1] = xy[i][1];
    vert[3 * i + 2] = 0;
    vert[3 * (i + 6) + 2] = 1;
  }
  int* f = face;
  for (int i = 1; i < 5; i++) {  // caps: fans from (0, 0), which sees the whole L
    *f++ = 6, *f++ = 6 + i, *f++ = 6 + i + 1;
    *f++ = 0, *f++ = i + 1, *f++ = i;
  }
  for (int i = 0; i < 6; i++) {  // sides
    int j = (i + 1) % 6;
    *f++ = i, *f++ = j, *f++ = 6 + j;
    *f++ = i, *f++ = 6 + j, *f++ = 6 + i;
  }
}

static void test_exact_on_polyhedra_where_features_tie(void** state) {
  (void)state;
  char err[256];
  tf_mesh_bvh bvh;
  // a cube of 12 triangles against its exact SDF, on a lattice that puts points on its faces,
  // edges, corners, face diagonals and the planes where faces tie
  const double h[3] = {0.5, 0.5, 0.5};
  double cube[24];
  for (int i = 0; i < 8; i++) {
    cube[3 * i] = (i & 1) ? 0.5 : -0.5;
    cube[3 * i + 1] = (i & 2) ? 0.5 : -0.5;
    cube[3 * i + 2] = (i & 4) ? 0.5 : -0.5;
  }
  const int cube_face[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                             2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
  assert_int_equal(tf_mesh_bvh_build(&bvh, cube, 8, cube_face, 12, err, sizeof(err)), 0);
  assert_int_equal(bvh.open_edges + bvh.nonmanifold_edges, 0);
  int fallbacks = 0;
  for (int i = -8; i <= 8; i++) {
    for (int j = -8; j <= 8; j++) {
      for (int k = -8; k <= 8; k++) {
        double p[3] = {0.125 * i, 0.125 * j, 0.125 * k};
        int fell_back;
        double d = tf_mesh_bvh_signed_distance(NULL, &bvh, p, -1, &fell_back);
        fallbacks += fell_back;
        if (fabs(d - box_sdf(h, p)) > 1e-12) {
          print_message("cube at (%g %g %g): %g, exact %g\n", p[0], p[1], p[2], d, box_sdf(h, p));
          fail();
        }
      }
    }
  }
  assert_int_equal(fallbacks, 0);
  tf_mesh_bvh_free(&bvh);

  // the L prism: signs everywhere, exact values outside (the union of two boxes)
  double lv[36];
  int lf[60];
  l_prism(lv, lf);
  assert_int_equal(tf_mesh_bvh_build(&bvh, lv, 12, lf, 20, err, sizeof(err)), 0);
  assert_int_equal(bvh.open_edges + bvh.nonmanifold_edges, 0);
  const double h1[3] = {1, 0.5, 0.5}, h2[3] = {0.5, 1, 0.5};
  for (int i = -4; i <= 12; i++) {
    for (int j = -4; j <= 12; j++) {
      for (int k = -4; k <= 8; k++) {
        double p[3] = {0.25 * i, 0.25 * j, 0.25 * k};
        double p1[3] = {p[0] - 1, p[1] - 0.5, p[2] - 0.5},
               p2[3] = {p[0] - 0.5, p[1] - 1, p[2] - 0.5};
        double exact = fmin(box_sdf(h1, p1), box_sdf(h2, p2));  // exact outside, sign everywhere
        double d = tf_mesh_bvh_signed_distance(NULL, &bvh, p, -1, NULL);
        int wrong = exact > 0 ? fabs(d - exact) > 1e-12 : (exact < 0 ? d >= 0 : fabs(d) > 1e-12);
        if (wrong) {
          print_message("L prism at (%g %g %g): %g, exact %g\n", p[0], p[1], p[2], d, exact);
          fail();
        }
      }
    }
  }
  tf_mesh_bvh_free(&bvh);
}

static void test_closedness_is_counted(void** state) {
  (void)state;
  char err[256];
  tf_mesh m;
  assert_int_equal(tf_mesh_sphere(&m, 1, 12, 6, err, sizeof(err)), 0);
  tf_mesh_bvh bvh;
  // one face flipped: its three edges now pair with same-direction neighbours
  int* f = m.face + 3 * 10;
  int t = f[1];
  f[1] = f[2], f[2] = t;
  assert_int_equal(tf_mesh_bvh_build(&bvh, m.vert, m.nvert, m.face, m.nface, err, sizeof(err)), 0);
  assert_int_equal(bvh.open_edges, 0);
  assert_int_equal(bvh.nonmanifold_edges, 3);
  tf_mesh_bvh_free(&bvh);
  f[2] = f[1], f[1] = t;  // flipped back
  // one face removed: a hole with three open edges
  assert_int_equal(
      tf_mesh_bvh_build(&bvh, m.vert, m.nvert, m.face + 3, m.nface - 1, err, sizeof(err)), 0);
  assert_int_equal(bvh.open_edges, 3);
  assert_int_equal(bvh.nonmanifold_edges, 0);
  tf_mesh_bvh_free(&bvh);
  tf_mesh_free(&m);
}

static void test_undecided_signs_fall_back_to_winding(void** state) {
  (void)state;
  char err[256];
  // a lone triangle: in its own plane, (p - c) . n = 0 and the pseudo-normal cannot decide
  double vert[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  int face[3] = {0, 1, 2};
  tf_mesh_bvh bvh;
  assert_int_equal(tf_mesh_bvh_build(&bvh, vert, 3, face, 1, err, sizeof(err)), 0);
  assert_int_equal(bvh.open_edges, 3);
  double p[3] = {2, 2, 0};
  int fell_back = 0;
  double d = tf_mesh_bvh_signed_distance(NULL, &bvh, p, -1, &fell_back);
  assert_int_equal(fell_back, 1);
  assert_true(fabs(d - sqrt(4.5)) < 1e-12);  // outside: winding number 0
  tf_mesh_bvh_free(&bvh);
  // the winding number of a closed sphere: 1 inside, 0 outside, 1/2 on average at the surface
  tf_mesh m;
  assert_int_equal(tf_mesh_sphere(&m, 1, 16, 8, err, sizeof(err)), 0);
  assert_int_equal(tf_mesh_bvh_build(&bvh, m.vert, m.nvert, m.face, m.nface, err, sizeof(err)), 0);
  double in[3] = {0.2, -0.3, 0.1}, out[3] = {1.5, 0, 0};
  assert_true(fabs(tf_mesh_bvh_winding(&bvh, in) - 1) < 1e-12);
  assert_true(fabs(tf_mesh_bvh_winding(&bvh, out)) < 1e-12);
  tf_mesh_bvh_free(&bvh);
  tf_mesh_free(&m);
}

static void test_build_rejects_bad_meshes(void** state) {
  (void)state;
  double vert[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  int face[3] = {0, 1, 3};
  tf_mesh_bvh bvh;
  char err[256] = "";
  assert_int_equal(tf_mesh_bvh_build(&bvh, vert, 3, face, 1, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "out of range"));
  face[2] = 2;
  vert[4] = NAN;
  assert_int_equal(tf_mesh_bvh_build(&bvh, vert, 3, face, 1, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "not finite"));
  assert_int_equal(tf_mesh_bvh_build(&bvh, vert, 3, face, 0, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "empty"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_triangle_closest_beats_dense_sampling),
      cmocka_unit_test(test_degenerate_triangles_stay_finite),
      cmocka_unit_test(test_nearest_matches_brute_force),
      cmocka_unit_test(test_sign_is_robust_on_a_torus),
      cmocka_unit_test(test_exact_on_polyhedra_where_features_tie),
      cmocka_unit_test(test_closedness_is_counted),
      cmocka_unit_test(test_undecided_signs_fall_back_to_winding),
      cmocka_unit_test(test_build_rejects_bad_meshes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
