// Exact point-to-mesh distance and a robust inside / outside test.
//
// Hierarchy. Triangles are split recursively at the median centroid along the widest axis of
// the centroid bounds (a deterministic quickselect with the triangle index breaking ties), down
// to TF_BVH_LEAF triangles per leaf. Nodes are stored depth first: an inner node's first child
// is the next node, its second child is node.start. The median split keeps the depth at
// log2(n / TF_BVH_LEAF) + 1 whatever the input, so the traversal stack has a fixed size.
//
// Closest point on a triangle (Ericson, Real-Time Collision Detection, 5.1.5). With
// ab = b - a, ac = c - a and the dot products d1 = ab.(p-a), d2 = ac.(p-a), d3 = ab.(p-b),
// d4 = ac.(p-b), d5 = ab.(p-c), d6 = ac.(p-c), the Voronoi regions of the triangle are tested
// in turn: vertex a (d1 <= 0, d2 <= 0), vertex b (d3 >= 0, d4 <= d3), edge ab
// (vc = d1 d4 - d3 d2 <= 0, d1 >= 0, d3 <= 0; point a + ab d1 / (d1 - d3)), vertex c, edge ac
// (vb = d5 d2 - d1 d6), edge bc (va = d3 d6 - d5 d4), else the face, with barycentrics
// (va, vb, vc) / (va + vb + vc). The region tells which feature holds the closest point.
// A degenerate (zero-area) triangle can fall through every test with va + vb + vc = 0; it is
// then handled as its three segments.
//
// Nearest triangle. Branch and bound: the best squared distance so far (seeded from a hint
// triangle, typically the answer at the neighbouring grid node, which makes the bound tight
// from the start) prunes every node whose box is at least as far; children are visited
// nearer first. Inside a leaf, a triangle whose plane is already as far as the best is skipped
// before the closest-point test (|n . (p - a)| <= distance to the triangle).
//
// Sign. For a closed, consistently oriented 2-manifold, Baerentzen & Aanaes ("Signed distance
// computation using the angle weighted pseudonormal", IEEE TVCG 11(3), 2005) prove that with
// c the closest point and n the pseudo-normal of the feature holding it, sign(d) =
// sign((p - c) . n), where n is the face normal on a face, the sum of the two face normals on
// an edge, and sum_i alpha_i n_i over the incident faces (alpha_i the corner angle) at a
// vertex. Vertices with exactly equal positions are welded first, so meshes that repeat
// vertices (STL-style) get the same adjacency. The test costs nothing beyond the closest-point
// query. When (p - c) . n is not clearly away from zero (|.| <= 1e-6 |p - c|: a zero-area
// face, a razor edge, a mesh that is not closed) the generalized winding number decides:
// w(p) = sum_t Omega_t(p) / 4 pi, with the solid angle of each triangle from Van Oosterom &
// Strackee, tan(Omega / 2) = a.(b x c) / (|a||b||c| + (a.b)|c| + (a.c)|b| + (b.c)|a|) (a, b, c
// the corners relative to p); w is 1 inside and 0 outside a closed mesh and degrades gracefully
// on holes (Jacobson et al., "Robust inside-outside segmentation using generalized winding
// numbers", SIGGRAPH 2013). It is an exact O(n) sum, so it is kept to those rare points.
#include "mesh_bvh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_message.h"
#include "mesh_io.h"

// traversal stack: the median split bounds the depth by log2(5e7 / 4) + 2 < 26
#define STACK_SIZE 96

