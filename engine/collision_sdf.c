// Contact generation for SDF and triangle-mesh shapes.
//
// Fields. Every pair measures points in a signed distance field phi (negative inside) with a
// gradient that points out of the solid: an SDF (analytic or grid, engine/sdf.h), the exact
// distance of a primitive (engine/sdf_primitive.h), or a hull's face-plane bound. All the work
// happens in the field's geom frame; a candidate is written in world coordinates.
//
// Surface samples against a field (X x SDF, mesh x primitive; after Narang et al., "Factory",
// RSS 2022, and CRISP section IV-B1, see /work/shared/reference/). The other shape X brings a
// triangle mesh: its own, its SDF's surface mesh, a hull's faces fanned, or a tessellation of
// the primitive (engine/mesh_primitive.h, vertices about TF_SDF_SAMPLE_SPACING apart).
//   1. vertex pass: each vertex p with phi(p) < margin is a candidate. Vertices outside the
//      field's box (inflated by margin) are not evaluated: the box distance bounds phi there.
//   2. triangle pass: a triangle can reach below margin only if max_v phi(v) - L <= margin
//      (L its longest edge, phi 1-Lipschitz). Its best vertex v is a first-order minimum over
//      the triangle when grad phi(v) . e >= 0 along both edges e leaving v (exact for convex
//      fields, and a concave field such as a bore has its minimum at a vertex anyway): the
//      vertex pass has it. Otherwise projected gradient descent over the triangle with
//      Barzilai-Borwein steps (cut x1/4 when phi does not fall; at most 12 evaluations):
//      x <- closest point of the triangle to x - alpha (grad phi - (grad phi . n) n).
//      It starts at the minimum over the triangle of the quadratic that the three cached
//      vertex values and gradients fit (no evaluation to build; kept when phi there is below
//      phi(v), else the start is v), and ends once a step gains less than 1e-6 L. BB steps
//      may be up to 1e3 L long: a flank of the helix is nearly flat along a triangle, and a
//      shorter cap turned the descent into slow fixed steps (the projection keeps x on the
//      triangle whatever alpha is). On a seated M16 nut this takes ~5 evaluations a triangle
//      where 12 fixed-cap steps took ~13, and lands closer to the converged minimum.
//      A minimum inside the triangle or on an edge is a candidate.
//   3. curved primitives (sphere, capsule, cylinder): a tessellation lies inside the true
//      surface by its sagitta, so minima found on it (triangle minima, and vertices whose
//      phi is no larger than any neighbour's) are refined on the true surface by projected
//      descent, y <- P(x - alpha grad phi) with P the closest-point map onto the sphere, the
//      capsule, or the cylinder's side or cap the point started on, alpha starting at the
//      radius, doubled on success, halved on failure. Vertex samples are already exact.
//   A candidate at surface point p of X with value phi and unit gradient g: dist = phi, the
//   field's surface point is p - phi g, pos = p - phi g / 2, and the normal from the field's
//   shape to X is g (flipped when the field's shape is b).
//   A sphere in an exact SDF (error_bound 0) needs none of this: dist = phi(c) - r, g at c.
//
// SDF x SDF (CRISP IV-B2, after MuJoCo): minimise f = phi1 + phi2 + |max(phi1, phi2)| from a
// lattice of starts over the overlap of the two world boxes (at most TF_SDF_MAX_STARTS, cells
// about cubic; a start farther than margin + half a cell diagonal from either surface is
// skipped: some other start lies within that of every point of contact). Where the gradients
// oppose (|g1 - g2| >= 1), f's minimisers lie on lines along n = (g1 - g2) / |g1 - g2| at a
// lateral stationary point of phi1 + phi2, so one descent step on f is, in two orthogonal
// parts:
//   along n: the balancing Newton step s = (phi2 - phi1) / |g1 - g2|, to f's minimum on that
//            line (separated: phi1 = phi2; overlapping, f is min(phi1, phi2) on the segment
//            between the two surfaces and phi1 + phi2 is the same all along it: we take its
//            middle);
//   across n: -alpha P(g1 + g2), the lateral part of f's (sub)gradient, with Barzilai-Borwein
//            steps alpha = (dx . dx) / (dx . d(P(g1 + g2))), at most one cell long.
// Elsewhere (gradients alike: not between the surfaces yet) a plain step down grad f. At each
// minimiser the gap is phi1 + phi2 (not f, which is 1.5 times the gap when separated), the
// normal from a to b is n, and pos the midpoint x + (phi2 - phi1) n / 2. Minimisers closer
// than a quarter cell with the same normal count once.
// Repeated features (a field's feature_size, a thread's pitch): the lattice (a seated M16
// nut's cells are ~6 mm, three pitches) meets only some copies, and found rows on both
// flanks of 2 of 5 engaged turns. A copy of a contact lies about one spacing away across the
// surfaces (a thread's next flank is a pitch up the axis, pitch cos 30 deg along its normal),
// so each minimiser seeds a start one spacing either way along its normal, unless a minimiser
// with that normal is found within 3/4 of a spacing of the seed already; the minimisers
// seeds find seed in turn (at most MAX_SEEDS starts, SEED_ITERS steps each: a seed
// starts next to a copy). The seated nut then has rows on both flanks of all 5 turns, for
// about twice the evaluations.
//
// Mesh x mesh goes through the baked SDF one of them carries (geom sdf of a TF_GEOM_MESH):
// a's surface in b's SDF, else b's in a's; with neither there is nothing to measure and the
// pair reports no points (documented limitation, not an error).
//
// Every pair streams its candidates into a reducer (engine/contact_reduce.h) whose normal bins
// are fixed in the field's frame, so no candidate array exists and no candidate count
// overflows; the reducer writes at most cap points.
#include "collision_sdf.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "contact_reduce.h"
#include "engine_math.h"
#include "mesh_primitive.h"
#include "sdf.h"
#include "sdf_primitive.h"

