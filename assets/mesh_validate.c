// Solid-mesh checks before an exact SDF.
//
// Why each check. The sign of mesh_bvh.h's signed distance comes from angle-weighted
// pseudo-normals (Baerentzen & Aanaes 2005), which is proven right only for a closed,
// consistently oriented 2-manifold that does not cross itself: a hole lets the closest feature
// face the wrong way, a flipped triangle turns its pseudo-normals inward, two crossing
// triangles make "inside" ambiguous. A zero-area triangle has no normal. So each is refused.
//
// Edges. Vertices with exactly equal positions are welded (tf_vertex_weld_map); each triangle
// contributes three half-edges keyed by their welded end points, sorted so the half-edges of
// one edge are adjacent. A closed, oriented manifold has exactly two per edge, walking it in
// opposite directions. A single flipped triangle conflicts with its neighbours across all
// three of its edges, while each neighbour conflicts across one, so the triangle with the most
// conflicts is the one named.
//
// Self-intersection. Candidate pairs come from the BVH (mesh_bvh.h): for each triangle, the
// nodes whose box overlaps its box. Triangles that share corners (exactly equal positions, as
// welding decides adjacency) touch there by construction: a pair sharing an edge intersects
// only when folded flat onto itself (coplanar, the opposite corners on the same side of the
// edge); a pair sharing one corner, when the edge opposite it in one crosses the other (the
// edges through the shared corner start on the other's plane and cannot cross it properly). Two
// triangles that are not coplanar intersect properly iff an edge of one crosses the inside of the
// other; a segment pq crosses triangle abc iff p and q lie strictly on opposite sides of abc's
// plane and the line pq passes strictly inside each edge, i.e. orient(p, q, a, b), orient(p, q, b,
// c), orient(p, q, c, a) share a strict sign (orient(a, b, c, d) = ((b - a) x (c - a)) . (d - a));
// this is the segment test of Moller & Trumbore's family written with orientation predicates.
// Coplanar triangles are projected on the plane that drops their normal's largest axis and
// intersect when two edges cross properly or a vertex of one lies strictly inside the other. Strict
// signs in floating point mean contact exactly on an edge or a vertex is not reported: a refusal is
// always a real crossing.
#include "mesh_validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_message.h"
#include "mesh_bvh.h"
#include "mesh_io.h"

static void sub3(double out[3], const double a[3], const double b[3]) {
  out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}

