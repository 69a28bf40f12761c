// Meridional-section queries (assets/sdf_profile.c): the static query of a surface of
// revolution gives, to the bit (signed zeros included), what the general query gives for the
// same polyline with every velocity and turn zero, at points near and far, on the axis, on
// vertices, on segments and at signed-zero coordinates.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sdf_profile.h"
#include "test_rng.h"

#define MAXV 12

// the general query's answer and the static one's, compared bit for bit
static void expect_same(double rho, double z, const tf_profile_vertex* v, int n, int flip) {
  tf_profile_query general, fast;
  tf_profile_query_init(&general, rho, z);
  tf_profile_query_polyline(&general, v, n, NULL, flip);
  memset(&fast, 0x5a, sizeof(fast));  // whatever it leaves unset must not matter
  tf_profile_static table;
  assert_int_equal(tf_profile_static_init(&table, v, n, flip), 0);
  tf_profile_query_static(&fast, rho, z, &table);
  if (memcmp(&general.dist, &fast.dist, sizeof(double)) ||
      memcmp(general.off, fast.off, sizeof(general.off)) ||
      memcmp(general.normal, fast.normal, sizeof(general.normal))) {
    print_error("at (%.17g, %.17g): dist %.17g / %.17g, off %g %g %g / %g %g %g\n", rho, z,
                general.dist, fast.dist, general.off[0], general.off[1], general.off[2],
                fast.off[0], fast.off[1], fast.off[2]);
    fail();
  }
  assert_int_equal(fast.ncand, 0);
  assert_int_equal(fast.nevent, 0);
  double g1[3], g2[3];
  tf_profile_query_gradient(g1, &general, 0.6, 0.8, 0);
  tf_profile_query_gradient(g2, &fast, 0.6, 0.8, 0);
  assert_memory_equal(g1, g2, sizeof(g1));
}

// a random static polyline of n vertices starting and ending on the axis (a closed section)
static int random_section(tf_profile_vertex* v, test_rng* rng) {
  int n = 3 + (int)(rng_uniform(rng, 0, 1) * (MAXV - 3));
  memset(v, 0, sizeof(*v) * (size_t)n);
  double z = 0;
  for (int i = 0; i < n; i++) {
    z -= rng_uniform(rng, 0, 0.01);
    v[i].p[0] = (i == 0 || i == n - 1) ? 0 : rng_uniform(rng, 0.001, 0.03);
    v[i].p[1] = z;
  }
  return n;
}

// a peg's section (axis, tip with a chamfer, side, top) queried everywhere, both windings
static void test_static_matches_general(void** state) {
  (void)state;
  test_rng rng;
  test_rng rng_init = {17};
  rng = rng_init;
  tf_profile_vertex v[MAXV];
  for (int trial = 0; trial < 200; trial++) {
    int n = random_section(v, &rng);
    for (int k = 0; k < 200; k++) {
      double rho = rng_uniform(&rng, 0, 0.04);
      double z = rng_uniform(&rng, v[n - 1].p[1] - 0.01, 0.01);
      expect_same(rho, z, v, n, trial & 1);
    }
    // on the axis, on every vertex, on segment midpoints, at signed zeros
    for (int i = 0; i < n; i++) {
      expect_same(v[i].p[0], v[i].p[1], v, n, 0);
      expect_same(0, v[i].p[1], v, n, 1);
      if (i + 1 < n) {
        expect_same(0.5 * (v[i].p[0] + v[i + 1].p[0]), 0.5 * (v[i].p[1] + v[i + 1].p[1]), v, n, 0);
      }
    }
    expect_same(0, -0.0, v, n, 0);
    expect_same(0, 0, v, n, 1);
  }
  // a section with a vertex at z = -0 and one at r = -0
  memset(v, 0, sizeof(v));
  v[0].p[0] = -0.0, v[0].p[1] = -0.0;
  v[1].p[0] = 0.01, v[1].p[1] = -0.0;
  v[2].p[0] = 0.01, v[2].p[1] = -0.02;
  v[3].p[0] = 0, v[3].p[1] = -0.02;
  for (int i = 0; i < 4; i++) {
    expect_same(0, -0.0, v, 4, 0);
    expect_same(0.01, -0.0, v, 4, 0);
    expect_same(0.005, -0.0, v, 4, 1);
    expect_same(0.02, 0.0, v, 4, 0);
  }
}

// a table of more vertices than it holds is refused
static void test_static_table_size(void** state) {
  (void)state;
  static tf_profile_vertex v[TF_PROFILE_STATIC_MAXV + 1];
  tf_profile_static table;
  assert_int_equal(tf_profile_static_init(&table, v, TF_PROFILE_STATIC_MAXV + 1, 0), -1);
  assert_int_equal(tf_profile_static_init(&table, v, -1, 0), -1);
  assert_int_equal(tf_profile_static_init(&table, v, TF_PROFILE_STATIC_MAXV, 0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_static_matches_general),
      cmocka_unit_test(test_static_table_size),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
