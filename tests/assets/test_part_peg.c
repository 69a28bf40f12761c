// Pegs and holes (assets/part_peg.c). Exactness: at 10,000 random points within 0.5 mm of
// each part's surface the analytic SDF matches brute force, the closest point on a fine mesh of
// the same part (chord error under 0.2 um) signed by an independent membership test, to the
// mesh's chord error; gradients are unit length and agree with finite differences. The meshes
// are watertight, closed the right way out, with every vertex on the surface. ISO 286 fits
// give the standard's mid-tolerance clearances; bad parameters are refused with a message
// naming the part and the key.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_brute_force.h"
#include "parts.h"
#include "parts_internal.h"

#define NPOINT 10000
#define SHELL 0.5e-3  // m: sample points lie within this distance of the surface

// ---------------------------------------------------------------- helpers

// builds a part, failing the test with the message if it is refused
static void build(tf_part_geometry* g, const char* name, const tf_kv* kv, int nkv) {
  char err[512];
  int rc = tf_part_build(name, kv, nkv, g, err, sizeof(err));
  if (rc) print_message("%s\n", err);
  assert_int_equal(rc, 0);
}

// the part's independent membership test
typedef int (*inside_fn)(const double p[3], const double* dims);

// the checks every part shares: a watertight mesh, vertices on the surface, the sampled chord
// error within the reported one, and the SDF against brute force at NPOINT points
static void check_part(const tf_part_geometry* g, inside_fn inside, const double* dims, int euler,
                       double volume, const char* label) {
  double vol;
  assert_int_equal(check_watertight(g, &vol), euler);
  assert_true(fabs(vol - volume) < 1e-3 * volume + 5e-12);
  assert_true(g->chord_error < 0.2e-6);
  double grad[3];
  for (int i = 0; i < g->nvert; i++) {
    assert_true(fabs(g->fn(g->params, g->vert + 3 * i, grad)) < 1e-12);
  }
  // the mesh stays within its chord error: points inside each triangle
  double chord = 0;
  for (int f = 0; f < g->nface; f++) {
    const int* fv = g->face + 3 * f;
    for (int s = 1; s < 4; s++) {
      for (int t = 1; s + t < 4; t++) {
        double p[3];
        for (int k = 0; k < 3; k++) {
          double a = g->vert[3 * fv[0] + k], b = g->vert[3 * fv[1] + k];
          double c = g->vert[3 * fv[2] + k];
          p[k] = a + (b - a) * s / 4.0 + (c - a) * t / 4.0;
        }
        chord = fmax(chord, fabs(g->fn(g->params, p, grad)));
      }
    }
  }
  assert_true(chord <= g->chord_error + 1e-12);

  tri_grid grid;
  grid_build(&grid, g, 0.25e-3, 2 * SHELL);
  test_rng rng = {0x5EED ^ (uint64_t)euler ^ (uint64_t)g->nface};
  double* pts = malloc(sizeof(double) * 3 * NPOINT);
  assert_non_null(pts);
  sample_near(pts, NPOINT, g, SHELL, &rng);
  double worst = 0, worst_above = -INFINITY, worst_norm = 0, worst_fd = 0;
  for (int i = 0; i < NPOINT; i++) {
    const double* p = pts + 3 * i;
    double d = g->fn(g->params, p, grad);
    double ref = grid_nearest(&grid, p);
    if (inside(p, dims)) ref = -ref;
    worst = fmax(worst, fabs(d - ref));
    worst_above = fmax(worst_above, d - ref);
    worst_norm =
        fmax(worst_norm, fabs(sqrt(grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2]) - 1));
    if (i % 10 == 0) {
      // the gradient is the distance's derivative (central differences)
      // the gradient is the distance's derivative (central differences), except on the
      // medial axis, where the nearest point jumps and the gradients either side differ
      double h = 1e-7, fd[3], ga[3], gb[3], jump = 0;
      for (int k = 0; k < 3; k++) {
        double a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
        a[k] += h, b[k] -= h;
        fd[k] = (g->fn(g->params, a, ga) - g->fn(g->params, b, gb)) / (2 * h);
        for (int j = 0; j < 3; j++) jump = fmax(jump, fabs(ga[j] - gb[j]));
      }
      double e =
          sqrt((fd[0] - grad[0]) * (fd[0] - grad[0]) + (fd[1] - grad[1]) * (fd[1] - grad[1]) +
               (fd[2] - grad[2]) * (fd[2] - grad[2]));
      if (jump < 1e-3) worst_fd = fmax(worst_fd, e);
    }
  }
  print_message(
      "%s: %d triangles, chord %.3g um (sampled %.3g um); |sdf - brute force| <= "
      "%.3g um, sdf - brute force <= %.3g um, ||grad| - 1| <= %.2g, |grad - fd| <= "
      "%.2g\n",
      label, g->nface, g->chord_error * 1e6, chord * 1e6, worst * 1e6, worst_above * 1e6,
      worst_norm, worst_fd);
  // exact parts: brute force differs only by the mesh's chord error
  assert_true(worst <= g->chord_error + g->error_bound + 1e-12);
  assert_true(worst < 1e-6);
  assert_true(worst_norm < 1e-6);
  assert_true(worst_fd < 1e-5);
  free(pts);
  grid_free(&grid);
}

