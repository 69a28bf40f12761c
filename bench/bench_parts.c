// Parts benchmark: SDF queries per second for every part at points near its surface; the
// thread SDF of bolt and nut with its feature table (the default) and with the section search
// everywhere (sdf=search), and the table's build time and size; the grid bake of an M16 nut
// mesh (~20k triangles) at 128 and 256 nodes (left out with --quick); and contact generation
// plus reduction for a nut seated on a bolt: a ~4k-triangle nut mesh against the bolt's
// analytic SDF, and SDF x SDF, each with its field queries per call (counted in one more,
// untimed call through counting wrappers, whose output must be the timed call's bytes:
// "repeatable"). Prints one JSON object; times are the best of several runs (20; 200 with
// --seated, which runs the seated nut alone). Budget (issue 4): under 0.6 ms each on one core.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_stats.h"
#include "collision.h"
#include "parts.h"
#include "sdf_bake.h"

// queries per second at the part's own mesh vertices pushed 0.1 mm along a fixed direction
static double queries_per_second(const tf_part_geometry* g) {
  int n = g->nvert < 20000 ? g->nvert : 20000;
  double best = INFINITY, sink = 0;
  for (int round = 0; round < 3; round++) {
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
      double p[3] = {g->vert[3 * i] + 1e-4, g->vert[3 * i + 1] - 0.7e-4,
                     g->vert[3 * i + 2] + 0.3e-4};
      double grad[3];
      sink += g->fn(g->params, p, grad);
    }
    best = fmin(best, bench_now() - t0);
  }
  return sink == sink ? n / best : 0;
}