#define TRI_ITERS 12     // field evaluations of one triangle's descent
#define TRI_TOL 1e-6     // a triangle descent ends when a step gains less, per unit edge length
#define REFINE_ITERS 24  // field evaluations of one refinement on a curved surface
#define GD_ITERS 24      // steps of one SDF x SDF descent
// SDF x SDF: minimisers kept for counting each once, and starts seeded from them along the
// fields' repeated features (a thread's turns)
#define MAX_FOUND 256
#define MAX_SEEDS 192
#define SEED_ITERS 6  // steps of a seeded descent: it starts by a copy of a minimiser

// small vector helpers inlined here: the passes below run them per vertex and per triangle,
// thousands of times per pair (engine_math's are out of line)
static inline double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline double norm3(const double a[3]) { return sqrt(dot3(a, a)); }
static inline void sub3(double out[3], const double a[3], const double b[3]) {
  out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}
static inline void add3(double out[3], const double a[3], const double b[3]) {
  out[0] = a[0] + b[0], out[1] = a[1] + b[1], out[2] = a[2] + b[2];
}
static inline void copy3(double out[3], const double a[3]) {
  out[0] = a[0], out[1] = a[1], out[2] = a[2];
}
static inline void scale3(double out[3], const double a[3], double s) {
  out[0] = a[0] * s, out[1] = a[1] * s, out[2] = a[2] * s;
}
// out = m v and out = m^T v (m row-major)
static inline void matvec(double out[3], const double m[9], const double v[3]) {
  double x = v[0], y = v[1], z = v[2];
  out[0] = m[0] * x + m[1] * y + m[2] * z;
  out[1] = m[3] * x + m[4] * y + m[5] * z;
  out[2] = m[6] * x + m[7] * y + m[8] * z;
}
static inline void matvec_t(double out[3], const double m[9], const double v[3]) {
  double x = v[0], y = v[1], z = v[2];
  out[0] = m[0] * x + m[3] * y + m[6] * z;
  out[1] = m[1] * x + m[4] * y + m[7] * z;
  out[2] = m[2] * x + m[5] * y + m[8] * z;
}
// returns the norm; a zero vector stays zero
static inline double normalize3(double a[3]) {
  double n = norm3(a);
  if (n > 0) scale3(a, a, 1 / n);
  return n;
}

// ---------------------------------------------------------------------------------------------
// fields

enum { FIELD_SDF, FIELD_PRIMITIVE, FIELD_HULL };

typedef struct field {
  const tf_shape* shape;
  int kind;
  double lo[3], hi[3];  // a box holding the solid, geom frame (+-INFINITY: unbounded)
} field;

// whether a shape carries an SDF that can be evaluated
static int sdf_present(const tf_sdf_view* v) {
  return v->fn != NULL || (v->grid != NULL && v->res[0] > 1 && v->res[1] > 1 && v->res[2] > 1);
}

// a field over shape s: its SDF, its exact primitive distance or its hull's plane bound
static void field_init(field* f, const tf_shape* s, int kind) {
  f->shape = s;
  f->kind = kind;
  if (kind == FIELD_SDF) {
    for (int k = 0; k < 3; k++) f->lo[k] = s->sdf.aabb[k], f->hi[k] = s->sdf.aabb[3 + k];
  } else if (kind == FIELD_PRIMITIVE) {
    tf_primitive_aabb(f->lo, f->hi, s->type, s->size);
  } else {
    for (int k = 0; k < 3; k++) f->lo[k] = INFINITY, f->hi[k] = -INFINITY;
    for (int i = 0; i < s->hull.nvert; i++) {
      for (int k = 0; k < 3; k++) {
        f->lo[k] = fmin(f->lo[k], s->hull.vert[3 * i + k]);
        f->hi[k] = fmax(f->hi[k], s->hull.vert[3 * i + k]);
      }
    }
  }
}

// value and unit gradient at p in the field's geom frame
static double field_local(const field* f, const double p[3], double g[3]) {
  double v;
  if (f->kind == FIELD_SDF) {
    v = tf_sdf_eval(&f->shape->sdf, p, g);
    if (normalize3(g) == 0) g[0] = 0, g[1] = 0, g[2] = 1;
  } else if (f->kind == FIELD_PRIMITIVE) {
    v = tf_primitive_sdf(f->shape->type, f->shape->size, p, g);
  } else {
    v = tf_hull_sdf_bound(&f->shape->hull, p, g);
  }
  return v;
}

// value and unit gradient at a world point
static double field_world(const field* f, const double w[3], double g[3]) {
  double rel[3], p[3], gl[3];
  sub3(rel, w, f->shape->pos);
  matvec_t(p, f->shape->mat, rel);
  double v = field_local(f, p, gl);
  matvec(g, f->shape->mat, gl);
  return v;
}

// distance from p to the field's box (0 inside): a lower bound of the distance to the solid
static double box_gap(const field* f, const double p[3]) {
  double s = 0;
  for (int k = 0; k < 3; k++) {
    double below = f->lo[k] - p[k], above = p[k] - f->hi[k];
    double e = below > 0 ? below : (above > 0 ? above : 0);
    s += e * e;
  }
  return s > 0 ? sqrt(s) : 0;
}