// ---------------------------------------------------------------- membership

enum { D_HALF, D_LENGTH, D_CHAMFER, D_DEPTH, D_BLOCK_HALF, D_BLOCK_HEIGHT, D_N };

// inside the cylinder, above the tip's chamfer cone
static int inside_peg_round(const double p[3], const double* d) {
  double r = sqrt(p[0] * p[0] + p[1] * p[1]);
  if (p[2] < 0 || p[2] > d[D_LENGTH]) return 0;
  return r <= fmin(d[D_HALF], d[D_HALF] - d[D_CHAMFER] + p[2]);
}

// inside the square prism, above the tip's chamfer pyramid
static int inside_peg_square(const double p[3], const double* d) {
  if (p[2] < 0 || p[2] > d[D_LENGTH]) return 0;
  double h = fmin(d[D_HALF], d[D_HALF] - d[D_CHAMFER] + p[2]);
  return fabs(p[0]) <= h && fabs(p[1]) <= h;
}

// inside the hole's block
static int inside_block(const double p[3], const double* d) {
  return p[2] <= 0 && p[2] >= -d[D_BLOCK_HEIGHT] && fabs(p[0]) <= d[D_BLOCK_HALF] &&
         fabs(p[1]) <= d[D_BLOCK_HALF];
}

// in the block and not in the bore (with its entry chamfer)
static int inside_hole_round(const double p[3], const double* d) {
  if (!inside_block(p, d)) return 0;
  double r = sqrt(p[0] * p[0] + p[1] * p[1]);
  double bore = d[D_HALF] + fmax(0, p[2] + d[D_CHAMFER]);
  return !(p[2] > -d[D_DEPTH] && r < bore);
}

// in the block and not in the square pocket (with its entry chamfer)
static int inside_hole_square(const double p[3], const double* d) {
  if (!inside_block(p, d)) return 0;
  double h = d[D_HALF] + fmax(0, p[2] + d[D_CHAMFER]);
  return !(p[2] > -d[D_DEPTH] && fabs(p[0]) < h && fabs(p[1]) < h);
}

// ---------------------------------------------------------------- exact references

// squared distance from p to segment ab in the plane
static double seg_dist2(const double p[2], const double a[2], const double b[2]) {
  double e[2] = {b[0] - a[0], b[1] - a[1]}, d[2] = {p[0] - a[0], p[1] - a[1]};
  double ee = e[0] * e[0] + e[1] * e[1];
  double t = ee > 0 ? fmin(1, fmax(0, (d[0] * e[0] + d[1] * e[1]) / ee)) : 0;
  double x = d[0] - t * e[0], y = d[1] - t * e[1];
  return x * x + y * y;
}

// a solid of revolution: its distance is the plane distance from (r, z) to its profile
static double profile_dist(const double p[3], const double (*prof)[2], int n) {
  double q[2] = {sqrt(p[0] * p[0] + p[1] * p[1]), p[2]}, best = INFINITY;
  for (int i = 0; i + 1 < n; i++) best = fmin(best, seg_dist2(q, prof[i], prof[i + 1]));
  return sqrt(best);
}

