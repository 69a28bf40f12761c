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
#include "sdf_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TWO_PI 6.283185307179586
#define PHI_MAX 3.141592653589793  // rad: how far around a feature may be followed
#define KEY_OFF 65536              // keeps kink keys positive
#define END0 28                    // static-line ids of the two ends of a thread
#define END1 29
#define MERGE_TOL 1e-12  // m: vertices this close are one vertex of the mesh

// ---------------------------------------------------------------- queries

// an empty query: nothing found yet
void tf_profile_query_init(tf_profile_query* q, double rho, double z) {
  memset(q, 0, sizeof(*q));
  q->rho = rho;
  q->z = z;
  q->dist = INFINITY;
}

static double clampd(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }
static double maxd(double a, double b) { return a > b ? a : b; }
static double mind(double a, double b) { return a < b ? a : b; }

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

// ---------------------------------------------------------------- thread sections

// a line of the envelope: r = a + b z; thread lines move up by lead per radian
typedef struct env_line {
  double a, b;
  int moving;  // 1 for the thread's segment g, 0 for static line sid
  long g;
  int sid;
} env_line;

static double lead_of(const tf_profile_thread* t) { return t->pitch / TWO_PI; }

static long floor_div(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// z of global kink g (kink g mod nkink of period floor(g / nkink)) at shift s
static double kink_z(const tf_profile_thread* t, double s, long g) {
  long per = floor_div(g, t->nkink);
  int k = (int)(g - per * t->nkink);
  return t->kink[k][1] + (double)per * t->pitch + s;
}

// radius of global kink g
static double kink_r(const tf_profile_thread* t, long g) {
  long per = floor_div(g, t->nkink);
  return t->kink[g - per * t->nkink][0];
}

// the smallest global kink index whose z is above z
static long kink_after(const tf_profile_thread* t, double s, double z) {
  long g = (long)floor((z - s) / t->pitch - 1.0) * t->nkink;
  while (kink_z(t, s, g) <= z) g++;
  return g;
}

// the line of thread segment g (from kink g to kink g + 1)
static env_line thread_line(const tf_profile_thread* t, double s, long g) {
  double za = kink_z(t, s, g), zb = kink_z(t, s, g + 1);
  double ra = kink_r(t, g), rb = kink_r(t, g + 1);
  env_line l;
  l.b = (rb - ra) / (zb - za);
  l.a = ra - l.b * za;
  l.moving = 1, l.g = g, l.sid = -1;
  return l;
}

// the static lines: lo first, then hi
static int static_lines(env_line* out, const tf_profile_thread* t) {
  int n = t->nlo + t->nhi;
  for (int j = 0; j < n; j++) {
    const double* l = j < t->nlo ? t->lo[j] : t->hi[j - t->nlo];
    out[j].a = l[0], out[j].b = l[1], out[j].moving = 0, out[j].g = 0, out[j].sid = j;
  }
  return n;
}

// h at z given the thread's line there; *which = index into lines (0 = thread)
static double envelope(const tf_profile_thread* t, const env_line* lines, double z, int* which) {
  double v = lines[0].a + lines[0].b * z;
  int k = 0;
  for (int j = 1; j <= t->nlo + t->nhi; j++) {
    double x = lines[j].a + lines[j].b * z;
    if (j <= t->nlo ? x > v : x < v) v = x, k = j;
  }
  if (which) *which = k;
  return v;
}

// the envelope at z from the profile segment there and the static lines
double tf_profile_thread_radius(const tf_profile_thread* t, double theta, double z) {
  z = clampd(z, t->z0, t->z1);
  double s = lead_of(t) * theta;
  env_line lines[1 + 2 * TF_PROFILE_MAXLINE];
  lines[0] = thread_line(t, s, kink_after(t, s, z) - 1);
  static_lines(lines + 1, t);
  return envelope(t, lines, z, NULL);
}

// the key of the crossing of a line with static line `end` (a static id or an end)
static int key_line(const env_line* l, int end) {
  if (l->moving) return (int)(((l->g + KEY_OFF) << 5) | (1 + end));
  int lo = l->sid < end ? l->sid : end, hi = l->sid < end ? end : l->sid;
  return (1 << 30) | (lo << 5) | hi;
}

// the key of the crossing of two envelope lines
static int key_pair(const env_line* l1, const env_line* l2) {
  if (l1->moving && l2->moving) return (int)((((l1->g > l2->g ? l1->g : l2->g)) + KEY_OFF) << 5);
  if (l1->moving) return key_line(l1, l2->sid);
  return key_line(l2, l1->sid);
}

// velocity of the crossing of two lines: each line r - b z = a moves with da/dphi
static void crossing_velocity(double w[2], const env_line* l1, const env_line* l2, double lead) {
  if (l1->moving && l2->moving) {
    w[0] = 0, w[1] = lead;
    return;
  }
  double c1 = l1->moving ? -l1->b * lead : 0, c2 = l2->moving ? -l2->b * lead : 0;
  double den = l2->b - l1->b;
  double wz = fabs(den) > 1e-12 ? (c1 - c2) / den : 0;
  w[0] = c1 + l1->b * wz, w[1] = wz;
}

// velocity of the point where a line meets an end plane z = const
static void end_velocity(double w[2], const env_line* l, double lead) {
  w[0] = l->moving ? -l->b * lead : 0, w[1] = 0;
}

// velocity of a point carried by the line itself (a cut of the window)
static void line_velocity(double w[2], const env_line* l, double lead) {
  w[0] = 0, w[1] = l->moving ? lead : 0;
}

// insertion sort: the lists are short or nearly sorted
static void sort_doubles(double* x, int n) {
  for (int i = 1; i < n; i++) {
    double v = x[i];
    int j = i - 1;
    for (; j >= 0 && x[j] > v; j--) x[j + 1] = x[j];
    x[j + 1] = v;
  }
}

// keeps c0 + phi c1 >= 0 within the range phi
static void limit(double phi[2], double c0, double c1) {
  if (c1 > 0) phi[0] = maxd(phi[0], -c0 / c1);
  if (c1 < 0) phi[1] = mind(phi[1], -c0 / c1);
}

// the turn range over which a vertex at p moving with w stays where it is on the envelope:
// within the thread's length, on the kept side of every static line other than its own
// (own1, own2: sids, -1 for none) and, if it slides along thread segment g (on_seg), between
// that segment's ends
static void vertex_range(double phi[2], const tf_profile_thread* t, const env_line* st, int ns,
                         double s, const double p[2], const double w[2], int own1, int own2,
                         int on_seg, long g) {
  phi[0] = -PHI_MAX, phi[1] = PHI_MAX;
  if (w[0] == 0 && w[1] == 0 && !on_seg) {
    // a point of static lines alone: whether the thread covers it at other angles is not
    // worked out, so it only counts where it was found
    phi[0] = phi[1] = 0;
    return;
  }
  limit(phi, p[1] - t->z0, w[1]);
  limit(phi, t->z1 - p[1], -w[1]);
  for (int j = 0; j < ns; j++) {
    if (st[j].sid == own1 || st[j].sid == own2) continue;
    double c0 = p[0] - st[j].a - st[j].b * p[1], c1 = w[0] - st[j].b * w[1];
    if (j < t->nlo) {
      limit(phi, c0, c1);
    } else {
      limit(phi, -c0, -c1);
    }
  }
  if (on_seg) {
    double lead = lead_of(t);
    limit(phi, p[1] - kink_z(t, s, g), w[1] - lead);
    limit(phi, kink_z(t, s, g + 1) - p[1], lead - w[1]);
  }
  phi[0] = mind(phi[0], 0), phi[1] = maxd(phi[1], 0);
}

// appends a vertex (and the velocity of the segment before it); 0, or -1 when full
static int emit(tf_profile_vertex* v, double* segw, int* count, int cap, double r, double z,
                const double w[2], int key, const double wseg[2]) {
  if (*count >= cap) return -1;
  tf_profile_vertex* x = &v[*count];
  x->p[0] = r, x->p[1] = z, x->w[0] = w[0], x->w[1] = w[1];
  x->phi[0] = x->phi[1] = 0;
  x->nkey = key ? 1 : 0;
  x->key[0] = key;
  if (*count > 0 && segw) segw[2 * (*count - 1)] = wseg[0], segw[2 * (*count - 1) + 1] = wseg[1];
  (*count)++;
  return 0;
}

// walks the profile segments through [za, zb]; within each, the lines' crossings split it
// into pieces with one active line, and each change of active line is a vertex
int tf_profile_thread_section(tf_profile_vertex* v, double* segw, int cap,
                              const tf_profile_thread* t, double theta, double za, double zb) {
  if (za < t->z0) za = t->z0;
  if (zb > t->z1) zb = t->z1;
  if (za > zb) return 0;
  double lead = lead_of(t), s = lead * theta;
  env_line lines[1 + 2 * TF_PROFILE_MAXLINE];
  int nstat = static_lines(lines + 1, t), nl = 1 + nstat;
  long g = kink_after(t, s, za) - 1;
  int count = 0, started = 0;
  // cur is the active line once started; until then it is only compared, never used
  env_line cur = thread_line(t, s, g);
  double x = za, w[2], wl[2];
  for (;;) {
    lines[0] = thread_line(t, s, g);
    double zk = kink_z(t, s, g + 1);
    double xb = zk < zb ? zk : zb;
    double bp[2 + (1 + 2 * TF_PROFILE_MAXLINE) * (1 + 2 * TF_PROFILE_MAXLINE)];
    int nb = 0;
    bp[nb++] = x;
    for (int i = 0; i < nl; i++) {
      for (int j = i + 1; j < nl; j++) {
        if (lines[i].b == lines[j].b) continue;
        double zc = (lines[j].a - lines[i].a) / (lines[i].b - lines[j].b);
        if (zc > x && zc < xb) bp[nb++] = zc;
      }
    }
    sort_doubles(bp + 1, nb - 1);
    bp[nb++] = xb;
    for (int k = 0; k + 1 < nb; k++) {
      if (bp[k + 1] <= bp[k] && !(nb == 2 && !started)) continue;
      int which;
      envelope(t, lines, 0.5 * (bp[k] + bp[k + 1]), &which);
      env_line act = lines[which];
      int same = act.moving == cur.moving && (act.moving ? act.g == cur.g : act.sid == cur.sid);
      if (!started) {
        double r = act.a + act.b * bp[k];
        int key = 0;
        if (bp[k] == t->z0) {
          end_velocity(w, &act, lead);
          key = key_line(&act, END0);
        } else {
          line_velocity(w, &act, lead);
        }
        if (emit(v, segw, &count, cap, r, bp[k], w, key, w)) return -1;
        vertex_range(v[count - 1].phi, t, lines + 1, nstat, s, v[count - 1].p, w,
                     act.moving ? -1 : act.sid, -1, act.moving, act.g);
        started = 1;
      } else if (!same) {
        double r, z = bp[k];
        int kink = act.moving && cur.moving;
        if (kink) {
          r = kink_r(t, act.g), z = kink_z(t, s, act.g);
        } else {
          r = act.a + act.b * z;
        }
        crossing_velocity(w, &cur, &act, lead);
        line_velocity(wl, &cur, lead);
        if (emit(v, segw, &count, cap, r, z, w, key_pair(&cur, &act), wl)) return -1;
        const env_line* th = act.moving ? &act : &cur;
        vertex_range(v[count - 1].phi, t, lines + 1, nstat, s, v[count - 1].p, w,
                     cur.moving ? -1 : cur.sid, act.moving ? -1 : act.sid, !kink && th->moving,
                     th->g);
      }
      cur = act;
    }
    if (xb >= zb) break;
    x = xb;
    g++;
  }
  // the last vertex
  double r = cur.a + cur.b * zb;
  int key = 0;
  line_velocity(wl, &cur, lead);
  if (zb == t->z1) {
    end_velocity(w, &cur, lead);
    key = key_line(&cur, END1);
  } else {
    memcpy(w, wl, sizeof(w));
  }
  if (emit(v, segw, &count, cap, r, zb, w, key, wl)) return -1;
  vertex_range(v[count - 1].phi, t, lines + 1, nstat, s, v[count - 1].p, w,
               cur.moving ? -1 : cur.sid, -1, cur.moving, cur.g);
  return count;
}

// the first or last vertex of a short section at that end
void tf_profile_thread_end(tf_profile_vertex* v, const tf_profile_thread* t, double theta,
                           int which) {
  tf_profile_vertex buf[64];
  double eps = fmin(t->pitch / 64, 0.5 * (t->z1 - t->z0));
  int n = which ? tf_profile_thread_section(buf, NULL, 64, t, theta, t->z1 - eps, t->z1)
                : tf_profile_thread_section(buf, NULL, 64, t, theta, t->z0, t->z0 + eps);
  if (n <= 0) {
    memset(v, 0, sizeof(*v));
    return;
  }
  *v = which ? buf[n - 1] : buf[0];
}

// angle in [0, 2 pi) at which a thread point at zeta reaches z
static double reach_angle(const tf_profile_thread* t, double zeta, double z) {
  double a = fmod((z - zeta) / lead_of(t), TWO_PI);
  return a < 0 ? a + TWO_PI : a;
}

// every kink against every static line and end, every flank through every static corner
int tf_profile_thread_events(double* theta, int cap, const tf_profile_thread* t) {
  env_line st[2 * TF_PROFILE_MAXLINE + 2];
  int ns = static_lines(st, t);
  int n = 0;
  double rmin = INFINITY, rmax = -INFINITY;
  for (int k = 0; k < t->nkink; k++) {
    rmin = fmin(rmin, t->kink[k][0]), rmax = fmax(rmax, t->kink[k][0]);
  }
  // a kink crossing a static line or an end
  for (int k = 0; k < t->nkink; k++) {
    double zs[2 * TF_PROFILE_MAXLINE + 2];
    int nz = 0;
    for (int j = 0; j < ns; j++) {
      if (st[j].b != 0) zs[nz++] = (t->kink[k][0] - st[j].a) / st[j].b;
    }
    zs[nz++] = t->z0, zs[nz++] = t->z1;
    for (int j = 0; j < nz; j++) {
      if (zs[j] < t->z0 || zs[j] > t->z1) continue;
      if (n >= cap) return -1;
      theta[n++] = reach_angle(t, t->kink[k][1], zs[j]);
    }
  }
  // a flank passing through a corner of the static lines (two lines, or a line and an end)
  double corner[(2 * TF_PROFILE_MAXLINE + 2) * (2 * TF_PROFILE_MAXLINE + 2)][2];
  int nc = 0;
  for (int i = 0; i < ns; i++) {
    for (int j = i + 1; j < ns; j++) {
      if (st[i].b == st[j].b) continue;
      double z = (st[j].a - st[i].a) / (st[i].b - st[j].b);
      corner[nc][0] = st[i].a + st[i].b * z, corner[nc++][1] = z;
    }
    corner[nc][0] = st[i].a + st[i].b * t->z0, corner[nc++][1] = t->z0;
    corner[nc][0] = st[i].a + st[i].b * t->z1, corner[nc++][1] = t->z1;
  }
  for (int c = 0; c < nc; c++) {
    double r = corner[c][0], z = corner[c][1];
    if (z < t->z0 || z > t->z1 || r < rmin || r > rmax) continue;
    for (int k = 0; k < t->nkink; k++) {
      double r0 = t->kink[k][0], z0 = t->kink[k][1];
      double r1 = t->kink[(k + 1) % t->nkink][0];
      double z1 = t->kink[(k + 1) % t->nkink][1] + (k + 1 == t->nkink ? t->pitch : 0);
      if (r0 == r1 || (r - r0) * (r - r1) > 0) continue;
      if (n >= cap) return -1;
      theta[n++] = reach_angle(t, z0 + (r - r0) / (r1 - r0) * (z1 - z0), z);
    }
  }
  sort_doubles(theta, n);
  return n;
}

// ---------------------------------------------------------------- meshes

// room for one more item of `size` bytes in *p (capacity *cap, count n); -1 and failed when
// memory runs out
static int grow(tf_profile_mesh* m, void** p, int* cap, int n, size_t size) {
  if (n < *cap) return 0;
  int c = *cap ? 2 * *cap : 256;
  void* q = realloc(*p, size * (size_t)c);
  if (!q) return m->failed = 1, -1;
  *p = q, *cap = c;
  return 0;
}

// appends a vertex; 0 (and failed) when memory runs out
int tf_profile_mesh_vertex(tf_profile_mesh* m, double x, double y, double z) {
  if (grow(m, (void**)&m->vert, &m->capvert, m->nvert, 3 * sizeof(double))) return 0;
  double* p = m->vert + 3 * (size_t)m->nvert;
  p[0] = x, p[1] = y, p[2] = z;
  return m->nvert++;
}

// appends a triangle; degenerate ones (a repeated index, at a pole) are dropped
void tf_profile_mesh_face(tf_profile_mesh* m, int a, int b, int c) {
  if (a == b || b == c || a == c) return;
  if (grow(m, (void**)&m->face, &m->capface, m->nface, 3 * sizeof(int))) return;
  int* f = m->face + 3 * (size_t)m->nface++;
  f[0] = a, f[1] = b, f[2] = c;
}

// releases a mesh that was not handed over
void tf_profile_mesh_free(tf_profile_mesh* m) {
  free(m->vert);
  free(m->face);
  memset(m, 0, sizeof(*m));
}

// uniform stations with those next to an event dropped, merged with the events
int tf_profile_stations(double* theta, int cap, double dmax, const double* events, int nevents) {
  // a little finer than dmax, so that dropping a station beside an event keeps the spacing
  int nu = (int)ceil(TWO_PI / (0.95 * dmax));
  if (nu < 3) nu = 3;
  double near = 0.05 * TWO_PI / nu;
  int n = 0;
  for (int e = 0; e < nevents; e++) {
    if (n >= cap) return -1;
    theta[n++] = events[e];
  }
  for (int i = 0, e = 0; i < nu; i++) {
    double u = TWO_PI * i / nu, gap = INFINITY;
    while (e < nevents && events[e] < u) e++;
    if (nevents > 0) {
      // circular distance to the events on either side
      double after = e < nevents ? events[e] - u : events[0] + TWO_PI - u;
      double before = e > 0 ? u - events[e - 1] : u + TWO_PI - events[nevents - 1];
      gap = fmin(after, before);
    }
    if (gap < near) continue;
    if (n >= cap) return -1;
    theta[n++] = u;
  }
  sort_doubles(theta, n);
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (k > 0 && theta[i] - theta[k - 1] < 1e-9) continue;
    theta[k++] = theta[i];
  }
  while (k > 1 && theta[0] + TWO_PI - theta[k - 1] < 1e-9) k--;
  return k;
}