static double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(double out[3], const double a[3], const double b[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

static void sub3(double out[3], const double a[3], const double b[3]) {
  out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}

// v / |v|, or zero for a zero vector
static void normalize3(double v[3]) {
  double n = sqrt(dot3(v, v));
  double s = n > 0 ? 1.0 / n : 0.0;
  v[0] *= s, v[1] *= s, v[2] *= s;
}

// ---------------------------------------------------------------- closest point

// closest point of segment ab to p (a == b allowed)
static void segment_closest(double out[3], const double p[3], const double a[3],
                            const double b[3]) {
  double ab[3], ap[3];
  sub3(ab, b, a);
  sub3(ap, p, a);
  double len2 = dot3(ab, ab);
  double t = len2 > 0 ? dot3(ap, ab) / len2 : 0.0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  for (int k = 0; k < 3; k++) out[k] = a[k] + t * ab[k];
}

// the degenerate case: the nearest of the three edges; returns its feature
static int degenerate_closest(double out[3], const double p[3], const double a[3],
                              const double b[3], const double c[3]) {
  const double* ends[3][2] = {{a, b}, {b, c}, {c, a}};
  double best = INFINITY;
  int feature = TF_TRI_EDGE_AB;
  for (int e = 0; e < 3; e++) {
    double q[3], d[3];
    segment_closest(q, p, ends[e][0], ends[e][1]);
    sub3(d, p, q);
    double d2 = dot3(d, d);
    if (d2 < best) {
      best = d2;
      memcpy(out, q, sizeof(q));
      feature = TF_TRI_EDGE_AB + e;
    }
  }
  return feature;
}

int tf_triangle_closest(double out[3], const double p[3], const double a[3], const double b[3],
                        const double c[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  sub3(ab, b, a);
  sub3(ac, c, a);
  sub3(ap, p, a);
  double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    memcpy(out, a, sizeof(double) * 3);
    return TF_TRI_VERT_A;
  }
  sub3(bp, p, b);
  double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    memcpy(out, b, sizeof(double) * 3);
    return TF_TRI_VERT_B;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
    double v = d1 / (d1 - d3);
    for (int k = 0; k < 3; k++) out[k] = a[k] + v * ab[k];
    return TF_TRI_EDGE_AB;
  }
  sub3(cp, p, c);
  double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    memcpy(out, c, sizeof(double) * 3);
    return TF_TRI_VERT_C;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
    double w = d2 / (d2 - d6);
    for (int k = 0; k < 3; k++) out[k] = a[k] + w * ac[k];
    return TF_TRI_EDGE_CA;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0 && (d4 - d3) + (d5 - d6) > 0) {
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int k = 0; k < 3; k++) out[k] = b[k] + w * (c[k] - b[k]);
    return TF_TRI_EDGE_BC;
  }
  double sum = va + vb + vc;
  if (!(sum > 0)) return degenerate_closest(out, p, a, b, c);
  double v = vb / sum, w = vc / sum;
  for (int k = 0; k < 3; k++) out[k] = a[k] + ab[k] * v + ac[k] * w;
  return TF_TRI_FACE;
}

// ---------------------------------------------------------------- building

// a triangle's centroid and index, sorted during the build
typedef struct bvh_item {
  double c[3];
  int index;
} bvh_item;

// strict total order along an axis (the index breaks ties)
static int item_less(const bvh_item* a, const bvh_item* b, int axis) {
  return a->c[axis] < b->c[axis] || (a->c[axis] == b->c[axis] && a->index < b->index);
}

// puts the k-th smallest item (by axis) at k, smaller ones before it and larger ones after
static void quickselect(bvh_item* items, int n, int k, int axis) {
  int lo = 0, hi = n - 1;
  while (hi > lo) {
    // median of three as the pivot
    int mid = lo + (hi - lo) / 2;
    bvh_item x = items[lo], y = items[mid], z = items[hi], pivot;
    if (item_less(&x, &y, axis)) {
      pivot = item_less(&y, &z, axis) ? y : (item_less(&x, &z, axis) ? z : x);
    } else {
      pivot = item_less(&x, &z, axis) ? x : (item_less(&y, &z, axis) ? z : y);
    }
    int i = lo, j = hi;
    while (i <= j) {
      while (item_less(&items[i], &pivot, axis)) i++;
      while (item_less(&pivot, &items[j], axis)) j--;
      if (i <= j) {
        bvh_item t = items[i];
        items[i] = items[j], items[j] = t;
        i++, j--;
      }
    }
    if (k <= j) {
      hi = j;
    } else if (k >= i) {
      lo = i;
    } else {
      break;
    }
  }
}

typedef struct bvh_builder {
  bvh_item* items;
  const double* tri;  // (ntri x 9) in mesh order
  tf_bvh_node* node;
  int nnode;
} bvh_builder;

// builds the subtree over items[first, first + count); returns its node index
static int build_node(bvh_builder* b, int first, int count) {
  int id = b->nnode++;
  tf_bvh_node* node = &b->node[id];
  double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int k = 0; k < 3; k++) node->lo[k] = INFINITY, node->hi[k] = -INFINITY;
  for (int i = first; i < first + count; i++) {
    const double* t = b->tri + 9 * (size_t)b->items[i].index;
    for (int v = 0; v < 3; v++) {
      for (int k = 0; k < 3; k++) {
        node->lo[k] = fmin(node->lo[k], t[3 * v + k]);
        node->hi[k] = fmax(node->hi[k], t[3 * v + k]);
      }
    }
    for (int k = 0; k < 3; k++) {
      clo[k] = fmin(clo[k], b->items[i].c[k]);
      chi[k] = fmax(chi[k], b->items[i].c[k]);
    }
  }
  if (count <= TF_BVH_LEAF) {
    node->start = first;
    node->count = count;
    return id;
  }
  int axis = 0;
  for (int k = 1; k < 3; k++) {
    if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
  }
  int half = count / 2;
  quickselect(b->items + first, count, half, axis);
  build_node(b, first, half);
  int second = build_node(b, first + half, count - half);
  b->node[id].start = second;
  b->node[id].count = 0;
  return id;
}