static void cross3(double out[3], const double a[3], const double b[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// ((b - a) x (c - a)) . (d - a): positive when d is on the side abc's normal points to
static double orient3(const double a[3], const double b[3], const double c[3], const double d[3]) {
  double u[3], v[3], w[3], n[3];
  sub3(u, b, a);
  sub3(v, c, a);
  sub3(w, d, a);
  cross3(n, u, v);
  return dot3(n, w);
}

static int same_strict_sign(double x, double y, double z) {
  return (x > 0 && y > 0 && z > 0) || (x < 0 && y < 0 && z < 0);
}

// segment pq through the inside of triangle abc (strictly)
static int segment_crosses(const double p[3], const double q[3], const double a[3],
                           const double b[3], const double c[3]) {
  double sp = orient3(a, b, c, p), sq = orient3(a, b, c, q);
  if (!((sp > 0 && sq < 0) || (sp < 0 && sq > 0))) return 0;
  return same_strict_sign(orient3(p, q, a, b), orient3(p, q, b, c), orient3(p, q, c, a));
}

// 2D orientation of c relative to the directed line ab
static double orient2(const double a[2], const double b[2], const double c[2]) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

// coplanar triangles t[0..2] and s[0..2] (2D): proper edge crossing or a vertex strictly inside
static int coplanar_overlap(const double t[3][2], const double s[3][2]) {
  for (int i = 0; i < 3; i++) {
    const double* a = t[i];
    const double* b = t[(i + 1) % 3];
    for (int j = 0; j < 3; j++) {
      const double* c = s[j];
      const double* d = s[(j + 1) % 3];
      double o1 = orient2(a, b, c), o2 = orient2(a, b, d);
      double o3 = orient2(c, d, a), o4 = orient2(c, d, b);
      if (o1 * o2 < 0 && o3 * o4 < 0) return 1;
    }
  }
  for (int pass = 0; pass < 2; pass++) {
    const double(*x)[2] = pass ? s : t;
    const double(*y)[2] = pass ? t : s;
    for (int i = 0; i < 3; i++) {
      if (same_strict_sign(orient2(y[0], y[1], x[i]), orient2(y[1], y[2], x[i]),
                           orient2(y[2], y[0], x[i])))
        return 1;
    }
  }
  return 0;
}

static int same_point(const double a[3], const double b[3]) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

int tf_triangles_intersect(const double a[3], const double b[3], const double c[3],
                           const double d[3], const double e[3], const double f[3]) {
  const double* t[3] = {a, b, c};
  const double* s[3] = {d, e, f};
  // corners the two share (exactly equal positions, as welding decides adjacency)
  int tshared[3] = {0, 0, 0}, sshared[3] = {0, 0, 0}, shared = 0;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      if (same_point(t[i], s[j])) tshared[i] = sshared[j] = 1, shared++;
    }
  }
  if (shared >= 3) return 0;  // the same triangle twice: the edge check's business
  double u[3], v[3], n[3];
  sub3(u, b, a);
  sub3(v, c, a);
  cross3(n, u, v);
  double nn = sqrt(dot3(n, n));
  // coplanar when every corner of def lies on abc's plane to rounding (relative to the size)
  double scale = 0;
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 3; k++) scale = fmax(scale, fabs(s[i][k] - a[k]) + fabs(t[i][k] - a[k]));
  }
  int coplanar = nn > 0;
  for (int i = 0; i < 3 && coplanar; i++) {
    double w[3];
    sub3(w, s[i], a);
    coplanar = fabs(dot3(n, w)) <= 1e-12 * nn * scale;
  }
  if (coplanar && shared == 2) {
    // folded onto each other across the shared edge pq: the opposite corners r, w on the
    // same side of pq
    const double *p = NULL, *q = NULL, *r = NULL, *w = NULL;
    for (int i = 0; i < 3; i++) {
      if (!tshared[i]) r = t[i];
      if (!sshared[i]) w = s[i];
      if (tshared[i] && p) q = t[i];
      if (tshared[i] && !q) p = t[i];
    }
    double pq[3], pr[3], pw[3], x[3], y[3];
    sub3(pq, q, p);
    sub3(pr, r, p);
    sub3(pw, w, p);
    cross3(x, pq, pr);
    cross3(y, pq, pw);
    return dot3(x, y) > 0;
  }
  if (coplanar) {
    int drop = 0;
    for (int k = 1; k < 3; k++) {
      if (fabs(n[k]) > fabs(n[drop])) drop = k;
    }
    int x = (drop + 1) % 3, y = (drop + 2) % 3;
    double t2[3][2], s2[3][2];
    for (int i = 0; i < 3; i++) {
      t2[i][0] = t[i][x], t2[i][1] = t[i][y];
      s2[i][0] = s[i][x], s2[i][1] = s[i][y];
    }
    return coplanar_overlap(t2, s2);
  }
  if (shared == 2) return 0;  // two planes through a common edge meet only along it
  // an edge through a shared corner starts on the other's plane, so it cannot cross it
  // properly; testing it would only read rounding noise
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3;
    if (!tshared[i] && !tshared[j] && segment_crosses(t[i], t[j], d, e, f)) return 1;
    if (!sshared[i] && !sshared[j] && segment_crosses(s[i], s[j], a, b, c)) return 1;
  }
  return 0;
}

// ---------------------------------------------------------------- the checks

// records the defect and writes "NAME: triangle F (vertices a b c) <what>"
static int refuse(tf_mesh_defect* out, int kind, const int* face, int f, int other,
                  const char* name, char* err, size_t errlen, const char* what) {
  out->kind = kind;
  out->face = f;
  out->other = other;
  for (int k = 0; k < 3; k++) out->vert[k] = f >= 0 ? face[3 * f + k] : -1;
  if (f < 0) return tf_fail(err, errlen, "%s: %s", name, what);
  return tf_fail(err, errlen, "%s: triangle %d (vertices %d %d %d) %s", name, f, face[3 * f],
                 face[3 * f + 1], face[3 * f + 2], what);
}

typedef struct half_edge {
  int lo, hi;   // welded end points, lo < hi
  int tri;      // mesh face
  int edge;     // 0, 1, 2: from corner edge to corner edge + 1
  int forward;  // 1 if the triangle walks lo -> hi
} half_edge;