// rings per profile vertex, quads between neighbouring rings
void tf_profile_mesh_lathe(tf_profile_mesh* m, int* first, int* last, const double (*prof)[2],
                           int n, const double* theta, int ntheta) {
  int* idx = malloc(sizeof(int) * (size_t)n * (size_t)ntheta);
  if (!idx) {
    m->failed = 1;
    return;
  }
  for (int j = 0; j < n; j++) {
    if (prof[j][0] <= 0) {
      int pole = tf_profile_mesh_vertex(m, 0, 0, prof[j][1]);
      for (int i = 0; i < ntheta; i++) idx[j * ntheta + i] = pole;
      continue;
    }
    for (int i = 0; i < ntheta; i++) {
      idx[j * ntheta + i] = tf_profile_mesh_vertex(m, prof[j][0] * cos(theta[i]),
                                                   prof[j][0] * sin(theta[i]), prof[j][1]);
    }
  }
  for (int i = 0; i < ntheta; i++) {
    int i1 = (i + 1) % ntheta;
    for (int j = 0; j + 1 < n; j++) {
      int a0 = idx[j * ntheta + i], b0 = idx[j * ntheta + i1];
      int a1 = idx[(j + 1) * ntheta + i], b1 = idx[(j + 1) * ntheta + i1];
      tf_profile_mesh_face(m, a0, b0, a1);
      tf_profile_mesh_face(m, a1, b0, b1);
    }
    first[i] = idx[i];
    last[i] = idx[(n - 1) * ntheta + i];
  }
  free(idx);
}

