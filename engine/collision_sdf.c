// Contact generation for SDF and triangle-mesh shapes.
//
// Fields. Every pair measures points in a signed distance field phi (negative inside) with a
// gradient that points out of the solid: an SDF (analytic or grid, engine/sdf.h), the exact
// distance of a primitive (engine/sdf_primitive.h), or a hull's face-plane bound. All the work
// happens in the field's geom frame; a candidate is written in world coordinates.
//
// Surface samples against a field (X x SDF, mesh x primitive; after Narang et al., "Factory",
// RSS 2022, and CRISP section IV-B1). The other shape X brings a
// triangle mesh: its own, its SDF's surface mesh, a hull's faces fanned, or a tessellation of
// the primitive (engine/mesh_primitive.h, vertices about TF_SDF_SAMPLE_SPACING apart).
//   1. vertex pass: each vertex p with phi(p) < margin is a candidate. Vertices outside the
//      field's box (inflated by margin) are not evaluated: the box distance bounds phi there.
//   2. triangle pass (collision_sdf_triangle.c): a triangle can reach below margin only if
//      max_v phi(v) - L <= margin (L its longest edge, phi 1-Lipschitz). Its best vertex v is a
//      first-order minimum over the triangle when grad phi(v) . e >= 0 along both edges e leaving v
//      (exact for convex fields, and a concave field such as a bore has its minimum at a vertex
//      anyway): the vertex pass has it. Otherwise the cached vertex values and gradients predict
//      where the minimum lies, at no evaluation (triangle_plan): each edge's cubic Hermite model
//      (values and slopes at its ends) and the quadratic model's interior minimum (its
//      curvature fitted to the three gradients), and the lowest prediction is sought to
//      within tol = 1e-5 L (10 nm on a 1 mm triangle), none when it is not that far below the
//      vertex. An edge's minimum: a first evaluation at the cubic's minimum where the cubic
//      is nearly a parabola (cubic term at most EDGE_CUBIC of the quadratic one), else at the
//      edge's middle (its ends see different features of the field, a kink between, where
//      the cubic's minimum misses by microns: bisection's safe guess, as in Brent's method);
//      then each evaluation splits the bracket by the sign of the slope there and fits the
//      cubic again (at most 4, descend_edge), until a value lands within tol of its
//      prediction or the model predicts less gain. An edge is shared by two triangles and either
//      may pick it, so it is sought once (a memo keyed by its vertices) and its minimum offered
//      once, by the first triangle that picks it where phi does not fall across the edge into it.
//      Where it does, or where the interior model wins, projected Newton steps over the triangle on
//      the quadratic model (at most 12 evaluations, descend_model), its curvature corrected
//      along every step taken (BFGS), each step to the model's minimum over the triangle,
//      ending once a step gains less than tol or the model, checked along the last step's
//      line, predicts less for the next one along it. On a seated M16 nut's flanks the field
//      over a triangle is saddle-shaped and its minima lie on edges, where the cubic is far
//      better than the quadratic model fitted from three gradients: 1770 edges sought at
//      1.10 evaluations each (1.76 when every edge started at the cubic's minimum: 70 % of
//      them are kinked), where the quadratic model's descent took ~2.9 a triangle (and
//      projected gradient steps ~5.3), to the same minima within tol. A triangle with a vertex not
//      evaluated (outside the field's box) takes projected gradient steps with Barzilai-Borwein
//      lengths from its best vertex (descend_bb). A minimum inside the triangle or on an edge is a
//      candidate. Before any of it, a triangle is skipped when its box (in the field's frame) lies
//      farther than margin from the field's box, or when min_v phi(v) - L / sqrt(3) > margin: every
//      point of a triangle lies within L / sqrt(3) of a vertex (the circumradius bound), so this is
//      a lower bound of phi too, and far tighter than the first for a triangle whose far vertices
//      are far (a block's side wall beside a peg).
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
// SDF x SDF: descent on both fields, in collision_sdf_descent.c.
//
// Two-way sampling (a TF_GEOM_MESH that carries its part's SDF against a TF_GEOM_SDF that
// carries its part's surface mesh, or two meshes that both carry SDFs). One-way sampling
// measures only X's surface in F's field, and the field's nearest point is all it sees: F's
// own convex edges and faces are never sampled. A peg's side sliding past a bore's rim meets
// only the rim's rounded field there (the nearest-point normal of a peg point just above the
// rim edge leans toward the edge, and one just below sees the bore wall), so the side sinks
// until the chamfer's rows catch it; a plug's flat face, whose vertices lie on its outline
// 100 um from the socket's walls, sees those walls as nearest and never the floor ahead. So
// each shape's surface is sampled in the other's field, with the passes above, into the same
// reducer (normals from a to b), a's surface first. Both passes see the other's features in
// their field as rounded (a point of X beside a convex edge of F takes the edge's leaning
// normal, a point of X inside F near that edge takes the normal of whichever face of F is
// nearer), and the other pass samples exactly those features on their own surface, where the
// normal is right. So a sample is kept only where it is, within TWO_WAY_SLOPE, a first-order
// minimum of the field over its own surface (contact points are: two surfaces meet where one
// is lowest in the other's field):
//   - a vertex, when phi falls along none of its edges faster than TWO_WAY_SLOPE per unit
//     length: a socket floor's corner, 100 um beyond a plug's outline, sits on a slope down
//     to the floor under the plug, which its triangles' minima hold (the corners filled the
//     reducer's extreme slots with rows the speculative test then dropped). Vertices are
//     marked by the triangle pass and written after it, evaluated again (the cache keeps
//     float gradients); a vertex past TF_SDF_VERT_CACHE is written at once, unmarked;
//   - a triangle's minimum, when the field's gradient projected on the triangle's tangent
//     cone there (the plane inside, the edge and the inner half-plane on an edge) is at most
//     TWO_WAY_SLOPE long. The descent stops on a gain tolerance, which beside a convex edge of
//     F is too loose for the normal: phi = sqrt(gap^2 + h^2) rises only by h^2 / 2 gap, so a
//     point 1 um above a rim at a 6 um gap gains 0.1 um and leans 10 deg (a falling peg's
//     side got that lean as a row and was thrown across the bore). So first, while the
//     gradient leans more than POLISH_LEAN off the triangle's normal, at most POLISH_STEPS
//     alternating projections: x <- the triangle's closest point to F's surface point
//     x - phi g, kept while phi falls (for x outside F, phi(x') <= |x' - s| <= |x - s|: it
//     converges on the closest pair, where the normal is the face's), then the test.
// Each kept candidate records which surface it was sampled on (tf_contact_point.side), so
// that the speculative test traces it through the field it was measured in.
// Measured (peg CRISP drop, 16 perturbed environments at 50 / 100 / 200 um; connectors at
// 0.1 m/s, 16 environments per type): see README "Measured".
// Fields with repeated features (feature_size > 0: a thread) keep one-way sampling: the
// nut's pass already keeps rows on every turn, and the bolt's surface in the nut's field
// added 60 % to a seated nut's collision time without changing its contacts' outcome.
//
// Mesh x mesh goes through the baked SDF they carry (geom sdf of a TF_GEOM_MESH): both ways
// when both do, else a's surface in b's SDF, or b's in a's; with neither there is nothing to
// measure and the pair reports no points (documented limitation, not an error).
//
// Every pair streams its candidates into a reducer (engine/contact_reduce.h) whose normal bins
// are fixed in the field's frame, so no candidate array exists and no candidate count
// overflows; the reducer writes at most cap points. The sampling pairs hand it their points
// in the field's frame (a local reducer: it turns only the points it keeps to world).
//
// Latency. A field query is a chain of roots and divisions (~200 cycles on a thread), and
// consecutive queries overlap only while no mispredicted branch on one's result flushes the
// pipeline before the next one starts. So the passes keep branches on results away from the
// query stream: candidates wait in blocks of 64 before the reducer takes them (its bins and
// extremes branch on every value), and triangles are prepared in batches of 32 (the tests and
// the plan, on cached values), then their fresh edges' first points are evaluated together,
// then each search is finished in triangle order. The memo's decisions, the candidates and
// their order are those of one triangle at a time, so the output is the same bytes. On a
// seated M16 nut this took ~10 % off the pair's time.
#include "collision_sdf.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "collision_sdf_field.h"
#include "collision_sdf_sampler.h"
#include "contact_reduce.h"
#include "tf_math.h"
#include "mesh_primitive.h"
#include "sdf.h"
#include "sdf_primitive.h"
#include "stage_timer.h"

