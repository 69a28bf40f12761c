// Distances from meridional sections, and the meshes swept from them.
//
// A solid of revolution is fixed by its section in the half-plane at any angle: a polyline
// in (r, z) with the material on its left. For a point p at (rho, theta, z) the nearest
// surface point lies in p's own half-plane (a point of another half-plane at the same (r, z)
// is farther: |p - q|^2 = rho^2 + r^2 - 2 rho r cos(dphi) + dz^2 grows with |dphi|), so the 3D
// distance is the 2D distance from (rho, z) to the polyline, exactly, with the polyline's
// segments on the axis left out (they are not surface).
//
// A screw thread is not a solid of revolution: its section at angle theta + phi is the one at
// theta with every thread point lifted by lead * phi (lead = pitch / 2 pi). The 2D distance in
// p's half-plane is then only an upper bound, too large by about d (1 - cos(lambda)) on the
// flanks (lambda the lead angle, 2.4e-3 at the minor radius of M4: 1.2 um at d = 0.5 mm), and
// the classic fix, multiplying by cos(lambda_min), is a bound off by the same amount
// elsewhere. We instead follow each feature of the section around the axis.
//
// 1. Closed form. A vertex moving with w = d(r, z)/dphi sweeps the curve
//    X(phi) = turn(phi) (v + phi w); for a point at angle 0
//      |p - X(phi)|^2 = (rho - r)^2 + 2 rho r (1 - cos phi) + (z - z_x)^2,  r = r_v + phi w_r,
//    and with 2 (1 - cos phi) ~ phi^2 the minimiser is phi* = (d . w) / (|w|^2 + rho r_v),
//    d = (rho - r_v, z - z_v). A segment a + s u whose line moves with w sweeps a surface; the
//    same model in (s, phi) gives, with n the segment normal,
//      phi* = (n . w)(n . d) / (rho r_c + (n . w)^2),   s* = u . d - phi* (u . w),
//    valid while s* lies within the segment's ends as they move (each end has its own
//    velocity: a flank cut by a chamfer shortens as it turns) and phi* within the turn over
//    which the vertices exist (a corner reaching a chamfer ends there). X(s*, phi*) lies on
//    the surface, so |p - X| is never below the true distance, and the model is exact to
//    second order in phi* (phi* ~ lead d / r^2, a few hundredths of a radian): near the
//    surface it is within ~1e-7 d of the truth, about 1e-11 m.
// 2. Polish. The few features whose closed-form distances tie to 1e-4 get Newton steps on
//    the exact |p - X(s, phi)|^2 (gradient and Hessian in closed form), within their ranges:
//    the distance becomes exact to rounding and the gradient (p - X) / |p - X| exact too.
//    A closed-form point whose distance in the section alone, a lower bound on |p - X|, is
//    beyond twice the nearest so far skips the exact 3D distance (and its sincos): it can
//    neither win, nor be polished, nor leave an end the caller follows.
// 3. Look past ends. A feature whose optimum lies beyond the end of its range (a crossing of
//    a flank with a countersink that turns into a corner) may hand over to a feature the
//    point's own section lacks (the corner that emerges). Such ends are noted, and the
//    sections just past them are queried as well, their features followed back to p's angle.
//
// A thread's section is a graph r = h(z) = min(max(f(z - lead theta), lo...), hi...) of the
// periodic profile f clamped by static lines (a chamfer, a countersink); its vertices are the
// profile's kinks (velocity (0, lead)), crossings of a flank with a static line (velocity from
// the two lines' motions) and the two ends. Meshes sweep the same sections over stations
// around the axis, with a station at every angle where a kink crosses a static line, so that
// every crease of the surface is an edge of the mesh; stations are stitched by feature keys.
//
// Here: the queries (1-3). A thread's sections: profile_thread.c; the meshes: profile_mesh.c.
#include "sdf_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

// ---------------------------------------------------------------- queries

// an empty query: nothing found yet
void tf_profile_query_init(tf_profile_query* q, double rho, double z) {
  memset(q, 0, sizeof(*q));
  q->rho = rho;
  q->z = z;
  q->dist = INFINITY;
}

