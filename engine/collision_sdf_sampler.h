// The surface sampler of X x field pairs (engine-private: collision_sdf.c's vertex pass and
// its pair functions, collision_sdf_triangle.c's triangle pass). The design is in
// collision_sdf.c's header.
#ifndef TF_COLLISION_SDF_SAMPLER_H
#define TF_COLLISION_SDF_SAMPLER_H

#include "collision_sdf.h"
#include "collision_sdf_field.h"
#include "contact_reduce.h"

// NOT_MIN: a neighbour is lower (curved primitives); SLOPE: phi falls steeply along an edge
// (two-way sampling)
enum { VERT_EVALUATED = 1, VERT_NOT_MIN = 2, VERT_SLOPE = 4 };

// per-vertex memory of the vertex pass, for the triangle pass: one 48-byte record a vertex (a
// triangle reads all of it, and neighbouring triangles share vertices: one or two cache lines
// where separate arrays took four)
typedef struct vertex_record {
  double phi;     // field value, or the box lower bound when not evaluated
  double pos[3];  // the vertex in the field's frame
  float grad[3];  // unit gradient in the sampled shape's frame
  unsigned char flag;
} vertex_record;
typedef struct vertex_cache {
  vertex_record v[TF_SDF_VERT_CACHE];
} vertex_cache;

// the edges' searches of one pass (descend_triangle): an edge is shared by two triangles,
// and either may pick it, so its minimum is sought once and kept here (open addressing on
// the pair of vertex ids, linear probing; a full table searches again)
#define EDGE_MEMO 4096
typedef struct edge_memo {
  int mask;                          // slots - 1 (a power of two, at most EDGE_MEMO)
  int count;                         // slots in use
  int key[EDGE_MEMO][2];             // the edge's vertex ids, lower first; -1: empty slot
  unsigned char found[EDGE_MEMO];    // a minimum below both ends was found
  unsigned char offered[EDGE_MEMO];  // a triangle where it is the minimum has taken it
  double x[EDGE_MEMO][3];            // the minimum found (field frame)
  double f[EDGE_MEMO];               // its value
  double g[EDGE_MEMO][3];            // its gradient (field frame)
} edge_memo;

// candidates waiting for the reducer: a pass hands its points over in blocks, so that the
// reducer's branches, which depend on each point's value and normal, do not stall the stream
// of field queries behind them (the next vertex's query overlaps the last one's only while no
// mispredicted branch on its result flushes the pipeline between them); the same points in
// the same order, so the same bytes
#define PENDING 64
typedef struct pending_points {
  int n;
  tf_contact_point c[PENDING];  // in the reducer's frame
} pending_points;

typedef struct sampler {
  const field* f;
  const tf_shape* x;   // the sampled shape
  const double* vert;  // its vertices, x's geom frame
  int nvert;
  double rot[9], off[3];  // x's geom frame -> the field's geom frame
  double margin;
  double sign;  // +1 when the field's shape is a (normals along the gradient), -1 when b
  int curved;   // refine minima on x's true surface
  int two_way;  // the other shape's surface is sampled in x's field too (see the design note)
  vertex_cache* cache;
  edge_memo* memo;                // NULL: no memo (every pick searches)
  tf_contact_reducer* red;        // a local reducer (tf_reduce_init_local)
  pending_points* pending;        // candidates not yet handed to red
  struct triangle_batch* batch;   // triangles prepared, not yet searched
  int red_same;                   // its frame is the field's geom frame; else:
  double red_rot[9], red_off[3];  // the field's geom frame -> the reducer's frame
  // a lower bound of phi over x's sampled surface (the least of the bounds the passes took
  // or skipped by; -INFINITY: none): tf_collide_stats.clear
  double* clear;
} sampler;

// prepared triangles waiting for their search (finish_triangles)
#define TRI_BATCH 32
// an edge search's first point and the field there (evaluated with the rest of its batch)
typedef struct edge_start {
  double y[3], f, g[3];
} edge_start;

typedef struct tri_plan {
  int kind;
  int edge;            // PLAN_EDGE: from vertex edge to edge + 1
  double tau, pred;    // PLAN_EDGE: the model's minimum and its value
  double slope[3][2];  // each edge's slopes at its two ends (per unit of the edge)
  double b0[2];        // vertex k's slopes along its two edges
  double h[3];         // the vertices' curvature (model_hessian)
} tri_plan;

// a triangle that needs a search (triangle_prepare), finished after its batch's first edge
// points are evaluated (triangle_finish)
typedef struct triangle_job {
  int idx[3];
  int k;         // the best vertex
  int modelled;  // all three vertices evaluated: plan holds the search's start
  int slot;      // an edge plan's memo slot (-1: none)
  int fresh;     // an edge plan's edge not sought before: start is its first point
  double P[3][3], val[3], L, L2, tol;
  double E1[3], E2[3], nrm[3];  // the edges leaving vertex k, the normal (field frame)
  tri_plan plan;
  edge_start start;
} triangle_job;

typedef struct triangle_batch {
  int n;
  triangle_job job[TRI_BATCH];
} triangle_batch;

// vertex i in the field's frame
static inline void vertex_position(double p[3], const sampler* s, int i) {
  matvec(p, s->rot, s->vert + 3 * i);
  add3(p, p, s->off);
}

// vertex i in the field's frame, from the vertex pass's cache where it has it
static inline void cached_position(double p[3], const sampler* s, int i) {
  if (i < TF_SDF_VERT_CACHE) {
    copy3(p, s->cache->v[i].pos);
  } else {
    vertex_position(p, s, i);
  }
}

// marks vertices with a lower (or equal and earlier) neighbour along an edge
static inline void mark_edge(vertex_cache* vc, int i, int j) {
  if (i >= TF_SDF_VERT_CACHE || j >= TF_SDF_VERT_CACHE) return;
  int lower = (vc->v[i].phi < vc->v[j].phi || (vc->v[i].phi == vc->v[j].phi && i < j)) ? i : j;
  vc->v[lower == i ? j : i].flag |= VERT_NOT_MIN;
}

// a vertex's value (or box bound) and, when evaluated, its gradient in the sampled shape's
// frame: from the cache, or afresh past its end
static inline int vertex_value(const sampler* s, int i, double* phi, double gx[3]) {
  if (i < TF_SDF_VERT_CACHE) {
    const vertex_record* r = &s->cache->v[i];
    *phi = r->phi;
    for (int k = 0; k < 3; k++) gx[k] = r->grad[k];
    return r->flag & VERT_EVALUATED;
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

// a candidate when under margin, at x's surface point p (field frame) with value phi and unit
// gradient g (handed to the reducer in blocks, see pending_points)
void tf_sampler_emit(const sampler* s, const double p[3], double phi, const double g[3]);
// a minimum found on a curved primitive's tessellation, moved onto its true surface
void tf_sampler_refine(const sampler* s, double x[3], double* phi, double g[3]);
// the triangle pass (collision_sdf_triangle.c): triangle (i0, i1, i2) of x prepared into the
// batch (searched when it fills), then the batch's rest searched, and marked vertices written
void tf_sampler_triangle(const sampler* s, int i0, int i1, int i2);
void tf_sampler_finish_triangles(const sampler* s);

#endif  // TF_COLLISION_SDF_SAMPLER_H