// distance to an axis-aligned rectangle face: x in [lo0, hi0], y in [lo1, hi1] of the two
// free axes a0 / a1, at height c on the fixed axis a2
static double rect_dist(const double p[3], int a0, int a1, int a2, double lo0, double hi0,
                        double lo1, double hi1, double c) {
  double u = p[a0] - fmin(fmax(p[a0], lo0), hi0), v = p[a1] - fmin(fmax(p[a1], lo1), hi1);
  double w = p[a2] - c;
  return sqrt(u * u + v * v + w * w);
}

// the round hole's distance as the nearest of its surface pieces: the bore (a profile), the
// top face outside the rim, the block's sides and bottom
static double exact_hole_round(const double p[3], const double* d) {
  double rb = d[D_HALF], c = d[D_CHAMFER], b = d[D_BLOCK_HALF], h = d[D_BLOCK_HEIGHT];
  double prof[4][2] = {{rb + c, 0}, {rb, -c}, {rb, -d[D_DEPTH]}, {0, -d[D_DEPTH]}};
  double best = profile_dist(p, (const double(*)[2])prof, 4);
  double r = sqrt(p[0] * p[0] + p[1] * p[1]);
  if (r >= rb + c && fabs(p[0]) <= b && fabs(p[1]) <= b) best = fmin(best, fabs(p[2]));
  best = fmin(best, rect_dist(p, 1, 2, 0, -b, b, -h, 0, b));
  best = fmin(best, rect_dist(p, 1, 2, 0, -b, b, -h, 0, -b));
  best = fmin(best, rect_dist(p, 0, 2, 1, -b, b, -h, 0, b));
  best = fmin(best, rect_dist(p, 0, 2, 1, -b, b, -h, 0, -b));
  best = fmin(best, rect_dist(p, 0, 1, 2, -b, b, -b, b, -h));
  return inside_hole_round(p, d) ? -best : best;
}

// the round peg's distance from its profile, signed
static double exact_peg_round(const double p[3], const double* d) {
  double r = d[D_HALF], c = d[D_CHAMFER], l = d[D_LENGTH];
  double prof[5][2] = {{0, 0}, {r - c, 0}, {r, c}, {r, l}, {0, l}};
  double best = profile_dist(p, (const double(*)[2])prof, 5);
  return inside_peg_round(p, d) ? -best : best;
}

// the SDF against an exact reference at random points near the surface, to rounding
static void check_exact(const tf_part_geometry* g, double (*exact)(const double*, const double*),
                        const double* dims, const char* label) {
  test_rng rng = {0xE7AC7 ^ (uint64_t)g->nface};
  double* pts = malloc(sizeof(double) * 3 * NPOINT);
  assert_non_null(pts);
  sample_near(pts, NPOINT, g, SHELL, &rng);
  double worst = 0, grad[3];
  for (int i = 0; i < NPOINT; i++) {
    worst = fmax(worst, fabs(g->fn(g->params, pts + 3 * i, grad) - exact(pts + 3 * i, dims)));
  }
  print_message("%s: |sdf - exact| <= %.3g m\n", label, worst);
  assert_true(worst < 1e-15);
  free(pts);
}

// ---------------------------------------------------------------- tests

// round peg: exact against the mesh and against the profile distance
static void test_peg_round_exact(void** state) {
  (void)state;
  tf_kv kv[] = {{"shape", "round"},
                {"diameter_mm", "8"},
                {"length_mm", "12"},
                {"chamfer_mm", "0.6"},
                {"chord_um", "0.1"}};
  tf_part_geometry g;
  build(&g, "peg", kv, 5);
  assert_true(g.error_bound == 0);
  double d[D_N] = {0.004, 0.012, 0.0006, 0, 0, 0};
  // a cylinder less the chamfer ring: pi r^2 L - the cone frustum's missing rim
  double c = 0.0006, r = 0.004;
  double vol = M_PI * r * r * 0.012 -
               (M_PI * r * r * c - M_PI * c / 3 * (r * r + r * (r - c) + (r - c) * (r - c)));
  check_part(&g, inside_peg_round, d, 2, vol, "peg round d8");
  check_exact(&g, exact_peg_round, d, "peg round d8");
  tf_part_geometry_free(&g);
}