// cos and sin of phi: the features' turns are mostly small, where the Taylor series (to
// phi^12, phi^13: the next terms are below 1e-20 relative for |phi| <= 1/8) is within a few
// ulp of the library's and several times cheaper
static void cos_sin(double phi, double* c, double* s) {
  if (fabs(phi) <= 0.125) {
    double x2 = phi * phi;
    *s = phi * (1 + x2 * (-1.0 / 6 +
                          x2 * (1.0 / 120 +
                                x2 * (-1.0 / 5040 +
                                      x2 * (1.0 / 362880 +
                                            x2 * (-1.0 / 39916800 + x2 * (1.0 / 6227020800.0)))))));
    *c = 1 + x2 * (-0.5 +
                   x2 * (1.0 / 24 +
                         x2 * (-1.0 / 720 + x2 * (1.0 / 40320 + x2 * (-1.0 / 3628800 +
                                                                      x2 * (1.0 / 479001600.0))))));
    return;
  }
  *c = cos(phi), *s = sin(phi);
}

// the point of feature f at (s, phi), as the offset query point - X in (e_r, e_theta, e_z);
// returns its length
static double feature_offset(double off[3], const tf_profile_query* q, const tf_profile_feature* f,
                             double s, double phi) {
  double r = f->a[0] + s * f->u[0] + phi * f->w[0], z = f->a[1] + s * f->u[1] + phi * f->w[1];
  if (phi == 0) {
    off[0] = q->rho - r, off[1] = 0;
  } else {
    double c, sn;
    cos_sin(phi, &c, &sn);
    off[0] = q->rho - r * c, off[1] = -r * sn;
  }
  off[2] = q->z - z;
  return sqrt(off[0] * off[0] + off[1] * off[1] + off[2] * off[2]);
}

// records feature f at its point (f->s, f->phi): the nearest so far, and among the
// candidates the polish will revisit; returns its distance. A point whose distance in the
// section alone, sqrt((rho - r)^2 + dz^2) <= |p - X|, exceeds twice the nearest so far can
// neither win, nor be polished, nor leave an end the caller follows (it follows ends within
// twice the distance): that lower bound is returned instead, sparing the turn's sincos
static double consider(tf_profile_query* q, tf_profile_feature* f) {
  double off[3];
  double r = f->a[0] + f->s * f->u[0] + f->phi * f->w[0];
  double z = f->a[1] + f->s * f->u[1] + f->phi * f->w[1];
  double lb = (q->rho - r) * (q->rho - r) + (q->z - z) * (q->z - z);
  if (lb > 4 * q->dist * q->dist) return f->dist = sqrt(lb);
  f->dist = feature_offset(off, q, f, f->s, f->phi);
  if (f->dist < q->dist) {
    q->dist = f->dist;
    memcpy(q->off, off, sizeof(off));
    q->normal[0] = f->normal[0], q->normal[1] = f->normal[1];
  }
  if (f->moving && (q->ncand < TF_PROFILE_MAXCAND || f->dist < q->cand[q->ncand - 1].dist)) {
    int at = q->ncand < TF_PROFILE_MAXCAND ? q->ncand++ : TF_PROFILE_MAXCAND - 1;
    for (; at > 0 && q->cand[at - 1].dist > f->dist; at--) q->cand[at] = q->cand[at - 1];
    q->cand[at] = *f;
  }
  return f->dist;
}

// a feature wanted to turn past the end of its range (at angle end, going on in direction
// dir): what lies beyond may be nearer; keeps the TF_PROFILE_MAXEVENT nearest such ends
static void note_event(tf_profile_query* q, double end, int dir, double dist) {
  if (fabs(end - q->base) >= 0.999 * PHI_MAX) return;
  double a = end + dir * 1e-9;
  for (int i = 0; i < q->nevent; i++) {
    if (fabs(q->event[i] - a) < 1e-7) {
      q->event_dist[i] = fmin(q->event_dist[i], dist);
      return;
    }
  }
  if (q->nevent == TF_PROFILE_MAXEVENT && q->event_dist[q->nevent - 1] <= dist) return;
  int at = q->nevent < TF_PROFILE_MAXEVENT ? q->nevent++ : TF_PROFILE_MAXEVENT - 1;
  for (; at > 0 && q->event_dist[at - 1] > dist; at--) {
    q->event[at] = q->event[at - 1], q->event_dist[at] = q->event_dist[at - 1];
  }
  q->event[at] = a, q->event_dist[at] = dist;
}

