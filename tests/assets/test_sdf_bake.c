// Tests of grid SDF baking (sdf_bake.h): baked spheres and tori against their analytic SDFs
// near the surface (through the engine's trilinear evaluation), the grid layout the engine
// expects, the same bits at any thread count, a grid the builder compiles, and refusals of
// open meshes and bad options with a message.
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
#include "sdf_bake.h"
#include "tightfit.h"

// bakes the mesh at the given nodes and compares with the analytic SDF within 1.5 cells of
// the surface: the largest error must stay under max_cells cells; returns the check
static grid_check bake_and_compare(const tf_mesh* m, tf_sdf_fn fn, const void* params, int nodes,
                                   double max_cells) {
  tf_sdf_bake_options opt = tf_sdf_bake_options_default();
  opt.nodes = nodes;
  tf_sdf_grid g;
  tf_sdf_bake_stats stats;
  char err[256] = "";
  int rc = tf_sdf_bake(&g, &stats, m->vert, m->nvert, m->face, m->nface, &opt, err, sizeof(err));
  if (rc) print_message("%s\n", err);
  assert_int_equal(rc, 0);
  grid_check c = grid_check_near_surface(&g, fn, params, 1.5 * g.cell, 4000, 5);
  print_message(
      "  %d triangles, %d x %d x %d nodes, %.3f s: error max %.3f mean %.4f cells, "
      "gradient within %.1f deg, %ld sign fallbacks\n",
      m->nface, g.res[0], g.res[1], g.res[2], stats.seconds, c.max_error / g.cell,
      c.mean_error / g.cell, c.max_grad_angle * 180 / M_PI, stats.winding_fallbacks);
  assert_int_equal(c.samples, 4000);
  assert_true(c.max_error < max_cells * g.cell);
  assert_true(c.max_error <= g.error_bound);
  tf_sdf_grid_free(&g);
  return c;
}

static void test_sphere_bake_matches_analytic(void** state) {
  (void)state;
  char err[256];
  double radius = 0.05;
  tf_mesh m;
  assert_int_equal(tf_mesh_sphere(&m, radius, 128, 64, err, sizeof(err)), 0);
  grid_check c = bake_and_compare(&m, sdf_sphere, &radius, 48, 0.5);
  assert_true(c.max_grad_angle < 10 * M_PI / 180);  // smooth surface: the gradient follows
  tf_mesh_free(&m);
}

static void test_torus_bake_matches_analytic(void** state) {
  (void)state;
  char err[256];
  double r[2] = {0.03, 0.01};
  tf_mesh m;
  assert_int_equal(tf_mesh_torus(&m, r[0], r[1], 128, 48, err, sizeof(err)), 0);
  bake_and_compare(&m, sdf_torus, r, 64, 0.5);
  tf_mesh_free(&m);
}

static void test_layout_is_the_engines(void** state) {
  (void)state;
  char err[256];
  double r[2] = {0.3, 0.1};
  tf_mesh m;
  assert_int_equal(tf_mesh_torus(&m, r[0], r[1], 24, 12, err, sizeof(err)), 0);
  tf_sdf_bake_options opt = tf_sdf_bake_options_default();
  opt.nodes = 40;
  opt.padding = 2;
  tf_sdf_grid g;
  assert_int_equal(tf_sdf_bake(&g, NULL, m.vert, m.nvert, m.face, m.nface, &opt, err, sizeof(err)),
                   0);
  tf_mesh_bvh bvh;
  assert_int_equal(tf_mesh_bvh_build(&bvh, m.vert, m.nvert, m.face, m.nface, err, sizeof(err)), 0);
  // the longest axis has exactly `nodes` nodes, and every axis has padding cells of margin
  assert_int_equal(g.res[0], 40);
  assert_int_equal(g.res[1], 40);
  assert_true(g.res[2] < 20);
  double longest = bvh.hi[0] - bvh.lo[0];
  assert_true(fabs(g.cell - longest / (40 - 1 - 4)) < 1e-15);
  for (int a = 0; a < 3; a++) {
    assert_true(g.origin[a] <= bvh.lo[a] - 2 * g.cell + 1e-12);
    assert_true(g.origin[a] + g.cell * (g.res[a] - 1) >= bvh.hi[a] + 2 * g.cell - 1e-12);
    assert_true(g.aabb[a] == bvh.lo[a] && g.aabb[3 + a] == bvh.hi[a]);
  }
  assert_true(g.error_bound >= 0.5 * sqrt(3.0) * g.cell);
  // node (i, j, k) is value[(k res1 + j) res0 + i] at origin + cell (i, j, k)
  int probes[4][3] = {{0, 0, 0}, {39, 0, 0}, {3, 17, 5}, {20, 31, 7}};
  for (int n = 0; n < 4; n++) {
    int i = probes[n][0], j = probes[n][1], k = probes[n][2];
    double p[3] = {g.origin[0] + g.cell * i, g.origin[1] + g.cell * j, g.origin[2] + g.cell * k};
    double want = tf_mesh_bvh_signed_distance(NULL, &bvh, p, -1, NULL);
    float got = g.value[((size_t)k * g.res[1] + j) * g.res[0] + i];
    assert_true(got == (float)want);
    // and the engine reads the same value at the node
    tf_sdf_view view = grid_view(&g);
    double grad[3];
    assert_true(fabs(tf_sdf_eval(&view, p, grad) - got) < 1e-7);
  }
  tf_mesh_bvh_free(&bvh);
  tf_sdf_grid_free(&g);
  tf_mesh_free(&m);
}