#define REFINE_ITERS 24  // field evaluations of one refinement on a curved surface
// per unit radius: how far a curved primitive's true surface may lie outside its tessellation
// (tf_primitive_mesh: at least 12 segments around and along; r (1 - cos^2(pi / 12)) = 0.067 r)
#define CURVED_CLEAR 0.1

// ---------------------------------------------------------------------------------------------
// surface samples against a field

// frame b (rotation Rb, origin tb) seen from frame a: rot = Ra^T Rb, off = Ra^T (tb - ta)
static void relative_pose(double rot[9], double off[3], const double Ra[9], const double ta[3],
                          const double Rb[9], const double tb[3]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double v = 0;
      for (int k = 0; k < 3; k++) v += Ra[3 * k + i] * Rb[3 * k + j];
      rot[3 * i + j] = v;
    }
  }
  double rel[3];
  sub3(rel, tb, ta);
  matvec_t(off, Ra, rel);
}

// the sampled shape's pose relative to the field, computed once per pair
static void sampler_init(sampler* s, const field* f, const tf_shape* x, double margin, double sign,
                         vertex_cache* cache, pending_points* pending, tf_contact_reducer* red) {
  memset(s, 0, sizeof(*s));
  s->pending = pending;
  pending->n = 0;
  s->f = f;
  s->x = x;
  s->margin = margin;
  s->sign = sign;
  s->cache = cache;
  s->red = red;
  const tf_shape* fs = f->shape;
  relative_pose(s->rot, s->off, fs->mat, fs->pos, x->mat, x->pos);
  // the reducer's frame: the field's own for every pair but the second pass of a two-way one
  assert(red->local);
  s->red_same = memcmp(red->frame, fs->mat, sizeof(red->frame)) == 0 &&
                memcmp(red->origin, fs->pos, sizeof(red->origin)) == 0;
  relative_pose(s->red_rot, s->red_off, red->frame, red->origin, fs->mat, fs->pos);
  s->curved =
      x->type == TF_GEOM_SPHERE || x->type == TF_GEOM_CAPSULE || x->type == TF_GEOM_CYLINDER;
}