// the field's box in world axes (unbounded boxes stay unbounded)
static void field_world_box(double lo[3], double hi[3], const field* f) {
  const tf_shape* s = f->shape;
  for (int k = 0; k < 3; k++) {
    if (!isfinite(f->lo[k]) || !isfinite(f->hi[k])) {
      for (int i = 0; i < 3; i++) lo[i] = -INFINITY, hi[i] = INFINITY;
      return;
    }
  }
  double c[3], h[3], cw[3];
  for (int k = 0; k < 3; k++)
    c[k] = 0.5 * (f->lo[k] + f->hi[k]), h[k] = 0.5 * (f->hi[k] - f->lo[k]);
  matvec(cw, s->mat, c);
  for (int k = 0; k < 3; k++) {
    double r = fabs(s->mat[3 * k]) * h[0] + fabs(s->mat[3 * k + 1]) * h[1] +
               fabs(s->mat[3 * k + 2]) * h[2];
    lo[k] = s->pos[k] + cw[k] - r;
    hi[k] = s->pos[k] + cw[k] + r;
  }
}

// ---------------------------------------------------------------------------------------------
// surface samples against a field

enum { VERT_EVALUATED = 1, VERT_NOT_MIN = 2 };

// per-vertex memory of the vertex pass, for the triangle pass
typedef struct vertex_cache {
  double phi[TF_SDF_VERT_CACHE];     // field value, or the box lower bound when not evaluated
  float grad[TF_SDF_VERT_CACHE][3];  // unit gradient in the sampled shape's frame
  unsigned char flag[TF_SDF_VERT_CACHE];
} vertex_cache;

typedef struct sampler {
  const field* f;
  const tf_shape* x;   // the sampled shape
  const double* vert;  // its vertices, x's geom frame
  int nvert;
  double rot[9], off[3];  // x's geom frame -> the field's geom frame
  double margin;
  double sign;  // +1 when the field's shape is a (normals along the gradient), -1 when b
  int curved;   // refine minima on x's true surface
  vertex_cache* cache;
  tf_contact_reducer* red;
} sampler;

// the sampled shape's pose relative to the field, computed once per pair
static void sampler_init(sampler* s, const field* f, const tf_shape* x, double margin, double sign,
                         vertex_cache* cache, tf_contact_reducer* red) {
  memset(s, 0, sizeof(*s));
  s->f = f;
  s->x = x;
  s->margin = margin;
  s->sign = sign;
  s->cache = cache;
  s->red = red;
  const tf_shape* fs = f->shape;
  double rel[3];
  // rot = Rf^T Rx, off = Rf^T (tx - tf)
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double v = 0;
      for (int k = 0; k < 3; k++) v += fs->mat[3 * k + i] * x->mat[3 * k + j];
      s->rot[3 * i + j] = v;
    }
  }
  sub3(rel, x->pos, fs->pos);
  matvec_t(s->off, fs->mat, rel);
  s->curved =
      x->type == TF_GEOM_SPHERE || x->type == TF_GEOM_CAPSULE || x->type == TF_GEOM_CYLINDER;
}

// vertex i in the field's frame
static void vertex_position(double p[3], const sampler* s, int i) {
  matvec(p, s->rot, s->vert + 3 * i);
  add3(p, p, s->off);
}

// writes the candidate at x's surface point p (field frame) with value phi, unit gradient g
static void emit(const sampler* s, const double p[3], double phi, const double g[3]) {
  if (!(phi < s->margin)) return;
  const tf_shape* fs = s->f->shape;
  tf_contact_point c;
  double mid[3], n[3];
  for (int k = 0; k < 3; k++) mid[k] = p[k] - 0.5 * phi * g[k];
  matvec(c.pos, fs->mat, mid);
  add3(c.pos, c.pos, fs->pos);
  matvec(n, fs->mat, g);
  scale3(c.normal, n, s->sign);
  c.dist = phi;
  tf_reduce_add(s->red, &c);
}

// x's axis and centre in the field frame
static void sampled_axis(double c[3], double a[3], const sampler* s) {
  copy3(c, s->off);
  a[0] = s->rot[2], a[1] = s->rot[5], a[2] = s->rot[8];
}

// which part of a cylinder p lies on: 0 the side, +-1 a cap (rims count as caps)
static int cylinder_part(const sampler* s, const double p[3]) {
  if (s->x->type != TF_GEOM_CYLINDER) return 0;
  double c[3], a[3], rel[3];
  sampled_axis(c, a, s);
  sub3(rel, p, c);
  double z = dot3(rel, a), h = s->x->size[1];
  if (fabs(z) < h * (1 - 1e-9)) return 0;
  return z > 0 ? 1 : -1;
}

// the closest point of x's true surface to q (field frame), on the given part of a cylinder
static void project_surface(double out[3], const sampler* s, const double q[3], int part) {
  double c[3], a[3], rel[3], radial[3];
  sampled_axis(c, a, s);
  sub3(rel, q, c);
  double r = s->x->size[0], h = s->x->size[1];
  double z = dot3(rel, a);
  if (s->x->type == TF_GEOM_SPHERE) z = 0, h = 0;
  double t = fmin(fmax(z, -h), h);
  if (s->x->type == TF_GEOM_CYLINDER && part != 0) t = part * h;
  double core[3];
  for (int k = 0; k < 3; k++) core[k] = c[k] + t * a[k];
  if (s->x->type == TF_GEOM_CYLINDER) {
    for (int k = 0; k < 3; k++) radial[k] = rel[k] - z * a[k];
  } else {
    sub3(radial, q, core);
  }
  double len = norm3(radial);
  double scale = len > 0 ? r / len : 0;
  if (s->x->type == TF_GEOM_CYLINDER && part != 0) scale = fmin(scale, 1);  // inside the cap
  if (len == 0 && part == 0) {
    copy3(out, q);
    return;
  }
  for (int k = 0; k < 3; k++) out[k] = core[k] + scale * radial[k];
}

