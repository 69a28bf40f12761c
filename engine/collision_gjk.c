// Distance and penetration between convex shapes: support functions, GJK, EPA.
//
// Everything is phrased on the configuration-space obstacle C = A - B = {a - b}: the shapes
// are apart by |v| where v is the point of C closest to the origin, and overlap when the
// origin lies inside C. C is never built; it is sampled through its support mapping
//   s_C(d) = s_A(d) - s_B(-d),   s_X(d) = argmax_{x in X} d . x.
//
// GJK (Gilbert, Johnson and Keerthi, IEEE J. Robotics and Automation 1988; van den Bergen,
// "Collision Detection in Interactive 3D Environments", 2003, ch. 4) keeps a simplex W of at
// most four points of C and its point v closest to the origin. Each step adds w = s_C(-v)
// and replaces W by the smallest face of conv(W + w) that holds the new closest point
// (Voronoi regions of points, edges and triangles as in Ericson, "Real-Time Collision
// Detection", 5.1.5-5.1.6). Since v . w / |v| is a lower bound on the distance and |v| an
// upper bound, the loop stops when |v|^2 - v . w <= eps |v|, when w repeats a vertex of W, or
// when |v| stops decreasing (roundoff); polytopes finish exactly in a few steps. The witness
// points are the same barycentric combinations of the A and B halves of W's vertices.
//
// Spheres and capsules enter GJK as their cores (a point, a segment) and their radii are
// added back afterwards: A + ball(ra) - (B + ball(rb)) = C_core + ball(ra + rb), so the
// signed distance is d_core - ra - rb exactly, for separated and shallowly overlapping pairs
// alike, and curved shapes never slow GJK down.
//
// When the cores touch or overlap, EPA (van den Bergen 2001, "Proximity queries and
// penetration depth computation on 3D game objects") grows a polytope inside C from the final
// GJK simplex: take the polytope face closest to the origin, add s_C(n_face), delete the
// faces that see the new point (a depth-first walk over face neighbours from the closest
// face, so the deleted set stays connected) and close the hole with a fan to the new point.
// When s_C(n) . n - d_face <= eps the face lies on the boundary of C: the depth is d_face,
// the normal from a to b is n_face, and the witnesses are the barycentric combination of
// the foot point d_face n_face in the face the ray along n_face leaves the polytope through
// (a flat face of C is tiled by coplanar triangles at equal distance; only one holds the
// foot). d_face is a lower bound on the depth and h(n) = s_C(n) . n an upper bound reached
// exactly by translating b by h(n) n; if EPA stops unconverged (caps, or a C whose deepest
// directions form a continuum, as for two coincident cylinders) the least h(n) seen is
// reported with its support points. The simplex is first grown to a tetrahedron
// by support points off its line or plane; if C has no thickness there (two sphere centres
// that coincide, crossing capsule axes) the core depth is zero along C's flat normal and the
// depth is exactly ra + rb.
//
// Plane x convex needs none of this: the deepest point of b is s_B(-n_plane).
//
// Tolerances are relative to the pair's size scale (extents plus centre distance): GJK stops
// at 1e-12 relative / 1e-15 scale, EPA at 1e-12 scale; iterations and polytope sizes are
// capped, and every cap returns the best answer found so far.
#include <float.h>
#include <math.h>
#include <string.h>

#include "collision.h"
#include "tf_math.h"

#define GJK_MAX_ITER 128
#define GJK_REL_TOL 1e-12    // relative gap between the distance bounds at convergence
#define GJK_ABS_TOL 1e-15    // the same, absolute, times the pair scale
#define GJK_TOUCH_TOL 1e-13  // |v| below this times the scale: the cores touch, go to EPA
#define EPA_MAX_ITER 128
#define EPA_MAX_VERT 132
#define EPA_MAX_FACE 264
#define EPA_TOL 1e-12          // support gap at convergence, times the pair scale
#define EPA_FLAT_TOL 1e-10     // thickness below which C counts as flat, times the scale
#define EPA_VISIBLE_TOL 1e-14  // a face sees the new point above this height, times the scale

// ---------------------------------------------------------------------------------------------
// support mappings

