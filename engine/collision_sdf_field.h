// The fields that SDF and mesh pairs measure in (private to collision_sdf.c and
// collision_sdf_descent.c): an SDF (analytic or grid), a primitive's exact distance or a
// hull's face-plane bound, each evaluated in its shape's geom frame, with the small vector
// helpers both files run per vertex, per triangle and per descent step.
#ifndef TF_COLLISION_SDF_FIELD_H
#define TF_COLLISION_SDF_FIELD_H

#include <math.h>

#include "collision.h"
#include "contact_reduce.h"
#include "sdf.h"
#include "sdf_primitive.h"

// small vector helpers inlined here: the passes below run them per vertex and per triangle,
// thousands of times per pair (tf_math.h's are out of line)
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
static inline void cross3(double out[3], const double a[3], const double b[3]) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2];
  double z = a[0] * b[1] - a[1] * b[0];
  out[0] = x, out[1] = y, out[2] = z;
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

enum { FIELD_SDF, FIELD_PRIMITIVE, FIELD_HULL };

typedef struct field {
  const tf_shape* shape;
  int kind;
  double lo[3], hi[3];  // a box holding the solid, geom frame (+-INFINITY: unbounded)
} field;

// whether a shape carries an SDF that can be evaluated
static inline int sdf_present(const tf_sdf_view* v) {
  return v->fn != NULL || (v->grid != NULL && v->res[0] > 1 && v->res[1] > 1 && v->res[2] > 1);
}

// a field over shape s: its SDF, its exact primitive distance or its hull's plane bound
static inline void field_init(field* f, const tf_shape* s, int kind) {
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
static inline double field_local(const field* f, const double p[3], double g[3]) {
  double v;
  if (f->kind == FIELD_SDF) {
    v = tf_sdf_eval(&f->shape->sdf, p, g);
    // an SDF that promises a unit gradient (a thread's: an offset over its length) is checked,
    // not normalised: a root and a division per query (about 10 % of a seated nut's contact
    // time); any other is normalised, bit for bit as before
    int unit = f->shape->sdf.unit_gradient && fabs(dot3(g, g) - 1) <= 1e-12;
    if (!unit && normalize3(g) == 0) g[0] = 0, g[1] = 0, g[2] = 1;
  } else if (f->kind == FIELD_PRIMITIVE) {
    v = tf_primitive_sdf(f->shape->type, f->shape->size, p, g);
  } else {
    v = tf_hull_sdf_bound(&f->shape->hull, p, g);
  }
  return v;
}

// value and unit gradient at a world point
static inline double field_world(const field* f, const double w[3], double g[3]) {
  double rel[3], p[3], gl[3];
  sub3(rel, w, f->shape->pos);
  matvec_t(p, f->shape->mat, rel);
  double v = field_local(f, p, gl);
  matvec(g, f->shape->mat, gl);
  return v;
}

// distance from p to the field's box (0 inside): a lower bound of the distance to the solid
static inline double box_gap(const field* f, const double p[3]) {
  double s = 0;
  for (int k = 0; k < 3; k++) {
    double below = f->lo[k] - p[k], above = p[k] - f->hi[k];
    double e = below > 0 ? below : (above > 0 ? above : 0);
    s += e * e;
  }
  return s > 0 ? sqrt(s) : 0;
}

// the field's box in world axes (unbounded boxes stay unbounded)
static inline void field_world_box(double lo[3], double hi[3], const field* f) {
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

// multi-start descent on phi1 + phi2 + |max(phi1, phi2)| over the overlap of the two fields'
// world boxes, minimisers under margin into red; spacing: the fields' repeated features'
// spacing (0: none), whose copies each get starts of their own; warm: nwarm more starts
// (world points where the pair touched last step; NULL: none); touching: keep to where the
// pair touches, with the ring around it (re-linearisation, tf_collide_stats.touching)
// (collision_sdf_descent.c)
void tf_sdf_descend_fields(tf_contact_reducer* red, const field* f1, const field* f2, double margin,
                           double spacing, const double* warm, int nwarm, int touching);

#endif  // TF_COLLISION_SDF_FIELD_H