// the curve a vertex sweeps: closed-form turn, clamped to where the vertex exists
void tf_profile_query_vertex(tf_profile_query* q, const tf_profile_vertex* v,
                             const double normal[2]) {
  // the vertex as seen from the query's half-plane: it sits at v at angle base
  tf_profile_feature f;
  memset(&f, 0, sizeof(f));
  f.a[0] = v->p[0] - q->base * v->w[0], f.a[1] = v->p[1] - q->base * v->w[1];
  f.w[0] = v->w[0], f.w[1] = v->w[1];
  f.normal[0] = normal[0], f.normal[1] = normal[1];
  f.lo = q->base + v->phi[0], f.hi = q->base + v->phi[1];
  double ww = v->w[0] * v->w[0] + v->w[1] * v->w[1];
  f.moving = ww > 0;
  // a static vertex is nearest at the query's own angle, if it exists there
  f.phi = clampd(0, f.lo, f.hi);
  int end = f.phi > 0 ? -1 : (f.phi < 0 ? 1 : 0);
  if (f.moving) {
    double dr = q->rho - f.a[0], dz = q->z - f.a[1];
    double want = (dr * v->w[0] + dz * v->w[1]) / (ww + q->rho * v->p[0]);
    f.phi = clampd(want, f.lo, f.hi);
    end = want < f.lo ? -1 : (want > f.hi ? 1 : 0);
    // a point never leaves r >= 0
    if (f.a[0] + f.phi * v->w[0] < 0) f.phi = -f.a[0] / v->w[0], end = 0;
  }
  double d = consider(q, &f);
  if (end) note_event(q, f.phi, end, d);
  // an end within reach (a surface point at angle phi is at least r |sin phi| away, and
  // |sin phi| >= 2 |phi| / pi): what takes over past it may come nearer
  double reach = v->p[0] > 0 ? 0.5 * PHI_MAX * d / v->p[0] : PHI_MAX;
  if (f.lo < f.phi && f.lo > -0.999 * PHI_MAX && f.lo >= -reach) note_event(q, f.lo, -1, d);
  if (f.hi > f.phi && f.hi < 0.999 * PHI_MAX && f.hi <= reach) note_event(q, f.hi, 1, d);
}

// the surface a segment sweeps: closed-form (s, turn), kept while within the moving ends
void tf_profile_query_segment(tf_profile_query* q, const tf_profile_vertex* a,
                              const tf_profile_vertex* b, const double w[2], int flip) {
  double e[2] = {b->p[0] - a->p[0], b->p[1] - a->p[1]};
  double len = sqrt(e[0] * e[0] + e[1] * e[1]);
  if (!(len > 0)) return;
  tf_profile_feature f;
  f.segment = 1;
  f.u[0] = e[0] / len, f.u[1] = e[1] / len;
  // right of a -> b: outward with the material on the left
  f.normal[0] = flip ? -f.u[1] : f.u[1], f.normal[1] = flip ? f.u[0] : -f.u[0];
  // the line as seen from the query's half-plane: a + s u + (phi - base) w
  f.a[0] = a->p[0] - q->base * w[0], f.a[1] = a->p[1] - q->base * w[1];
  f.w[0] = w[0], f.w[1] = w[1];
  f.len = len, f.base = q->base;
  f.ka = (a->w[0] - w[0]) * f.u[0] + (a->w[1] - w[1]) * f.u[1];
  f.kb = (b->w[0] - w[0]) * f.u[0] + (b->w[1] - w[1]) * f.u[1];
  f.lo = q->base + maxd(a->phi[0], b->phi[0]), f.hi = q->base + mind(a->phi[1], b->phi[1]);
  double d[2] = {q->rho - f.a[0], q->z - f.a[1]};
  const double* n = f.normal;
  double nw = n[0] * w[0] + n[1] * w[1], uw = f.u[0] * w[0] + f.u[1] * w[1];
  f.moving = nw != 0;
  f.phi = q->base;
  int end = 0;
  if (f.moving) {
    double along = f.u[0] * (q->rho - a->p[0]) + f.u[1] * (q->z - a->p[1]);
    double rc = a->p[0] + clampd(along, 0, len) * f.u[0];
    double den = q->rho * rc + nw * nw;
    if (den > 0) {
      double want = nw * (n[0] * d[0] + n[1] * d[1]) / den;
      f.phi = clampd(want, f.lo, f.hi);
      end = want < f.lo ? -1 : (want > f.hi ? 1 : 0);
    }
  }
  f.s = f.u[0] * d[0] + f.u[1] * d[1] - f.phi * uw;
  // the ends move with their own velocities relative to the line
  double turn = f.phi - q->base;
  if (f.s < turn * f.ka || f.s > len + turn * f.kb) return;
  if (f.a[0] + f.s * f.u[0] + f.phi * w[0] < 0) return;
  double dist = consider(q, &f);
  if (end) note_event(q, f.phi, end, dist);
}