// farthest point in the geom frame of the shape (its core when core is set: a sphere's
// centre, a capsule's segment) in the local direction d
static void support_local(double out[3], const tf_shape* s, const double d[3], int core) {
  const double* size = s->size;
  switch (s->type) {
    case TF_GEOM_SPHERE: {
      out[0] = out[1] = out[2] = 0;
      if (core) return;
      double n = tf_vec3_norm(d);
      if (n > 0) {
        tf_vec3_scale(out, d, size[0] / n);
      } else {
        out[2] = size[0];
      }
      return;
    }
    case TF_GEOM_CAPSULE: {
      out[0] = out[1] = 0;
      out[2] = d[2] >= 0 ? size[1] : -size[1];
      if (core) return;
      double n = tf_vec3_norm(d);
      if (n > 0) {
        for (int k = 0; k < 3; k++) out[k] += size[0] * d[k] / n;
      } else {
        out[2] += size[0];
      }
      return;
    }
    case TF_GEOM_BOX:
      for (int k = 0; k < 3; k++) out[k] = d[k] >= 0 ? size[k] : -size[k];
      return;
    case TF_GEOM_CYLINDER: {
      double r = hypot(d[0], d[1]);
      out[0] = r > 0 ? size[0] * d[0] / r : 0;
      out[1] = r > 0 ? size[0] * d[1] / r : 0;
      out[2] = d[2] >= 0 ? size[1] : -size[1];
      return;
    }
    case TF_GEOM_HULL: {
      const tf_hull_view* h = &s->hull;
      int best = 0;
      double best_dot = -INFINITY;
      for (int i = 0; i < h->nvert; i++) {
        double dot = tf_vec3_dot(h->vert + 3 * i, d);
        if (dot > best_dot) best_dot = dot, best = i;
      }
      if (h->nvert > 0) {
        tf_vec3_copy(out, h->vert + 3 * best);
      } else {
        out[0] = out[1] = out[2] = 0;
      }
      return;
    }
    default:
      out[0] = out[1] = out[2] = 0;
      return;
  }
}

// world support point: rotate the direction into the geom frame and the answer back out
static void shape_support(double out[3], const tf_shape* s, const double dir[3], int core) {
  double d[3], p[3];
  tf_mat3_mul_vec_t(d, s->mat, dir);
  support_local(p, s, d, core);
  tf_mat3_mul_vec(out, s->mat, p);
  tf_vec3_add(out, out, s->pos);
}

// the full shape's support, for callers outside the distance query
void tf_support(double out[3], const tf_shape* s, const double dir[3]) {
  shape_support(out, s, dir, 0);
}

// the radius a core is inflated by (spheres and capsules), zero for the rest
static double shape_radius(const tf_shape* s) {
  return (s->type == TF_GEOM_SPHERE || s->type == TF_GEOM_CAPSULE) ? s->size[0] : 0;
}

// ---------------------------------------------------------------------------------------------
// the configuration-space obstacle

// a point of C with the two shape points it came from: w = a - b
typedef struct cso_vertex {
  double w[3];
  double a[3];
  double b[3];
} cso_vertex;

typedef struct cso_pair {
  const tf_shape* a;
  const tf_shape* b;
  double scale;  // size of the problem, for tolerances (m)
} cso_pair;

// support point of the cores' C in direction dir
static void cso_support(cso_vertex* out, const cso_pair* p, const double dir[3]) {
  double neg[3] = {-dir[0], -dir[1], -dir[2]};
  shape_support(out->a, p->a, dir, 1);
  shape_support(out->b, p->b, neg, 1);
  tf_vec3_sub(out->w, out->a, out->b);
}

typedef struct gjk_simplex {
  int n;
  cso_vertex v[4];
  double lambda[4];  // barycentric weights of the closest point
} gjk_simplex;

// ---------------------------------------------------------------------------------------------
// closest points of simplices to the origin (Ericson 5.1.5 with P = 0)

// segment AB: weights of the closest point, and the point
static void closest_segment(double lam[2], double v[3], const double A[3], const double B[3]) {
  double ab[3];
  tf_vec3_sub(ab, B, A);
  double den = tf_vec3_dot(ab, ab);
  double t = den > 0 ? -tf_vec3_dot(A, ab) / den : 0;
  if (t <= 0) {
    lam[0] = 1, lam[1] = 0;
    tf_vec3_copy(v, A);
  } else if (t >= 1) {
    lam[0] = 0, lam[1] = 1;
    tf_vec3_copy(v, B);
  } else {
    lam[0] = 1 - t, lam[1] = t;
    for (int k = 0; k < 3; k++) v[k] = A[k] + t * ab[k];
  }
}

