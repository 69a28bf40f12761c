// Brute-force references over a part's triangle mesh, shared by the part suites: a
// watertight check, exact point-triangle distance, a uniform grid of triangles for nearest
// queries, and random points near the surface. Independent of the engine's BVH on purpose.
#ifndef TF_TEST_MESH_BRUTE_FORCE_H
#define TF_TEST_MESH_BRUTE_FORCE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parts.h"
#include "test_rng.h"

// qsort order of 64-bit keys
static inline int cmp_i64(const void* a, const void* b) {
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return x < y ? -1 : x > y;
}

// closed and consistently oriented: every directed edge once and its reverse once; returns
// the Euler characteristic and the enclosed volume
static inline int check_watertight(const tf_part_geometry* g, double* volume) {
  int ne = 3 * g->nface;
  int64_t* e = malloc(sizeof(int64_t) * (size_t)ne);
  assert_non_null(e);
  for (int f = 0; f < g->nface; f++) {
    for (int k = 0; k < 3; k++) {
      int64_t a = g->face[3 * f + k], b = g->face[3 * f + (k + 1) % 3];
      assert_true(a >= 0 && a < g->nvert && a != b);
      e[3 * f + k] = a * g->nvert + b;
    }
  }
  qsort(e, (size_t)ne, sizeof(int64_t), cmp_i64);
  for (int i = 0; i + 1 < ne; i++) assert_true(e[i] != e[i + 1]);
  for (int i = 0; i < ne; i++) {
    int64_t rev = (e[i] % g->nvert) * g->nvert + e[i] / g->nvert;
    assert_non_null(bsearch(&rev, e, (size_t)ne, sizeof(int64_t), cmp_i64));
  }
  free(e);
  double vol = 0;
  for (int f = 0; f < g->nface; f++) {
    const double* a = g->vert + 3 * g->face[3 * f];
    const double* b = g->vert + 3 * g->face[3 * f + 1];
    const double* c = g->vert + 3 * g->face[3 * f + 2];
    vol += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
            a[2] * (b[0] * c[1] - b[1] * c[0])) /
           6;
  }
  *volume = vol;
  return g->nvert - ne / 2 + g->nface;
}

// closest point to p on triangle abc, by the Voronoi regions of its vertices, edges and face
static inline void closest_on_triangle(double out[3], const double p[3], const double a[3],
                                       const double b[3], const double c[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  for (int k = 0; k < 3; k++) {
    ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
    bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
  }
  double d1 = ab[0] * ap[0] + ab[1] * ap[1] + ab[2] * ap[2];
  double d2 = ac[0] * ap[0] + ac[1] * ap[1] + ac[2] * ap[2];
  double d3 = ab[0] * bp[0] + ab[1] * bp[1] + ab[2] * bp[2];
  double d4 = ac[0] * bp[0] + ac[1] * bp[1] + ac[2] * bp[2];
  double d5 = ab[0] * cp[0] + ab[1] * cp[1] + ab[2] * cp[2];
  double d6 = ac[0] * cp[0] + ac[1] * cp[1] + ac[2] * cp[2];
  double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
  double s, t;
  if (d1 <= 0 && d2 <= 0) {
    s = 0, t = 0;
  } else if (d3 >= 0 && d4 <= d3) {
    s = 1, t = 0;
  } else if (d6 >= 0 && d5 <= d6) {
    s = 0, t = 1;
  } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    s = d1 / (d1 - d3), t = 0;
  } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    s = 0, t = d2 / (d2 - d6);
  } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    t = (d4 - d3) / ((d4 - d3) + (d5 - d6)), s = 1 - t;
  } else {
    double den = 1 / (va + vb + vc);
    s = vb * den, t = vc * den;
  }
  for (int k = 0; k < 3; k++) out[k] = a[k] + s * ab[k] + t * ac[k];
}

// a uniform grid of triangle lists for nearest-triangle queries
typedef struct tri_grid {
  const tf_part_geometry* g;
  double lo[3], cell;
  int n[3];
  int *start, *items, *stamp;
  int mark;
} tri_grid;