// every segment and vertex of a polyline, vertices reporting their adjacent normals
void tf_profile_query_polyline(tf_profile_query* q, const tf_profile_vertex* v, int n,
                               const double* segw, int flip) {
  static const double zero[2] = {0, 0};
  double prev[2] = {0, 0};
  for (int i = 0; i < n; i++) {
    double nrm[2] = {prev[0], prev[1]};
    if (i + 1 < n) {
      const double* w = segw ? segw + 2 * i : zero;
      tf_profile_query_segment(q, &v[i], &v[i + 1], w, flip);
      double e[2] = {v[i + 1].p[0] - v[i].p[0], v[i + 1].p[1] - v[i].p[1]};
      double len = sqrt(e[0] * e[0] + e[1] * e[1]);
      if (len > 0) {
        prev[0] = (flip ? -e[1] : e[1]) / len, prev[1] = (flip ? e[0] : -e[0]) / len;
        nrm[0] += prev[0], nrm[1] += prev[1];
      }
    }
    double nn = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1]);
    if (nn > 0) nrm[0] /= nn, nrm[1] /= nn;
    tf_profile_query_vertex(q, &v[i], nrm);
  }
}

// One static feature met at its point (r, zz) with outward normal nrm: consider()'s test for
// a feature that does not move and does not turn (phi 0), with the same arithmetic.
static void static_point(tf_profile_query* q, double r, double zz, const double nrm[2]) {
  double dr = q->rho - r, dz = q->z - zz;
  double lb = dr * dr + dz * dz;
  if (lb > 4 * q->dist * q->dist) return;
  // feature_offset at phi 0: the e_theta offset is 0, and adding its square changes nothing
  double dist = sqrt(dr * dr + 0.0 * 0.0 + dz * dz);
  if (dist < q->dist) {
    q->dist = dist;
    q->off[0] = dr, q->off[1] = 0, q->off[2] = dz;
    q->normal[0] = nrm[0], q->normal[1] = nrm[1];
  }
}

int tf_profile_static_init(tf_profile_static* t, const tf_profile_vertex* v, int n, int flip) {
  if (n < 0 || n > TF_PROFILE_STATIC_MAXV) return -1;
  memset(t, 0, sizeof(*t));
  t->n = n;
  double prev[2] = {0, 0};
  for (int i = 0; i < n; i++) {
    t->p[i][0] = v[i].p[0], t->p[i][1] = v[i].p[1];
    double nrm[2] = {prev[0], prev[1]};
    if (i + 1 < n) {
      // tf_profile_query_segment's direction and normal, and the polyline's running normal
      double e[2] = {v[i + 1].p[0] - v[i].p[0], v[i + 1].p[1] - v[i].p[1]};
      double len = sqrt(e[0] * e[0] + e[1] * e[1]);
      if (len > 0) {
        t->len[i] = len;
        t->u[i][0] = e[0] / len, t->u[i][1] = e[1] / len;
        t->normal[i][0] = flip ? -t->u[i][1] : t->u[i][1];
        t->normal[i][1] = flip ? t->u[i][0] : -t->u[i][0];
        t->uw[i] = t->u[i][0] * 0.0 + t->u[i][1] * 0.0;
        prev[0] = (flip ? -e[1] : e[1]) / len, prev[1] = (flip ? e[0] : -e[0]) / len;
        nrm[0] += prev[0], nrm[1] += prev[1];
      }
    }
    double nn = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1]);
    if (nn > 0) nrm[0] /= nn, nrm[1] /= nn;
    t->vnormal[i][0] = nrm[0], t->vnormal[i][1] = nrm[1];
  }
  return 0;
}

// Every segment and vertex of a static polyline in tf_profile_query_polyline's order, each
// with the arithmetic its general query does when w = 0, phi = 0 and base = 0 (terms such as
// phi w and base w are exact zeros there, added as 0.0 for the sign of a zero result), and
// what does not depend on the query point taken from the table: a surface of revolution (a
// peg's or a bore's section) asks for nothing else, and skips the features' setup, the
// candidate and event bookkeeping, the query's clearing and every root and division but the
// nearest point's own.
void tf_profile_query_static(tf_profile_query* q, double rho, double z,
                             const tf_profile_static* t) {
  q->rho = rho;
  q->z = z;
  q->base = 0;
  q->dist = INFINITY;
  q->off[0] = q->off[1] = q->off[2] = 0;
  q->normal[0] = q->normal[1] = 0;
  q->ncand = 0;
  q->nevent = 0;
  for (int i = 0; i < t->n; i++) {
    if (i + 1 < t->n && t->len[i] > 0) {
      const double* a = t->p[i];
      const double* u = t->u[i];
      double d[2] = {rho - a[0], z - a[1]};
      double s = u[0] * d[0] + u[1] * d[1] - 0.0 * t->uw[i];
      // within the segment's ends, and at r >= 0 (the general r and z carry a + phi w term)
      if (!(s < 0) && !(s > t->len[i])) {
        double r = a[0] + s * u[0] + 0.0;
        if (!(r < 0)) static_point(q, r, a[1] + s * u[1] + 0.0, t->normal[i]);
      }
    }
    // a vertex's point, a + s u + phi w with s, u, phi and w zero
    static_point(q, t->p[i][0] + 0.0 + 0.0, t->p[i][1] + 0.0 + 0.0, t->vnormal[i]);
  }
}