// triangle ABC by its Voronoi regions; an interior closest point is taken along the unit
// normal (n . A) n, which keeps its direction accurate when it is tiny
static void closest_triangle(double lam[3], double v[3], const double A[3], const double B[3],
                             const double C[3]) {
  double ab[3], ac[3];
  tf_vec3_sub(ab, B, A);
  tf_vec3_sub(ac, C, A);
  lam[0] = lam[1] = lam[2] = 0;
  double d1 = -tf_vec3_dot(ab, A), d2 = -tf_vec3_dot(ac, A);
  if (d1 <= 0 && d2 <= 0) {
    lam[0] = 1;
    tf_vec3_copy(v, A);
    return;
  }
  double d3 = -tf_vec3_dot(ab, B), d4 = -tf_vec3_dot(ac, B);
  if (d3 >= 0 && d4 <= d3) {
    lam[1] = 1;
    tf_vec3_copy(v, B);
    return;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
    double t = d1 / (d1 - d3);
    lam[0] = 1 - t, lam[1] = t;
    for (int k = 0; k < 3; k++) v[k] = A[k] + t * ab[k];
    return;
  }
  double d5 = -tf_vec3_dot(ab, C), d6 = -tf_vec3_dot(ac, C);
  if (d6 >= 0 && d5 <= d6) {
    lam[2] = 1;
    tf_vec3_copy(v, C);
    return;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
    double t = d2 / (d2 - d6);
    lam[0] = 1 - t, lam[2] = t;
    for (int k = 0; k < 3; k++) v[k] = A[k] + t * ac[k];
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0 && (d4 - d3) + (d5 - d6) > 0) {
    double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    lam[1] = 1 - t, lam[2] = t;
    for (int k = 0; k < 3; k++) v[k] = B[k] + t * (C[k] - B[k]);
    return;
  }
  double n[3];
  tf_vec3_cross(n, ab, ac);
  double area = tf_vec3_normalize(n);
  double den = va + vb + vc;
  if (!(den > 0) || !(area > 0)) {
    // degenerate (collinear) triangle: the best of its three edges
    double best = INFINITY, l2[2], p[3];
    const double* pts[3] = {A, B, C};
    for (int e = 0; e < 3; e++) {
      closest_segment(l2, p, pts[e], pts[(e + 1) % 3]);
      double d = tf_vec3_dot(p, p);
      if (d < best) {
        best = d;
        lam[0] = lam[1] = lam[2] = 0;
        lam[e] = l2[0];
        lam[(e + 1) % 3] = l2[1];
        tf_vec3_copy(v, p);
      }
    }
    return;
  }
  lam[1] = vb / den, lam[2] = vc / den;
  lam[0] = 1 - lam[1] - lam[2];
  tf_vec3_scale(v, n, tf_vec3_dot(n, A));
}

// the faces of a tetrahedron (i, j, k) and the vertex l opposite each
static const int tetra_faces[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};

// replaces the simplex by its sub-simplex holding the point closest to the origin, writes
// that point; returns 1 when the origin is inside the tetrahedron (the shapes' cores overlap)
static int simplex_reduce(gjk_simplex* s, double v[3]) {
  double lam[4] = {0, 0, 0, 0};
  switch (s->n) {
    case 1:
      lam[0] = 1;
      tf_vec3_copy(v, s->v[0].w);
      break;
    case 2:
      closest_segment(lam, v, s->v[0].w, s->v[1].w);
      break;
    case 3:
      closest_triangle(lam, v, s->v[0].w, s->v[1].w, s->v[2].w);
      break;
    default: {
      double e1[3], e2[3], e3[3], c[3];
      tf_vec3_sub(e1, s->v[1].w, s->v[0].w);
      tf_vec3_sub(e2, s->v[2].w, s->v[0].w);
      tf_vec3_sub(e3, s->v[3].w, s->v[0].w);
      tf_vec3_cross(c, e2, e3);
      double vol = tf_vec3_dot(e1, c);
      // a flat tetrahedron has no inside worth testing: take the best of its faces
      int flat = !(fabs(vol) > 1e-12 * tf_vec3_norm(e1) * tf_vec3_norm(e2) * tf_vec3_norm(e3));
      double best = INFINITY, bary[4];
      int any = 0;
      for (int f = 0; f < 4; f++) {
        const int* t = tetra_faces[f];
        const double *P = s->v[t[0]].w, *Q = s->v[t[1]].w, *R = s->v[t[2]].w, *L = s->v[t[3]].w;
        double pq[3], pr[3], pl[3], nrm[3];
        tf_vec3_sub(pq, Q, P);
        tf_vec3_sub(pr, R, P);
        tf_vec3_sub(pl, L, P);
        tf_vec3_cross(nrm, pq, pr);
        double side_origin = -tf_vec3_dot(nrm, P), side_l = tf_vec3_dot(nrm, pl);
        bary[t[3]] = side_l != 0 ? side_origin / side_l : 0;
        if (!flat && side_origin * side_l > 0) continue;
        any = 1;
        double l3[3], p[3];
        closest_triangle(l3, p, P, Q, R);
        double d = tf_vec3_dot(p, p);
        if (d < best) {
          best = d;
          lam[0] = lam[1] = lam[2] = lam[3] = 0;
          for (int k = 0; k < 3; k++) lam[t[k]] = l3[k];
          tf_vec3_copy(v, p);
        }
      }
      if (!any) {
        for (int k = 0; k < 4; k++) s->lambda[k] = bary[k];
        v[0] = v[1] = v[2] = 0;
        return 1;
      }
      break;
    }
  }
  // keep only the vertices that carry weight
  int m = 0;
  for (int k = 0; k < s->n; k++) {
    if (lam[k] > 0) {
      s->v[m] = s->v[k];
      s->lambda[m] = lam[k];
      m++;
    }
  }
  if (m == 0) {  // cannot happen with finite input; keep one vertex rather than none
    s->lambda[0] = 1;
    m = 1;
  }
  s->n = m;
  return 0;
}

