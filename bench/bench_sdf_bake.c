// Grid SDF bake benchmark: bake time of a ~20k-triangle mesh at 128 and 256 nodes along its
// longest side, the near-surface error against the analytic SDF (in cells, read through the
// engine's trilinear evaluation), and the on-disk cache: the miss (bake + store) and the hit.
// Prints one JSON object. The default mesh is a 200 x 50 torus (20,000 triangles), a stand-in
// for the nut until the nut part exists; `bench_sdf_bake MESH.obj|MESH.stl [nodes...]` bakes a
// mesh from disk instead (no analytic error then).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mesh_io.h"
#include "mesh_reference.h"
#include "sdf.h"
#include "sdf_bake.h"
#include "sdf_cache.h"

static const double torus_radii[2] = {0.012, 0.004};  // m: an M8-nut-sized ring

// torus about z (params: major, minor radius), the analytic reference
static double torus_sdf(const void* params, const double p[3], double grad[3]) {
  const double* r = params;
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
  double q[2] = {rho - r[0], p[2]};
  double n = sqrt(q[0] * q[0] + q[1] * q[1]);
  grad[0] = n > 0 && rho > 0 ? q[0] / n * p[0] / rho : 0;
  grad[1] = n > 0 && rho > 0 ? q[0] / n * p[1] / rho : 0;
  grad[2] = n > 0 ? q[1] / n : 0;
  return n - r[1];
}

// largest and mean |grid - analytic| over nodes-independent random points within a cell of
// the surface (a fixed-seed LCG, so runs compare)
static void near_surface_error(double out[2], const tf_sdf_grid* g) {
  tf_sdf_view view;
  memset(&view, 0, sizeof(view));
  view.grid = g->value;
  memcpy(view.res, g->res, sizeof(view.res));
  memcpy(view.origin, g->origin, sizeof(view.origin));
  view.cell = g->cell;
  unsigned long long s = 12345;
  double max = 0, sum = 0;
  int n = 0;
  while (n < 20000) {
    double p[3], ga[3], gg[3];
    for (int a = 0; a < 3; a++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      double u = (double)(s >> 11) * 0x1.0p-53;
      p[a] = g->origin[a] + u * g->cell * (g->res[a] - 1);
    }
    double exact = torus_sdf(torus_radii, p, ga);
    if (fabs(exact) >= g->cell) continue;
    double e = fabs(tf_sdf_eval(&view, p, gg) - exact);
    max = fmax(max, e);
    sum += e;
    n++;
  }
  out[0] = max / g->cell;
  out[1] = sum / n / g->cell;
}

int main(int argc, char** argv) {
  char err[512];
  tf_mesh mesh;
  const char* source = NULL;
  int analytic = argc < 2;
  if (analytic) {
    if (tf_mesh_torus(&mesh, torus_radii[0], torus_radii[1], 200, 50, err, sizeof(err))) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
  } else {
    source = argv[1];
    if (tf_mesh_read(&mesh, source, err, sizeof(err))) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
  }
  int nodes[8] = {128, 256};
  int nres = 2;
  if (argc > 2) {
    nres = 0;
    for (int i = 2; i < argc && nres < 8; i++) nodes[nres++] = atoi(argv[i]);
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  printf("{\n  \"bench\": \"sdf_bake\",\n");
  if (analytic) {
    printf(
        "  \"mesh\": {\"kind\": \"torus\", \"major_m\": %g, \"minor_m\": %g, \"segments\": [200, "
        "50], \"note\": \"stand-in for the ~20k-triangle nut until the nut part exists\", ",
        torus_radii[0], torus_radii[1]);
  } else {
    printf("  \"mesh\": {\"kind\": \"file\", \"path\": \"%s\", ", source);
  }
  printf("\"triangles\": %d, \"vertices\": %d},\n", mesh.nface, mesh.nvert);
  printf("  \"cpus\": %ld,\n  \"bakes\": [", cpus);
  tf_sdf_bake_options opt = tf_sdf_bake_options_default();
  for (int r = 0; r < nres; r++) {
    opt.nodes = nodes[r];
    tf_sdf_grid g;
    tf_sdf_bake_stats st;
    if (tf_sdf_bake(&g, &st, mesh.vert, mesh.nvert, mesh.face, mesh.nface, &opt, err,
                    sizeof(err))) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    printf(
        "%s\n    {\"nodes\": %d, \"res\": [%d, %d, %d], \"grid_nodes\": %ld, \"threads\": %d, "
        "\"seconds\": %.3f, \"ns_per_node\": %.0f, \"sign_fallbacks\": %ld, \"cell_m\": %.4g",
        r ? "," : "", nodes[r], g.res[0], g.res[1], g.res[2], st.nodes, st.threads, st.seconds,
        1e9 * st.seconds * st.threads / (double)st.nodes, st.winding_fallbacks, g.cell);
    if (analytic) {
      double e[2];
      near_surface_error(e, &g);
      printf(", \"near_surface_error_cells\": {\"max\": %.4f, \"mean\": %.4f}", e[0], e[1]);
    }
    printf("}");
    tf_sdf_grid_free(&g);
  }
  printf("\n  ],\n");

  // the cache at the finest resolution, in a fresh folder
  char dir[] = "/tmp/tightfit_bench_cache_XXXXXX";
  if (!mkdtemp(dir)) {
    fprintf(stderr, "cannot create a temporary cache folder\n");
    return 1;
  }
  setenv("TIGHTFIT_CACHE_DIR", dir, 1);
  unsetenv("TIGHTFIT_CACHE");
  opt.nodes = nodes[nres - 1];
  tf_sdf_grid g;
  tf_sdf_cache_info miss, hit;
  if (tf_sdf_cache_load(&g, &miss, mesh.vert, mesh.nvert, mesh.face, mesh.nface, &opt, err,
                        sizeof(err))) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  tf_sdf_grid_free(&g);
  double best = INFINITY;
  for (int i = 0; i < 3; i++) {
    tf_sdf_cache_load(&g, &hit, mesh.vert, mesh.nvert, mesh.face, mesh.nface, &opt, err,
                      sizeof(err));
    tf_sdf_grid_free(&g);
    best = fmin(best, hit.seconds);
  }
  long bytes = 0;
  FILE* f = fopen(miss.path, "rb");
  if (f) {
    fseek(f, 0, SEEK_END);
    bytes = ftell(f);
    fclose(f);
  }
  printf(
      "  \"cache\": {\"nodes\": %d, \"miss_seconds\": %.3f, \"bake_seconds\": %.3f, "
      "\"hit_seconds\": %.4f, \"speedup_vs_bake\": %.0f, \"file_bytes\": %ld, \"hit\": %s}\n}\n",
      opt.nodes, miss.seconds, miss.bake.seconds, best, miss.bake.seconds / best, bytes,
      hit.source == TF_SDF_CACHE_HIT ? "true" : "false");
  unlink(miss.path);
  rmdir(dir);
  tf_mesh_free(&mesh);
  return 0;
}