// F(s, phi) = |p - X(s, phi)|^2 on feature f, with its gradient g and Hessian h (ss, sphi,
// phiphi)
static double feature_f(const tf_profile_query* q, const tf_profile_feature* f, double s,
                        double phi, double g[2], double h[3]) {
  double r = f->a[0] + s * f->u[0] + phi * f->w[0], z = f->a[1] + s * f->u[1] + phi * f->w[1];
  double c, sn, rho = q->rho, dz = q->z - z;
  cos_sin(phi, &c, &sn);
  double cr = r - rho * c;
  g[0] = 2 * (f->u[0] * cr - f->u[1] * dz);
  g[1] = 2 * (f->w[0] * cr + rho * r * sn - f->w[1] * dz);
  h[0] = 2 * (f->u[0] * f->u[0] + f->u[1] * f->u[1]);
  h[1] = 2 * (f->u[0] * (f->w[0] + rho * sn) + f->u[1] * f->w[1]);
  h[2] = 2 * (f->w[0] * f->w[0] + 2 * rho * f->w[0] * sn + rho * r * c + f->w[1] * f->w[1]);
  return rho * rho + r * r - 2 * rho * r * c + dz * dz;
}

// Newton steps on the exact squared distance to one feature, within its ranges
static void polish(const tf_profile_query* q, tf_profile_feature* f) {
  double s = f->s, phi = f->phi, g[2], h[3];
  double fx = feature_f(q, f, s, phi, g, h);
  for (int it = 0; it < 4; it++) {
    double ds = 0, dphi;
    if (f->segment) {
      double det = h[0] * h[2] - h[1] * h[1];
      if (!(h[0] > 0 && det > 0)) break;
      ds = -(h[2] * g[0] - h[1] * g[1]) / det;
      dphi = -(h[0] * g[1] - h[1] * g[0]) / det;
    } else {
      if (!(h[2] > 0)) break;
      dphi = -g[1] / h[2];
    }
    double nphi = clampd(phi + dphi, f->lo, f->hi), ns = s;
    if (f->segment) {
      double turn = nphi - f->base;
      ns = clampd(s + ds, turn * f->ka, f->len + turn * f->kb);
    }
    if (f->a[0] + ns * f->u[0] + nphi * f->w[0] < 0) break;
    double nf = feature_f(q, f, ns, nphi, g, h);
    if (!(nf < fx)) break;
    s = ns, phi = nphi, fx = nf;
    if (fabs(dphi) < 1e-15 && fabs(ds) < 1e-18) break;
  }
  f->s = s, f->phi = phi;
}

// Newton on the contenders the closed form cannot rank, keeping the nearest
void tf_profile_query_refine(tf_profile_query* q) {
  if (q->ncand == 0) return;
  // the closed form is within ~1e-7 of the distance near the surface (~1e-4 far from it, by
  // the axis): polish every contender that close
  double limit = q->cand[0].dist * (1 + 1e-4) + 1e-15;
  for (int i = 0; i < q->ncand && q->cand[i].dist <= limit; i++) {
    tf_profile_feature* f = &q->cand[i];
    polish(q, f);
    double off[3], d = feature_offset(off, q, f, f->s, f->phi);
    if (d < q->dist) {
      q->dist = d;
      memcpy(q->off, off, sizeof(off));
      q->normal[0] = f->normal[0], q->normal[1] = f->normal[1];
    }
  }
}

// the unit direction away from the nearest point, turned into x y z
void tf_profile_query_gradient(double grad[3], const tf_profile_query* q, double c, double s,
                               int inside) {
  double g[3];
  if (q->dist > 1e-15) {
    double k = (inside ? -1.0 : 1.0) / q->dist;
    g[0] = q->off[0] * k, g[1] = q->off[1] * k, g[2] = q->off[2] * k;
  } else {
    g[0] = q->normal[0], g[1] = 0, g[2] = q->normal[1];
  }
  grad[0] = g[0] * c - g[1] * s;
  grad[1] = g[0] * s + g[1] * c;
  grad[2] = g[2];
}