// one station of a thread mesh: the section's vertices (coincident ones merged) and their
// mesh indices
typedef struct station {
  tf_profile_vertex* v;
  int* idx;
  int n;
} station;

// whether two vertices of neighbouring stations are the same feature
static int share_key(const tf_profile_vertex* a, const tf_profile_vertex* b) {
  for (int i = 0; i < a->nkey; i++) {
    for (int j = 0; j < b->nkey; j++) {
      if (a->key[i] == b->key[j]) return 1;
    }
  }
  return 0;
}

// adds a key once, up to TF_PROFILE_MAXKEY
static void add_key(tf_profile_vertex* v, int key) {
  for (int i = 0; i < v->nkey; i++) {
    if (v->key[i] == key) return;
  }
  if (v->nkey < TF_PROFILE_MAXKEY) v->key[v->nkey++] = key;
}

// within MERGE_TOL in both coordinates
static int near_point(double r0, double z0, double r1, double z1) {
  return fabs(r0 - r1) < MERGE_TOL && fabs(z0 - z1) < MERGE_TOL;
}

// at an event station a kink lies on a static line: the one vertex there is the kink and
// the crossings of both its segments with the line, so it takes all their keys
static void alias_keys(tf_profile_vertex* v, const tf_profile_thread* t, double s) {
  env_line st[2 * TF_PROFILE_MAXLINE];
  int ns = static_lines(st, t);
  int nkey = v->nkey;
  for (int i = 0; i < nkey; i++) {
    int key = v->key[i];
    if (key & (1 << 30)) continue;
    long g = (long)(key >> 5) - KEY_OFF;
    int type = key & 31;
    if (type > 0) {
      // the crossing of segment g with a static line, at one of the segment's ends?
      for (long e = g; e <= g + 1; e++) {
        if (!near_point(v->p[0], v->p[1], kink_r(t, e), kink_z(t, s, e))) continue;
        add_key(v, (int)((e + KEY_OFF) << 5));
        add_key(v, (int)(((e == g ? g - 1 : g + 1) + KEY_OFF) << 5 | type));
      }
      continue;
    }
    // a kink on a static line or an end
    for (int j = 0; j < ns + 2; j++) {
      int on, sid;
      if (j < ns) {
        on = fabs(v->p[0] - (st[j].a + st[j].b * v->p[1])) < MERGE_TOL, sid = st[j].sid;
      } else {
        double zend = j == ns ? t->z0 : t->z1;
        on = fabs(v->p[1] - zend) < MERGE_TOL, sid = j == ns ? END0 : END1;
      }
      if (!on) continue;
      add_key(v, (int)(((g - 1 + KEY_OFF) << 5) | (1 + sid)));
      add_key(v, (int)(((g + KEY_OFF) << 5) | (1 + sid)));
    }
  }
}