// moves a minimum found on the tessellation of a curved x to the true surface and descends
// there; x, phi, g updated in place
static void refine(const sampler* s, double x[3], double* phi, double g[3]) {
  int part = cylinder_part(s, x);
  double r = s->x->size[0], y[3], gy[3], q[3];
  project_surface(y, s, x, part);
  *phi = field_local(s->f, y, g);
  copy3(x, y);
  double alpha = r;
  for (int it = 0; it < REFINE_ITERS; it++) {
    for (int k = 0; k < 3; k++) q[k] = x[k] - alpha * g[k];
    project_surface(y, s, q, part);
    double d[3];
    sub3(d, y, x);
    if (norm3(d) <= 1e-13 + 1e-11 * r) break;
    double fy = field_local(s->f, y, gy);
    if (fy < *phi) {
      copy3(x, y);
      copy3(g, gy);
      *phi = fy;
      alpha = fmin(2 * alpha, 64 * r);
    } else {
      alpha *= 0.5;
    }
  }
}

// pass 1: every vertex; candidates for those under margin, values kept for the triangle pass
static void sample_vertices(const sampler* s) {
  vertex_cache* vc = s->cache;
  for (int i = 0; i < s->nvert; i++) {
    double p[3], g[3];
    vertex_position(p, s, i);
    double lb = box_gap(s->f, p), phi = lb;
    int evaluated = lb <= s->margin;
    if (evaluated) {
      phi = field_local(s->f, p, g);
      emit(s, p, phi, g);
    }
    if (i < TF_SDF_VERT_CACHE) {
      double gx[3] = {0, 0, 0};
      if (evaluated) matvec_t(gx, s->rot, g);
      vc->phi[i] = phi;
      vc->flag[i] = (unsigned char)(evaluated ? VERT_EVALUATED : 0);
      for (int k = 0; k < 3; k++) vc->grad[i][k] = (float)gx[k];
    }
  }
}

// marks vertices with a lower (or equal and earlier) neighbour along an edge
static void mark_edge(vertex_cache* vc, int i, int j) {
  if (i >= TF_SDF_VERT_CACHE || j >= TF_SDF_VERT_CACHE) return;
  int lower = (vc->phi[i] < vc->phi[j] || (vc->phi[i] == vc->phi[j] && i < j)) ? i : j;
  vc->flag[lower == i ? j : i] |= VERT_NOT_MIN;
}

// pass 3 of curved shapes: the vertices that are discrete local minima, refined
static void refine_vertex_minima(const sampler* s) {
  vertex_cache* vc = s->cache;
  int n = s->nvert < TF_SDF_VERT_CACHE ? s->nvert : TF_SDF_VERT_CACHE;
  for (int i = 0; i < n; i++) {
    if (!(vc->flag[i] & VERT_EVALUATED) || (vc->flag[i] & VERT_NOT_MIN)) continue;
    // the true surface lies at most a sagitta, r (1 - cos(pi / S)) < 0.05 r for S >= 12
    // segments, beyond the tessellation
    if (!(vc->phi[i] < s->margin + 0.05 * s->x->size[0])) continue;
    double p[3], g[3], phi;
    vertex_position(p, s, i);
    refine(s, p, &phi, g);
    emit(s, p, phi, g);
  }
}

// a vertex's value (or box bound) and, when evaluated, its gradient in the sampled shape's
// frame: from the cache, or afresh past its end
static int vertex_value(const sampler* s, int i, double* phi, double gx[3]) {
  if (i < TF_SDF_VERT_CACHE) {
    const vertex_cache* vc = s->cache;
    *phi = vc->phi[i];
    for (int k = 0; k < 3; k++) gx[k] = vc->grad[i][k];
    return vc->flag[i] & VERT_EVALUATED;
  }
  double p[3], g[3];
  vertex_position(p, s, i);
  double lb = box_gap(s->f, p);
  if (lb > s->margin) {
    *phi = lb;
    return 0;
  }
  *phi = field_local(s->f, p, g);
  matvec_t(gx, s->rot, g);
  return 1;
}

// closest point of triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5)
static void closest_on_triangle(double out[3], const double p[3], const double a[3],
                                const double b[3], const double c[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  sub3(ab, b, a);
  sub3(ac, c, a);
  sub3(ap, p, a);
  double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    copy3(out, a);
    return;
  }
  sub3(bp, p, b);
  double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    copy3(out, b);
    return;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    double v = d1 / (d1 - d3);
    for (int k = 0; k < 3; k++) out[k] = a[k] + v * ab[k];
    return;
  }
  sub3(cp, p, c);
  double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    copy3(out, c);
    return;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    double w = d2 / (d2 - d6);
    for (int k = 0; k < 3; k++) out[k] = a[k] + w * ac[k];
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int k = 0; k < 3; k++) out[k] = b[k] + w * (c[k] - b[k]);
    return;
  }
  double denom = 1 / (va + vb + vc), v = vb * denom, w = vc * denom;
  for (int k = 0; k < 3; k++) out[k] = a[k] + v * ab[k] + w * ac[k];
}