// the pending candidates into the reducer, in their order (points in its frame: it writes
// world points at its end, and zeroes their padding)
static void flush(const sampler* s) {
  pending_points* q = s->pending;
  double t0 = tf_stage_start();
  for (int i = 0; i < q->n; i++) tf_reduce_add(s->red, q->c + i);
  s->red->time_s += tf_stage_since(t0);
  q->n = 0;
}

// a candidate when under margin, at x's surface point p (field frame) with value phi and unit
// gradient g (handed to the reducer in blocks, see pending_points)
void tf_sampler_emit(const sampler* s, const double p[3], double phi, const double g[3]) {
  if (!(phi < s->margin)) return;
  pending_points* q = s->pending;
  tf_contact_point* c = q->c + q->n;
  double mid[3];
  for (int k = 0; k < 3; k++) mid[k] = p[k] - 0.5 * phi * g[k];
  if (s->red_same) {
    copy3(c->pos, mid);
    scale3(c->normal, g, s->sign);
  } else {
    double n[3];
    matvec(c->pos, s->red_rot, mid);
    add3(c->pos, c->pos, s->red_off);
    matvec(n, s->red_rot, g);
    scale3(c->normal, n, s->sign);
  }
  c->dist = phi;
  // a one-way pair's sampled surface is implied by the pair; a two-way pair's is per point
  c->side = s->two_way ? (s->sign < 0 ? -1 : 1) : 0;
  if (++q->n == PENDING) flush(s);
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
void tf_sampler_refine(const sampler* s, double x[3], double* phi, double g[3]) {
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
      // two-way: written after the triangle pass has marked the steep ones
      if (!s->two_way || i >= TF_SDF_VERT_CACHE) tf_sampler_emit(s, p, phi, g);
    }
    if (phi < *s->clear) *s->clear = phi;
    if (i < TF_SDF_VERT_CACHE) {
      double gx[3] = {0, 0, 0};
      if (evaluated) matvec_t(gx, s->rot, g);
      vc->v[i].phi = phi;
      copy3(vc->v[i].pos, p);
      vc->v[i].flag = (unsigned char)(evaluated ? VERT_EVALUATED : 0);
      for (int k = 0; k < 3; k++) vc->v[i].grad[k] = (float)gx[k];
    }
  }
}