// square peg: exact against its own polyhedral mesh
static void test_peg_square_exact(void** state) {
  (void)state;
  tf_kv kv[] = {
      {"shape", "square"}, {"diameter_mm", "10"}, {"length_mm", "15"}, {"chamfer_mm", "1"}};
  tf_part_geometry g;
  build(&g, "peg", kv, 4);
  assert_true(g.error_bound == 0 && g.chord_error == 0);
  double d[D_N] = {0.005, 0.015, 0.001, 0, 0, 0};
  double c = 0.001, s = 0.01, sc = s - 2 * c;
  double vol = s * s * (0.015 - c) + c / 3 * (s * s + s * sc + sc * sc);
  check_part(&g, inside_peg_square, d, 2, vol, "peg square 10");
  tf_part_geometry_free(&g);
}

// round hole: exact, also right at the rim where box minus cylinder is not
static void test_hole_round_exact(void** state) {
  (void)state;
  tf_kv kv[] = {{"shape", "round"},        {"diameter_mm", "8"},  {"clearance_um", "50"},
                {"depth_mm", "10"},        {"chamfer_mm", "0.5"}, {"block_side_mm", "16"},
                {"block_height_mm", "14"}, {"chord_um", "0.1"}};
  tf_part_geometry g;
  build(&g, "hole", kv, 8);
  assert_true(g.error_bound == 0);
  double rb = 0.00405, c = 0.0005;
  double d[D_N] = {rb, 0, c, 0.01, 0.008, 0.014};
  double bore =
      M_PI * rb * rb * (0.01 - c) + M_PI * c / 3 * (rb * rb + rb * (rb + c) + (rb + c) * (rb + c));
  check_part(&g, inside_hole_round, d, 2, 0.016 * 0.016 * 0.014 - bore, "hole round d8");
  check_exact(&g, exact_hole_round, d, "hole round d8");
  // above the bore near the rim, where box minus cylinder says 0.3 mm (the top face's plane),
  // the distance is the rim's edge
  double p[3] = {0, rb + c - 0.0001, 0.0003}, grad[3];
  assert_true(fabs(g.fn(g.params, p, grad) - sqrt(0.0001 * 0.0001 + 0.0003 * 0.0003)) < 1e-15);
  tf_part_geometry_free(&g);
}

// square hole: exact against its own polyhedral mesh
static void test_hole_square_exact(void** state) {
  (void)state;
  tf_kv kv[] = {{"shape", "square"},      {"diameter_mm", "6"},  {"clearance_um", "100"},
                {"depth_mm", "8"},        {"chamfer_mm", "0.4"}, {"block_side_mm", "14"},
                {"block_height_mm", "12"}};
  tf_part_geometry g;
  build(&g, "hole", kv, 7);
  assert_true(g.error_bound == 0 && g.chord_error == 0);
  double h = 0.0031, c = 0.0004;
  double d[D_N] = {h, 0, c, 0.008, 0.007, 0.012};
  double pocket =
      4 * h * h * (0.008 - c) + c / 3 * (4 * h * h + 4 * h * (h + c) + 4 * (h + c) * (h + c));
  check_part(&g, inside_hole_square, d, 2, 0.014 * 0.014 * 0.012 - pocket, "hole square 6");
  tf_part_geometry_free(&g);
}

// the bore radius a fit gives, read from the SDF on the axis half way down
static double bore_radius(const char* fit, const char* diameter) {
  tf_kv kv[] = {{"fit", fit},        {"diameter_mm", diameter}, {"clearance_um", "999"},
                {"depth_mm", "300"}, {"block_side_mm", "200"},  {"block_height_mm", "350"}};
  tf_part_geometry g;
  build(&g, "hole", kv, 6);
  double p[3] = {0, 0, -0.15}, grad[3];
  double r = g.fn(g.params, p, grad);
  tf_part_geometry_free(&g);
  return r;  // outside the solid: the distance to the bore wall
}