// the minimum over a triangle of the quadratic model of phi that its vertices' values and
// gradients fit: at x = V[k] + s E1 + t E2 (E1, E2 the edges leaving V[k]), model
// q = phi_k + b . (s, t) + (s, t) H (s, t) / 2, b = (g_k . E1, g_k . E2) and H from the
// gradient differences along the two edges (symmetrised). st the minimiser, alpha a step
// length matching the model's curvature; returns 0 when the minimum is the vertex itself
static int model_start(double st[2], double* alpha, const double* V[3], const double G[3][3], int k,
                       double L) {
  double E1[3], E2[3], D1[3], D2[3];
  sub3(E1, V[(k + 1) % 3], V[k]);
  sub3(E2, V[(k + 2) % 3], V[k]);
  sub3(D1, G[(k + 1) % 3], G[k]);
  sub3(D2, G[(k + 2) % 3], G[k]);
  double b0 = dot3(G[k], E1), b1 = dot3(G[k], E2);
  double h00 = dot3(D1, E1), h11 = dot3(D2, E2), h01 = 0.5 * (dot3(D1, E2) + dot3(D2, E1));
  // candidates: the interior minimum of a convex model, and each edge's minimum
  double best = 0, bs = 0, bt = 0;
  double det = h00 * h11 - h01 * h01;
  if (h00 > 0 && det > 0) {
    double s = -(h11 * b0 - h01 * b1) / det, t = -(h00 * b1 - h01 * b0) / det;
    if (s >= 0 && t >= 0 && s + t <= 1) {
      best = 0.5 * (b0 * s + b1 * t), bs = s, bt = t;  // q - phi_k at a stationary point
    }
  }
  // edges from (p0, p1) along (d0, d1), tau in [0, 1]
  const double ep[3][4] = {{0, 0, 1, 0}, {0, 0, 0, 1}, {1, 0, -1, 1}};
  for (int e = 0; e < 3; e++) {
    double p0 = ep[e][0], p1 = ep[e][1], d0 = ep[e][2], d1 = ep[e][3];
    double gp0 = b0 + h00 * p0 + h01 * p1, gp1 = b1 + h01 * p0 + h11 * p1;
    double slope = gp0 * d0 + gp1 * d1, curv = h00 * d0 * d0 + 2 * h01 * d0 * d1 + h11 * d1 * d1;
    double qp = b0 * p0 + b1 * p1 + 0.5 * (h00 * p0 * p0 + 2 * h01 * p0 * p1 + h11 * p1 * p1);
    double tau = curv > 0 ? fmin(fmax(-slope / curv, 0), 1) : (slope + 0.5 * curv < 0 ? 1 : 0);
    double qv = qp + tau * slope + 0.5 * tau * tau * curv;
    if (qv < best) best = qv, bs = p0 + tau * d0, bt = p1 + tau * d1;
  }
  if (!(best < 0)) return 0;
  st[0] = bs, st[1] = bt;
  double l1 = dot3(E1, E1), l2 = dot3(E2, E2);
  double lam = fmax(h00 / l1, h11 / l2);  // curvature per unit length squared
  *alpha = lam > 0 ? fmin(fmax(1 / lam, 1e-3 * L), 1e3 * L) : 0.5 * L;
  return 1;
}

// pass 2 for one triangle: the local minimum of phi over it when a vertex does not hold it.
// The tests that usually end it (too far; minimum at a vertex) run in the sampled shape's own
// frame on cached values; only a descent moves to the field's frame.
static void sample_triangle(const sampler* s, int i0, int i1, int i2) {
  const int idx[3] = {i0, i1, i2};
  const double* V[3] = {s->vert + 3 * i0, s->vert + 3 * i1, s->vert + 3 * i2};
  double val[3], G[3][3];
  int ev[3];
  for (int k = 0; k < 3; k++) ev[k] = vertex_value(s, idx[k], &val[k], G[k]);
  if (s->curved) {
    mark_edge(s->cache, i0, i1);
    mark_edge(s->cache, i1, i2);
    mark_edge(s->cache, i2, i0);
  }
  double L2 = 0, e[3];
  for (int k = 0; k < 3; k++) {
    sub3(e, V[(k + 1) % 3], V[k]);
    double l2 = dot3(e, e);
    if (l2 > L2) L2 = l2;
  }
  if (!(L2 > 0)) return;
  double vmax = val[0] > val[1] ? val[0] : val[1];
  if (val[2] > vmax) vmax = val[2];
  if (vmax > s->margin && (vmax - s->margin) * (vmax - s->margin) > L2) return;
  double L = sqrt(L2);
  int k = 0;
  if (val[1] < val[k]) k = 1;
  if (val[2] < val[k]) k = 2;
  // a first-order minimum at the vertex: the vertex pass has it
  double e1[3], e2[3];
  sub3(e1, V[(k + 1) % 3], V[k]);
  sub3(e2, V[(k + 2) % 3], V[k]);
  if (ev[k]) {
    double ge1 = dot3(G[k], e1), ge2 = dot3(G[k], e2);
    if ((ge1 >= 0 || ge1 * ge1 <= 1e-12 * dot3(e1, e1)) &&
        (ge2 >= 0 || ge2 * ge2 <= 1e-12 * dot3(e2, e2)))
      return;
  }
  double P[3][3], x[3], g[3], nrm[3];
  for (int j = 0; j < 3; j++) vertex_position(P[j], s, idx[j]);
  double E1[3], E2[3];
  sub3(E1, P[(k + 1) % 3], P[k]);
  sub3(E2, P[(k + 2) % 3], P[k]);
  tf_vec3_cross(nrm, E1, E2);
  if (normalize3(nrm) <= 1e-12 * L * L) return;  // a sliver: its edges are sampled
  // start at the minimum of the quadratic model the cached vertex values and gradients give
  // (free: no evaluation), kept when the field agrees it is below the best vertex; else from
  // the best vertex, evaluated afresh in full precision
  double alpha = 0.5 * L, y[3], q[3], gy[3], gt[3], gty[3], st[2];
  int moved = 0;
  double fx = INFINITY;
  if (ev[0] && ev[1] && ev[2] && model_start(st, &alpha, V, G, k, L)) {
    for (int j = 0; j < 3; j++) x[j] = P[k][j] + st[0] * E1[j] + st[1] * E2[j];
    fx = field_local(s->f, x, g);
    moved = fx < val[k];
  }
  if (!moved) {
    alpha = 0.5 * L;
    copy3(x, P[k]);
    fx = field_local(s->f, x, g);
  }
  double gn = dot3(g, nrm);
  for (int j = 0; j < 3; j++) gt[j] = g[j] - gn * nrm[j];
  for (int it = 0; it < TRI_ITERS; it++) {
    if (norm3(gt) < 1e-12) break;
    for (int j = 0; j < 3; j++) q[j] = x[j] - alpha * gt[j];
    closest_on_triangle(y, q, P[0], P[1], P[2]);
    double d[3];
    sub3(d, y, x);
    if (norm3(d) <= 1e-9 * L) break;
    double fy = field_local(s->f, y, gy);
    if (fy < fx) {
      // Barzilai-Borwein: the step that fits the change of the in-plane gradient
      double dg[3];
      gn = dot3(gy, nrm);
      for (int j = 0; j < 3; j++) gty[j] = gy[j] - gn * nrm[j];
      sub3(dg, gty, gt);
      double den = dot3(d, dg);
      // (up to 1e3 L: see the design comment on flat flanks)
      alpha = den > 0 ? fmin(fmax(dot3(d, d) / den, 1e-3 * L), 1e3 * L) : fmin(2 * alpha, 1e3 * L);
      copy3(x, y);
      copy3(g, gy);
      copy3(gt, gty);
      double gain = fx - fy;
      fx = fy;
      moved = 1;
      if (gain <= TRI_TOL * L) break;
    } else {
      alpha *= 0.25;
    }
  }
  if (!moved) return;
  for (int j = 0; j < 3; j++) {
    double d[3];
    sub3(d, x, P[j]);
    if (norm3(d) <= 1e-6 * L) return;  // at a vertex: sampled already
  }
  if (s->curved) refine(s, x, &fx, g);
  emit(s, x, fx, g);
}

