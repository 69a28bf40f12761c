// Baking a grid SDF from a triangle mesh.
//
// Grid. With the mesh bounds [lo, hi], L the longest side, N nodes and P padding cells along
// it: cell h = L / (N - 1 - 2P); along each axis a, res_a = ceil((hi_a - lo_a) / h) + 1 + 2P
// nodes, centred on the bounds, so every axis has at least P cells of margin and the longest
// has exactly N nodes. The margin lets the engine's trilinear lookup see the zero crossing
// with room to spare; outside the box the engine continues the field by the distance to it.
//
// Values. Each node gets the exact signed distance to the mesh (mesh_bvh.c: BVH closest point,
// pseudo-normal sign), computed in double and stored as float. Nodes are processed in rows
// along x; the closest triangle of a node seeds the branch-and-bound of the next one, whose
// distance differs by at most h (the distance is 1-Lipschitz), so the first bound is tight and
// most of the tree is pruned at once. Each row starts without a seed, so a row's values depend
// on nothing but the row: threads take rows from a shared counter, and the output is
// bit-identical for any thread count.
//
// Error bound. If f is 1-Lipschitz (a distance), its trilinear interpolant I with weights w_i
// at the 8 corners x_i of a cell satisfies |I(p) - f(p)| = |sum_i w_i (f(x_i) - f(p))| <=
// sum_i w_i |x_i - p| <= sqrt(sum_i w_i |x_i - p|^2) (Jensen) = sqrt(sum_a t_a (1 - t_a)) h
// <= (sqrt(3) / 2) h. Near a smooth surface of curvature radius R the error is far smaller
// (about h^2 / (8 R) per axis); the bound stated covers edges and corners. Float storage adds
// at most |value| 2^-24. The distance is to the mesh: the mesh's own deviation from the ideal
// part (its chord error) adds on top, and the caller knows it.
#include "sdf_bake.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error_message.h"
#include "mesh_bvh.h"

#define MAX_THREADS 64
#define MAX_NODES_PER_AXIS 4096

tf_sdf_bake_options tf_sdf_bake_options_default(void) {
  tf_sdf_bake_options opt;
  memset(&opt, 0, sizeof(opt));
  opt.nodes = 64;
  opt.padding = 3;
  opt.threads = 0;
  opt.allow_open = 0;
  return opt;
}

void tf_sdf_grid_free(tf_sdf_grid* grid) {
  if (!grid) return;
  free(grid->value);
  memset(grid, 0, sizeof(*grid));
}

void tf_sdf_grid_def(tf_sdf_def* out, const tf_sdf_grid* grid, const char* name, int mesh) {
  memset(out, 0, sizeof(*out));
  out->name = name;
  out->fn = NULL;
  out->grid = grid->value;
  memcpy(out->res, grid->res, sizeof(out->res));
  memcpy(out->grid_origin, grid->origin, sizeof(out->grid_origin));
  out->grid_cell = grid->cell;
  memcpy(out->aabb, grid->aabb, sizeof(out->aabb));
  out->error_bound = grid->error_bound;
  out->mesh = mesh;
}

// shared state of one bake
typedef struct bake_job {
  const tf_mesh_bvh* bvh;
  tf_sdf_grid* grid;
  long nrows;
  atomic_long next_row;
} bake_job;

typedef struct bake_worker {
  bake_job* job;
  long fallbacks;
  pthread_t thread;
} bake_worker;

// one row of nodes along x; the closest triangle of each node seeds the next query
static long bake_row(const bake_job* job, long row) {
  const tf_sdf_grid* g = job->grid;
  int j = (int)(row % g->res[1]), k = (int)(row / g->res[1]);
  float* out = g->value + (size_t)row * (size_t)g->res[0];
  double p[3] = {0, g->origin[1] + g->cell * j, g->origin[2] + g->cell * k};
  int hint = -1;
  long fallbacks = 0;
  for (int i = 0; i < g->res[0]; i++) {
    p[0] = g->origin[0] + g->cell * i;
    tf_mesh_hit hit;
    int fell_back;
    double d = tf_mesh_bvh_signed_distance(&hit, job->bvh, p, hint, &fell_back);
    out[i] = (float)d;
    hint = hit.tri;
    fallbacks += fell_back;
  }
  return fallbacks;
}

// takes rows until none is left
static void* bake_worker_run(void* arg) {
  bake_worker* w = arg;
  for (;;) {
    long row = atomic_fetch_add(&w->job->next_row, 1);
    if (row >= w->job->nrows) break;
    w->fallbacks += bake_row(w->job, row);
  }
  return NULL;
}