// a kink lying on a static line (or an end) at angle theta, where the envelope only touches
// it: the section has no vertex there, but the mesh needs one to end the kink's crease;
// inserts such kinks into v (n of cap) in z order and returns the new count
static int insert_touches(tf_profile_vertex* v, int n, int cap, const tf_profile_thread* t,
                          double theta) {
  env_line st[2 * TF_PROFILE_MAXLINE];
  int ns = static_lines(st, t);
  double s = lead_of(t) * theta;
  for (int k = 0; k < t->nkink; k++) {
    for (int j = 0; j < ns + 2; j++) {
      double z;
      if (j < ns) {
        if (st[j].b == 0) continue;
        z = (t->kink[k][0] - st[j].a) / st[j].b;
      } else {
        z = j == ns ? t->z0 : t->z1;
      }
      double per = floor((z - t->kink[k][1] - s) / t->pitch + 0.5);
      long g = (long)per * t->nkink + k;
      double zk = kink_z(t, s, g), rk = t->kink[k][0];
      if (fabs(zk - z) >= MERGE_TOL || zk < t->z0 || zk > t->z1) continue;
      if (fabs(tf_profile_thread_radius(t, theta, zk) - rk) >= MERGE_TOL) continue;
      int at = 0, dup = 0;
      while (at < n && v[at].p[1] < zk - MERGE_TOL) at++;
      for (int i = at; i < n && v[i].p[1] <= zk + MERGE_TOL; i++)
        dup |= near_point(v[i].p[0], v[i].p[1], rk, zk);
      if (dup || n >= cap) continue;
      memmove(v + at + 1, v + at, sizeof(*v) * (size_t)(n - at));
      memset(&v[at], 0, sizeof(v[at]));
      v[at].p[0] = rk, v[at].p[1] = zk, v[at].w[1] = lead_of(t);
      v[at].key[0] = (int)((g + KEY_OFF) << 5), v[at].nkey = 1;
      n++;
    }
  }
  return n;
}