// two-way sampling: the vertices the triangle pass did not mark as steep, evaluated again
// (the cache holds float gradients in x's frame; a candidate's normal is the field's own)
static void emit_flat_vertices(const sampler* s) {
  const vertex_cache* vc = s->cache;
  int n = s->nvert < TF_SDF_VERT_CACHE ? s->nvert : TF_SDF_VERT_CACHE;
  for (int i = 0; i < n; i++) {
    if (!(vc->v[i].flag & VERT_EVALUATED) || (vc->v[i].flag & VERT_SLOPE)) continue;
    if (!(vc->v[i].phi < s->margin)) continue;
    double p[3], g[3];
    cached_position(p, s, i);
    double phi = field_local(s->f, p, g);
    tf_sampler_emit(s, p, phi, g);
  }
}

// pass 3 of curved shapes: the vertices that are discrete local minima, refined
static void refine_vertex_minima(const sampler* s) {
  vertex_cache* vc = s->cache;
  int n = s->nvert < TF_SDF_VERT_CACHE ? s->nvert : TF_SDF_VERT_CACHE;
  for (int i = 0; i < n; i++) {
    if (!(vc->v[i].flag & VERT_EVALUATED) || (vc->v[i].flag & VERT_NOT_MIN)) continue;
    // the true surface lies at most a sagitta, r (1 - cos(pi / S)) < 0.05 r for S >= 12
    // segments, beyond the tessellation
    if (!(vc->v[i].phi < s->margin + 0.05 * s->x->size[0])) continue;
    double p[3], g[3], phi;
    cached_position(p, s, i);
    tf_sampler_refine(s, p, &phi, g);
    tf_sampler_emit(s, p, phi, g);
  }
}

// whether x's bounding sphere comes within margin of the field's box (when it does not, the
// box's distance less the radius bounds phi over x)
static int sampled_near(const sampler* s, double rbound) {
  double gap = box_gap(s->f, s->off) - rbound;
  if (gap > s->margin) {
    *s->clear = gap;
    return 0;
  }
  return 1;
}

