// Surface samples of a connector part for the overlap probe (probes.h, tf_probe_surface).
//
// The probe must not share the collider's blind spots, so it samples a second, finer mesh of
// the same part: points spread over each of its triangles, its vertices and edges included.
// The part meshes are prisms and cylinders whose flat faces are long ear-clipped slivers with
// vertices only on their outlines; without the points inside the triangles the middle of a
// wall or a floor would carry no sample at all. Points on a triangle lie on the chord surface,
// at most the mesh's chord error inside the true surface: that is the sampling's floor.
//
// The plug's mesh is a union of overlapping closed components (shell, pins): faces hidden
// inside the solid are not surface, and their samples (part SDF below minus the chord error)
// are dropped.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "connectors_scene.h"

typedef struct sample_list {
  double* p;  // (n x 3)
  int n, cap;
} sample_list;

// appends p when it lies on the part's surface (within the chord error); 0, or -1 when out of
// memory
static int keep_if_surface(sample_list* s, const tf_part_geometry* g, const double p[3]) {
  double value = g->fn(g->params, p, NULL);
  if (value < -(g->chord_error + 1e-9)) return 0;  // a hidden face of the union
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 4096;
    double* grown = realloc(s->p, sizeof(double) * 3 * (size_t)cap);
    if (!grown) return -1;
    s->p = grown;
    s->cap = cap;
  }
  memcpy(s->p + 3 * s->n, p, sizeof(double) * 3);
  s->n++;
  return 0;
}

static double distance3(const double* a, const double* b) {
  double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return sqrt(dx * dx + dy * dy + dz * dz);
}

// rows parallel to the triangle's longest edge, `spacing` apart from that edge to the opposite
// vertex, each with points `spacing` apart (end points included, so the vertices and edges
// are sampled too): the count follows the area plus the perimeter, so a 16 mm sliver a few um
// wide gets one row of points, not a lattice
static int sample_triangle(sample_list* s, const tf_part_geometry* g, const double* a,
                           const double* b, const double* c, double spacing) {
  double ab = distance3(a, b), bc = distance3(b, c), ca = distance3(c, a);
  double longest = fmax(ab, fmax(bc, ca));
  // p -> q the longest edge, r the opposite vertex
  const double *p = a, *q = b, *r = c;
  if (bc == longest) p = b, q = c, r = a;
  if (ca == longest && ab != longest && bc != longest) p = c, q = a, r = b;
  double e[3], f[3];
  for (int d = 0; d < 3; d++) e[d] = q[d] - p[d], f[d] = r[d] - p[d];
  double cross[3] = {e[1] * f[2] - e[2] * f[1], e[2] * f[0] - e[0] * f[2],
                     e[0] * f[1] - e[1] * f[0]};
  double height =
      longest > 0 ? sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]) / longest
                  : 0;
  int rows = (int)ceil(height / spacing);
  if (rows < 1) rows = 1;
  for (int j = 0; j <= rows; j++) {
    double t = (double)j / rows;
    int n = (int)ceil(longest * (1 - t) / spacing);
    if (n < 1) n = 1;
    for (int i = 0; i <= n; i++) {
      if (j == rows && i > 0) break;  // the row at the opposite vertex is one point
      double u = (double)i / n, x[3];
      for (int d = 0; d < 3; d++) {
        double from = p[d] + t * (r[d] - p[d]), to = q[d] + t * (r[d] - q[d]);
        x[d] = from + u * (to - from);
      }
      if (keep_if_surface(s, g, x)) return -1;
    }
  }
  return 0;
}

// points closer than this count once: rows along an edge that two triangles share come from
// both, computed from opposite ends, so they agree only to rounding
#define SAME_POINT 1e-9

static long long quantise(double x) { return llround(x / SAME_POINT); }

// lexicographic order of quantised points: 0 when they count as one
static int same_order(const double* a, const double* b) {
  for (int d = 0; d < 3; d++) {
    long long qa = quantise(a[d]), qb = quantise(b[d]);
    if (qa != qb) return qa < qb ? -1 : 1;
  }
  return 0;
}

// a total order (quantised, then exact), so that any qsort leaves the same sequence and the
// same point of each run survives
static int point_order(const void* x, const void* y) {
  const double *a = x, *b = y;
  int o = same_order(a, b);
  for (int d = 0; d < 3 && o == 0; d++) o = a[d] < b[d] ? -1 : a[d] > b[d];
  return o;
}

// sorts the points and keeps the first of each run of equal ones; returns the new count
static int unique_points(double* p, int n) {
  if (n == 0) return 0;
  qsort(p, (size_t)n, sizeof(double) * 3, point_order);
  int kept = 0;
  for (int i = 0; i < n; i++) {
    if (kept > 0 && same_order(p + 3 * (kept - 1), p + 3 * i) == 0) continue;
    memmove(p + 3 * kept, p + 3 * i, sizeof(double) * 3);
    kept++;
  }
  return kept;
}

int tf_connectors_surface_samples(const tf_part_geometry* g, double spacing, double** points,
                                  int* npoint) {
  sample_list s = {0};
  *points = NULL;
  *npoint = 0;
  for (int f = 0; f < g->nface; f++) {
    const double* a = g->vert + 3 * g->face[3 * f];
    const double* b = g->vert + 3 * g->face[3 * f + 1];
    const double* c = g->vert + 3 * g->face[3 * f + 2];
    if (sample_triangle(&s, g, a, b, c, spacing)) goto fail;
  }
  *points = s.p;
  *npoint = unique_points(s.p, s.n);
  return 0;
fail:
  free(s.p);
  return -1;
}