// a half-edge keyed by its welded end points, for grouping the triangles around each edge
typedef struct half_edge {
  int lo, hi;  // welded vertex ids, lo < hi
  int tri, edge;
  int forward;  // 1 if the triangle walks lo -> hi
} half_edge;

static int half_edge_cmp(const void* pa, const void* pb) {
  const half_edge* a = pa;
  const half_edge* b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  if (a->tri != b->tri) return a->tri < b->tri ? -1 : 1;
  return (a->edge > b->edge) - (a->edge < b->edge);
}

// face normals, angle-weighted vertex normals and edge normals, all in mesh face order
static int pseudo_normals(tf_mesh_bvh* out, const double* tri, const int* tri_vert, int ntri,
                          double* face_normal, double* edge_normal) {
  out->degenerate_faces = 0;
  for (int t = 0; t < ntri; t++) {
    const double* a = tri + 9 * (size_t)t;
    double u[3], w[3], n[3];
    sub3(u, a + 3, a);
    sub3(w, a + 6, a);
    cross3(n, u, w);
    double scale = fmax(dot3(u, u), dot3(w, w));
    if (!(dot3(n, n) > 1e-24 * scale * scale)) {
      n[0] = n[1] = n[2] = 0;
      out->degenerate_faces++;
    }
    normalize3(n);
    memcpy(face_normal + 3 * (size_t)t, n, sizeof(n));
    // each corner adds its angle times the face normal
    for (int v = 0; v < 3; v++) {
      double e1[3], e2[3], x[3];
      sub3(e1, a + 3 * ((v + 1) % 3), a + 3 * v);
      sub3(e2, a + 3 * ((v + 2) % 3), a + 3 * v);
      cross3(x, e1, e2);
      double angle = atan2(sqrt(dot3(x, x)), dot3(e1, e2));
      double* vn = out->vert_normal + 3 * (size_t)tri_vert[3 * t + v];
      for (int k = 0; k < 3; k++) vn[k] += angle * n[k];
    }
  }
  for (int v = 0; v < out->nvert; v++) normalize3(out->vert_normal + 3 * (size_t)v);

  half_edge* he = malloc(sizeof(half_edge) * 3 * (size_t)ntri);
  if (!he) return -1;
  for (int t = 0; t < ntri; t++) {
    for (int e = 0; e < 3; e++) {
      int u = tri_vert[3 * t + e], v = tri_vert[3 * t + (e + 1) % 3];
      half_edge h = {u < v ? u : v, u < v ? v : u, t, e, u < v};
      he[3 * (size_t)t + e] = h;
    }
  }
  size_t n = 3 * (size_t)ntri;
  qsort(he, n, sizeof(half_edge), half_edge_cmp);
  out->open_edges = out->nonmanifold_edges = 0;
  for (size_t s = 0; s < n;) {
    size_t e = s;
    double sum[3] = {0, 0, 0};
    while (e < n && he[e].lo == he[s].lo && he[e].hi == he[s].hi) {
      const double* fn = face_normal + 3 * (size_t)he[e].tri;
      for (int k = 0; k < 3; k++) sum[k] += fn[k];
      e++;
    }
    if (e - s == 1) out->open_edges++;
    if (e - s > 2 || (e - s == 2 && he[s].forward == he[s + 1].forward)) out->nonmanifold_edges++;
    normalize3(sum);
    for (size_t i = s; i < e; i++) {
      memcpy(edge_normal + 9 * (size_t)he[i].tri + 3 * (size_t)he[i].edge, sum, sizeof(sum));
    }
    s = e;
  }
  free(he);
  return 0;
}

void tf_mesh_bvh_free(tf_mesh_bvh* bvh) {
  if (!bvh) return;
  free(bvh->node);
  free(bvh->tri);
  free(bvh->tri_face);
  free(bvh->tri_vert);
  free(bvh->tri_normal);
  free(bvh->tri_edge_normal);
  free(bvh->vert_normal);
  memset(bvh, 0, sizeof(*bvh));
}