static int half_edge_cmp(const void* pa, const void* pb) {
  const half_edge* a = pa;
  const half_edge* b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  return (a->tri > b->tri) - (a->tri < b->tri);
}

// zero-area triangles (relative to the longest edge, as mesh_bvh.c decides a degenerate one)
static int check_degenerate(tf_mesh_defect* out, const double* vert, const int* face, int nface,
                            const char* name, char* err, size_t errlen) {
  for (int f = 0; f < nface; f++) {
    const double* a = vert + 3 * (size_t)face[3 * f];
    const double* b = vert + 3 * (size_t)face[3 * f + 1];
    const double* c = vert + 3 * (size_t)face[3 * f + 2];
    double u[3], w[3], n[3];
    sub3(u, b, a);
    sub3(w, c, a);
    cross3(n, u, w);
    double scale = fmax(dot3(u, u), dot3(w, w));
    if (!(dot3(n, n) > 1e-24 * scale * scale)) {
      return refuse(out, TF_MESH_DEGENERATE, face, f, -1, name, err, errlen,
                    "has zero area: a degenerate triangle has no normal");
    }
  }
  return 0;
}

// every edge twice, in opposite directions
static int check_edges(tf_mesh_defect* out, const int* weld, const int* face, int nface,
                       const char* name, char* err, size_t errlen) {
  size_t n = 3 * (size_t)nface;
  half_edge* he = malloc(sizeof(half_edge) * n);
  int* conflicts = calloc((size_t)nface, sizeof(int));
  int* partner = malloc(sizeof(int) * (size_t)nface);
  if (!he || !conflicts || !partner) {
    free(he), free(conflicts), free(partner);
    return refuse(out, TF_MESH_NO_MEMORY, face, -1, -1, name, err, errlen,
                  "out of memory checking the edges");
  }
  for (int t = 0; t < nface; t++) {
    for (int e = 0; e < 3; e++) {
      int u = weld[face[3 * t + e]], v = weld[face[3 * t + (e + 1) % 3]];
      half_edge h = {u < v ? u : v, u < v ? v : u, t, e, u < v};
      he[3 * (size_t)t + e] = h;
    }
  }
  qsort(he, n, sizeof(half_edge), half_edge_cmp);
  int rc = 0;
  for (size_t s = 0; s < n && rc == 0;) {
    size_t e = s;
    while (e < n && he[e].lo == he[s].lo && he[e].hi == he[s].hi) e++;
    if (e - s == 1) {
      const int* f = face + 3 * he[s].tri;
      char what[128];
      snprintf(what, sizeof(what),
               "has edge %d-%d that no other triangle shares: the mesh is not watertight",
               f[he[s].edge], f[(he[s].edge + 1) % 3]);
      rc = refuse(out, TF_MESH_OPEN_EDGE, face, he[s].tri, -1, name, err, errlen, what);
    } else if (e - s > 2) {
      rc = refuse(out, TF_MESH_NONMANIFOLD_EDGE, face, he[s].tri, he[s + 1].tri, name, err, errlen,
                  "has an edge shared by more than two triangles: not a manifold");
    } else if (he[s].forward == he[s + 1].forward) {
      conflicts[he[s].tri]++, conflicts[he[s + 1].tri]++;
      partner[he[s].tri] = he[s + 1].tri, partner[he[s + 1].tri] = he[s].tri;
    }
    s = e;
  }
  if (rc == 0) {
    int worst = -1;
    for (int t = 0; t < nface; t++) {
      if (conflicts[t] > 0 && (worst < 0 || conflicts[t] > conflicts[worst])) worst = t;
    }
    if (worst >= 0) {
      rc = refuse(out, TF_MESH_ORIENTATION, face, worst, partner[worst], name, err, errlen,
                  "is oriented against its neighbours (an edge walked the same way twice)");
    }
  }
  free(he), free(conflicts), free(partner);
  return rc;
}

// the signed enclosed volume (divergence theorem over the triangles), positive when the
// triangles are counter-clockwise from outside
static double enclosed_volume(const double* vert, const int* face, int nface) {
  double vol = 0;
  for (int f = 0; f < nface; f++) {
    double n[3];
    cross3(n, vert + 3 * (size_t)face[3 * f + 1], vert + 3 * (size_t)face[3 * f + 2]);
    vol += dot3(vert + 3 * (size_t)face[3 * f], n) / 6;
  }
  return vol;
}