// whether x's bounding sphere comes within margin of the field's box
static int sampled_near(const sampler* s, double rbound) {
  return box_gap(s->f, s->off) <= rbound + s->margin;
}

// x's surface samples against field f: x's own mesh (meshes, an SDF's surface mesh), its faces
// (hulls) or its tessellation (primitives)
static void sample_shape(tf_contact_reducer* red, const field* f, const tf_shape* x, double margin,
                         double sign) {
  vertex_cache cache;
  sampler s;
  sampler_init(&s, f, x, margin, sign, &cache, red);
  if (x->type == TF_GEOM_MESH || x->type == TF_GEOM_SDF) {
    const tf_mesh_view* m = &x->mesh;
    if (m->nvert <= 0 || !m->vert || !sampled_near(&s, m->rbound)) return;
    s.vert = m->vert;
    s.nvert = m->nvert;
    sample_vertices(&s);
    for (int t = 0; t < m->nface; t++) {
      const int* fv = m->face + 3 * t;
      sample_triangle(&s, fv[0], fv[1], fv[2]);
    }
    return;
  }
  if (x->type == TF_GEOM_HULL) {
    const tf_hull_view* h = &x->hull;
    if (h->nvert <= 0 || !sampled_near(&s, h->rbound)) return;
    s.vert = h->vert;
    s.nvert = h->nvert;
    sample_vertices(&s);
    for (int fi = 0; fi < h->nface; fi++) {
      const int* fv = h->face_vert + h->face_vertadr[fi];
      for (int k = 1; k + 1 < h->face_vertnum[fi]; k++)
        sample_triangle(&s, fv[0], fv[k], fv[k + 1]);
    }
    return;
  }
  double vert[3 * TF_PRIM_MESH_MAX_VERT];
  int face[3 * TF_PRIM_MESH_MAX_FACE], nface = 0;
  double rbound = norm3(x->size);
  if (x->type == TF_GEOM_CAPSULE) rbound = x->size[0] + x->size[1];
  if (x->type == TF_GEOM_SPHERE) rbound = x->size[0];
  if (!sampled_near(&s, rbound)) return;
  s.vert = vert;
  s.nvert = tf_primitive_mesh(vert, face, &nface, x->type, x->size, TF_SDF_SAMPLE_SPACING);
  sample_vertices(&s);
  for (int t = 0; t < nface; t++)
    sample_triangle(&s, face[3 * t], face[3 * t + 1], face[3 * t + 2]);
  if (s.curved) refine_vertex_minima(&s);
}

// ---------------------------------------------------------------------------------------------
// descent on two fields (SDF x SDF, plane x SDF without a surface mesh)

typedef struct pair_value {
  double phi1, phi2, g1[3], g2[3];
} pair_value;

// both fields at a world point
static void pair_eval(pair_value* v, const field* f1, const field* f2, const double x[3]) {
  v->phi1 = field_world(f1, x, v->g1);
  v->phi2 = field_world(f2, x, v->g2);
}

// descends f from x (updated in place, v its fields' values there); returns 1 when it ends
// between the two surfaces
static int descend(double x[3], pair_value* v, const field* f1, const field* f2, double cell,
                   int iters) {
  double alpha = 0.1 * cell, prev_lat[3] = {0, 0, 0}, prev_h[3] = {0, 0, 0};
  int have_prev = 0;
  for (int it = 0; it < iters; it++) {
    double d[3], step[3];
    sub3(d, v->g1, v->g2);
    double ld = norm3(d);
    if (ld < 1) {
      // not between the surfaces: down the gradient of f, by about the larger distance
      const double* gm = v->phi1 >= v->phi2 ? v->g1 : v->g2;
      double sm = fmax(v->phi1, v->phi2) >= 0 ? 1 : -1, gf[3];
      for (int k = 0; k < 3; k++) gf[k] = v->g1[k] + v->g2[k] + sm * gm[k];
      double lg = norm3(gf);
      if (lg < 1e-12) break;
      double len = fmax(0.5 * fmax(fabs(v->phi1), fabs(v->phi2)), 1e-3 * cell);
      scale3(step, gf, -len / lg);
      have_prev = 0;
    } else {
      double n[3], h[3], lat[3];
      scale3(n, d, 1 / ld);
      double s = (v->phi2 - v->phi1) / ld;
      add3(h, v->g1, v->g2);
      double hn = dot3(h, n);
      for (int k = 0; k < 3; k++) h[k] -= hn * n[k];
      if (have_prev) {
        double dh[3];
        sub3(dh, h, prev_h);
        double den = dot3(prev_lat, dh);
        if (den > 0) alpha = fmin(fmax(dot3(prev_lat, prev_lat) / den, 1e-6 * cell), 1e3 * cell);
      }
      scale3(lat, h, -alpha);
      double ll = norm3(lat);
      if (ll > cell) scale3(lat, lat, cell / ll);
      for (int k = 0; k < 3; k++) step[k] = s * n[k] + lat[k];
      copy3(prev_lat, lat);
      copy3(prev_h, h);
      have_prev = 1;
    }
    add3(x, x, step);
    pair_eval(v, f1, f2, x);
    if (norm3(step) <= 1e-10 * cell) break;
  }
  double d[3];
  sub3(d, v->g1, v->g2);
  return norm3(d) >= 1;
}

