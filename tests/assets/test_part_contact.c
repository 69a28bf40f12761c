// Parts meeting the engine: the nut mesh baked into a 256^3 grid SDF agrees with the
// analytic nut to under half a cell near the surface, and a seated nut keeps contact rows on
// both flanks of every engaged turn (the reducer's slabs, fed the thread's pitch).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "collision.h"
#include "grid_check.h"
#include "parts.h"
#include "sdf_bake.h"

static void build_part(tf_part_geometry* g, const char* name, const tf_kv* kv, int n) {
  char err[256];
  if (tf_part_build(name, kv, n, g, err, sizeof(err))) {
    print_message("%s: %s\n", name, err);
    fail();
  }
}

// the nut mesh baked at 256 nodes along its longest side: near-surface error under a half cell
static void test_nut_grid_vs_analytic(void** state) {
  (void)state;
  tf_kv kv[] = {{"size", "M16"}, {"chord_um", "1"}};
  tf_part_geometry nut;
  build_part(&nut, "nut", kv, 2);
  tf_sdf_bake_options opt = tf_sdf_bake_options_default();
  opt.nodes = 256;
  tf_sdf_grid grid;
  tf_sdf_bake_stats stats;
  char err[256];
  int status =
      tf_sdf_bake(&grid, &stats, nut.vert, nut.nvert, nut.face, nut.nface, &opt, err, sizeof(err));
  if (status) print_message("bake: %s\n", err);
  assert_int_equal(status, 0);
  // within two cells of the surface, away from nothing: the band where contact happens
  grid_check c = grid_check_near_surface(&grid, nut.fn, nut.params, 2 * grid.cell, 20000, 42);
  print_message(
      "nut M16: %d x %d x %d nodes, cell %.2f um, bake %.2f s, %d samples: max error "
      "%.3f um (%.3f cells), mean %.3f um\n",
      grid.res[0], grid.res[1], grid.res[2], grid.cell * 1e6, stats.seconds, c.samples,
      c.max_error * 1e6, c.max_error / grid.cell, c.mean_error * 1e6);
  assert_true(c.samples >= 10000);
  assert_true(c.max_error < 0.5 * grid.cell);
  tf_sdf_grid_free(&grid);
  tf_part_geometry_free(&nut);
}

// a part as a collision shape at height z0, turned by theta about z: the mesh, or the SDF
static void part_shape(tf_shape* s, const tf_part_geometry* g, int as_mesh, double z0,
                       double theta) {
  memset(s, 0, sizeof(*s));
  s->type = as_mesh ? TF_GEOM_MESH : TF_GEOM_SDF;
  s->pos[2] = z0;
  double c = cos(theta), sn = sin(theta);
  double mat[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
  memcpy(s->mat, mat, sizeof(mat));
  s->mesh.nvert = g->nvert;
  s->mesh.vert = g->vert;
  s->mesh.nface = g->nface;
  s->mesh.face = g->face;
  for (int i = 0; i < g->nvert; i++) {
    const double* v = g->vert + 3 * i;
    s->mesh.rbound = fmax(s->mesh.rbound, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
  }
  s->sdf.fn = g->fn;
  s->sdf.params = g->params;
  memcpy(s->sdf.aabb, g->aabb, sizeof(s->sdf.aabb));
  s->sdf.error_bound = g->error_bound;
  s->sdf.feature_size = g->feature_size;
  s->sdf.unit_gradient = g->unit_gradient;
}

// an M16 nut seated on the bolt (as bench_parts): a helical flank's bin spans every turn, so
// without slabs the middle turns lost their rows; now each engaged turn has rows on both flanks
static void test_seated_nut_reduction(void** state) {
  (void)state;
  tf_kv kb[] = {{"size", "M16"}, {"length_mm", "40"}, {"fit", "6H/6g-mid"}};
  tf_kv kn[] = {{"size", "M16"}, {"chord_um", "40"}};  // the bench's nut mesh
  tf_part_geometry bolt, nut;
  build_part(&bolt, "bolt", kb, 3);
  build_part(&nut, "nut", kn, 2);
  const double pitch = 2.0e-3, theta = 0.7;
  assert_true(fabs(bolt.feature_size - pitch) < 1e-12);
  assert_true(fabs(nut.feature_size - pitch) < 1e-12);
  double z0 = 5 * pitch + pitch * theta / (2 * M_PI) - 0.05e-3;
  tf_shape sb, sn;
  part_shape(&sb, &bolt, 0, 0, 0);
  part_shape(&sn, &nut, 1, z0, theta);
  static tf_contact_point out[TF_COLLIDE_MAX], again[TF_COLLIDE_MAX];
  memset(out, 0, sizeof(out));
  memset(again, 0, sizeof(again));
  int n = tf_collide_n(&sn, &sb, 0.3e-3, 128, out, NULL);
  assert_int_equal(tf_collide_n(&sn, &sb, 0.3e-3, 128, again, NULL), n);
  assert_memory_equal(out, again, sizeof(tf_contact_point) * (size_t)n);
  assert_true(n > 0 && n <= 128);
  // normals point from the nut into the bolt: a bolt flank facing +z has n_z < 0
  int turns = (int)floor(14.8e-3 / pitch), up[16] = {0}, down[16] = {0};
  assert_true(turns <= 16);
  for (int i = 0; i < n; i++) {
    int t = (int)floor((out[i].pos[2] - z0) / pitch);
    if (t < 0 || t >= 16) continue;
    if (out[i].normal[2] < -0.3) up[t]++;
    if (out[i].normal[2] > 0.3) down[t]++;
  }
  for (int t = 1; t < turns - 1; t++) {
    print_message("turn %d: %d rows on the +z flank, %d on the -z flank\n", t, up[t], down[t]);
    assert_true(up[t] > 0);
    assert_true(down[t] > 0);
  }
  tf_part_geometry_free(&bolt);
  tf_part_geometry_free(&nut);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nut_grid_vs_analytic),
      cmocka_unit_test(test_seated_nut_reduction),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