// x's surface samples against field f: x's own mesh (meshes, an SDF's surface mesh), its faces
// (hulls) or its tessellation (primitives); two_way: the other pass samples f's shape in x's
// field (meshes only)
// the passes over x's surface (a mesh, a hull's faces or a primitive's tessellation), each
// ending with its last candidates handed to the reducer (while its own arrays still exist)
static void sample_passes(sampler* s, const tf_shape* x, int two_way) {
  if (x->type == TF_GEOM_MESH || x->type == TF_GEOM_SDF) {
    const tf_mesh_view* m = &x->mesh;
    if (m->nvert <= 0 || !m->vert || !sampled_near(s, m->rbound)) return;
    s->vert = m->vert;
    s->nvert = m->nvert;
    s->two_way = two_way;
    // the memo sized to the mesh (about 1.5 edges a face), so a small mesh clears little
    edge_memo memo;
    int slots = 64;
    while (slots < EDGE_MEMO && slots < 2 * m->nface) slots *= 2;
    memo.mask = slots - 1, memo.count = 0;
    memset(memo.key, 0xff, sizeof(memo.key[0]) * (size_t)slots);
    s->memo = &memo;
    sample_vertices(s);
    for (int t = 0; t < m->nface; t++) {
      const int* fv = m->face + 3 * t;
      tf_sampler_triangle(s, fv[0], fv[1], fv[2]);
    }
    tf_sampler_finish_triangles(s);
    if (two_way) emit_flat_vertices(s);
    flush(s);
    return;
  }
  if (x->type == TF_GEOM_HULL) {
    const tf_hull_view* h = &x->hull;
    if (h->nvert <= 0 || !sampled_near(s, h->rbound)) return;
    s->vert = h->vert;
    s->nvert = h->nvert;
    sample_vertices(s);
    for (int fi = 0; fi < h->nface; fi++) {
      const int* fv = h->face_vert + h->face_vertadr[fi];
      for (int k = 1; k + 1 < h->face_vertnum[fi]; k++)
        tf_sampler_triangle(s, fv[0], fv[k], fv[k + 1]);
    }
    tf_sampler_finish_triangles(s);
    flush(s);
    return;
  }
  double rbound = norm3(x->size);
  if (x->type == TF_GEOM_CAPSULE) rbound = x->size[0] + x->size[1];
  if (x->type == TF_GEOM_SPHERE) rbound = x->size[0];
  if (!sampled_near(s, rbound)) return;
  // the tessellation its model made once, else made here (the same vertices and faces)
  double vert[3 * TF_PRIM_MESH_MAX_VERT];
  int face[3 * TF_PRIM_MESH_MAX_FACE], nface = 0;
  const int* faces = face;
  if (x->tess.nvert > 0) {
    s->vert = x->tess.vert;
    s->nvert = x->tess.nvert;
    faces = x->tess.face;
    nface = x->tess.nface;
  } else {
    s->vert = vert;
    s->nvert = tf_primitive_mesh(vert, face, &nface, x->type, x->size, TF_SDF_SAMPLE_SPACING);
  }
  sample_vertices(s);
  for (int t = 0; t < nface; t++)
    tf_sampler_triangle(s, faces[3 * t], faces[3 * t + 1], faces[3 * t + 2]);
  tf_sampler_finish_triangles(s);
  if (s->curved) {
    refine_vertex_minima(s);
    // the true surface lies outside its tessellation, by at most r (1 - cos^2(pi / S)) < 0.07 r
    // at S >= 12 segments around and along (phi is 1-Lipschitz): the bound less 0.1 r
    *s->clear -= CURVED_CLEAR * s->x->size[0];
  }
  flush(s);
}

// x's surface in f's field into red; returns a lower bound of phi over x's sampled surface
// (-INFINITY where there is none)
static double sample_shape(tf_contact_reducer* red, const field* f, const tf_shape* x,
                           double margin, double sign, int two_way) {
  vertex_cache cache;
  pending_points pending;
  triangle_batch batch;
  sampler s;
  double clear = INFINITY;
  sampler_init(&s, f, x, margin, sign, &cache, &pending, red);
  s.clear = &clear;
  batch.n = 0;
  s.batch = &batch;
  sample_passes(&s, x, two_way);
  return clear;
}

// ---------------------------------------------------------------------------------------------
// pair functions

// the reducer's slab width for a field of v: half its repeated features' spacing, so that
// every copy (every turn of a thread) keeps rows of its own; 0 without one
static double slab_width(const tf_sdf_view* v) { return 0.5 * v->feature_size; }

// the reducer's points into out, the candidate count, the reduction's time and the lower
// bound of the gap over the sampled surfaces (clear: -INFINITY where none) into *stats
static int finish(tf_contact_point* out, tf_contact_reducer* red, int cap, double clear,
                  tf_collide_stats* stats) {
  assert(cap >= 1 && cap <= TF_COLLIDE_MAX);
  if (stats && stats->approach.margin > 0) tf_reduce_set_approach(red, &stats->approach);
  double t0 = tf_stage_start();
  int n = tf_reduce_finish(out, red, cap, NULL);
  if (stats) {
    stats->candidates = red->ncandidate;
    stats->reduce_s += red->time_s + tf_stage_since(t0);
    stats->clear = clear;
  }
  return n;
}