// buckets each triangle into every cell its box touches (two passes: count, fill)
static inline void grid_build(tri_grid* t, const tf_part_geometry* g, double cell, double margin) {
  memset(t, 0, sizeof(*t));
  t->g = g, t->cell = cell;
  for (int k = 0; k < 3; k++) {
    t->lo[k] = g->aabb[k] - margin;
    t->n[k] = (int)ceil((g->aabb[3 + k] + margin - t->lo[k]) / cell) + 1;
  }
  size_t ncell = (size_t)t->n[0] * t->n[1] * t->n[2];
  t->start = calloc(ncell + 1, sizeof(int));
  t->stamp = calloc((size_t)g->nface, sizeof(int));
  assert_non_null(t->start);
  assert_non_null(t->stamp);
  for (int pass = 0; pass < 2; pass++) {
    for (int f = 0; f < g->nface; f++) {
      int lo[3], hi[3];
      for (int k = 0; k < 3; k++) {
        double a = INFINITY, b = -INFINITY;
        for (int j = 0; j < 3; j++) {
          double x = g->vert[3 * g->face[3 * f + j] + k];
          a = fmin(a, x), b = fmax(b, x);
        }
        lo[k] = (int)floor((a - t->lo[k]) / cell), hi[k] = (int)floor((b - t->lo[k]) / cell);
      }
      for (int z = lo[2]; z <= hi[2]; z++) {
        for (int y = lo[1]; y <= hi[1]; y++) {
          for (int x = lo[0]; x <= hi[0]; x++) {
            size_t c = ((size_t)z * t->n[1] + y) * t->n[0] + x;
            if (pass == 0) {
              t->start[c + 1]++;
            } else {
              t->items[t->start[c]++] = f;
            }
          }
        }
      }
    }
    if (pass == 0) {
      for (size_t c = 0; c < ncell; c++) t->start[c + 1] += t->start[c];
      t->items = malloc(sizeof(int) * (size_t)(t->start[ncell] > 0 ? t->start[ncell] : 1));
      assert_non_null(t->items);
    } else {
      for (size_t c = ncell; c > 0; c--) t->start[c] = t->start[c - 1];
      t->start[0] = 0;
    }
  }
}

static inline void grid_free(tri_grid* t) { free(t->start), free(t->items), free(t->stamp); }

// distance from p (inside the grid) to the mesh: rings of cells until no closer one remains
static inline double grid_nearest(tri_grid* t, const double p[3]) {
  int c[3];
  for (int k = 0; k < 3; k++) c[k] = (int)floor((p[k] - t->lo[k]) / t->cell);
  double best = INFINITY;
  t->mark++;
  for (int ring = 0; ring < 1000; ring++) {
    for (int z = c[2] - ring; z <= c[2] + ring; z++) {
      for (int y = c[1] - ring; y <= c[1] + ring; y++) {
        for (int x = c[0] - ring; x <= c[0] + ring; x++) {
          if (abs(z - c[2]) != ring && abs(y - c[1]) != ring && abs(x - c[0]) != ring) continue;
          if (x < 0 || y < 0 || z < 0 || x >= t->n[0] || y >= t->n[1] || z >= t->n[2]) continue;
          size_t cell = ((size_t)z * t->n[1] + y) * t->n[0] + x;
          for (int i = t->start[cell]; i < t->start[cell + 1]; i++) {
            int f = t->items[i];
            if (t->stamp[f] == t->mark) continue;
            t->stamp[f] = t->mark;
            const int* fv = t->g->face + 3 * f;
            double q[3];
            closest_on_triangle(q, p, t->g->vert + 3 * fv[0], t->g->vert + 3 * fv[1],
                                t->g->vert + 3 * fv[2]);
            double d = sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                            (p[2] - q[2]) * (p[2] - q[2]));
            best = fmin(best, d);
          }
        }
      }
    }
    if (best <= ring * t->cell) break;
  }
  return best;
}

// random points within shell of the surface: an area-weighted point of the mesh plus a
// random offset in the ball
static inline void sample_near(double* pts, int n, const tf_part_geometry* g, double shell,
                               test_rng* rng) {
  double* cum = malloc(sizeof(double) * (size_t)g->nface);
  assert_non_null(cum);
  double total = 0;
  for (int f = 0; f < g->nface; f++) {
    const double* a = g->vert + 3 * g->face[3 * f];
    const double* b = g->vert + 3 * g->face[3 * f + 1];
    const double* c = g->vert + 3 * g->face[3 * f + 2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2],
           z = u[0] * v[1] - u[1] * v[0];
    total += 0.5 * sqrt(x * x + y * y + z * z);
    cum[f] = total;
  }
  for (int i = 0; i < n; i++) {
    double x = rng_uniform(rng, 0, total);
    int lo = 0, hi = g->nface - 1;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (cum[mid] < x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const int* fv = g->face + 3 * lo;
    double s = rng_uniform(rng, 0, 1), t = rng_uniform(rng, 0, 1);
    if (s + t > 1) s = 1 - s, t = 1 - t;
    double dir[3], len;
    do {
      for (int k = 0; k < 3; k++) dir[k] = rng_uniform(rng, -1, 1);
      len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    } while (len > 1 || len < 1e-3);
    double r = shell * rng_uniform(rng, 0, 1) / len;
    for (int k = 0; k < 3; k++) {
      double a = g->vert[3 * fv[0] + k], b = g->vert[3 * fv[1] + k], c = g->vert[3 * fv[2] + k];
      pts[3 * i + k] = a + s * (b - a) + t * (c - a) + r * dir[k];
    }
  }
  free(cum);
}

#endif  // TF_TEST_MESH_BRUTE_FORCE_H