// squared-free box overlap test of two axis-aligned boxes
static int boxes_overlap(const double lo[3], const double hi[3], const double blo[3],
                         const double bhi[3]) {
  for (int k = 0; k < 3; k++) {
    if (lo[k] > bhi[k] || blo[k] > hi[k]) return 0;
  }
  return 1;
}

// the first pair (BVH order) of intersecting non-adjacent triangles; returns 1 and the mesh
// faces in *fa, *fb, else 0
static int find_self_intersection(const tf_mesh_bvh* bvh, int* fa, int* fb) {
  int stack[96];
  for (int i = 0; i < bvh->ntri; i++) {
    const double* ti = bvh->tri + 9 * (size_t)i;
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(fmin(ti[k], ti[3 + k]), ti[6 + k]);
      hi[k] = fmax(fmax(ti[k], ti[3 + k]), ti[6 + k]);
    }
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
      const tf_bvh_node* node = &bvh->node[stack[--sp]];
      if (!boxes_overlap(lo, hi, node->lo, node->hi)) continue;
      if (node->count > 0) {
        for (int j = node->start; j < node->start + node->count; j++) {
          if (j <= i) continue;
          const double* tj = bvh->tri + 9 * (size_t)j;
          if (tf_triangles_intersect(ti, ti + 3, ti + 6, tj, tj + 3, tj + 6)) {
            int a = bvh->tri_face[i], b = bvh->tri_face[j];
            *fa = a < b ? a : b;
            *fb = a < b ? b : a;
            return 1;
          }
        }
        continue;
      }
      int self = (int)(node - bvh->node);
      if (sp + 2 > 96) continue;  // cannot happen: the median split bounds the depth
      stack[sp++] = node->start;
      stack[sp++] = self + 1;
    }
  }
  return 0;
}

int tf_mesh_validate(tf_mesh_defect* defect, const double* vert, int nvert, const int* face,
                     int nface, const char* name, char* err, size_t errlen) {
  tf_mesh_defect scratch;
  tf_mesh_defect* out = defect ? defect : &scratch;
  memset(out, 0, sizeof(*out));
  out->face = out->other = -1;
  out->vert[0] = out->vert[1] = out->vert[2] = -1;
  if (!name) name = "mesh";
  if (tf_mesh_check(vert, nvert, face, nface, name, err, errlen)) {
    out->kind = TF_MESH_BAD_DATA;
    return -1;
  }
  if (nface < 4) {
    return refuse(out, TF_MESH_OPEN_EDGE, face, -1, -1, name, err, errlen,
                  "fewer than 4 triangles cannot close a solid");
  }
  if (check_degenerate(out, vert, face, nface, name, err, errlen)) return -1;
  int* weld = malloc(sizeof(int) * (size_t)nvert);
  int nunique = 0;
  if (!weld || tf_vertex_weld_map(weld, &nunique, vert, nvert)) {
    free(weld);
    return refuse(out, TF_MESH_NO_MEMORY, face, -1, -1, name, err, errlen,
                  "out of memory welding the vertices");
  }
  int rc = check_edges(out, weld, face, nface, name, err, errlen);
  free(weld);
  if (rc) return -1;
  double vol = enclosed_volume(vert, face, nface);
  if (!(vol > 0)) {
    return refuse(out, TF_MESH_INSIDE_OUT, face, -1, -1, name, err, errlen,
                  "encloses a negative volume: every triangle is clockwise seen from outside "
                  "(inside out)");
  }
  tf_mesh_bvh bvh;
  char berr[256];
  if (tf_mesh_bvh_build(&bvh, vert, nvert, face, nface, berr, sizeof(berr))) {
    return refuse(out, TF_MESH_NO_MEMORY, face, -1, -1, name, err, errlen, berr);
  }
  int fa, fb;
  rc = 0;
  if (find_self_intersection(&bvh, &fa, &fb)) {
    char what[160];
    snprintf(what, sizeof(what),
             "intersects triangle %d (vertices %d %d %d): the mesh crosses itself", fb,
             face[3 * fb], face[3 * fb + 1], face[3 * fb + 2]);
    rc = refuse(out, TF_MESH_SELF_INTERSECTION, face, fa, fb, name, err, errlen, what);
  }
  tf_mesh_bvh_free(&bvh);
  return rc;
}
