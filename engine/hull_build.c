// Convex hulls of point sets for TF_GEOM_HULL, built once at compile time with qhull
// (reentrant libqhull_r, Barber, Dobkin and Huhdanpaa, "The Quickhull algorithm for convex
// hulls", ACM TOMS 1996).
//
// qhull runs without triangulation ('Qt' off), so its default exact merging (C-0) fuses
// coplanar triangles into one polygonal facet: a cube comes back as six quads. For each
// facet we keep
//   - the outward unit normal n qhull computed, and the offset d = max_v n . v over the
//     facet's vertices, so that n . x <= d holds for every hull vertex even when a merged
//     facet is a hair off planar;
//   - its vertices sorted counter-clockwise seen from outside: with the centroid c and an
//     in-plane basis (u, w = n x u), the angle atan2((v - c) . w, (v - c) . u) increases
//     counter-clockwise about n.
// Only points that are vertices of some facet survive, in input order; interior and coplanar
// points are dropped. Degenerate input (fewer than four points, NaN or inf, all points on a
// line or a plane) is rejected before qhull sees it, with a one-line message naming the mesh;
// qhull's own error text goes to /dev/null, never to the terminal.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

#include "tf_math.h"
#include "error_message.h"
#include "hull.h"

// relative thickness below which a point set counts as flat (or straight, or a point)
#define HULL_FLAT_TOL 1e-10

// rejects input qhull cannot turn into a solid: catching it here gives a message the user
// can act on instead of qhull's precision report
static int hull_check_input(const double* points, int n, const char* name_in, char* err,
                            size_t errlen) {
  const char* name = name_in ? name_in : "(unnamed)";
  if (n < 4) return tf_fail(err, errlen, "hull '%s': needs at least 4 points, got %d", name, n);
  for (int i = 0; i < 3 * n; i++) {
    if (!isfinite(points[i])) {
      return tf_fail(err, errlen, "hull '%s': point %d is not finite (NaN or inf)", name, i / 3);
    }
  }
  // farthest point from the first, farthest from that line, farthest from that plane
  const double* p0 = points;
  int i1 = 0;
  double best = 0, extent;
  for (int i = 1; i < n; i++) {
    double d[3];
    tf_vec3_sub(d, points + 3 * i, p0);
    double len = tf_vec3_norm(d);
    if (len > best) best = len, i1 = i;
  }
  extent = best;
  if (extent <= 0) return tf_fail(err, errlen, "hull '%s': all %d points coincide", name, n);
  double tol = HULL_FLAT_TOL * extent;
  double axis[3];
  tf_vec3_sub(axis, points + 3 * i1, p0);
  tf_vec3_normalize(axis);
  int i2 = 0;
  best = 0;
  for (int i = 1; i < n; i++) {
    double d[3], c[3];
    tf_vec3_sub(d, points + 3 * i, p0);
    tf_vec3_cross(c, d, axis);
    double off = tf_vec3_norm(c);
    if (off > best) best = off, i2 = i;
  }
  if (best <= tol) return tf_fail(err, errlen, "hull '%s': all %d points are collinear", name, n);
  double e2[3], normal[3];
  tf_vec3_sub(e2, points + 3 * i2, p0);
  tf_vec3_cross(normal, axis, e2);
  tf_vec3_normalize(normal);
  best = 0;
  for (int i = 1; i < n; i++) {
    double d[3];
    tf_vec3_sub(d, points + 3 * i, p0);
    best = fmax(best, fabs(tf_vec3_dot(d, normal)));
  }
  if (best <= tol) return tf_fail(err, errlen, "hull '%s': all %d points are coplanar", name, n);
  return 0;
}

// one facet vertex and its angle about the facet centroid, for the counter-clockwise sort
typedef struct hull_corner {
  double angle;
  int index;
} hull_corner;

// orders corners by increasing angle (ties by index, so the order is deterministic)
static int hull_corner_cmp(const void* pa, const void* pb) {
  const hull_corner* a = pa;
  const hull_corner* b = pb;
  if (a->angle < b->angle) return -1;
  if (a->angle > b->angle) return 1;
  return (a->index > b->index) - (a->index < b->index);
}

// sorts a face's vertex indices counter-clockwise about its outward normal
static void hull_sort_face(int* idx, int nv, const double* vert, const double normal[3],
                           hull_corner* scratch) {
  double c[3] = {0, 0, 0};
  for (int k = 0; k < nv; k++) tf_vec3_add(c, c, vert + 3 * idx[k]);
  tf_vec3_scale(c, c, 1.0 / nv);
  // in-plane basis: u along the axis least aligned with the normal, projected
  double u[3] = {0, 0, 0}, w[3];
  int axis = 0;
  for (int k = 1; k < 3; k++) {
    if (fabs(normal[k]) < fabs(normal[axis])) axis = k;
  }
  u[axis] = 1;
  tf_vec3_cross(w, normal, u);
  tf_vec3_normalize(w);
  tf_vec3_cross(u, w, normal);
  for (int k = 0; k < nv; k++) {
    double d[3];
    tf_vec3_sub(d, vert + 3 * idx[k], c);
    scratch[k].angle = atan2(tf_vec3_dot(d, w), tf_vec3_dot(d, u));
    scratch[k].index = idx[k];
  }
  qsort(scratch, (size_t)nv, sizeof(hull_corner), hull_corner_cmp);
  for (int k = 0; k < nv; k++) idx[k] = scratch[k].index;
}