// the grid's size and placement around the bounds
static int layout(tf_sdf_grid* g, const double lo[3], const double hi[3],
                  const tf_sdf_bake_options* opt, char* err, size_t errlen) {
  double longest = 0;
  for (int a = 0; a < 3; a++) longest = fmax(longest, hi[a] - lo[a]);
  if (!(longest > 0) || !isfinite(longest)) {
    return tf_fail(err, errlen, "sdf bake: the mesh has no extent (all vertices coincide)");
  }
  int inner = opt->nodes - 1 - 2 * opt->padding;
  g->cell = longest / inner;
  size_t total = 1;
  for (int a = 0; a < 3; a++) {
    double cells = ceil((hi[a] - lo[a]) / g->cell - 1e-9);
    if (cells < 0) cells = 0;
    g->res[a] = (int)cells + 1 + 2 * opt->padding;
    g->origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * g->cell * (g->res[a] - 1);
    total *= (size_t)g->res[a];
    g->aabb[a] = lo[a];
    g->aabb[3 + a] = hi[a];
  }
  if (total > ((size_t)1 << 31)) {
    return tf_fail(err, errlen, "sdf bake: %d x %d x %d nodes is too many", g->res[0], g->res[1],
                   g->res[2]);
  }
  return 0;
}

int tf_sdf_bake(tf_sdf_grid* out, tf_sdf_bake_stats* stats, const double* vert, int nvert,
                const int* face, int nface, const tf_sdf_bake_options* opt, char* err,
                size_t errlen) {
  double start = tf_clock();
  memset(out, 0, sizeof(*out));
  tf_sdf_bake_stats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof(*stats));
  if (opt->padding < 1 || opt->padding > 64) {
    return tf_fail(err, errlen, "sdf bake: padding must be 1 to 64 cells (got %d)", opt->padding);
  }
  if (opt->nodes < 2 * opt->padding + 2 || opt->nodes > MAX_NODES_PER_AXIS) {
    return tf_fail(err, errlen, "sdf bake: nodes must be %d to %d with padding %d (got %d)",
                   2 * opt->padding + 2, MAX_NODES_PER_AXIS, opt->padding, opt->nodes);
  }
  if (opt->threads < 0) {
    return tf_fail(err, errlen, "sdf bake: threads must be >= 0 (got %d)", opt->threads);
  }
  char why[256];
  tf_mesh_bvh bvh;
  if (tf_mesh_bvh_build(&bvh, vert, nvert, face, nface, why, sizeof(why))) {
    return tf_fail(err, errlen, "sdf bake: %s", why);
  }
  stats->open_edges = bvh.open_edges;
  stats->nonmanifold_edges = bvh.nonmanifold_edges;
  if ((bvh.open_edges || bvh.nonmanifold_edges) && !opt->allow_open) {
    tf_mesh_bvh_free(&bvh);
    return tf_fail(
        err, errlen,
        "sdf bake: the mesh is not closed (%d open edges, %d non-manifold edges): repair "
        "it, or set allow_open to bake anyway (signs near the holes may be wrong)",
        stats->open_edges, stats->nonmanifold_edges);
  }
  if (layout(out, bvh.lo, bvh.hi, opt, err, errlen)) {
    tf_mesh_bvh_free(&bvh);
    tf_sdf_grid_free(out);
    return -1;
  }
  size_t total = (size_t)out->res[0] * (size_t)out->res[1] * (size_t)out->res[2];
  out->value = malloc(sizeof(float) * total);
  if (!out->value) {
    tf_mesh_bvh_free(&bvh);
    int r0 = out->res[0], r1 = out->res[1], r2 = out->res[2];
    tf_sdf_grid_free(out);
    return tf_fail(err, errlen, "sdf bake: out of memory for %d x %d x %d nodes", r0, r1, r2);
  }

  bake_job job;
  job.bvh = &bvh;
  job.grid = out;
  job.nrows = (long)out->res[1] * out->res[2];
  atomic_init(&job.next_row, 0);
  int threads = opt->threads;
  if (threads == 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cpus > 0 ? (int)(cpus < MAX_THREADS ? cpus : MAX_THREADS) : 1;
  }
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  if (threads > job.nrows) threads = (int)job.nrows;
  bake_worker workers[MAX_THREADS];
  int started = 0;
  // the calling thread is worker 0; a thread that fails to start just leaves more rows to it
  for (int t = 0; t < threads; t++) {
    workers[t].job = &job;
    workers[t].fallbacks = 0;
  }
  for (int t = 1; t < threads; t++) {
    if (pthread_create(&workers[t].thread, NULL, bake_worker_run, &workers[t]) != 0) break;
    started = t;
  }
  bake_worker_run(&workers[0]);
  for (int t = 1; t <= started; t++) pthread_join(workers[t].thread, NULL);
  for (int t = 0; t <= started; t++) stats->winding_fallbacks += workers[t].fallbacks;
  tf_mesh_bvh_free(&bvh);

  double largest = 0;
  for (size_t n = 0; n < total; n++) largest = fmax(largest, fabs((double)out->value[n]));
  out->error_bound = 0.5 * sqrt(3.0) * out->cell + largest * ldexp(1.0, -24);
  stats->threads = started + 1;
  stats->nodes = (long)total;
  stats->seconds = tf_clock() - start;
  return 0;
}