// the section at theta with coincident vertices merged (their keys pooled)
static int station_section(station* st, int cap, const tf_profile_thread* t, double theta) {
  int n = tf_profile_thread_section(st->v, NULL, cap, t, theta, t->z0, t->z1);
  if (n < 0) return -1;
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (k > 0 && near_point(st->v[i].p[0], st->v[i].p[1], st->v[k - 1].p[0], st->v[k - 1].p[1])) {
      for (int j = 0; j < st->v[i].nkey; j++) add_key(&st->v[k - 1], st->v[i].key[j]);
      continue;
    }
    st->v[k++] = st->v[i];
  }
  k = insert_touches(st->v, k, cap, t, theta);
  double s = lead_of(t) * theta;
  for (int i = 0; i < k; i++) alias_keys(&st->v[i], t, s);
  st->n = k;
  return k;
}

// a triangle, reversed when flip
static void tri(tf_profile_mesh* m, int a, int b, int c, int flip) {
  if (flip) {
    tf_profile_mesh_face(m, a, c, b);
  } else {
    tf_profile_mesh_face(m, a, b, c);
  }
}

// triangles between station a (one angle) and station b (the next), both ascending in z
static void stitch(tf_profile_mesh* m, const station* a, const station* b, int flip) {
  enum { WINDOW = 6 };
  int i = 0, j = 0;
  while (i < a->n - 1 || j < b->n - 1) {
    // the next pair of vertices that are the same feature
    int ni = a->n - 1, nj = b->n - 1, best = 1 << 30;
    for (int di = 0; di <= WINDOW && i + di < a->n; di++) {
      for (int dj = 0; dj <= WINDOW && j + dj < b->n; dj++) {
        if ((di == 0 && dj == 0) || di + dj >= best) continue;
        if (share_key(&a->v[i + di], &b->v[j + dj])) ni = i + di, nj = j + dj, best = di + dj;
      }
    }
    while (i < ni || j < nj) {
      if (i < ni && (j == nj || a->v[i + 1].p[1] <= b->v[j + 1].p[1])) {
        tri(m, a->idx[i], b->idx[j], a->idx[i + 1], flip);
        i++;
      } else {
        tri(m, a->idx[i], b->idx[j], b->idx[j + 1], flip);
        j++;
      }
    }
  }
}