// copies qhull's facets into out; returns 0, or -1 when memory runs out
static int hull_copy_facets(qhT* qh, const double* points, int n, tf_hull_data* out) {
  facetT* facet;
  vertexT *vertex, **vertexp;
  int* remap = malloc(sizeof(int) * (size_t)n);
  if (!remap) return -1;
  for (int i = 0; i < n; i++) remap[i] = -1;

  // which input points are facet vertices, and how many face-vertex slots we need
  int nface = 0, nfacevert = 0;
  FORALLfacets {
    nface++;
    FOREACHvertex_(facet->vertices) {
      remap[qh_pointid(qh, vertex->point)] = 0;
      nfacevert++;
    }
  }
  int nvert = 0;
  for (int i = 0; i < n; i++) {
    if (remap[i] == 0) remap[i] = nvert++;
  }

  out->nvert = nvert;
  out->nface = nface;
  out->nfacevert = nfacevert;
  out->vert = malloc(sizeof(double) * 3 * (size_t)nvert);
  out->face_plane = malloc(sizeof(double) * 4 * (size_t)nface);
  out->face_vertadr = malloc(sizeof(int) * (size_t)nface);
  out->face_vertnum = malloc(sizeof(int) * (size_t)nface);
  out->face_vert = malloc(sizeof(int) * (size_t)nfacevert);
  hull_corner* scratch = malloc(sizeof(hull_corner) * (size_t)nfacevert);
  if (!out->vert || !out->face_plane || !out->face_vertadr || !out->face_vertnum ||
      !out->face_vert || !scratch) {
    free(remap);
    free(scratch);
    return -1;
  }

  out->rbound = 0;
  for (int i = 0; i < n; i++) {
    if (remap[i] < 0) continue;
    tf_vec3_copy(out->vert + 3 * remap[i], points + 3 * i);
    out->rbound = fmax(out->rbound, tf_vec3_norm(points + 3 * i));
  }

  int f = 0, adr = 0;
  FORALLfacets {
    double* plane = out->face_plane + 4 * f;
    double normal[3] = {facet->normal[0], facet->normal[1], facet->normal[2]};
    tf_vec3_normalize(normal);
    int nv = 0;
    double offset = -INFINITY;
    FOREACHvertex_(facet->vertices) {
      int v = remap[qh_pointid(qh, vertex->point)];
      out->face_vert[adr + nv++] = v;
      offset = fmax(offset, tf_vec3_dot(normal, out->vert + 3 * v));
    }
    hull_sort_face(out->face_vert + adr, nv, out->vert, normal, scratch);
    for (int k = 0; k < 3; k++) plane[k] = normal[k] + 0.0;  // no negative zeros
    plane[3] = offset;
    out->face_vertadr[f] = adr;
    out->face_vertnum[f] = nv;
    adr += nv;
    f++;
  }
  free(remap);
  free(scratch);
  return 0;
}

// builds the hull with qhull, its error channel sent to /dev/null
int tf_hull_build(const double* points, int n, const char* name_in, tf_hull_data* out, char* err,
                  size_t errlen) {
  const char* name = name_in ? name_in : "(unnamed)";
  memset(out, 0, sizeof(*out));
  if (err && errlen > 0) err[0] = '\0';
  if (hull_check_input(points, n, name, err, errlen)) return -1;

  FILE* sink = fopen("/dev/null", "w");
  if (!sink) sink = tmpfile();
  if (!sink)
    return tf_fail(err, errlen, "hull '%s': cannot open a sink for qhull's messages", name);
  qhT* qh = malloc(sizeof(qhT));
  double* coords = malloc(sizeof(double) * 3 * (size_t)n);
  if (!qh || !coords) {
    free(qh);
    free(coords);
    fclose(sink);
    return tf_fail(err, errlen, "hull '%s': out of memory for %d points", name, n);
  }
  memcpy(coords, points, sizeof(double) * 3 * (size_t)n);

  // 'Qs': search all points for the initial simplex (thin hulls); no 'Qt': keep merged facets
  char options[] = "qhull Qs";
  qh_zero(qh, sink);
  int code = qh_new_qhull(qh, 3, n, coords, False, options, NULL, sink);
  int status = 0;
  if (code != 0) {
    status = tf_fail(err, errlen, "hull '%s': qhull failed with code %d (nearly flat points?)",
                     name, code);
  } else if (hull_copy_facets(qh, points, n, out) != 0) {
    tf_hull_free(out);
    status = tf_fail(err, errlen, "hull '%s': out of memory copying %d points", name, n);
  }
  int curlong, totlong;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  free(qh);
  free(coords);
  fclose(sink);
  return status;
}

// releases what tf_hull_build allocated; safe on a zeroed or already freed hull
void tf_hull_free(tf_hull_data* hull) {
  free(hull->vert);
  free(hull->face_plane);
  free(hull->face_vertadr);
  free(hull->face_vertnum);
  free(hull->face_vert);
  memset(hull, 0, sizeof(*hull));
}