int tf_mesh_bvh_build(tf_mesh_bvh* out, const double* vert, int nvert, const int* face, int nface,
                      char* err, size_t errlen) {
  memset(out, 0, sizeof(*out));
  if (tf_mesh_check(vert, nvert, face, nface, "mesh", err, errlen)) return -1;
  size_t nt = (size_t)nface;
  int* weld = malloc(sizeof(int) * (size_t)nvert);
  double* tri = malloc(sizeof(double) * 9 * nt);  // mesh order, then BVH order
  int* tri_vert = malloc(sizeof(int) * 3 * nt);
  double* face_normal = malloc(sizeof(double) * 3 * nt);
  double* edge_normal = malloc(sizeof(double) * 9 * nt);
  bvh_item* items = malloc(sizeof(bvh_item) * nt);
  out->node = malloc(sizeof(tf_bvh_node) * 2 * nt);
  out->tri = malloc(sizeof(double) * 9 * nt);
  out->tri_face = malloc(sizeof(int) * nt);
  out->tri_vert = malloc(sizeof(int) * 3 * nt);
  out->tri_normal = malloc(sizeof(double) * 3 * nt);
  out->tri_edge_normal = malloc(sizeof(double) * 9 * nt);
  int ok = weld && tri && tri_vert && face_normal && edge_normal && items && out->node &&
           out->tri && out->tri_face && out->tri_vert && out->tri_normal && out->tri_edge_normal;
  if (ok) ok = tf_vertex_weld_map(weld, &out->nvert, vert, nvert) == 0;
  if (ok) ok = (out->vert_normal = calloc(3 * (size_t)out->nvert, sizeof(double))) != NULL;
  if (ok) {
    for (int k = 0; k < 3; k++) out->lo[k] = INFINITY, out->hi[k] = -INFINITY;
    for (size_t t = 0; t < nt; t++) {
      for (int v = 0; v < 3; v++) {
        int id = face[3 * t + v];
        tri_vert[3 * t + v] = weld[id];
        for (int k = 0; k < 3; k++) {
          double x = vert[3 * (size_t)id + k];
          tri[9 * t + 3 * v + k] = x;
          out->lo[k] = fmin(out->lo[k], x);
          out->hi[k] = fmax(out->hi[k], x);
        }
      }
      for (int k = 0; k < 3; k++) {
        items[t].c[k] = (tri[9 * t + k] + tri[9 * t + 3 + k] + tri[9 * t + 6 + k]) / 3.0;
      }
      items[t].index = (int)t;
    }
    ok = pseudo_normals(out, tri, tri_vert, nface, face_normal, edge_normal) == 0;
  }
  if (ok) {
    bvh_builder b = {items, tri, out->node, 0};
    build_node(&b, 0, nface);
    out->nnode = b.nnode;
    out->ntri = nface;
    // triangle data in leaf order
    for (size_t i = 0; i < nt; i++) {
      size_t t = (size_t)items[i].index;
      memcpy(out->tri + 9 * i, tri + 9 * t, sizeof(double) * 9);
      memcpy(out->tri_vert + 3 * i, tri_vert + 3 * t, sizeof(int) * 3);
      memcpy(out->tri_normal + 3 * i, face_normal + 3 * t, sizeof(double) * 3);
      memcpy(out->tri_edge_normal + 9 * i, edge_normal + 9 * t, sizeof(double) * 9);
      out->tri_face[i] = (int)t;
    }
    tf_bvh_node* shrunk = realloc(out->node, sizeof(tf_bvh_node) * (size_t)out->nnode);
    if (shrunk) out->node = shrunk;
  }
  free(weld);
  free(tri);
  free(tri_vert);
  free(face_normal);
  free(edge_normal);
  free(items);
  if (!ok) {
    tf_mesh_bvh_free(out);
    return tf_fail(err, errlen, "mesh: out of memory building the BVH of %d triangles", nface);
  }
  return 0;
}

// ---------------------------------------------------------------- queries

// squared distance from p to a node's box (0 inside)
static double box_dist2(const tf_bvh_node* n, const double p[3]) {
  double d2 = 0;
  for (int k = 0; k < 3; k++) {
    double d = n->lo[k] - p[k];
    if (d < 0) d = p[k] - n->hi[k];
    if (d > 0) d2 += d * d;
  }
  return d2;
}