// sections at every station, stitched to the next; the last stitches back to the first
void tf_profile_mesh_thread(tf_profile_mesh* m, int* first, int* last, const tf_profile_thread* t,
                            const double* theta, int ntheta, int flip) {
  double span = t->z1 - t->z0;
  int cap = (int)((span / t->pitch + 3) * t->nkink * (2 + t->nlo + t->nhi)) + 16;
  station st[3];
  memset(st, 0, sizeof(st));
  for (int k = 0; k < 3; k++) {
    st[k].v = malloc(sizeof(tf_profile_vertex) * (size_t)cap);
    st[k].idx = malloc(sizeof(int) * (size_t)cap);
    if (!st[k].v || !st[k].idx) m->failed = 1;
  }
  // st[0]: station 0 (kept for closing the turn), st[1] / st[2]: the previous and next
  if (!m->failed && station_section(&st[0], cap, t, theta[0]) < 0) m->failed = 1;
  for (int i = 0; !m->failed && i < ntheta; i++) {
    station* a = i == 0 ? &st[0] : &st[1 + (i + 1) % 2];
    station* b = &st[1 + i % 2];
    if (i == 0) {
      for (int k = 0; k < st[0].n; k++) {
        double r = st[0].v[k].p[0];
        st[0].idx[k] =
            tf_profile_mesh_vertex(m, r * cos(theta[0]), r * sin(theta[0]), st[0].v[k].p[1]);
      }
      first[0] = st[0].idx[0], last[0] = st[0].idx[st[0].n - 1];
    }
    if (i + 1 < ntheta) {
      if (station_section(b, cap, t, theta[i + 1]) < 0) {
        m->failed = 1;
        break;
      }
      for (int k = 0; k < b->n; k++) {
        double r = b->v[k].p[0];
        b->idx[k] =
            tf_profile_mesh_vertex(m, r * cos(theta[i + 1]), r * sin(theta[i + 1]), b->v[k].p[1]);
      }
      first[i + 1] = b->idx[0], last[i + 1] = b->idx[b->n - 1];
    } else {
      // a full turn later the section is station 0's again, its kinks one period on
      b->n = st[0].n;
      for (int k = 0; k < st[0].n; k++) {
        b->v[k] = st[0].v[k];
        b->idx[k] = st[0].idx[k];
        for (int j = 0; j < b->v[k].nkey; j++) {
          if (!(b->v[k].key[j] & (1 << 30))) b->v[k].key[j] += t->nkink << 5;
        }
      }
    }
    stitch(m, a, b, flip);
  }
  for (int k = 0; k < 3; k++) {
    free(st[k].v);
    free(st[k].idx);
  }
}

