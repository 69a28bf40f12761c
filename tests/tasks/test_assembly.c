// The assembly task (tasks/assembly, docs/assemblies.md): a bad assembly file is refused before
// anything runs, each problem one line naming the file and its JSON path, all of them in one
// pass; each example in examples/assemblies/ runs and succeeds; and the mesh examples agree
// with the built-in analytic tasks of the same geometry (peg: overlap peak and seat depth
// within the probes' floors plus both meshes' chord errors; gears: ratio and slip, see
// test_gears_agree). Run from the repository's root (the examples' paths).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/assembly.h"
#include "task.h"
#include "test_folder.h"

#define PEG_EXAMPLE "examples/assemblies/peg_hole_stl/assembly.json"
#define GEAR_EXAMPLE "examples/assemblies/gear_pair_obj/assembly.json"
#define CONNECTOR_EXAMPLE "examples/assemblies/connector/assembly.json"

static char dir[64];

static int setup(void** state) {
  (void)state;
  test_make_folder(dir, "tf_assembly");
  return 0;
}

static int teardown(void** state) {
  (void)state;
  test_remove_tree(dir);
  return 0;
}

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

// an open mesh (a tetrahedron with a face missing) and a closed one (the whole tetrahedron)
static void write_meshes(void) {
  char path[128];
  static const char* const facets[4] = {
      "facet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 0 1 0\nvertex 1 0 0\nendloop\n"
      "endfacet\n",
      "facet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 0 1\nendloop\n"
      "endfacet\n",
      "facet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 0 0 1\nvertex 0 1 0\nendloop\n"
      "endfacet\n",
      "facet normal 0 0 0\nouter loop\nvertex 1 0 0\nvertex 0 1 0\nvertex 0 0 1\nendloop\n"
      "endfacet\n"};
  char text[2048];
  for (int closed = 0; closed < 2; closed++) {
    snprintf(text, sizeof(text), "solid t\n%s%s%s%sendsolid t\n", facets[0], facets[1], facets[2],
             closed ? facets[3] : "");
    snprintf(path, sizeof(path), "%s/%s.stl", dir, closed ? "tet" : "open");
    write_file(path, text);
  }
}

// one bad file: refused with one line naming the file and `needle` (its JSON path and problem)
static void expect_problem(const char* json, const char* needle) {
  char path[128], err[4096];
  snprintf(path, sizeof(path), "%s/bad.json", dir);
  write_file(path, json);
  asm_file* f = test_malloc(sizeof(asm_file));
  int rc = asm_file_load(f, path, 1, err, sizeof(err));
  test_free(f);
  if (rc != -1 || !strstr(err, needle) || !strstr(err, path)) {
    print_message("got '%s', wanted '%s'\n", err, needle);
  }
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err, path));
  assert_non_null(strstr(err, needle));
  assert_null(strchr(err, '\n'));
}

#define TET "{\"mesh\": \"tet.stl\", \"mount\": \"free\""

