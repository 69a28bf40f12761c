// Tests of the solid-mesh checks (mesh_validate.h): good meshes pass (cube, sphere, torus, the
// library's parts, a cube with repeated STL-style vertices); each defect is refused with its
// kind, the offending triangle and a one-line message: a missing triangle (open edge), a
// flipped triangle (orientation, naming the flipped one), an inside-out cube, two cubes that
// cross merged into one mesh (self-intersection), a zero-area triangle, a NaN coordinate, an
// index out of range, an empty mesh; and the triangle-triangle test on its own.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_reference.h"
#include "mesh_validate.h"
#include "parts.h"

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

static const double origin[3] = {0, 0, 0};

// refuses with the kind; returns the defect and prints the message (one line)
static tf_mesh_defect expect_refused(const double* vert, int nvert, const int* face, int nface,
                                     int kind) {
  tf_mesh_defect d;
  char err[256];
  assert_int_equal(tf_mesh_validate(&d, vert, nvert, face, nface, "m.obj", err, sizeof(err)), -1);
  printf("  refused: %s\n", err);
  assert_int_equal(d.kind, kind);
  assert_null(strchr(err, '\n'));
  assert_non_null(strstr(err, "m.obj: "));
  if (d.face >= 0) {
    char want[64];
    snprintf(want, sizeof(want), "triangle %d (vertices %d %d %d)", d.face, face[3 * d.face],
             face[3 * d.face + 1], face[3 * d.face + 2]);
    assert_non_null(strstr(err, want));
  }
  return d;
}

static void test_good_meshes_pass(void** state) {
  (void)state;
  double vert[24];
  int face[36];
  cube_mesh(vert, face, 0.01, origin);
  char err[256];
  tf_mesh_defect d;
  assert_int_equal(tf_mesh_validate(&d, vert, 8, face, 12, "cube", err, sizeof(err)), 0);
  assert_int_equal(d.kind, TF_MESH_OK);
  // STL-style: every triangle has its own three vertices; welding makes it the same cube
  double svert[108];
  int sface[36];
  for (int i = 0; i < 36; i++) {
    memcpy(svert + 3 * i, vert + 3 * face[i], sizeof(double) * 3);
    sface[i] = i;
  }
  assert_int_equal(tf_mesh_validate(&d, svert, 36, sface, 12, "stl", err, sizeof(err)), 0);
  tf_mesh m;
  assert_int_equal(tf_mesh_sphere(&m, 0.01, 32, 16, err, sizeof(err)), 0);
  assert_int_equal(tf_mesh_validate(&d, m.vert, m.nvert, m.face, m.nface, "s", err, sizeof(err)),
                   0);
  tf_mesh_free(&m);
  assert_int_equal(tf_mesh_torus(&m, 0.01, 0.003, 48, 16, err, sizeof(err)), 0);
  assert_int_equal(tf_mesh_validate(&d, m.vert, m.nvert, m.face, m.nface, "t", err, sizeof(err)),
                   0);
  tf_mesh_free(&m);
  // the library parts' meshes at their default parameters (the bolt's has four sliver
  // triangles and the connector plug's crosses itself at z = 0, so both are refused today)
  const char* parts[] = {"peg", "hole", "nut", "gear", "connector_socket"};
  for (int i = 0; i < 5; i++) {
    const char* part = parts[i];
    tf_part_geometry g;
    assert_int_equal(tf_part_build(part, NULL, 0, &g, err, sizeof(err)), 0);
    int rc = tf_mesh_validate(&d, g.vert, g.nvert, g.face, g.nface, part, err, sizeof(err));
    printf("  %s: %d triangles: %s\n", part, g.nface, rc ? err : "ok");
    assert_int_equal(rc, 0);
    tf_part_geometry_free(&g);
  }
}

static void test_open_edge(void** state) {
  (void)state;
  double vert[24];
  int face[36];
  cube_mesh(vert, face, 0.01, origin);
  // without the last triangle (4 7 6): its three edges are open, each on one neighbour
  tf_mesh_defect d = expect_refused(vert, 8, face, 11, TF_MESH_OPEN_EDGE);
  int shares = 0;
  for (int k = 0; k < 3; k++) {
    for (int j = 0; j < 3; j++) shares += face[3 * d.face + k] == face[33 + j];
  }
  assert_int_equal(shares, 2);  // the named triangle has an edge of the missing one
}

static void test_flipped_triangle(void** state) {
  (void)state;
  double vert[24];
  int face[36];
  cube_mesh(vert, face, 0.01, origin);
  int t = 7;
  int swap = face[3 * t + 1];
  face[3 * t + 1] = face[3 * t + 2], face[3 * t + 2] = swap;
  tf_mesh_defect d = expect_refused(vert, 8, face, 12, TF_MESH_ORIENTATION);
  assert_int_equal(d.face, t);
  assert_true(d.other >= 0 && d.other != t);
}

static void test_inside_out(void** state) {
  (void)state;
  double vert[24];
  int face[36];
  cube_mesh(vert, face, 0.01, origin);
  for (int t = 0; t < 12; t++) {
    int swap = face[3 * t + 1];
    face[3 * t + 1] = face[3 * t + 2], face[3 * t + 2] = swap;
  }
  expect_refused(vert, 8, face, 12, TF_MESH_INSIDE_OUT);
}