// ---------------------------------------------------------------------------------------------
// GJK

enum { GJK_SEPARATED = 0, GJK_TOUCHING = 1 };

// runs GJK on the cores; leaves the final simplex (with weights) and its closest point v
static int gjk(const cso_pair* p, gjk_simplex* s, double v[3]) {
  double dir[3];
  tf_vec3_sub(dir, p->b->pos, p->a->pos);
  if (!(tf_vec3_dot(dir, dir) > 0)) dir[0] = 1, dir[1] = dir[2] = 0;
  cso_support(&s->v[0], p, dir);
  s->n = 1;
  s->lambda[0] = 1;
  tf_vec3_copy(v, s->v[0].w);
  double vv = tf_vec3_dot(v, v);
  double touch = GJK_TOUCH_TOL * p->scale, same = GJK_ABS_TOL * p->scale;
  for (int iter = 0; iter < GJK_MAX_ITER; iter++) {
    if (!(vv > touch * touch)) return GJK_TOUCHING;
    double vn = sqrt(vv);
    cso_vertex w;
    double neg[3] = {-v[0], -v[1], -v[2]};
    cso_support(&w, p, neg);
    double gap = vv - tf_vec3_dot(v, w.w);  // |v| (upper bound - lower bound)
    if (gap <= vn * fmax(GJK_REL_TOL * vn, GJK_ABS_TOL * p->scale)) return GJK_SEPARATED;
    for (int k = 0; k < s->n; k++) {
      double d[3];
      tf_vec3_sub(d, w.w, s->v[k].w);
      if (tf_vec3_dot(d, d) <= same * same) return GJK_SEPARATED;
    }
    gjk_simplex prev = *s;
    double vprev[3] = {v[0], v[1], v[2]};
    s->v[s->n++] = w;
    if (simplex_reduce(s, v)) return GJK_TOUCHING;
    double vv_new = tf_vec3_dot(v, v);
    if (!(vv_new < vv)) {  // roundoff: no more progress, keep the better simplex
      *s = prev;
      tf_vec3_copy(v, vprev);
      return GJK_SEPARATED;
    }
    vv = vv_new;
  }
  return GJK_SEPARATED;
}