static void test_parse_errors(void** state) {
  (void)state;
  write_meshes();
  expect_problem("{\"parts\": {\"t\": " TET "}}, \"colider\": \"sdf\"}",
                 "colider: unknown key (valid: description, units, collider");
  expect_problem("{\"parts\": {\"t\": " TET ", \"density\": -3}}}",
                 "parts.t.density: must be a number in [1, 100000] (got -3)");
  expect_problem("{\"parts\": {\"t\": " TET ", \"mass\": 1e999}}}",
                 "parts.t.mass: must be a finite number");
  expect_problem("{\"parts\": {\"t\": {\"mesh\": \"none.stl\", \"mount\": \"free\"}}}",
                 "parts.t.mesh: ");
  expect_problem("{\"parts\": {\"t\": {\"mesh\": \"open.stl\", \"mount\": \"free\"}}}",
                 "parts.t.mesh: not a closed solid");
  expect_problem("{\"parts\": {\"t\": " TET "}, \"n\": {\"part\": \"nutz\"}}}",
                 "parts.n.part: unknown library part 'nutz'");
  expect_problem("{\"parts\": {\"t\": " TET
                 "}, \"h\": {\"part\": \"hole\", \"clearance_um\": 9000}}}",
                 "parts.h.clearance_um: part 'hole': clearance_um");
  expect_problem("{\"parts\": {\"t\": " TET "}, \"h\": {\"part\": \"hole\", \"diameter\": 5}}}",
                 "parts.h.diameter: unknown key");
  expect_problem("{\"parts\": {\"t\": {\"mesh\": \"tet.stl\", \"mount\": \"hinge\"}}}",
                 "parts.t.axis: missing");
  expect_problem("{\"parts\": {\"t\": " TET ", \"pos\": [0, 0]}}}",
                 "parts.t.pos: must be [x, y, z]");
  expect_problem("{\"parts\": {\"t\": " TET "}}, \"drive\": {\"type\": \"push\", \"part\": \"q\"}}",
                 "drive.part: unknown part 'q' (parts: t)");
  expect_problem("{\"parts\": {\"t\": " TET
                 "}}, \"insertion\": {\"part\": \"t\", \"axis\": [0, 0, "
                 "0], \"seat\": [0, 0, 0]}}",
                 "insertion.axis: must not be zero");
  expect_problem("{\"parts\": {\"t\": " TET "}}, \"probes\": {\"overlap\": [[\"t\", \"t\"]]}}",
                 "probes.overlap[0]: a part with itself");
  expect_problem("{\"parts\": {\"t\": {\"mesh\": \"tet.stl\"}}}", "parts: every part is fixed");
  expect_problem("{\"parts\": {\"t\": " TET "}}", "line 1, column");
  // every problem in one pass
  expect_problem("{\"units\": \"furlong\", \"parts\": {\"t\": " TET
                 ", \"density\": 0}}, "
                 "\"drive\": {\"type\": \"fly\"}}",
                 "3 problems: units: must be one of m|mm|um|cm|in; parts.t.density: must be a "
                 "number in [1, 100000] (got 0); drive.type: must be one of");
}

// through the runner: refused before anything runs, the message as the file check gives it
static void test_run_refuses(void** state) {
  (void)state;
  write_meshes();
  char path[128];
  snprintf(path, sizeof(path), "%s/bad.json", dir);
  write_file(path, "{\"parts\": {\"t\": " TET ", \"friction\": -1}}}");
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = "assembly";
  o.duration = 0.01;
  o.set[0].key = "assembly";
  o.set[0].value = path;
  o.nset = 1;
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[2048] = "";
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "parts.t.friction: must be a number in [0, 10] (got -1)"));
  assert_non_null(strstr(err, path));
  // a file that is not there
  o.set[0].value = "/nonexistent/assembly.json";
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "/nonexistent/assembly.json"));
  test_free(row);
}

// a run of the task with its parameters as "key", "value", ..., NULL
static void run(tf_metrics* row, const char* task, double dt, double duration, ...) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = task;
  o.physics.dt = dt;
  o.duration = duration;
  va_list ap;
  va_start(ap, duration);
  for (const char* k; (k = va_arg(ap, const char*));) {
    o.set[o.nset].key = k;
    o.set[o.nset].value = va_arg(ap, const char*);
    o.nset++;
  }
  va_end(ap);
  char err[2048] = "";
  int rc = tf_task_run(&o, row, err, sizeof(err));
  if (rc) print_message("%s\n", err);
  assert_int_equal(rc, 0);
  const char* status = tf_metrics_text(row, "status");
  if (strcmp(status, "ok") != 0) print_message("%s: %s\n", task, tf_metrics_text(row, "error"));
  assert_string_equal(status, "ok");
}

static void test_examples_succeed(void** state) {
  (void)state;
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  static const char* const examples[] = {PEG_EXAMPLE, GEAR_EXAMPLE, CONNECTOR_EXAMPLE};
  static const double duration[] = {0.4, 0.5, 0.25};
  for (int i = 0; i < 3; i++) {
    run(row, "assembly", 0.002, duration[i], "assembly", examples[i], NULL);
    if (tf_metrics_get(row, "success") != 1)
      print_message("%s: %s\n", examples[i], tf_metrics_text(row, "why"));
    assert_true(tf_metrics_get(row, "success") == 1);
  }
  // a grid's keys over the file: the STL peg's mesh scaled up 1 % no longer fits its bore
  // (0.25 mm more radius than the 0.1 mm clearance), so it cannot seat
  run(row, "assembly", 0.002, 0.2, "assembly", PEG_EXAMPLE, "scale", "1.01", NULL);
  assert_true(tf_metrics_get(row, "success") == 0);
  assert_non_null(strstr(tf_metrics_text(row, "why"), "not seated"));
  test_free(row);
}