static void test_same_bits_at_any_thread_count(void** state) {
  (void)state;
  char err[256];
  tf_mesh m;
  assert_int_equal(tf_mesh_torus(&m, 0.3, 0.1, 40, 16, err, sizeof(err)), 0);
  tf_sdf_bake_options opt = tf_sdf_bake_options_default();
  opt.nodes = 32;
  tf_sdf_grid a, b;
  tf_sdf_bake_stats sa, sb;
  opt.threads = 1;
  assert_int_equal(tf_sdf_bake(&a, &sa, m.vert, m.nvert, m.face, m.nface, &opt, err, sizeof(err)),
                   0);
  opt.threads = 3;
  assert_int_equal(tf_sdf_bake(&b, &sb, m.vert, m.nvert, m.face, m.nface, &opt, err, sizeof(err)),
                   0);
  assert_int_equal(sa.threads, 1);
  assert_int_equal(sb.threads, 3);
  assert_memory_equal(a.res, b.res, sizeof(a.res));
  assert_memory_equal(a.value, b.value, sizeof(float) * (size_t)a.res[0] * a.res[1] * a.res[2]);
  tf_sdf_grid_free(&a);
  tf_sdf_grid_free(&b);
  tf_mesh_free(&m);
}

static void test_builder_compiles_a_baked_grid(void** state) {
  (void)state;
  char err[256];
  tf_mesh m;
  assert_int_equal(tf_mesh_sphere(&m, 0.02, 16, 8, err, sizeof(err)), 0);
  tf_sdf_bake_options opt = tf_sdf_bake_options_default();
  opt.nodes = 16;
  tf_sdf_grid g;
  assert_int_equal(tf_sdf_bake(&g, NULL, m.vert, m.nvert, m.face, m.nface, &opt, err, sizeof(err)),
                   0);
  tf_builder* b = tf_builder_create();
  int mesh = tf_builder_add_mesh(b, "ball_mesh", m.vert, m.nvert, m.face, m.nface);
  assert_true(mesh >= 0);
  tf_sdf_def def;
  tf_sdf_grid_def(&def, &g, "ball_sdf", mesh);
  int sdf = tf_builder_add_sdf(b, &def);
  assert_true(sdf >= 0);
  size_t n = (size_t)g.res[0] * g.res[1] * g.res[2];
  float* copy = malloc(sizeof(float) * n);
  memcpy(copy, g.value, sizeof(float) * n);
  tf_sdf_grid_free(&g);  // the builder holds its own copy
  tf_model* model = tf_builder_compile(b, err, sizeof(err));
  if (!model) print_message("%s\n", err);
  assert_non_null(model);
  assert_int_equal(model->nsdf, 1);
  assert_int_equal(model->sdf_mesh[0], mesh);
  assert_true(model->sdf_fn[0] == NULL);
  assert_memory_equal(model->sdf_grid + model->sdf_gridadr[0], copy, sizeof(float) * n);
  // 13 mm above the centre the ball is 7 mm deep (the coarse mesh is inscribed: a little less)
  tf_sdf_view view;
  memset(&view, 0, sizeof(view));
  view.grid = model->sdf_grid + model->sdf_gridadr[0];
  memcpy(view.res, model->sdf_res, sizeof(view.res));
  memcpy(view.origin, model->sdf_grid_origin, sizeof(view.origin));
  view.cell = model->sdf_grid_cell[0];
  double p[3] = {0, 0, 0.013}, grad[3];
  double d = tf_sdf_eval(&view, p, grad);
  assert_true(d > -0.0075 && d < -0.0055);
  assert_true(grad[2] > 0.9);
  free(copy);
  tf_model_destroy(model);
  tf_builder_destroy(b);
  tf_mesh_free(&m);
}

static void test_refusals_say_why(void** state) {
  (void)state;
  char err[256] = "";
  tf_mesh m;
  assert_int_equal(tf_mesh_sphere(&m, 1, 12, 6, err, sizeof(err)), 0);
  tf_sdf_bake_options opt = tf_sdf_bake_options_default();
  opt.nodes = 16;
  tf_sdf_grid g;
  // a hole
  assert_int_equal(
      tf_sdf_bake(&g, NULL, m.vert, m.nvert, m.face + 3, m.nface - 1, &opt, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "not closed (3 open edges, 0 non-manifold edges)"));
  assert_null(g.value);
  opt.allow_open = 1;
  tf_sdf_bake_stats stats;
  assert_int_equal(
      tf_sdf_bake(&g, &stats, m.vert, m.nvert, m.face + 3, m.nface - 1, &opt, err, sizeof(err)), 0);
  assert_int_equal(stats.open_edges, 3);
  tf_sdf_grid_free(&g);
  opt = tf_sdf_bake_options_default();
  opt.nodes = 7;
  assert_int_equal(tf_sdf_bake(&g, NULL, m.vert, m.nvert, m.face, m.nface, &opt, err, sizeof(err)),
                   -1);
  assert_non_null(strstr(err, "nodes must be 8 to 4096"));
  opt.nodes = 16;
  opt.padding = 0;
  assert_int_equal(tf_sdf_bake(&g, NULL, m.vert, m.nvert, m.face, m.nface, &opt, err, sizeof(err)),
                   -1);
  assert_non_null(strstr(err, "padding must be"));
  opt.padding = 3;
  m.face[5] = -1;
  assert_int_equal(tf_sdf_bake(&g, NULL, m.vert, m.nvert, m.face, m.nface, &opt, err, sizeof(err)),
                   -1);
  assert_non_null(strstr(err, "out of range"));
  tf_mesh_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sphere_bake_matches_analytic),
      cmocka_unit_test(test_torus_bake_matches_analytic),
      cmocka_unit_test(test_layout_is_the_engines),
      cmocka_unit_test(test_same_bits_at_any_thread_count),
      cmocka_unit_test(test_builder_compiles_a_baked_grid),
      cmocka_unit_test(test_refusals_say_why),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