// the two shape points of the simplex's weighted closest point
static void simplex_witness(double ca[3], double cb[3], const gjk_simplex* s) {
  ca[0] = ca[1] = ca[2] = cb[0] = cb[1] = cb[2] = 0;
  for (int k = 0; k < s->n; k++) {
    for (int i = 0; i < 3; i++) {
      ca[i] += s->lambda[k] * s->v[k].a[i];
      cb[i] += s->lambda[k] * s->v[k].b[i];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// EPA

typedef struct epa_face {
  int v[3];     // vertex indices, counter-clockwise seen from outside
  int adj[3];   // face across edge k = (v[k], v[k+1])
  double n[3];  // outward unit normal
  double d;     // n . v: distance of the plane from the origin
  int alive;
} epa_face;

typedef struct epa_poly {
  cso_vertex vert[EPA_MAX_VERT];
  int nvert;
  epa_face face[EPA_MAX_FACE];
  int nface;  // slots used (alive or not)
  int horizon_face[EPA_MAX_VERT];
  int horizon_edge[EPA_MAX_VERT];
  int nhorizon;
  int overflow;
} epa_poly;

typedef struct epa_result {
  double depth;      // distance of the origin from the boundary of C
  double normal[3];  // C's outward normal there: from a to b
  double ca[3];      // core witness on a
  double cb[3];      // core witness on b
} epa_result;

// a new face (i, j, k) with its plane; returns its slot or -1 when the face is degenerate or
// the polytope is full
static int epa_add_face(epa_poly* P, int i, int j, int k) {
  int f = -1;
  for (int s = 0; s < P->nface; s++) {
    if (!P->face[s].alive) {
      f = s;
      break;
    }
  }
  if (f < 0) {
    if (P->nface == EPA_MAX_FACE) return -1;
    f = P->nface++;
  }
  epa_face* F = &P->face[f];
  const double *a = P->vert[i].w, *b = P->vert[j].w, *c = P->vert[k].w;
  double ab[3], ac[3];
  tf_vec3_sub(ab, b, a);
  tf_vec3_sub(ac, c, a);
  tf_vec3_cross(F->n, ab, ac);
  double area = tf_vec3_normalize(F->n);
  if (!(area > 1e-12 * tf_vec3_norm(ab) * tf_vec3_norm(ac))) return -1;
  F->d = (tf_vec3_dot(F->n, a) + tf_vec3_dot(F->n, b) + tf_vec3_dot(F->n, c)) / 3;
  F->v[0] = i, F->v[1] = j, F->v[2] = k;
  F->adj[0] = F->adj[1] = F->adj[2] = -1;
  F->alive = 1;
  return f;
}

// the edge of face g that runs from vertex a to vertex b, or -1
static int epa_find_edge(const epa_face* g, int a, int b) {
  for (int e = 0; e < 3; e++) {
    if (g->v[e] == a && g->v[(e + 1) % 3] == b) return e;
  }
  return -1;
}

// grows a GJK simplex around the origin to a tetrahedron of C; returns -1 when C is flat
// (no support point leaves the simplex's line or plane), writing C's flat normal
static int epa_grow_simplex(const cso_pair* p, gjk_simplex* s, double flat[3]) {
  double tol = EPA_FLAT_TOL * p->scale;
  // drop vertices that do not add a dimension
  cso_vertex keep[4];
  int m = 0;
  for (int k = 0; k < s->n; k++) {
    double d[3], c[3];
    const double* w = s->v[k].w;
    double off = 0;
    if (m == 0) {
      off = INFINITY;
    } else if (m == 1) {
      tf_vec3_sub(d, w, keep[0].w);
      off = tf_vec3_norm(d);
    } else if (m == 2) {
      double e[3];
      tf_vec3_sub(e, keep[1].w, keep[0].w);
      tf_vec3_normalize(e);
      tf_vec3_sub(d, w, keep[0].w);
      tf_vec3_cross(c, d, e);
      off = tf_vec3_norm(c);
    } else {
      double e1[3], e2[3];
      tf_vec3_sub(e1, keep[1].w, keep[0].w);
      tf_vec3_sub(e2, keep[2].w, keep[0].w);
      tf_vec3_cross(c, e1, e2);
      tf_vec3_normalize(c);
      tf_vec3_sub(d, w, keep[0].w);
      off = fabs(tf_vec3_dot(d, c));
    }
    if (off > tol) keep[m++] = s->v[k];
  }
  flat[0] = flat[1] = 0, flat[2] = 1;
  while (m < 4) {
    cso_vertex best_v;
    double best = -1;
    if (m == 1) {
      // any direction: the six axes
      for (int t = 0; t < 6; t++) {
        double dir[3] = {0, 0, 0}, d[3];
        dir[t / 2] = (t % 2) ? -1 : 1;
        cso_vertex c;
        cso_support(&c, p, dir);
        tf_vec3_sub(d, c.w, keep[0].w);
        double off = tf_vec3_norm(d);
        if (off > best) best = off, best_v = c;
      }
    } else if (m == 2) {
      // six directions around the line
      double e[3], u[3] = {0, 0, 0}, t2[3];
      tf_vec3_sub(e, keep[1].w, keep[0].w);
      tf_vec3_normalize(e);
      int axis = 0;
      for (int k = 1; k < 3; k++) {
        if (fabs(e[k]) < fabs(e[axis])) axis = k;
      }
      u[axis] = 1;
      tf_vec3_cross(t2, e, u);
      tf_vec3_normalize(t2);
      tf_vec3_cross(u, t2, e);
      tf_vec3_copy(flat, u);
      for (int t = 0; t < 6; t++) {
        double ang = t * (M_PI / 3), dir[3], d[3], c3[3];
        for (int k = 0; k < 3; k++) dir[k] = cos(ang) * u[k] + sin(ang) * t2[k];
        cso_vertex c;
        cso_support(&c, p, dir);
        tf_vec3_sub(d, c.w, keep[0].w);
        tf_vec3_cross(c3, d, e);
        double off = tf_vec3_norm(c3);
        if (off > best) best = off, best_v = c;
      }
    } else {
      // both sides of the plane
      double e1[3], e2[3], nrm[3];
      tf_vec3_sub(e1, keep[1].w, keep[0].w);
      tf_vec3_sub(e2, keep[2].w, keep[0].w);
      tf_vec3_cross(nrm, e1, e2);
      tf_vec3_normalize(nrm);
      tf_vec3_copy(flat, nrm);
      for (int t = 0; t < 2; t++) {
        double dir[3], d[3];
        tf_vec3_scale(dir, nrm, t ? -1 : 1);
        cso_vertex c;
        cso_support(&c, p, dir);
        tf_vec3_sub(d, c.w, keep[0].w);
        double off = fabs(tf_vec3_dot(d, nrm));
        if (off > best) best = off, best_v = c;
      }
    }
    if (!(best > tol)) return -1;
    keep[m++] = best_v;
  }
  s->n = 4;
  for (int k = 0; k < 4; k++) s->v[k] = keep[k];
  return 0;
}

// the initial tetrahedron, faces outward, neighbours linked
static int epa_init(epa_poly* P, const gjk_simplex* s) {
  P->nvert = 4;
  P->nface = 0;
  for (int k = 0; k < 4; k++) P->vert[k] = s->v[k];
  double e1[3], e2[3], e3[3], c[3];
  tf_vec3_sub(e1, P->vert[1].w, P->vert[0].w);
  tf_vec3_sub(e2, P->vert[2].w, P->vert[0].w);
  tf_vec3_sub(e3, P->vert[3].w, P->vert[0].w);
  tf_vec3_cross(c, e2, e3);
  if (tf_vec3_dot(e1, c) < 0) {  // make (1 - 0) . ((2 - 0) x (3 - 0)) positive
    cso_vertex t = P->vert[1];
    P->vert[1] = P->vert[2];
    P->vert[2] = t;
  }
  static const int tri[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  for (int f = 0; f < 4; f++) {
    if (epa_add_face(P, tri[f][0], tri[f][1], tri[f][2]) != f) return -1;
  }
  for (int f = 0; f < 4; f++) {
    for (int e = 0; e < 3; e++) {
      int a = P->face[f].v[e], b = P->face[f].v[(e + 1) % 3];
      for (int g = 0; g < 4; g++) {
        if (g != f && epa_find_edge(&P->face[g], b, a) >= 0) P->face[f].adj[e] = g;
      }
      if (P->face[f].adj[e] < 0) return -1;
    }
  }
  return 0;
}

// whether face f sees the point w from outside
static int epa_visible(const epa_poly* P, int f, const double w[3], double tol) {
  const epa_face* F = &P->face[f];
  double d[3];
  tf_vec3_sub(d, w, P->vert[F->v[0]].w);
  return tf_vec3_dot(F->n, d) > tol;
}

// deletes the visible face f and, depth first, every visible face connected to it; the
// edges where a deleted face meets a kept one form the horizon
static void epa_silhouette(epa_poly* P, int f, const double w[3], double tol) {
  P->face[f].alive = 0;
  for (int e = 0; e < 3; e++) {
    int g = P->face[f].adj[e];
    if (g < 0 || !P->face[g].alive) continue;
    if (epa_visible(P, g, w, tol)) {
      epa_silhouette(P, g, w, tol);
    } else {
      int a = P->face[f].v[e], b = P->face[f].v[(e + 1) % 3];
      if (P->nhorizon == EPA_MAX_VERT) {
        P->overflow = 1;
        continue;
      }
      P->horizon_face[P->nhorizon] = g;
      P->horizon_edge[P->nhorizon] = epa_find_edge(&P->face[g], b, a);
      P->nhorizon++;
    }
  }
}

// adds vertex w (already stored at index iw) seen by face f: removes what it sees and fans
// the horizon to it; returns -1 when the polytope's topology broke down
static int epa_expand(epa_poly* P, int f, int iw, double tol) {
  P->nhorizon = 0;
  P->overflow = 0;
  epa_silhouette(P, f, P->vert[iw].w, tol);
  if (P->overflow || P->nhorizon < 3) return -1;
  int first_from[EPA_MAX_VERT];  // new face whose first vertex is this horizon vertex
  for (int k = 0; k < P->nvert; k++) first_from[k] = -1;
  int made[EPA_MAX_VERT];
  for (int h = 0; h < P->nhorizon; h++) {
    int g = P->horizon_face[h], e = P->horizon_edge[h];
    if (e < 0) return -1;
    int a = P->face[g].v[(e + 1) % 3], b = P->face[g].v[e];
    int nf = epa_add_face(P, a, b, iw);
    if (nf < 0) return -1;
    P->face[nf].adj[0] = g;
    P->face[g].adj[e] = nf;
    if (first_from[a] >= 0) return -1;  // the horizon is not a simple loop
    first_from[a] = nf;
    made[h] = nf;
  }
  for (int h = 0; h < P->nhorizon; h++) {
    int nf = made[h];
    int b = P->face[nf].v[1];
    int next = first_from[b];  // its edge (w, b) is our edge (b, w) reversed
    if (next < 0) return -1;
    P->face[nf].adj[1] = next;
    P->face[next].adj[2] = nf;
  }
  return 0;
}

// barycentric coordinates of the point p in the plane of face f (unclamped)
static void epa_barycentric(double lam[3], const epa_poly* P, int f, const double p[3]) {
  const epa_face* F = &P->face[f];
  const double *A = P->vert[F->v[0]].w, *B = P->vert[F->v[1]].w, *C = P->vert[F->v[2]].w;
  double e0[3], e1[3], e2[3];
  tf_vec3_sub(e0, B, A);
  tf_vec3_sub(e1, C, A);
  tf_vec3_sub(e2, p, A);
  double d00 = tf_vec3_dot(e0, e0), d01 = tf_vec3_dot(e0, e1), d11 = tf_vec3_dot(e1, e1);
  double d20 = tf_vec3_dot(e2, e0), d21 = tf_vec3_dot(e2, e1);
  double den = d00 * d11 - d01 * d01;
  lam[1] = den > 0 ? (d11 * d20 - d01 * d21) / den : 0;
  lam[2] = den > 0 ? (d00 * d21 - d01 * d20) / den : 0;
  lam[0] = 1 - lam[1] - lam[2];
}

// depth and normal of the closest face f; the witnesses come from the face the ray from the
// origin along its normal leaves the polytope through. That is f itself or a face coplanar
// with it (several triangles can tile one flat face of C, all at the same distance), and
// only that one holds the foot point in barycentric coordinates.
static void epa_face_result(epa_result* r, const epa_poly* P, int f) {
  const epa_face* F = &P->face[f];
  r->depth = F->d;
  tf_vec3_copy(r->normal, F->n);
  int best = f;
  double lam[3], best_lam[3], best_out = INFINITY;
  double foot[3];
  tf_vec3_scale(foot, F->n, F->d);
  epa_barycentric(best_lam, P, f, foot);
  best_out = -fmin(best_lam[0], fmin(best_lam[1], best_lam[2]));
  for (int g = 0; g < P->nface && best_out > 0; g++) {
    const epa_face* G = &P->face[g];
    double cosang = tf_vec3_dot(G->n, F->n);
    if (!G->alive || g == f || cosang <= 0) continue;
    double hit[3];
    tf_vec3_scale(hit, F->n, G->d / cosang);
    epa_barycentric(lam, P, g, hit);
    double out = -fmin(lam[0], fmin(lam[1], lam[2]));
    if (out < best_out) {
      best_out = out, best = g;
      for (int k = 0; k < 3; k++) best_lam[k] = lam[k];
    }
  }
  double sum = 0;
  for (int k = 0; k < 3; k++) {
    best_lam[k] = fmax(best_lam[k], 0);
    sum += best_lam[k];
  }
  for (int k = 0; k < 3; k++) best_lam[k] = sum > 0 ? best_lam[k] / sum : 1.0 / 3;
  const epa_face* G = &P->face[best];
  const cso_vertex *A = &P->vert[G->v[0]], *B = &P->vert[G->v[1]], *C = &P->vert[G->v[2]];
  for (int i = 0; i < 3; i++) {
    r->ca[i] = best_lam[0] * A->a[i] + best_lam[1] * B->a[i] + best_lam[2] * C->a[i];
    r->cb[i] = best_lam[0] * A->b[i] + best_lam[1] * B->b[i] + best_lam[2] * C->b[i];
  }
}

// penetration of the cores from a GJK simplex around the origin; returns -1 (with C's flat
// normal) when C has no volume
static int epa(const cso_pair* p, const gjk_simplex* s_in, epa_result* r, double flat[3]) {
  epa_poly P_store;  // every field is written before it is read
  epa_poly* P = &P_store;
  gjk_simplex s = *s_in;
  if (epa_grow_simplex(p, &s, flat)) return -1;
  if (epa_init(P, &s)) return -1;
  double tol = EPA_TOL * p->scale, vis = EPA_VISIBLE_TOL * p->scale;
  // the least support value seen, h(n) = max over C of n . w: an upper bound on the depth
  // that translating b by h n achieves exactly, reported when EPA stops unconverged
  double best_h = INFINITY, best_n[3] = {0, 0, 1};
  cso_vertex best_w;
  for (int iter = 0; iter < EPA_MAX_ITER; iter++) {
    int f = -1;
    for (int k = 0; k < P->nface; k++) {
      if (P->face[k].alive && (f < 0 || P->face[k].d < P->face[f].d)) f = k;
    }
    if (f < 0) break;
    cso_vertex w;
    cso_support(&w, p, P->face[f].n);
    double h = tf_vec3_dot(P->face[f].n, w.w);
    if (h - P->face[f].d <= tol) {
      epa_face_result(r, P, f);
      return 0;
    }
    if (h < best_h) {
      best_h = h;
      best_w = w;
      tf_vec3_copy(best_n, P->face[f].n);
    }
    if (P->nvert == EPA_MAX_VERT) break;
    int iw = P->nvert++;
    P->vert[iw] = w;
    if (epa_expand(P, f, iw, vis)) break;
  }
  if (best_h == INFINITY) return -1;  // no face at all: cannot happen after epa_init
  r->depth = best_h;
  tf_vec3_copy(r->normal, best_n);
  tf_vec3_copy(r->ca, best_w.a);
  for (int k = 0; k < 3; k++) r->cb[k] = best_w.a[k] - best_h * best_n[k];
  return 0;
}

// ---------------------------------------------------------------------------------------------
// public queries

// plane (z = 0 of its frame, solid below) against a convex shape: the shape's deepest point
static double plane_distance(const tf_shape* plane, const tf_shape* s, double pp[3], double ps[3],
                             double normal[3]) {
  double n[3] = {plane->mat[2], plane->mat[5], plane->mat[8]}, neg[3], d[3];
  tf_vec3_scale(neg, n, -1);
  tf_support(ps, s, neg);
  tf_vec3_sub(d, ps, plane->pos);
  double dist = tf_vec3_dot(n, d);
  for (int k = 0; k < 3; k++) pp[k] = ps[k] - dist * n[k];
  tf_vec3_copy(normal, n);
  return dist;
}

// GJK on the cores, EPA when they overlap, radii added back; planes in closed form
double tf_shape_distance(const tf_shape* a, const tf_shape* b, double pa[3], double pb[3],
                         double normal[3]) {
  if (a->type == TF_GEOM_PLANE && b->type == TF_GEOM_PLANE) {
    // planes never meet in this engine (both static); report them far apart
    tf_vec3_copy(pa, a->pos);
    tf_vec3_copy(pb, b->pos);
    normal[0] = a->mat[2], normal[1] = a->mat[5], normal[2] = a->mat[8];
    return DBL_MAX;
  }
  if (a->type == TF_GEOM_PLANE) return plane_distance(a, b, pa, pb, normal);
  if (b->type == TF_GEOM_PLANE) {
    double dist = plane_distance(b, a, pb, pa, normal);
    tf_vec3_scale(normal, normal, -1);
    return dist;
  }

  double centre[3];
  tf_vec3_sub(centre, b->pos, a->pos);
  cso_pair p = {a, b, tf_shape_extent(a) + tf_shape_extent(b) + tf_vec3_norm(centre)};
  double ra = shape_radius(a), rb = shape_radius(b);
  gjk_simplex s;
  double v[3], ca[3], cb[3], n[3], core;  // core: signed distance of the cores
  if (gjk(&p, &s, v) == GJK_SEPARATED) {
    simplex_witness(ca, cb, &s);
    core = tf_vec3_norm(v);
    tf_vec3_scale(n, v, -1.0 / core);
  } else {
    epa_result r;
    double flat[3];
    if (epa(&p, &s, &r, flat) == 0) {
      core = -r.depth;
      tf_vec3_copy(n, r.normal);
      tf_vec3_copy(ca, r.ca);
      tf_vec3_copy(cb, r.cb);
    } else {
      // C is flat and holds the origin: zero core depth along its normal, turned from a to b
      simplex_witness(ca, cb, &s);
      core = 0;
      tf_vec3_copy(n, flat);
      if (tf_vec3_dot(n, centre) < 0) tf_vec3_scale(n, n, -1);
    }
  }
  for (int k = 0; k < 3; k++) {
    pa[k] = ca[k] + ra * n[k];
    pb[k] = cb[k] - rb * n[k];
  }
  tf_vec3_copy(normal, n);
  return core - ra - rb;
}