// environments after the first start perturbed, each from its own stream: the connector's
// three environments on one thread and on two give the same row, bit for bit; with the
// perturbation off all three are the first one (the row equals a one-environment run's)
static void test_perturbed_environments(void** state) {
  (void)state;
  tf_metrics* one = test_malloc(sizeof(tf_metrics));
  tf_metrics* two = test_malloc(sizeof(tf_metrics));
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = "assembly";
  o.physics.dt = 0.002;
  o.duration = 0.1;
  o.envs = 3;
  o.set[0].key = "assembly";
  o.set[0].value = CONNECTOR_EXAMPLE;
  o.set[1].key = "start_offset_mm";
  o.set[1].value = "0.5";
  o.nset = 2;
  char err[2048] = "";
  o.threads = 1;
  assert_int_equal(tf_task_run(&o, one, err, sizeof(err)), 0);
  o.threads = 2;
  assert_int_equal(tf_task_run(&o, two, err, sizeof(err)), 0);
  const char* keys[] = {"overlap.peak_m", "tunnel.travel_m", "tunnel.depth_final_m"};
  for (int k = 0; k < 3; k++) {
    assert_true(tf_metrics_get(one, keys[k]) == tf_metrics_get(two, keys[k]));
  }
  double travel_perturbed = tf_metrics_get(one, "tunnel.travel_m");
  o.set[1].value = "0";
  o.set[2].key = "start_tilt_deg";
  o.set[2].value = "0";
  o.nset = 3;
  assert_int_equal(tf_task_run(&o, one, err, sizeof(err)), 0);
  o.envs = 1;
  assert_int_equal(tf_task_run(&o, two, err, sizeof(err)), 0);
  for (int k = 0; k < 3; k++) {
    assert_true(tf_metrics_get(one, keys[k]) == tf_metrics_get(two, keys[k]));
  }
  // travel is the least over the environments: a shifted start travels further or less
  assert_true(travel_perturbed != tf_metrics_get(two, "tunnel.travel_m"));
  test_free(one);
  test_free(two);
}

// a mesh part may collide through a grid baked from its triangles and cached on disk: the
// STL peg seats in a hole whose collider is a 96-node grid, the second run loads the grid
// from the cache (the same row), and the overlap probe still measures with the exact SDF; a
// library part takes no grid
static void test_grid_collider(void** state) {
  (void)state;
  char cache[128], path[128], hole[4096], peg[4096], text[9000];
  snprintf(cache, sizeof(cache), "%s/cache", dir);
  setenv("TIGHTFIT_CACHE_DIR", cache, 1);
  assert_non_null(realpath("examples/assemblies/peg_hole_stl/hole.stl", hole));
  assert_non_null(realpath("examples/assemblies/peg_hole_stl/peg.stl", peg));
  snprintf(text, sizeof(text),
           "{\"units\": \"mm\", \"collider\": \"mesh_sdf\", \"friction\": 0.01, "
           "\"min_margin\": 0.01, \"parts\": {"
           "\"hole\": {\"mesh\": \"%s\", \"units\": \"m\", \"chord\": 0.002, \"mount\": "
           "\"fixed\", \"grid_nodes\": 96}, "
           "\"peg\": {\"mesh\": \"%s\", \"units\": \"m\", \"chord\": 0.002, \"mount\": "
           "\"free\", \"density\": 7800, \"pos\": [0, 0, 5], \"rpy_deg\": [0.5, 0, 0]}}, "
           "\"drive\": {\"type\": \"gravity\"}, \"insertion\": {\"part\": \"peg\", \"axis\": "
           "[0, 0, -1], \"seat\": [0, 0, -25], \"tolerance\": 1, \"upright_deg\": 1}, "
           "\"success\": {\"rule\": \"seated\", \"overlap_max\": 0.05}}",
           hole, peg);
  snprintf(path, sizeof(path), "%s/grid.json", dir);
  write_file(path, text);
  tf_metrics* a = test_malloc(sizeof(tf_metrics));
  tf_metrics* b = test_malloc(sizeof(tf_metrics));
  run(a, "assembly", 0.002, 0.4, "assembly", path, NULL);
  run(b, "assembly", 0.002, 0.4, "assembly", path, NULL);
  assert_true(tf_metrics_get(a, "success") == 1);
  assert_true(tf_metrics_get(a, "overlap.peak_m") == tf_metrics_get(b, "overlap.peak_m"));
  assert_true(tf_metrics_get(a, "assembly.depth_m") == tf_metrics_get(b, "assembly.depth_m"));
  unsetenv("TIGHTFIT_CACHE_DIR");
  test_free(a);
  test_free(b);
  expect_problem("{\"parts\": {\"p\": {\"part\": \"peg\", \"grid_nodes\": 64}}}",
                 "parts.p.grid_nodes: a library part's SDF is analytic (no grid)");
}