// whether two shapes meet by two-way sampling: each carries a field and a surface mesh, and
// neither field has repeated features (see the design comment)
static int two_way_pair(const tf_shape* a, const tf_shape* b) {
  return sdf_present(&a->sdf) && sdf_present(&b->sdf) && a->mesh.nvert > 0 && b->mesh.nvert > 0 &&
         !(a->sdf.feature_size > 0) && !(b->sdf.feature_size > 0);
}

// a's surface in b's field and b's surface in a's, into one reducer with bins fixed in b's
// frame; a first, then b, so the candidates' order (and the reduction) is fixed. Returns the
// lower bound of phi over both surfaces
static double sample_two_way(tf_contact_reducer* red, const tf_shape* a, const tf_shape* b,
                             double margin) {
  field fa, fb;
  tf_reduce_init_local(red, b->mat, b->pos, fmax(slab_width(&a->sdf), slab_width(&b->sdf)));
  field_init(&fb, b, FIELD_SDF);
  double clear = sample_shape(red, &fb, a, margin, -1, 1);
  field_init(&fa, a, FIELD_SDF);
  return fmin(clear, sample_shape(red, &fa, b, margin, 1, 1));
}

int tf_collide_primitive_mesh(const tf_shape* a, const tf_shape* mesh, double margin, int cap,
                              tf_contact_point* out, tf_collide_stats* stats) {
  tf_contact_reducer red;
  field f;
  field_init(&f, a, FIELD_PRIMITIVE);
  tf_reduce_init_local(&red, a->mat, a->pos, 0);
  double clear = sample_shape(&red, &f, mesh, margin, 1, 0);
  return finish(out, &red, cap, clear, stats);
}

int tf_collide_hull_mesh(const tf_shape* hull, const tf_shape* mesh, double margin, int cap,
                         tf_contact_point* out, tf_collide_stats* stats) {
  tf_contact_reducer red;
  field f;
  double clear;
  if (sdf_present(&mesh->sdf)) {
    field_init(&f, mesh, FIELD_SDF);
    tf_reduce_init_local(&red, mesh->mat, mesh->pos, slab_width(&mesh->sdf));
    clear = sample_shape(&red, &f, hull, margin, -1, 0);
  } else {
    field_init(&f, hull, FIELD_HULL);
    tf_reduce_init_local(&red, hull->mat, hull->pos, 0);
    clear = sample_shape(&red, &f, mesh, margin, 1, 0);
  }
  return finish(out, &red, cap, clear, stats);
}

int tf_collide_mesh_mesh(const tf_shape* a, const tf_shape* b, double margin, int cap,
                         tf_contact_point* out, tf_collide_stats* stats) {
  tf_contact_reducer red;
  field f;
  double clear = INFINITY;  // nothing measured, nothing ever found
  if (two_way_pair(a, b)) {
    clear = sample_two_way(&red, a, b, margin);
  } else if (sdf_present(&b->sdf)) {
    field_init(&f, b, FIELD_SDF);
    tf_reduce_init_local(&red, b->mat, b->pos, slab_width(&b->sdf));
    clear = sample_shape(&red, &f, a, margin, -1, 0);
  } else if (sdf_present(&a->sdf)) {
    field_init(&f, a, FIELD_SDF);
    tf_reduce_init_local(&red, a->mat, a->pos, slab_width(&a->sdf));
    clear = sample_shape(&red, &f, b, margin, 1, 0);
  } else {
    tf_reduce_init(&red, NULL, 0);  // neither carries a baked SDF: nothing to measure
  }
  return finish(out, &red, cap, clear, stats);
}

