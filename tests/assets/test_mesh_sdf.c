// Tests of the exact mesh SDF (mesh_sdf.h): a 12-triangle cube against the analytic box to
// 1e-12 of its size, at random points and right beside its corners and edges; a UV sphere against
// the true sphere within the mesh's chord error, with the sign checked against the winding number
// right beside vertices and edges; the peg, a gear, the hole block and the nut (concave) from the
// parts library against their analytic SDFs within chord error plus the analytic error bound; an
// OBJ round trip giving the same values bit for bit; a gear exported as STL (float coordinates)
// within chord error plus float rounding; the block relocated by a compiled model giving the same
// values; and refusal of a bad mesh.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mesh_bvh.h"
#include "mesh_io.h"
#include "mesh_reference.h"
#include "mesh_sdf.h"
#include "parts.h"
#include "test_rng.h"
#include "tightfit.h"

// the cube [-h, h]^3 shifted by c: 8 vertices, 12 triangles counter-clockwise from outside
static void cube_mesh(double vert[24], int face[36], double h, const double c[3]) {
  for (int i = 0; i < 8; i++) {
    vert[3 * i] = c[0] + ((i & 1) ? h : -h);
    vert[3 * i + 1] = c[1] + ((i & 2) ? h : -h);
    vert[3 * i + 2] = c[2] + ((i & 4) ? h : -h);
  }
  static const int f[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                            2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
  memcpy(face, f, sizeof(f));
}

// exact signed distance of the box [-h, h]^3 shifted by c
static double box_sdf(const double p[3], double h, const double c[3]) {
  double q[3], out = 0, in = -INFINITY;
  for (int k = 0; k < 3; k++) {
    q[k] = fabs(p[k] - c[k]) - h;
    if (q[k] > 0) out += q[k] * q[k];
    in = fmax(in, q[k]);
  }
  return out > 0 ? sqrt(out) : in;
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static void test_cube_is_exact(void** state) {
  (void)state;
  const double h = 0.0125, c[3] = {0.003, -0.002, 0.0071};
  double vert[24];
  int face[36];
  cube_mesh(vert, face, h, c);
  tf_mesh_sdf sdf;
  char err[256];
  assert_int_equal(tf_mesh_sdf_build(&sdf, NULL, vert, 8, face, 12, "cube", err, sizeof(err)), 0);
  assert_int_equal(sdf.ntri, 12);
  test_rng rng = {7};
  int inside = 0;
  double worst = 0;
  for (int i = 0; i < 20000; i++) {
    double p[3], g[3];
    for (int k = 0; k < 3; k++) p[k] = c[k] + rng_uniform(&rng, -2.5 * h, 2.5 * h);
    double d = tf_mesh_sdf_eval(sdf.params, p, g);
    double e = box_sdf(p, h, c);
    worst = fmax(worst, fabs(d - e));
    inside += d < 0;
    assert_true(fabs(norm3(g) - 1) < 1e-12);
    // stepping back along the gradient lands on the surface
    double q[3] = {p[0] - d * g[0], p[1] - d * g[1], p[2] - d * g[2]};
    assert_true(fabs(box_sdf(q, h, c)) < 1e-12 * h);
  }
  printf("cube: worst |mesh - box| = %.3g m (%.3g of the size), %d of 20000 inside\n", worst,
         worst / (2 * h), inside);
  assert_true(worst <= 1e-12 * 2 * h);
  assert_true(inside > 1000);
  // right beside every corner and edge midpoint, inside and out: the pseudo-normal sign and
  // the value stay exact where faces meet
  for (int v = 0; v < 8; v++) {
    for (int w = 0; w < 8; w++) {
      const double* a = vert + 3 * v;
      const double* b = vert + 3 * w;
      int differ = (v ^ w) == 1 || (v ^ w) == 2 || (v ^ w) == 4;
      if (v != w && !differ) continue;  // a corner (v == w) or an edge (one axis apart)
      for (int trial = 0; trial < 20; trial++) {
        double dir[3], p[3], g[3];
        random_unit_vec(&rng, dir);
        double step = h * pow(10.0, rng_uniform(&rng, -9, -2));
        for (int k = 0; k < 3; k++) p[k] = 0.5 * (a[k] + b[k]) + step * dir[k];
        double d = tf_mesh_sdf_eval(sdf.params, p, g), e = box_sdf(p, h, c);
        assert_true(fabs(d - e) <= 1e-12 * 2 * h);
        if (fabs(e) > 1e-14) assert_int_equal(d < 0, e < 0);
      }
    }
  }
  // on a face, an edge and a corner: zero, with the outward pseudo-normal
  double on[3][3] = {{c[0] + h, c[1] + 0.3 * h, c[2] - 0.2 * h},
                     {c[0] + h, c[1] + h, c[2] + 0.1 * h},
                     {c[0] - h, c[1] - h, c[2] - h}};
  double want[3][3] = {{1, 0, 0}, {M_SQRT1_2, M_SQRT1_2, 0}, {-1, -1, -1}};
  for (int k = 0; k < 3; k++) want[2][k] /= sqrt(3.0);
  for (int i = 0; i < 3; i++) {
    double g[3];
    assert_true(fabs(tf_mesh_sdf_eval(sdf.params, on[i], g)) < 1e-15);
    for (int k = 0; k < 3; k++) assert_true(fabs(g[k] - want[i][k]) < 1e-12);
  }
  tf_mesh_sdf_free(&sdf);
}

// the mesh's largest distance to the true sphere: the inscribed mesh's closest approach to
// the centre
static double sphere_chord_error(const tf_mesh* m, double r) {
  double near = INFINITY, origin[3] = {0, 0, 0};
  for (int t = 0; t < m->nface; t++) {
    const int* f = m->face + 3 * t;
    double q[3];
    tf_triangle_closest(q, origin, m->vert + 3 * f[0], m->vert + 3 * f[1], m->vert + 3 * f[2]);
    near = fmin(near, norm3(q));
  }
  return r - near;
}

static void test_sphere_within_chord_and_signs_right(void** state) {
  (void)state;
  const double r = 0.01;
  tf_mesh m;
  char err[256];
  assert_int_equal(tf_mesh_sphere(&m, r, 48, 24, err, sizeof(err)), 0);
  tf_mesh_sdf sdf;
  assert_int_equal(
      tf_mesh_sdf_build(&sdf, NULL, m.vert, m.nvert, m.face, m.nface, "sphere", err, sizeof(err)),
      0);
  double chord = sphere_chord_error(&m, r);
  test_rng rng = {11};
  double worst = 0;
  for (int i = 0; i < 20000; i++) {
    double p[3], g[3];
    for (int k = 0; k < 3; k++) p[k] = rng_uniform(&rng, -2 * r, 2 * r);
    double d = tf_mesh_sdf_eval(sdf.params, p, g);
    double e = norm3(p) - r;
    worst = fmax(worst, fabs(d - e));
    if (fabs(e) > chord) assert_true((d < 0) == (e < 0));
  }
  printf("sphere %d triangles: worst |mesh - sphere| = %.4g m, chord error %.4g m\n", m.nface,
         worst, chord);
  assert_true(worst <= chord + 1e-12);
  // sign beside every vertex and edge midpoint, against the winding number (an independent
  // oracle: exact solid angles, no pseudo-normals)
  tf_mesh_bvh bvh;
  assert_int_equal(tf_mesh_bvh_build(&bvh, m.vert, m.nvert, m.face, m.nface, err, sizeof(err)), 0);
  int checked = 0;
  for (int t = 0; t < m.nface; t++) {
    for (int e = 0; e < 3; e++) {
      const double* a = m.vert + 3 * m.face[3 * t + e];
      const double* b = m.vert + 3 * m.face[3 * t + (e + 1) % 3];
      for (int at = 0; at < 2; at++) {
        double base[3], dir[3], p[3], g[3];
        for (int k = 0; k < 3; k++) base[k] = at ? 0.5 * (a[k] + b[k]) : a[k];
        random_unit_vec(&rng, dir);
        double step = rng_uniform(&rng, 1e-9, 1e-5) * r;
        for (int k = 0; k < 3; k++) p[k] = base[k] + step * dir[k];
        double d = tf_mesh_sdf_eval(sdf.params, p, g);
        int in = tf_mesh_bvh_winding(&bvh, p) > 0.5;
        if (d != 0) assert_int_equal(d < 0, in);
        checked++;
      }
    }
  }
  assert_true(checked == 6 * m.nface);
  tf_mesh_bvh_free(&bvh);
  tf_mesh_sdf_free(&sdf);
  tf_mesh_free(&m);
}

// random points within band of the part's mesh or anywhere in its box
static void part_point(double p[3], const tf_part_geometry* g, double band, test_rng* rng) {
  if (rng_uniform(rng, 0, 1) < 0.5) {
    for (int k = 0; k < 3; k++) {
      double pad = 0.1 * (g->aabb[3 + k] - g->aabb[k]);
      p[k] = rng_uniform(rng, g->aabb[k] - pad, g->aabb[3 + k] + pad);
    }
    return;
  }
  int t = (int)rng_uniform(rng, 0, g->nface);
  const int* f = g->face + 3 * t;
  double s = rng_uniform(rng, 0, 1), u = rng_uniform(rng, 0, 1), dir[3];
  if (s + u > 1) s = 1 - s, u = 1 - u;
  random_unit_vec(rng, dir);
  double r = rng_uniform(rng, 0, band);
  for (int k = 0; k < 3; k++) {
    double a = g->vert[3 * f[0] + k], b = g->vert[3 * f[1] + k], c = g->vert[3 * f[2] + k];
    p[k] = a + s * (b - a) + u * (c - a) + r * dir[k];
  }
}

// the part's mesh SDF against its analytic SDF: |difference| <= chord + error_bound within the
// band where error_bound holds
static void check_part(const char* part, const tf_kv* kv, int nkv, int npoint) {
  tf_part_geometry g;
  char err[256];
  assert_int_equal(tf_part_build(part, kv, nkv, &g, err, sizeof(err)), 0);
  tf_mesh_sdf sdf;
  int rc = tf_mesh_sdf_build(&sdf, NULL, g.vert, g.nvert, g.face, g.nface, part, err, sizeof(err));
  if (rc) printf("%s\n", err);
  assert_int_equal(rc, 0);
  test_rng rng = {23};
  double worst = 0, tol = g.chord_error + g.error_bound + 1e-12;
  int n = 0;
  for (int i = 0; i < npoint; i++) {
    double p[3], gm[3], ga[3] = {0, 0, 0};
    part_point(p, &g, 5e-5, &rng);
    double e = g.fn(g.params, p, ga);
    if (g.error_bound > 0 && fabs(e) > 1e-4) continue;  // error_bound is stated near the surface
    double d = tf_mesh_sdf_eval(sdf.params, p, gm);
    worst = fmax(worst, fabs(d - e));
    assert_true(fabs(norm3(gm) - 1) < 1e-9);
    n++;
  }
  printf("%s: %d triangles, %d points: worst |mesh - analytic| = %.4g m, chord %.4g + bound %.4g\n",
         part, g.nface, n, worst, g.chord_error, g.error_bound);
  assert_true(n > npoint / 4);
  assert_true(worst <= tol);
  tf_mesh_sdf_free(&sdf);
  tf_part_geometry_free(&g);
}

static void test_peg_within_chord(void** state) {
  (void)state;
  check_part("peg", NULL, 0, 20000);
  tf_kv square[] = {{"shape", "square"}};
  check_part("peg", square, 1, 20000);
}

static void test_gear_within_chord(void** state) {
  (void)state;
  tf_kv kv[] = {{"teeth", "12"}, {"chord_um", "5"}};
  check_part("gear", kv, 2, 10000);
}

// concave solids: the block with its round bore and the nut (its thread's inside)
static void test_hole_and_nut_within_chord(void** state) {
  (void)state;
  check_part("hole", NULL, 0, 10000);
  check_part("nut", NULL, 0, 5000);
}

// OBJ writes %.17g, so the mesh read back is the same and so is every value
static void test_obj_round_trip_same_values(void** state) {
  (void)state;
  tf_part_geometry g;
  char err[256];
  assert_int_equal(tf_part_build("peg", NULL, 0, &g, err, sizeof(err)), 0);
  char dir[] = "/tmp/tightfit_mesh_sdf_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof(path), "%s/peg.obj", dir);
  tf_mesh m = {g.vert, g.nvert, g.face, g.nface}, back;
  assert_int_equal(tf_mesh_write_obj(path, &m, err, sizeof(err)), 0);
  assert_int_equal(tf_mesh_read(&back, path, err, sizeof(err)), 0);
  tf_mesh_sdf a, b;
  assert_int_equal(
      tf_mesh_sdf_build(&a, NULL, g.vert, g.nvert, g.face, g.nface, "peg", err, sizeof(err)), 0);
  assert_int_equal(tf_mesh_sdf_build(&b, NULL, back.vert, back.nvert, back.face, back.nface, path,
                                     err, sizeof(err)),
                   0);
  test_rng rng = {5};
  for (int i = 0; i < 2000; i++) {
    double p[3], ga[3], gb[3];
    part_point(p, &g, 1e-3, &rng);
    assert_true(tf_mesh_sdf_eval(a.params, p, ga) == tf_mesh_sdf_eval(b.params, p, gb));
    assert_memory_equal(ga, gb, sizeof(ga));
  }
  unlink(path);
  rmdir(dir);
  tf_mesh_sdf_free(&a);
  tf_mesh_sdf_free(&b);
  tf_mesh_free(&back);
  tf_part_geometry_free(&g);
}

// `tightfit asset export --out FILE.stl` writes float coordinates: the mesh read back moves
// each vertex by at most half a float ulp, so it stays within the chord error plus that
static void test_stl_export_within_chord(void** state) {
  (void)state;
  tf_kv kv[] = {{"teeth", "12"}, {"chord_um", "5"}};
  tf_part_geometry g;
  char err[256];
  assert_int_equal(tf_part_build("gear", kv, 2, &g, err, sizeof(err)), 0);
  char dir[] = "/tmp/tightfit_mesh_sdf_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof(path), "%s/gear.stl", dir);
  tf_mesh m = {g.vert, g.nvert, g.face, g.nface}, back;
  assert_int_equal(tf_mesh_write_stl(path, &m, err, sizeof(err)), 0);
  assert_int_equal(tf_mesh_read(&back, path, err, sizeof(err)), 0);
  tf_mesh_sdf sdf;
  int rc = tf_mesh_sdf_build(&sdf, NULL, back.vert, back.nvert, back.face, back.nface, path, err,
                             sizeof(err));
  if (rc) printf("%s\n", err);
  assert_int_equal(rc, 0);
  double reach = 0;  // the largest |coordinate|: float rounding moves each by <= reach 2^-24
  for (int i = 0; i < 3 * g.nvert; i++) reach = fmax(reach, fabs(g.vert[i]));
  double tol = g.chord_error + g.error_bound + sqrt(3.0) * reach * 0x1.0p-24 + 1e-12;
  test_rng rng = {9};
  double worst = 0;
  for (int i = 0; i < 5000; i++) {
    double p[3], ga[3] = {0, 0, 0}, gm[3];
    part_point(p, &g, 5e-5, &rng);
    double e = g.fn(g.params, p, ga);
    worst = fmax(worst, fabs(tf_mesh_sdf_eval(sdf.params, p, gm) - e));
  }
  printf("gear via STL: %d triangles: worst |mesh - analytic| = %.4g m, tolerance %.4g m\n",
         back.nface, worst, tol);
  assert_true(worst <= tol);
  unlink(path);
  rmdir(dir);
  tf_mesh_sdf_free(&sdf);
  tf_mesh_free(&back);
  tf_part_geometry_free(&g);
}

// the builder copies the block into the model's parameter array; the copy answers the same
static void test_model_copy_same_values(void** state) {
  (void)state;
  tf_mesh m;
  char err[256];
  assert_int_equal(tf_mesh_torus(&m, 0.01, 0.004, 64, 24, err, sizeof(err)), 0);
  tf_mesh_sdf sdf;
  assert_int_equal(
      tf_mesh_sdf_build(&sdf, NULL, m.vert, m.nvert, m.face, m.nface, "torus", err, sizeof(err)),
      0);
  tf_builder* b = tf_builder_create();
  assert_non_null(b);
  int mesh = tf_builder_add_mesh(b, "torus", m.vert, m.nvert, m.face, m.nface);
  assert_true(mesh >= 0);
  tf_sdf_def def;
  tf_mesh_sdf_def(&def, &sdf, "torus", mesh);
  assert_int_equal(def.error_bound, 0);
  assert_int_equal(def.unit_gradient, 1);
  int id = tf_builder_add_sdf(b, &def);
  assert_true(id >= 0);
  tf_model* model = tf_builder_compile(b, err, sizeof(err));
  if (!model) printf("%s\n", err);
  assert_non_null(model);
  const void* copy = model->sdf_param + model->sdf_paramadr[id];
  assert_ptr_equal(model->sdf_fn[id], tf_mesh_sdf_eval);
  test_rng rng = {3};
  for (int i = 0; i < 1000; i++) {
    double p[3], ga[3], gb[3];
    for (int k = 0; k < 3; k++) p[k] = rng_uniform(&rng, -0.02, 0.02);
    assert_true(tf_mesh_sdf_eval(sdf.params, p, ga) == tf_mesh_sdf_eval(copy, p, gb));
    assert_memory_equal(ga, gb, sizeof(ga));
  }
  tf_model_destroy(model);
  tf_builder_destroy(b);
  tf_mesh_sdf_free(&sdf);
  tf_mesh_free(&m);
}

static void test_bad_mesh_refused(void** state) {
  (void)state;
  double vert[24];
  int face[36];
  const double c[3] = {0, 0, 0};
  cube_mesh(vert, face, 0.01, c);
  tf_mesh_sdf sdf;
  tf_mesh_defect defect;
  char err[256];
  assert_int_equal(tf_mesh_sdf_build(&sdf, &defect, vert, 8, face, 11, "holed", err, sizeof(err)),
                   -1);
  assert_int_equal(defect.kind, TF_MESH_OPEN_EDGE);
  assert_null(sdf.params);
  assert_non_null(strstr(err, "not watertight"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cube_is_exact),
      cmocka_unit_test(test_sphere_within_chord_and_signs_right),
      cmocka_unit_test(test_peg_within_chord),
      cmocka_unit_test(test_gear_within_chord),
      cmocka_unit_test(test_hole_and_nut_within_chord),
      cmocka_unit_test(test_obj_round_trip_same_values),
      cmocka_unit_test(test_stl_export_within_chord),
      cmocka_unit_test(test_model_copy_same_values),
      cmocka_unit_test(test_bad_mesh_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