// the minimisers found so far (position, normal), to count each once
typedef struct found_set {
  double at[MAX_FOUND][6];
  int n;
} found_set;

// a minimiser within radius of one found with the same normal
static int found_near(const found_set* fs, const double pos[3], const double normal[3],
                      double radius) {
  for (int m = 0; m < fs->n; m++) {
    double dd[3];
    sub3(dd, pos, fs->at[m]);
    if (norm3(dd) < radius && dot3(normal, fs->at[m] + 3) > 0.99) return 1;
  }
  return 0;
}

// one descent from x unless x is farther than reach from either surface: a new minimiser
// under margin goes to the reducer and the found set
static void try_start(tf_contact_reducer* red, found_set* fs, const field* f1, const field* f2,
                      double x[3], double margin, double reach, double cell, double dedup,
                      int iters) {
  pair_value v;
  pair_eval(&v, f1, f2, x);
  if (fmax(v.phi1, v.phi2) > margin + reach) return;
  if (!descend(x, &v, f1, f2, cell, iters)) return;
  double dist = v.phi1 + v.phi2;
  if (!(dist < margin)) return;
  tf_contact_point c;
  sub3(c.normal, v.g1, v.g2);
  normalize3(c.normal);
  for (int k = 0; k < 3; k++) c.pos[k] = x[k] + 0.5 * (v.phi2 - v.phi1) * c.normal[k];
  c.dist = dist;
  if (found_near(fs, c.pos, c.normal, dedup) || fs->n == MAX_FOUND) return;
  copy3(fs->at[fs->n], c.pos);
  copy3(fs->at[fs->n] + 3, c.normal);
  fs->n++;
  tf_reduce_add(red, &c);
}