// station angles and corners merged in angle order, each pushed out to the polygon
int tf_profile_mesh_polygon_ring(tf_profile_mesh* m, int* idx, double* ang, const double* theta,
                                 int ntheta, int sides, double apothem, double rot, double z) {
  double step = TWO_PI / sides;
  double corner[64];
  for (int k = 0; k < sides; k++) {
    double a = fmod(rot + 0.5 * step + k * step, TWO_PI);
    corner[k] = a < 0 ? a + TWO_PI : a;
  }
  sort_doubles(corner, sides);
  int n = 0, c = 0;
  for (int i = 0; i <= ntheta; i++) {
    double a = i < ntheta ? theta[i] : INFINITY;
    for (; c < sides && corner[c] <= a; c++) {
      if (fabs(corner[c] - a) < 1e-12) continue;  // the station is the corner
      ang[n++] = corner[c];
    }
    if (i < ntheta) ang[n++] = a;
  }
  for (int i = 0; i < n; i++) {
    double k = floor((ang[i] - rot) / step + 0.5);
    double off = ang[i] - rot - k * step;
    double r = apothem / cos(off);
    idx[i] = tf_profile_mesh_vertex(m, r * cos(ang[i]), r * sin(ang[i]), z);
  }
  return n;
}

// per station gap: a fan from the inner vertex over the outer chain, then a closing one
void tf_profile_mesh_zip(tf_profile_mesh* m, const int* inner, const double* theta, int ntheta,
                         const int* outer, const double* outer_ang, int nouter, int up) {
  int* at = malloc(sizeof(int) * (size_t)ntheta);
  if (!at) {
    m->failed = 1;
    return;
  }
  for (int i = 0, o = 0; i < ntheta; i++) {
    while (o < nouter && outer_ang[o] != theta[i]) o++;
    at[i] = o < nouter ? o : 0;
  }
  for (int i = 0; i < ntheta; i++) {
    int i1 = (i + 1) % ntheta;
    for (int o = at[i]; o != at[i1]; o = (o + 1) % nouter) {
      tri(m, inner[i], outer[o], outer[(o + 1) % nouter], !up);
    }
    tri(m, inner[i], outer[at[i1]], inner[i1], !up);
  }
  free(at);
}

// two triangles per station gap
void tf_profile_mesh_strip(tf_profile_mesh* m, const int* a, const int* b, int n, int flip) {
  for (int i = 0; i < n; i++) {
    int i1 = (i + 1) % n;
    tri(m, b[i], b[i1], a[i], flip);
    tri(m, a[i], b[i1], a[i1], flip);
  }
}

// one triangle per ring edge
void tf_profile_mesh_fan(tf_profile_mesh* m, int centre, const int* ring, int n, int flip) {
  for (int i = 0; i < n; i++) tri(m, centre, ring[i], ring[(i + 1) % n], flip);
}
