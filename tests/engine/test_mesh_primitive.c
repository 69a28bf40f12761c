// Tests of the primitive tessellation (mesh_primitive.c): every mesh is closed and consistently
// oriented (each directed edge once, its reverse once), faces outward (positive volume close
// to the solid's), vertices on the true surface, within the buffer limits at any size; hull
// faces fan into the right number of triangles.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "collision.h"
#include "mesh_primitive.h"
#include "sdf_primitive.h"

static double vert[3 * TF_PRIM_MESH_MAX_VERT];
static int face[3 * TF_PRIM_MESH_MAX_FACE];

// each directed edge appears once and its reverse once: closed and consistently oriented
static void expect_closed(const int* f, int nface, int nvert) {
  static int count[TF_PRIM_MESH_MAX_VERT * 8][3];
  int nedge = 0;
  for (int t = 0; t < nface; t++) {
    for (int k = 0; k < 3; k++) {
      int a = f[3 * t + k], b = f[3 * t + (k + 1) % 3];
      assert_true(a >= 0 && a < nvert && b >= 0 && b < nvert && a != b);
      int found = -1;
      for (int e = 0; e < nedge && found < 0; e++) {
        if ((count[e][0] == a && count[e][1] == b) || (count[e][0] == b && count[e][1] == a))
          found = e;
      }
      if (found < 0) {
        found = nedge++;
        count[found][0] = a, count[found][1] = b, count[found][2] = 0;
      }
      count[found][2] += count[found][0] == a ? 1 : 16;
    }
  }
  for (int e = 0; e < nedge; e++) assert_int_equal(count[e][2], 17);
}

// volume by the divergence theorem
static double volume(const double* v, const int* f, int nface) {
  double vol = 0;
  for (int t = 0; t < nface; t++) {
    const double *a = v + 3 * f[3 * t], *b = v + 3 * f[3 * t + 1], *c = v + 3 * f[3 * t + 2];
    vol += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
           a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return vol / 6;
}

static void test_primitives(void** state) {
  (void)state;
  const double sizes[4][3] = {
      {0.01, 0.02, 0.03}, {0.002, 0.001, 0.004}, {0.3, 0.5, 0.2}, {1e-4, 1e-4, 1e-4}};
  for (int type = TF_GEOM_SPHERE; type <= TF_GEOM_CYLINDER; type++) {
    for (int i = 0; i < 4; i++) {
      const double* size = sizes[i];
      int nface = 0;
      int nvert = tf_primitive_mesh(vert, face, &nface, type, size, 1e-3);
      assert_true(nvert > 0 && nvert <= TF_PRIM_MESH_MAX_VERT);
      assert_true(nface > 0 && nface <= TF_PRIM_MESH_MAX_FACE);
      expect_closed(face, nface, nvert);
      for (int v = 0; v < nvert; v++) {
        double g[3];
        assert_true(fabs(tf_primitive_sdf(type, size, vert + 3 * v, g)) < 1e-12);
      }
      double exact = 0, r = size[0], h = size[1];
      if (type == TF_GEOM_SPHERE) exact = 4.0 / 3 * M_PI * r * r * r;
      if (type == TF_GEOM_CAPSULE) exact = 4.0 / 3 * M_PI * r * r * r + 2 * M_PI * r * r * h;
      if (type == TF_GEOM_BOX) exact = 8 * size[0] * size[1] * size[2];
      if (type == TF_GEOM_CYLINDER) exact = 2 * M_PI * r * r * h;
      double vol = volume(vert, face, nface);
      // inscribed: never more than the solid; 12 segments (the fewest) hold 89 % of a ball
      assert_true(vol > 0.85 * exact && vol <= exact * (1 + 1e-12));
    }
  }
  // planes and the other shapes have no tessellation here
  int nface = 5;
  assert_int_equal(tf_primitive_mesh(vert, face, &nface, TF_GEOM_PLANE, sizes[0], 1e-3), 0);
  assert_int_equal(nface, 0);
}

// a cube hull's six quads fan into twelve triangles; a short buffer reports what it needs
static void test_hull_fan(void** state) {
  (void)state;
  static const double hv[24] = {-1, -1, -1, 1, -1, -1, -1, 1, -1, 1, 1, -1,
                                -1, -1, 1,  1, -1, 1,  -1, 1, 1,  1, 1, 1};
  static const int adr[6] = {0, 4, 8, 12, 16, 20}, num[6] = {4, 4, 4, 4, 4, 4};
  static const int fv[24] = {0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4,
                             2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6};
  tf_hull_view h;
  memset(&h, 0, sizeof(h));
  h.nvert = 8, h.vert = hv, h.nface = 6, h.face_vertadr = adr, h.face_vertnum = num;
  h.face_vert = fv;
  int tri[36];
  assert_int_equal(tf_hull_triangles(tri, 12, &h), 12);
  expect_closed(tri, 12, 8);
  assert_true(fabs(volume(hv, tri, 12) - 8) < 1e-12);
  assert_int_equal(tf_hull_triangles(tri, 3, &h), 12);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_primitives),
      cmocka_unit_test(test_hull_fan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