int tf_collide_plane_sdf(const tf_shape* plane, const tf_shape* sdf, double margin, int cap,
                         tf_contact_point* out, tf_collide_stats* stats) {
  tf_contact_reducer red;
  field fp, fs;
  field_init(&fp, plane, FIELD_PRIMITIVE);
  double clear = INFINITY;  // nothing to measure
  if (sdf->mesh.nvert > 0) {
    tf_reduce_init_local(&red, plane->mat, plane->pos, slab_width(&sdf->sdf));
    clear = sample_shape(&red, &fp, sdf, margin, 1, 0);
  } else if (sdf_present(&sdf->sdf)) {
    tf_reduce_init(&red, plane->mat, slab_width(&sdf->sdf));  // the descent's points are world
    field_init(&fs, sdf, FIELD_SDF);
    tf_sdf_descend_fields(&red, &fp, &fs, margin, sdf->sdf.feature_size, stats ? stats->warm : NULL,
                          stats ? stats->nwarm : 0, 0);
    clear = -INFINITY;  // a descent bounds nothing
  } else {
    tf_reduce_init(&red, NULL, 0);
  }
  return finish(out, &red, cap, clear, stats);
}

int tf_collide_shape_sdf(const tf_shape* a, const tf_shape* sdf, double margin, int cap,
                         tf_contact_point* out, tf_collide_stats* stats) {
  tf_contact_reducer red;
  field f;
  if (!sdf_present(&sdf->sdf)) {
    if (stats) stats->candidates = 0, stats->clear = INFINITY;  // nothing ever found
    return 0;
  }
  if (a->type == TF_GEOM_SPHERE && sdf->sdf.error_bound == 0) {
    // exact field: the sphere's deepest point is along the gradient at its centre
    double g[3];
    double phi = tf_shape_sdf(sdf, a->pos, g);
    if (normalize3(g) == 0) g[0] = 0, g[1] = 0, g[2] = 1;
    double dist = phi - a->size[0];
    if (stats) stats->candidates = dist < margin, stats->clear = dist;
    if (!(dist < margin)) return 0;
    memset(out, 0, sizeof(out[0]));
    for (int k = 0; k < 3; k++) {
      out[0].pos[k] = a->pos[k] - 0.5 * (phi + a->size[0]) * g[k];
      out[0].normal[k] = -g[k];
    }
    out[0].dist = dist;
    out[0].side = 0;
    return 1;
  }
  field_init(&f, sdf, FIELD_SDF);
  tf_reduce_init_local(&red, sdf->mat, sdf->pos, slab_width(&sdf->sdf));
  double clear = sample_shape(&red, &f, a, margin, -1, 0);
  return finish(out, &red, cap, clear, stats);
}

int tf_collide_mesh_sdf(const tf_shape* mesh, const tf_shape* sdf, double margin, int cap,
                        tf_contact_point* out, tf_collide_stats* stats) {
  if (!two_way_pair(mesh, sdf)) return tf_collide_shape_sdf(mesh, sdf, margin, cap, out, stats);
  tf_contact_reducer red;
  double clear = sample_two_way(&red, mesh, sdf, margin);
  return finish(out, &red, cap, clear, stats);
}

int tf_collide_sdf_sdf(const tf_shape* a, const tf_shape* b, double margin, int cap,
                       tf_contact_point* out, tf_collide_stats* stats) {
  tf_contact_reducer red;
  field fa, fb;
  // both sides are fields: the larger nonzero spacing (fmax keeps a lone nonzero one)
  tf_reduce_init(&red, a->mat, fmax(slab_width(&a->sdf), slab_width(&b->sdf)));
  if (sdf_present(&a->sdf) && sdf_present(&b->sdf)) {
    field_init(&fa, a, FIELD_SDF);
    field_init(&fb, b, FIELD_SDF);
    tf_sdf_descend_fields(&red, &fa, &fb, margin, fmax(a->sdf.feature_size, b->sdf.feature_size),
                          stats ? stats->warm : NULL, stats ? stats->nwarm : 0,
                          stats ? stats->touching : 0);
  }
  return finish(out, &red, cap, -INFINITY, stats);  // a descent bounds nothing
}