// tests triangle t against the best so far; the distance to the triangle's plane is a lower
// bound of the distance to the triangle, so a plane at least as far as the best is skipped
static void try_triangle(tf_mesh_hit* best, const tf_mesh_bvh* bvh, const double p[3], int t) {
  const double* v = bvh->tri + 9 * (size_t)t;
  const double* n = bvh->tri_normal + 3 * (size_t)t;
  double plane = n[0] * (p[0] - v[0]) + n[1] * (p[1] - v[1]) + n[2] * (p[2] - v[2]);
  if (plane * plane >= best->dist2) return;
  double q[3], d[3];
  int feature = tf_triangle_closest(q, p, v, v + 3, v + 6);
  sub3(d, p, q);
  double d2 = dot3(d, d);
  if (d2 < best->dist2) {
    best->dist2 = d2;
    memcpy(best->point, q, sizeof(q));
    best->tri = t;
    best->feature = feature;
  }
}

void tf_mesh_bvh_nearest(tf_mesh_hit* out, const tf_mesh_bvh* bvh, const double p[3], int hint) {
  out->dist2 = INFINITY;
  out->tri = out->face = -1;
  out->feature = TF_TRI_FACE;
  if (bvh->nnode == 0) return;
  if (hint >= 0 && hint < bvh->ntri) try_triangle(out, bvh, p, hint);
  int stack[STACK_SIZE];
  double stack_d2[STACK_SIZE];
  int sp = 0;
  stack[sp] = 0, stack_d2[sp++] = box_dist2(&bvh->node[0], p);
  while (sp > 0) {
    sp--;
    if (stack_d2[sp] >= out->dist2) continue;
    const tf_bvh_node* node = &bvh->node[stack[sp]];
    if (node->count > 0) {
      for (int t = node->start; t < node->start + node->count; t++) {
        if (t != hint) try_triangle(out, bvh, p, t);
      }
      continue;
    }
    int first = stack[sp] + 1, second = node->start;
    double d_first = box_dist2(&bvh->node[first], p), d_second = box_dist2(&bvh->node[second], p);
    // push the farther child first so the nearer one is popped next
    if (d_first > d_second) {
      int ti = first;
      first = second, second = ti;
      double td = d_first;
      d_first = d_second, d_second = td;
    }
    if (d_second < out->dist2) stack[sp] = second, stack_d2[sp++] = d_second;
    if (d_first < out->dist2) stack[sp] = first, stack_d2[sp++] = d_first;
  }
  if (out->tri >= 0) out->face = bvh->tri_face[out->tri];
}

double tf_mesh_bvh_winding(const tf_mesh_bvh* bvh, const double p[3]) {
  double sum = 0;
  for (int t = 0; t < bvh->ntri; t++) {
    const double* v = bvh->tri + 9 * (size_t)t;
    double a[3], b[3], c[3], bc[3];
    sub3(a, v, p);
    sub3(b, v + 3, p);
    sub3(c, v + 6, p);
    double la = sqrt(dot3(a, a)), lb = sqrt(dot3(b, b)), lc = sqrt(dot3(c, c));
    cross3(bc, b, c);
    double num = dot3(a, bc);
    double den = la * lb * lc + dot3(a, b) * lc + dot3(a, c) * lb + dot3(b, c) * la;
    sum += atan2(num, den);
  }
  return sum / (2 * M_PI);  // each atan2 is half a solid angle: sum 2 atan2 / 4 pi
}

double tf_mesh_bvh_signed_distance(tf_mesh_hit* hit, const tf_mesh_bvh* bvh, const double p[3],
                                   int hint, int* fallback) {
  tf_mesh_hit h;
  tf_mesh_bvh_nearest(&h, bvh, p, hint);
  if (hit) *hit = h;
  if (fallback) *fallback = 0;
  if (h.tri < 0) return INFINITY;
  double d = sqrt(h.dist2);
  if (d == 0) return 0;
  const double* n;
  if (h.feature == TF_TRI_FACE) {
    n = bvh->tri_normal + 3 * (size_t)h.tri;
  } else if (h.feature <= TF_TRI_VERT_C) {
    n = bvh->vert_normal + 3 * (size_t)bvh->tri_vert[3 * h.tri + (h.feature - TF_TRI_VERT_A)];
  } else {
    n = bvh->tri_edge_normal + 9 * (size_t)h.tri + 3 * (size_t)(h.feature - TF_TRI_EDGE_AB);
  }
  double diff[3];
  sub3(diff, p, h.point);
  double s = dot3(diff, n);
  if (fabs(s) > 1e-6 * d) return s > 0 ? d : -d;
  if (fallback) *fallback = 1;
  return tf_mesh_bvh_winding(bvh, p) > 0.5 ? -d : d;
}