// multi-start descent over the overlap of the two boxes; candidates into red. spacing: the
// fields' repeated features' spacing (0: none), whose copies each get starts of their own
static void descend_fields(tf_contact_reducer* red, const field* f1, const field* f2, double margin,
                           double spacing) {
  double lo[3], hi[3], lo2[3], hi2[3], e[3];
  field_world_box(lo, hi, f1);
  field_world_box(lo2, hi2, f2);
  double volume = 1;
  for (int k = 0; k < 3; k++) {
    lo[k] = fmax(lo[k], lo2[k]) - margin;
    hi[k] = fmin(hi[k], hi2[k]) + margin;
    e[k] = hi[k] - lo[k];
    if (!(e[k] >= 0) || !isfinite(e[k])) return;  // apart, or both unbounded
    volume *= fmax(e[k], 1e-9);
  }
  // a lattice of about cubic cells, at most TF_SDF_MAX_STARTS points
  double cell = cbrt(volume / TF_SDF_MAX_STARTS);
  int n[3];
  for (int k = 0; k < 3; k++) {
    double want = floor(e[k] / cell + 0.5);
    n[k] = want < 1 ? 1 : (want > TF_SDF_MAX_STARTS ? TF_SDF_MAX_STARTS : (int)want);
  }
  while (n[0] * n[1] * n[2] > TF_SDF_MAX_STARTS) {
    int k = 0;
    if (n[1] > n[k]) k = 1;
    if (n[2] > n[k]) k = 2;
    n[k]--;
  }
  double step[3], diag = 0, cmin = INFINITY;
  for (int k = 0; k < 3; k++) {
    step[k] = e[k] / n[k];
    diag += step[k] * step[k];
    if (step[k] > 0) cmin = fmin(cmin, step[k]);
  }
  diag = sqrt(diag);
  if (!isfinite(cmin)) cmin = fmax(margin, 1e-9);
  found_set fs;
  fs.n = 0;
  for (int i = 0; i < n[0]; i++) {
    for (int j = 0; j < n[1]; j++) {
      for (int l = 0; l < n[2]; l++) {
        double x[3] = {lo[0] + (i + 0.5) * step[0], lo[1] + (j + 0.5) * step[1],
                       lo[2] + (l + 0.5) * step[2]};
        try_start(red, &fs, f1, f2, x, margin, 0.5 * diag, cmin, 0.25 * cmin, GD_ITERS);
      }
    }
  }
  // repeated features (a thread's turns): the lattice is far coarser than their spacing and
  // meets only some of the copies. The next copy of a contact lies about one spacing away
  // across the surfaces (a thread's next flank is a pitch up the axis, pitch cos(flank
  // angle) along its normal), so every minimiser found seeds a start one spacing either way
  // along its normal, and those found in turn seed theirs, until no new copy turns up
  if (!(spacing > 0) || !(spacing < cmin)) return;
  int budget = MAX_SEEDS;
  for (int m = 0; m < fs.n && budget > 0; m++) {
    for (int side = -1; side <= 1 && budget > 0; side += 2) {
      double x[3];
      int inside = 1;
      for (int k = 0; k < 3; k++) {
        x[k] = fs.at[m][k] + side * spacing * fs.at[m][3 + k];
        inside &= x[k] >= lo[k] && x[k] <= hi[k];
      }
      if (!inside || found_near(&fs, x, fs.at[m] + 3, 0.75 * spacing)) continue;
      budget--;
      try_start(red, &fs, f1, f2, x, margin, spacing, spacing, 0.25 * spacing, SEED_ITERS);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// pair functions

// the reducer's slab width for a field of v: half its repeated features' spacing, so that
// every copy (every turn of a thread) keeps rows of its own; 0 without one
static double slab_width(const tf_sdf_view* v) { return 0.5 * v->feature_size; }

// the reducer's points into out, the candidate count into *candidates
static int finish(tf_contact_point* out, const tf_contact_reducer* red, int cap, int* candidates) {
  assert(cap >= 1 && cap <= TF_COLLIDE_MAX);
  if (candidates) *candidates = red->ncandidate;
  return tf_reduce_finish(out, red, cap, NULL);
}

int tf_collide_primitive_mesh(const tf_shape* a, const tf_shape* mesh, double margin, int cap,
                              tf_contact_point* out, int* candidates) {
  tf_contact_reducer red;
  field f;
  field_init(&f, a, FIELD_PRIMITIVE);
  tf_reduce_init(&red, a->mat, 0);
  sample_shape(&red, &f, mesh, margin, 1);
  return finish(out, &red, cap, candidates);
}

int tf_collide_hull_mesh(const tf_shape* hull, const tf_shape* mesh, double margin, int cap,
                         tf_contact_point* out, int* candidates) {
  tf_contact_reducer red;
  field f;
  if (sdf_present(&mesh->sdf)) {
    field_init(&f, mesh, FIELD_SDF);
    tf_reduce_init(&red, mesh->mat, slab_width(&mesh->sdf));
    sample_shape(&red, &f, hull, margin, -1);
  } else {
    field_init(&f, hull, FIELD_HULL);
    tf_reduce_init(&red, hull->mat, 0);
    sample_shape(&red, &f, mesh, margin, 1);
  }
  return finish(out, &red, cap, candidates);
}

int tf_collide_mesh_mesh(const tf_shape* a, const tf_shape* b, double margin, int cap,
                         tf_contact_point* out, int* candidates) {
  tf_contact_reducer red;
  field f;
  if (sdf_present(&b->sdf)) {
    field_init(&f, b, FIELD_SDF);
    tf_reduce_init(&red, b->mat, slab_width(&b->sdf));
    sample_shape(&red, &f, a, margin, -1);
  } else if (sdf_present(&a->sdf)) {
    field_init(&f, a, FIELD_SDF);
    tf_reduce_init(&red, a->mat, slab_width(&a->sdf));
    sample_shape(&red, &f, b, margin, 1);
  } else {
    tf_reduce_init(&red, NULL, 0);  // neither carries a baked SDF: nothing to measure
  }
  return finish(out, &red, cap, candidates);
}

int tf_collide_plane_sdf(const tf_shape* plane, const tf_shape* sdf, double margin, int cap,
                         tf_contact_point* out, int* candidates) {
  tf_contact_reducer red;
  field fp, fs;
  field_init(&fp, plane, FIELD_PRIMITIVE);
  tf_reduce_init(&red, plane->mat, slab_width(&sdf->sdf));
  if (sdf->mesh.nvert > 0) {
    sample_shape(&red, &fp, sdf, margin, 1);
  } else if (sdf_present(&sdf->sdf)) {
    field_init(&fs, sdf, FIELD_SDF);
    descend_fields(&red, &fp, &fs, margin, sdf->sdf.feature_size);
  }
  return finish(out, &red, cap, candidates);
}

int tf_collide_shape_sdf(const tf_shape* a, const tf_shape* sdf, double margin, int cap,
                         tf_contact_point* out, int* candidates) {
  tf_contact_reducer red;
  field f;
  if (!sdf_present(&sdf->sdf)) {
    if (candidates) *candidates = 0;
    return 0;
  }
  if (a->type == TF_GEOM_SPHERE && sdf->sdf.error_bound == 0) {
    // exact field: the sphere's deepest point is along the gradient at its centre
    double g[3];
    double phi = tf_shape_sdf(sdf, a->pos, g);
    if (normalize3(g) == 0) g[0] = 0, g[1] = 0, g[2] = 1;
    double dist = phi - a->size[0];
    if (candidates) *candidates = dist < margin;
    if (!(dist < margin)) return 0;
    for (int k = 0; k < 3; k++) {
      out[0].pos[k] = a->pos[k] - 0.5 * (phi + a->size[0]) * g[k];
      out[0].normal[k] = -g[k];
    }
    out[0].dist = dist;
    return 1;
  }
  field_init(&f, sdf, FIELD_SDF);
  tf_reduce_init(&red, sdf->mat, slab_width(&sdf->sdf));
  sample_shape(&red, &f, a, margin, -1);
  return finish(out, &red, cap, candidates);
}

int tf_collide_sdf_sdf(const tf_shape* a, const tf_shape* b, double margin, int cap,
                       tf_contact_point* out, int* candidates) {
  tf_contact_reducer red;
  field fa, fb;
  // both sides are fields: the larger nonzero spacing (fmax keeps a lone nonzero one)
  tf_reduce_init(&red, a->mat, fmax(slab_width(&a->sdf), slab_width(&b->sdf)));
  if (sdf_present(&a->sdf) && sdf_present(&b->sdf)) {
    field_init(&fa, a, FIELD_SDF);
    field_init(&fb, b, FIELD_SDF);
    descend_fields(&red, &fa, &fb, margin, fmax(a->sdf.feature_size, b->sdf.feature_size));
  }
  return finish(out, &red, cap, candidates);
}