// the STL peg and hole against the built-in peg task with the same parts and parameters (its
// default): overlap peak and final seat depth within both runs' probe floors plus the two
// meshes' chord errors (2 um each, as exported)
static void test_peg_agrees(void** state) {
  (void)state;
  tf_metrics* a = test_malloc(sizeof(tf_metrics));
  tf_metrics* b = test_malloc(sizeof(tf_metrics));
  run(a, "assembly", 0.002, 0.4, "assembly", PEG_EXAMPLE, NULL);
  run(b, "peg", 0.002, 0.4, NULL);
  double tol = tf_metrics_get(a, "overlap.floor_m") + tf_metrics_get(b, "overlap.floor_m") + 4e-6;
  double peak_a = tf_metrics_get(a, "overlap.peak_m"), peak_b = tf_metrics_get(b, "overlap.peak_m");
  double depth_a = tf_metrics_get(a, "tunnel.depth_final_m");
  double depth_b = tf_metrics_get(b, "tunnel.depth_final_m");
  print_message(
      "peg overlap peak: STL %.3f um, analytic %.3f um; seat depth: %.3g um, %.3g um; "
      "tolerance %.3f um\n",
      peak_a * 1e6, peak_b * 1e6, depth_a * 1e6, depth_b * 1e6, tol * 1e6);
  assert_true(fabs(peak_a - peak_b) <= tol);
  assert_true(fabs(depth_a - depth_b) <= tol);
  assert_true(tf_metrics_get(a, "success") == 1 && tf_metrics_get(b, "success") == 1);
  test_free(a);
  test_free(b);
}

// the pinless DP-like plug and socket from STL files against the built-in connectors task
// with the same parts (type=dp pins=no, pushed with 2 N from 1 mm above at 0.1 m/s, 10 g, mu
// 0.2, the plug's mesh in the socket's SDF): both seat, the overlap peaks and the seat errors
// agree within the probes' floors plus both meshes' 5 um chords
static void test_connector_agrees(void** state) {
  (void)state;
  tf_metrics* a = test_malloc(sizeof(tf_metrics));
  tf_metrics* b = test_malloc(sizeof(tf_metrics));
  run(a, "assembly", 0.002, 0.25, "assembly", CONNECTOR_EXAMPLE, NULL);
  run(b, "connectors", 0.002, 0.25, "type", "dp", "pins", "no", "push", "force", "push_force", "2",
      "mesh_chord_um", "5", NULL);
  double tol = tf_metrics_get(a, "overlap.floor_m") + tf_metrics_get(b, "overlap.floor_m") + 10e-6;
  double peak_a = tf_metrics_get(a, "overlap.peak_m"), peak_b = tf_metrics_get(b, "overlap.peak_m");
  double seat_a = tf_metrics_get(a, "assembly.seat_error_m");
  double seat_b = tf_metrics_get(b, "connectors.seat_error_m");
  print_message(
      "connector: overlap peak STL %.3f um, analytic %.3f um; seat error %.2e m, %.2e "
      "m (tolerance %.2f um)\n",
      peak_a * 1e6, peak_b * 1e6, seat_a, seat_b, tol * 1e6);
  assert_true(tf_metrics_get(a, "success") == 1 && tf_metrics_get(b, "success") == 1);
  assert_true(fabs(peak_a - peak_b) <= tol);
  assert_true(fabs(seat_a - seat_b) <= tol);
  test_free(a);
  test_free(b);
}