static void test_two_crossing_cubes(void** state) {
  (void)state;
  double vert[48];
  int face[72];
  const double shift[3] = {0.0031, 0.0047, 0.0023};
  cube_mesh(vert, face, 0.01, origin);
  cube_mesh(vert + 24, face + 36, 0.01, shift);
  for (int i = 36; i < 72; i++) face[i] += 8;
  tf_mesh_defect d = expect_refused(vert, 16, face, 24, TF_MESH_SELF_INTERSECTION);
  assert_true(d.face < 12 && d.other >= 12);  // one triangle of each cube
  // two separate cubes side by side form a valid (two-part) solid
  const double apart[3] = {0.05, 0, 0};
  cube_mesh(vert + 24, face + 36, 0.01, apart);
  for (int i = 36; i < 72; i++) face[i] += 8;
  char err[256];
  assert_int_equal(tf_mesh_validate(&d, vert, 16, face, 24, "two", err, sizeof(err)), 0);
}

static void test_zero_area_triangle(void** state) {
  (void)state;
  double vert[27];
  int face[39];
  cube_mesh(vert, face, 0.01, origin);
  // a ninth vertex halfway along edge 0-1 and a sliver (0, 8, 1) through it
  for (int k = 0; k < 3; k++) vert[24 + k] = 0.5 * (vert[k] + vert[3 + k]);
  face[36] = 0, face[37] = 8, face[38] = 1;
  tf_mesh_defect d = expect_refused(vert, 9, face, 13, TF_MESH_DEGENERATE);
  assert_int_equal(d.face, 12);
}

static void test_bad_data(void** state) {
  (void)state;
  double vert[24];
  int face[36];
  cube_mesh(vert, face, 0.01, origin);
  vert[10] = NAN;
  expect_refused(vert, 8, face, 12, TF_MESH_BAD_DATA);
  cube_mesh(vert, face, 0.01, origin);
  face[5] = 8;
  expect_refused(vert, 8, face, 12, TF_MESH_BAD_DATA);
  face[5] = -1;
  expect_refused(vert, 8, face, 12, TF_MESH_BAD_DATA);
  cube_mesh(vert, face, 0.01, origin);
  tf_mesh_defect d;
  char err[256];
  assert_int_equal(tf_mesh_validate(&d, vert, 8, face, 0, "empty", err, sizeof(err)), -1);
  assert_int_equal(tf_mesh_validate(&d, NULL, 0, NULL, 0, "null", err, sizeof(err)), -1);
}

static void test_triangle_pairs(void** state) {
  (void)state;
  const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
  // a triangle piercing abc through its inside
  const double d[3] = {0.2, 0.2, -1}, e[3] = {0.3, 0.2, 1}, f[3] = {2, 2, 1};
  assert_true(tf_triangles_intersect(a, b, c, d, e, f));
  assert_true(tf_triangles_intersect(d, e, f, a, b, c));
  // the same moved clear
  const double d2[3] = {2.2, 0.2, -1}, e2[3] = {2.3, 0.2, 1}, f2[3] = {4, 2, 1};
  assert_false(tf_triangles_intersect(a, b, c, d2, e2, f2));
  // coplanar: overlapping, then only touching along an edge, then apart
  const double g[3] = {0.2, 0.2, 0}, h[3] = {1.2, 0.2, 0}, k[3] = {0.2, 1.2, 0};
  assert_true(tf_triangles_intersect(a, b, c, g, h, k));
  const double m[3] = {1, 0, 0}, n[3] = {0, 1, 0}, o[3] = {1, 1, 0};
  assert_false(tf_triangles_intersect(a, b, c, m, n, o));
  const double small[3][3] = {{0.1, 0.1, 0}, {0.2, 0.1, 0}, {0.1, 0.2, 0}};
  assert_true(tf_triangles_intersect(a, b, c, small[0], small[1], small[2]));  // inside
  const double far[3][3] = {{3, 3, 0}, {4, 3, 0}, {3, 4, 0}};
  assert_false(tf_triangles_intersect(a, b, c, far[0], far[1], far[2]));
  // sharing edge bc: flat continuation, a hinge, and folded back onto abc
  const double flat[3] = {1, 1, 0}, hinge[3] = {1, 1, 0.5}, fold[3] = {0.2, 0.3, 0};
  assert_false(tf_triangles_intersect(a, b, c, c, b, flat));
  assert_false(tf_triangles_intersect(a, b, c, c, b, hinge));
  assert_true(tf_triangles_intersect(a, b, c, c, b, fold));
  // sharing corner a: a fan neighbour, a triangle whose far edge pierces abc, and one
  // coplanar that lies over abc
  const double fan1[3] = {-1, 0, 0}, fan2[3] = {0, -1, 0};
  assert_false(tf_triangles_intersect(a, b, c, a, fan1, fan2));
  const double up[3] = {0.3, 0.3, 1}, down[3] = {0.3, 0.3, -1};
  assert_true(tf_triangles_intersect(a, b, c, a, up, down));
  assert_true(tf_triangles_intersect(a, up, down, a, b, c));
  const double over1[3] = {0.5, 0.1, 0}, over2[3] = {0.1, 0.5, 0};
  assert_true(tf_triangles_intersect(a, b, c, a, over1, over2));
  // the same triangle twice is not a crossing (the edge check refuses it)
  assert_false(tf_triangles_intersect(a, b, c, a, b, c));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_good_meshes_pass),   cmocka_unit_test(test_open_edge),
      cmocka_unit_test(test_flipped_triangle),   cmocka_unit_test(test_inside_out),
      cmocka_unit_test(test_two_crossing_cubes), cmocka_unit_test(test_zero_area_triangle),
      cmocka_unit_test(test_bad_data),           cmocka_unit_test(test_triangle_pairs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