// the fit presets give ISO 286 mid-tolerance clearances over the size ranges
static void test_iso286_fits(void** state) {
  (void)state;
  // radial mid-tolerance clearance (IT_hole / 2 - es + IT_shaft / 2) / 2, ISO 286 tables
  struct {
    const char* fit;
    const char* d;
    double um;
  } cases[] = {
      {"H7/h6", "8", 6},    {"H7/g6", "8", 8.5},   {"H8/f7", "8", 15.75},  {"H7/g6", "12", 10.25},
      {"H7/h6", "25", 8.5}, {"H8/f7", "40", 28.5}, {"H7/g6", "60", 17.25}, {"H7/h6", "100", 14.25},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    double want = 0.5 * atof(cases[i].d) * 1e-3 + cases[i].um * 1e-6;
    assert_true(fabs(bore_radius(cases[i].fit, cases[i].d) - want) < 1e-12);
  }
  // none keeps clearance_um
  assert_true(fabs(bore_radius("none", "8") - (0.004 + 999e-6)) < 1e-12);
}

// a task's metre values reach the parts' mm parameters bit for bit (issue 19): every length
// of 1 um steps to 500 mm as a task converts it (mm * 1e-3), and a built hole's block
static void test_mm_round_trip(void** state) {
  (void)state;
  for (int i = 0; i <= 500000; i++) {
    double m = (i / 1000.0) * 1e-3;
    assert_true(tf_part_mm(m) * 1e-3 == m);
  }
  double side = 2 * (50 * 1e-3), height = 25 * 1e-3 + 0.02;
  char s[32], h[32];
  snprintf(s, sizeof(s), "%.17g", tf_part_mm(side));
  snprintf(h, sizeof(h), "%.17g", tf_part_mm(height));
  tf_kv kv[] = {{"block_side_mm", s}, {"block_height_mm", h}};
  tf_part_geometry g;
  build(&g, "hole", kv, 2);
  assert_true(g.aabb[3] == 0.5 * side && g.aabb[2] == -height);
  tf_part_geometry_free(&g);
}

// a refused build: -1 and a message holding each needle
static void expect_error(const char* part, const tf_kv* kv, int nkv, const char* n1,
                         const char* n2) {
  char err[512];
  tf_part_geometry g;
  assert_int_equal(tf_part_build(part, kv, nkv, &g, err, sizeof(err)), -1);
  if (!strstr(err, n1) || (n2 && !strstr(err, n2))) print_message("message: %s\n", err);
  assert_non_null(strstr(err, n1));
  if (n2) assert_non_null(strstr(err, n2));
  assert_null(g.vert);
  assert_null(g.params);
}

// unknown keys, out-of-range values, unknown choices and impossible shapes
static void test_bad_parameters(void** state) {
  (void)state;
  tf_kv unknown[] = {{"radius", "0.004"}};
  expect_error("peg", unknown, 1, "unknown parameter 'radius'",
               "valid: shape diameter_mm length_mm chamfer_mm chord_um");
  tf_kv range[] = {{"diameter_mm", "500"}};
  expect_error("peg", range, 1, "part 'peg': diameter_mm must be in", "500");
  tf_kv shape[] = {{"shape", "hexagon"}};
  expect_error("hole", shape, 1, "shape must be one of round|square", "hexagon");
  tf_kv fit[] = {{"fit", "H6/h5"}};
  expect_error("hole", fit, 1, "fit must be one of none|H7/h6|H7/g6|H8/f7", NULL);
  tf_kv number[] = {{"clearance_um", "lots"}};
  expect_error("hole", number, 1, "clearance_um needs a number", NULL);
  tf_kv chamfer[] = {{"diameter_mm", "4"}, {"chamfer_mm", "5"}};
  expect_error("peg", chamfer, 2, "part 'peg': chamfer_mm", "(got 5 mm)");
  tf_kv deep[] = {{"depth_mm", "40"}, {"block_height_mm", "30"}};
  expect_error("hole", deep, 2, "part 'hole': depth_mm must be below block_height_mm",
               "(40 >= 30)");
  tf_kv thin[] = {{"shape", "square"}, {"diameter_mm", "20"}, {"block_side_mm", "25"}};
  expect_error("hole", thin, 3, "part 'hole': block_side_mm", "(got 25 mm)");
}

// the suite
int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_peg_round_exact),  cmocka_unit_test(test_peg_square_exact),
      cmocka_unit_test(test_hole_round_exact), cmocka_unit_test(test_hole_square_exact),
      cmocka_unit_test(test_iso286_fits),      cmocka_unit_test(test_mm_round_trip),
      cmocka_unit_test(test_bad_parameters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