// the OBJ gear pair against the built-in gears task with teeth=30,20 on ideal hinges: both
// transmit (slip far under the 5 % rule), the mean speed ratio of each within the bound a
// follower's play allows over the ratio window (the backlash angle at either end of a window
// of 5 rad of input: 2 (B / r2) / 5 rad, relative to the 1.5 ratio), and the teeth overlap
// within both floors plus both meshes' chord errors (10 um each)
static void test_gears_agree(void** state) {
  (void)state;
  tf_metrics* a = test_malloc(sizeof(tf_metrics));
  tf_metrics* b = test_malloc(sizeof(tf_metrics));
  run(a, "assembly", 0.002, 1.5, "assembly", GEAR_EXAMPLE, NULL);
  run(b, "gears", 0.002, 1.5, "teeth", "30,20", "mount", "hinge", NULL);
  double slip_a = tf_metrics_get(a, "gear_slip.max"), slip_b = tf_metrics_get(b, "gear_slip.max");
  double ratio_a = tf_metrics_get(a, "assembly.ratio_f1");
  double ratio_b = tf_metrics_get(b, "gears.ratio_f1");
  double peak_a = tf_metrics_get(a, "overlap.peak_m"), peak_b = tf_metrics_get(b, "overlap.peak_m");
  double tol = tf_metrics_get(a, "overlap.floor_m") + tf_metrics_get(b, "overlap.floor_m") + 20e-6;
  double play = 2 * (0.5e-3 / 15e-3) / 5 / 1.5;
  print_message(
      "gears slip: OBJ %.4f %%, analytic %.4f %%; ratio %.5f, %.5f; skipped teeth "
      "%.4f, %.4f; teeth overlap %.2f um, %.2f um (tolerance %.2f um)\n",
      slip_a * 100, slip_b * 100, ratio_a, ratio_b, tf_metrics_get(a, "gear_slip.skipped_teeth"),
      tf_metrics_get(b, "gear_slip.skipped_teeth"), peak_a * 1e6, peak_b * 1e6, tol * 1e6);
  assert_true(tf_metrics_get(a, "success") == 1 && tf_metrics_get(b, "success") == 1);
  assert_true(fabs(slip_a - slip_b) <= play);
  assert_true(fabs(ratio_a - ratio_b) / 1.5 <= play);
  assert_true(fabs(peak_a - peak_b) <= tol);

  // loaded (0.05 N m against the follower), the teeth stay in flank contact and the ratio is
  // geometry's alone: the slip agrees within what the meshes' chord errors allow. A 10 um
  // chord on each gear moves the follower's angle by at most (10 + 10) um / (15 mm cos 20 deg)
  // at each end of the 1 s window, over the follower's 7.5 rad in it
  run(a, "assembly", 0.002, 1.5, "assembly", GEAR_EXAMPLE, "load_nm", "0.05", NULL);
  run(b, "gears", 0.002, 1.5, "teeth", "30,20", "mount", "hinge", "load_nm", "0.05", NULL);
  double chord_slip = 2 * (20e-6 / (15e-3 * cos(20 * M_PI / 180))) / 7.5;
  slip_a = tf_metrics_get(a, "gear_slip.max");
  slip_b = tf_metrics_get(b, "gear_slip.max");
  peak_a = tf_metrics_get(a, "overlap.peak_m");
  peak_b = tf_metrics_get(b, "overlap.peak_m");
  tol = tf_metrics_get(a, "overlap.floor_m") + tf_metrics_get(b, "overlap.floor_m") + 20e-6;
  print_message(
      "loaded: slip OBJ %.2e, analytic %.2e (bound %.2e); teeth overlap %.2f um, "
      "%.2f um (tolerance %.2f um)\n",
      slip_a, slip_b, chord_slip, peak_a * 1e6, peak_b * 1e6, tol * 1e6);
  assert_true(tf_metrics_get(a, "success") == 1 && tf_metrics_get(b, "success") == 1);
  assert_true(fabs(slip_a - slip_b) <= chord_slip);
  assert_true(fabs(peak_a - peak_b) <= tol);
  test_free(a);
  test_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_errors),     cmocka_unit_test(test_run_refuses),
      cmocka_unit_test(test_examples_succeed), cmocka_unit_test(test_perturbed_environments),
      cmocka_unit_test(test_grid_collider),    cmocka_unit_test(test_peg_agrees),
      cmocka_unit_test(test_connector_agrees), cmocka_unit_test(test_gears_agree),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
