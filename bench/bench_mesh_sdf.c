// Exact mesh SDF benchmark: queries per second of the exact mesh SDF (mesh_sdf.h) on the peg
// and gear meshes at two chord errors, against the analytic part's SDF of the same shape and
// the grid SDF baked from the same mesh (64 and 128 nodes along the longest side, read through
// the engine's trilinear evaluation); with the largest |value - analytic| of each at the same
// points, the mesh SDF's build time (checks included) and size. Points: random points within
// 0.1 mm of the surface (a fixed-seed LCG, so runs compare). Prints one JSON object; times are
// the best of 3 rounds on one thread. It measures, it never asserts.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "mesh_sdf.h"
#include "parts.h"
#include "sdf.h"
#include "sdf_bake.h"

#define NPOINT 20000

static double lcg(unsigned long long* s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) * 0x1.0p-53;
}

// a point on a random triangle plus a random offset of up to band in each axis
static void near_points(double* pts, const tf_part_geometry* g, double band) {
  unsigned long long s = 4242;
  for (int i = 0; i < NPOINT; i++) {
    int t = (int)(lcg(&s) * g->nface);
    if (t >= g->nface) t = g->nface - 1;
    const int* f = g->face + 3 * t;
    double u = lcg(&s), v = lcg(&s);
    if (u + v > 1) u = 1 - u, v = 1 - v;
    for (int k = 0; k < 3; k++) {
      double a = g->vert[3 * f[0] + k], b = g->vert[3 * f[1] + k], c = g->vert[3 * f[2] + k];
      pts[3 * i + k] = a + u * (b - a) + v * (c - a) + band * (2 * lcg(&s) - 1);
    }
  }
}

typedef double (*eval_fn)(const void* ctx, const double p[3], double grad[3]);

// a grid through the engine's evaluation
static double grid_eval(const void* ctx, const double p[3], double grad[3]) {
  return tf_sdf_eval(ctx, p, grad);
}

// best-of-3 queries per second; *err gets the largest |value - reference|
static double measure(eval_fn fn, const void* ctx, const double* pts, const double* ref,
                      double* err) {
  double best = INFINITY, sink = 0, worst = 0;
  for (int round = 0; round < 3; round++) {
    double t0 = bench_now();
    for (int i = 0; i < NPOINT; i++) {
      double g[3];
      double d = fn(ctx, pts + 3 * i, g);
      sink += d;
      if (ref && round == 0) worst = fmax(worst, fabs(d - ref[i]));
    }
    best = fmin(best, bench_now() - t0);
  }
  if (err) *err = worst;
  return sink == sink ? NPOINT / best : 0;
}

static void bench_part(const char* part, const tf_kv* kv, int nkv, const char* label, int last) {
  char err[512];
  tf_part_geometry g;
  if (tf_part_build(part, kv, nkv, &g, err, sizeof(err))) {
    fprintf(stderr, "%s\n", err);
    exit(1);
  }
  double* pts = malloc(sizeof(double) * 3 * NPOINT);
  double* ref = malloc(sizeof(double) * NPOINT);
  if (!pts || !ref) exit(1);
  near_points(pts, &g, 1e-4);
  for (int i = 0; i < NPOINT; i++) {
    double gr[3];
    ref[i] = g.fn(g.params, pts + 3 * i, gr);
  }
  double qa = measure(g.fn, g.params, pts, NULL, NULL);

  double t0 = bench_now();
  tf_mesh_sdf ms;
  if (tf_mesh_sdf_build(&ms, NULL, g.vert, g.nvert, g.face, g.nface, label, err, sizeof(err))) {
    fprintf(stderr, "%s\n", err);
    exit(1);
  }
  double build_s = bench_now() - t0;
  double mesh_err;
  double qm = measure(tf_mesh_sdf_eval, ms.params, pts, ref, &mesh_err);

  printf("    {\"part\": \"%s\", \"triangles\": %d, \"chord_error_m\": %.3g, ", label, g.nface,
         g.chord_error);
  printf("\"analytic\": {\"qps\": %.0f, \"ns\": %.0f}, ", qa, 1e9 / qa);
  printf(
      "\"mesh_exact\": {\"qps\": %.0f, \"ns\": %.0f, \"time_vs_analytic\": %.2f, \"max_err_m\": "
      "%.3g, "
      "\"build_s\": %.4f, \"bytes\": %zu}, ",
      qm, 1e9 / qm, qa / qm, mesh_err, build_s, ms.params_size);
  printf("\"grid\": [");
  int nodes[2] = {64, 128};
  for (int r = 0; r < 2; r++) {
    tf_sdf_bake_options opt = tf_sdf_bake_options_default();
    opt.nodes = nodes[r];
    opt.threads = 1;
    tf_sdf_grid grid;
    tf_sdf_bake_stats st;
    if (tf_sdf_bake(&grid, &st, g.vert, g.nvert, g.face, g.nface, &opt, err, sizeof(err))) {
      fprintf(stderr, "%s\n", err);
      exit(1);
    }
    tf_sdf_view view;
    memset(&view, 0, sizeof(view));
    view.grid = grid.value;
    memcpy(view.res, grid.res, sizeof(view.res));
    memcpy(view.origin, grid.origin, sizeof(view.origin));
    view.cell = grid.cell;
    double grid_err;
    double qg = measure(grid_eval, &view, pts, ref, &grid_err);
    printf(
        "%s{\"nodes\": %d, \"cell_m\": %.3g, \"bake_s\": %.3f, \"qps\": %.0f, \"ns\": %.0f, "
        "\"time_vs_analytic\": %.2f, \"max_err_m\": %.3g}",
        r ? ", " : "", nodes[r], grid.cell, st.seconds, qg, 1e9 / qg, qa / qg, grid_err);
    tf_sdf_grid_free(&grid);
  }
  printf("]}%s\n", last ? "" : ",");
  tf_mesh_sdf_free(&ms);
  free(pts);
  free(ref);
  tf_part_geometry_free(&g);
}

int main(void) {
  printf("{\n  \"bench\": \"mesh_sdf\",\n  \"points\": %d, \"band_m\": 1e-4, \"threads\": 1,\n",
         NPOINT);
  printf("  \"parts\": [\n");
  tf_kv fine[] = {{"chord_um", "0.2"}};
  bench_part("peg", NULL, 0, "peg", 0);
  bench_part("peg", fine, 1, "peg chord 0.2 um", 0);
  bench_part("gear", NULL, 0, "gear", 0);
  bench_part("gear", fine, 1, "gear chord 0.2 um", 1);
  printf("  ]\n}\n");
  return 0;
}
