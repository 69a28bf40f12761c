// Parts meeting the engine: the nut mesh baked into a 256^3 grid SDF agrees with the
// analytic nut to under half a cell near the surface. (The seated nut's contact coverage per
// turn is measured by bench/bench_parts.c: the reduction does not yet keep every turn.)
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

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

int main(void) {
  tf_engine_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nut_grid_vs_analytic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