static void shape_of(tf_shape* s, const tf_part_geometry* g, int as_mesh, double z0, double theta) {
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

// a field that counts its queries (an untimed run reports how many a pair makes)
typedef struct counted_field {
  tf_sdf_fn fn;
  const void* params;
  long count;
} counted_field;

static double counted_eval(const void* params, const double p[3], double grad[3]) {
  counted_field* c = (counted_field*)params;  // the bench's own counter, never shared
  c->count++;
  return c->fn(c->params, p, grad);
}

// contact generation + reduction time for the seated nut, mesh or SDF on the nut side; rounds:
// timed repetitions (the best is reported)
static void seated(const tf_part_geometry* bolt, const tf_part_geometry* nut, int nut_as_mesh,
                   const char* label, int rounds, int last) {
  const double pitch = 2.0e-3, theta = 0.7;
  double z0 = 5 * pitch + pitch * theta / (2 * M_PI) - 0.05e-3;
  tf_shape sb, sn;
  shape_of(&sb, bolt, 0, 0, 0);
  shape_of(&sn, nut, nut_as_mesh, z0, theta);
  tf_contact_point out[TF_COLLIDE_MAX];
  int n = 0, candidates = 0;
  double best = INFINITY;
  for (int round = 0; round < rounds; round++) {
    double t0 = bench_now();
    n = tf_collide_n(&sn, &sb, 0.3e-3, 128, out, &candidates);
    best = fmin(best, bench_now() - t0);
  }
  // field queries of one call, per side, in an untimed run through counting wrappers
  counted_field cb = {sb.sdf.fn, sb.sdf.params, 0}, cn = {sn.sdf.fn, sn.sdf.params, 0};
  tf_shape qb = sb, qn = sn;
  qb.sdf.fn = counted_eval, qb.sdf.params = &cb;
  qn.sdf.fn = counted_eval, qn.sdf.params = &cn;
  tf_contact_point out2[TF_COLLIDE_MAX];
  int candidates2 = 0;
  int n2 = tf_collide_n(&qn, &qb, 0.3e-3, 128, out2, &candidates2);
  int same = n2 == n && candidates2 == candidates && memcmp(out, out2, sizeof(out[0]) * n) == 0;
  // coverage: engaged turns (one pitch in from either nut face) with rows on both flanks;
  // normals point from the nut into the bolt, so a bolt flank facing +z has n_z < 0
  const double height = 14.8e-3;  // ISO 4032 M16 nut
  int turns = (int)floor(height / pitch), up[16] = {0}, down[16] = {0}, covered = 0;
  for (int i = 0; i < n; i++) {
    int t = (int)floor((out[i].pos[2] - z0) / pitch);
    if (t < 0 || t >= 16) continue;
    if (out[i].normal[2] < -0.3) up[t]++;
    if (out[i].normal[2] > 0.3) down[t]++;
  }
  for (int t = 1; t < turns - 1; t++) covered += up[t] > 0 && down[t] > 0;
  printf(
      "    \"%s\": {\"ms\": %.4f, \"candidates\": %d, \"contacts\": %d, \"nut_triangles\": %d, "
      "\"turns_with_both_flanks\": %d, \"engaged_turns\": %d, \"queries_bolt\": %ld, "
      "\"queries_nut\": %ld, \"repeatable\": %s}%s\n",
      label, 1e3 * best, candidates, n, nut->nface, covered, turns - 2, cb.count, cn.count,
      same ? "true" : "false", last ? "" : ",");
}

// the thread SDF of a default bolt or nut with the feature table and with the search: queries
// per second, build seconds and params bytes of each (the search variant is left out where
// the part has no sdf parameter)
static void thread_sdf(const char* part, int last) {
  const char* modes[2] = {"table", "search"};
  printf("    \"%s\": {", part);
  for (int m = 0; m < 2; m++) {
    tf_kv kv[] = {{"sdf", modes[m]}};
    tf_part_geometry g;
    char err[256];
    double t0 = bench_now();
    if (tf_part_build(part, kv, 1, &g, err, sizeof(err))) {
      printf("%s\"%s\": null", m ? ", " : "", modes[m]);
      continue;
    }
    double built = bench_now() - t0;
    printf("%s\"%s\": {\"queries_per_s\": %.0f, \"build_s\": %.4f, \"params_bytes\": %zu}",
           m ? ", " : "", modes[m], queries_per_second(&g), built, g.params_size);
    tf_part_geometry_free(&g);
  }
  printf("}%s\n", last ? "" : ",");
}

// the seated-nut section of the report (the last one), rounds timed repetitions per pair
static int seated_only(int rounds) {
  char err[256];
  tf_kv kb[] = {{"size", "M16"}, {"length_mm", "40"}, {"fit", "6H/6g-mid"}};
  tf_kv coarse[] = {{"size", "M16"}, {"chord_um", "40"}};
  tf_part_geometry bolt, nut;
  if (tf_part_build("bolt", kb, 3, &bolt, err, sizeof(err))) {
    fprintf(stderr, "bench_parts: %s\n", err);
    return 1;
  }
  if (tf_part_build("nut", coarse, 2, &nut, err, sizeof(err))) {
    fprintf(stderr, "bench_parts: %s\n", err);
    tf_part_geometry_free(&bolt);
    return 1;
  }
  printf("  \"seated_nut\": {\n");
  seated(&bolt, &nut, 1, "mesh_x_sdf", rounds, 0);
  seated(&bolt, &nut, 0, "sdf_x_sdf", rounds, 1);
  printf("  }\n}\n");
  tf_part_geometry_free(&bolt);
  tf_part_geometry_free(&nut);
  return 0;
}

int main(int argc, char** argv) {
  char err[256];
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  int only_seated = argc > 1 && strcmp(argv[1], "--seated") == 0;
  printf("{\n  \"bench\": \"parts\",\n");
  if (only_seated) return seated_only(200);
  printf("  \"sdf_queries_per_s\": {");
  for (int i = 0; i < tf_part_count(); i++) {
    tf_part_geometry g;
    const tf_part_info* p = tf_part_at(i);
    if (tf_part_build(p->name, NULL, 0, &g, err, sizeof(err))) {
      fprintf(stderr, "bench_parts: %s\n", err);
      continue;
    }
    printf("%s\"%s\": %.0f", i ? ", " : "", p->name, queries_per_second(&g));
    tf_part_geometry_free(&g);
  }
  printf("},\n");
  printf("  \"thread_sdf\": {\n");
  thread_sdf("bolt", 0);
  thread_sdf("nut", 1);
  printf("  },\n");

  tf_kv fine[] = {{"size", "M16"}, {"chord_um", "1"}};
  tf_part_geometry nut;
  if (tf_part_build("nut", fine, 2, &nut, err, sizeof(err))) {
    fprintf(stderr, "bench_parts: %s\n", err);
    return 1;
  }
  printf("  \"bake\": {\"mesh\": \"M16 nut\", \"triangles\": %d", nut.nface);
  int sizes[2] = {128, 256};
  for (int k = 0; k < (quick ? 0 : 2); k++) {
    tf_sdf_bake_options opt = tf_sdf_bake_options_default();
    opt.nodes = sizes[k];
    tf_sdf_grid grid;
    tf_sdf_bake_stats stats;
    if (tf_sdf_bake(&grid, &stats, nut.vert, nut.nvert, nut.face, nut.nface, &opt, err,
                    sizeof(err))) {
      fprintf(stderr, "bench_parts: %s\n", err);
      continue;
    }
    printf(", \"s_%d\": %.3f, \"threads_%d\": %d", sizes[k], stats.seconds, sizes[k],
           stats.threads);
    tf_sdf_grid_free(&grid);
  }
  printf("},\n");
  tf_part_geometry_free(&nut);
  return seated_only(20);
}
