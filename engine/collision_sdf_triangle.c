// The triangle pass of X x field sampling: each triangle's minimum of the field, from the
// vertex pass's cached values (a plan), cubic edge searches (memoised per edge), projected
// Newton steps on a quadratic model or Barzilai-Borwein steps, and the polish and slope test
// of two-way sampling. The design and its measurements are in collision_sdf.c's header
// (pass 2 and two-way sampling).
#include <assert.h>
#include <math.h>
#include <string.h>

#include "collision_sdf_sampler.h"
#include "stage_timer.h"
#include "tf_math.h"

#define TRI_ITERS 12  // field evaluations of one triangle's descent
#define EDGE_ITERS 4  // field evaluations of one edge's descent
// an edge's cubic model is trusted for its first point when its cubic term is at most this
// fraction of its quadratic one (on a seated M16 nut 0.1-0.35 give the same evaluations)
#define EDGE_CUBIC 0.25
// a triangle's minimum is sought to within this, per unit of its longest edge (10 nm on a
// 1 mm triangle): a step or a model's prediction that gains less ends the search
#define TRI_TOL 1e-5
// a triangle descent trusts its model's prediction for a step within ~10 deg of the last one
// when that step gained within a factor 2 of what the model predicted (cos^2 of the angle)
#define TRUST_COS2 0.97
// two-way sampling (see the design comment): a sample is kept when phi falls no faster than
// this along its surface (sin 20 deg: a face tilted up to 20 deg against the other's face
// keeps its outline, a face beside the other's 45 or 90 deg edge does not)
#define TWO_WAY_SLOPE 0.35
#define POLISH_LEAN 0.02  // polish a triangle's minimum whose gradient leans more (~1 deg)
#define POLISH_STEPS 4    // alternating projections of one polish

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

// the curvature of the quadratic model of phi over a triangle that its vertices' gradients
// fit: at x = V[k] + s E1 + t E2 (E1, E2 the edges leaving V[k]) the model's Hessian in (s, t),
// h = (h00, h01, h11), from the gradient differences along the two edges (symmetrised); ed[e]
// is the edge from vertex e to vertex e + 1 (the sampled shape's frame)
static void model_hessian(double h[3], const double ed[3][3], const double G[3][3], int k) {
  int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  double D1[3], D2[3];
  sub3(D1, G[k1], G[k]);
  sub3(D2, G[k2], G[k]);
  // E1 = ed[k] (vertex k to k + 1), E2 = -ed[k2] (vertex k to k + 2; the negation is exact)
  h[0] = dot3(D1, ed[k]), h[2] = -dot3(D2, ed[k2]);
  h[1] = 0.5 * (-dot3(D1, ed[k2]) + dot3(D2, ed[k]));
}

// the minimum over the triangle {s, t >= 0, s + t <= 1} of the model
// m(p) = b . (p - c) + (p - c) h (p - c) / 2 (h = h00, h01, h11): its point into out and the
// model's decrease from c (>= 0; 0 and out = c when c is the model's minimum)
static double model_min(double out[2], const double h[3], const double b[2], const double c[2]) {
  out[0] = c[0], out[1] = c[1];
  double det = h[0] * h[2] - h[1] * h[1];
  // the edges to search: all three, or for a convex model those whose side its stationary
  // point lies beyond (at the minimum over the triangle one of them is active: were none, the
  // minimum over the others alone, which holds the stationary point, would be that point)
  int edges = 7;
  if (h[0] > 0 && det > 0) {
    // a convex model: its stationary point, when inside, is the minimum over the triangle
    double ds = -(h[2] * b[0] - h[1] * b[1]) / det, dt = -(h[0] * b[1] - h[1] * b[0]) / det;
    double s = c[0] + ds, t = c[1] + dt;
    if (s >= 0 && t >= 0 && s + t <= 1) {
      out[0] = s, out[1] = t;
      double decrease = -0.5 * (b[0] * ds + b[1] * dt);
      return decrease > 0 ? decrease : 0;
    }
    edges = (t < 0) | (s < 0) << 1 | (s + t > 1) << 2;
  }
  // else on the boundary: each edge from (p0, p1) along (d0, d1), tau in [0, 1] (edge 0 is
  // t = 0, edge 1 s = 0, edge 2 s + t = 1)
  static const double ep[3][4] = {{0, 0, 1, 0}, {0, 0, 0, 1}, {1, 0, -1, 1}};
  double best = 0;
  for (int e = 0; e < 3; e++) {
    if (!(edges >> e & 1)) continue;
    double p0 = ep[e][0] - c[0], p1 = ep[e][1] - c[1], d0 = ep[e][2], d1 = ep[e][3];
    double g0 = b[0] + h[0] * p0 + h[1] * p1, g1 = b[1] + h[1] * p0 + h[2] * p1;
    double m0 =
        b[0] * p0 + b[1] * p1 + 0.5 * (h[0] * p0 * p0 + 2 * h[1] * p0 * p1 + h[2] * p1 * p1);
    double slope = g0 * d0 + g1 * d1, curv = h[0] * d0 * d0 + 2 * h[1] * d0 * d1 + h[2] * d1 * d1;
    double tau = curv > 0 ? -slope / curv : (slope + 0.5 * curv < 0 ? 1 : 0);
    tau = tau > 0 ? (tau < 1 ? tau : 1) : 0;  // (NaN-free: no library fmin / fmax calls)
    double mv = m0 + tau * slope + 0.5 * tau * tau * curv;
    if (-mv > best) best = -mv, out[0] = ep[e][0] + tau * d0, out[1] = ep[e][1] + tau * d1;
  }
  return best;
}

// the distance between a triangle's box and the field's (both in the field frame): a lower
// bound of phi over the triangle
static double box_distance(const field* f, const double P[3][3]) {
  double s = 0;
  for (int k = 0; k < 3; k++) {
    double lo = P[0][k] < P[1][k] ? P[0][k] : P[1][k], hi = P[0][k] > P[1][k] ? P[0][k] : P[1][k];
    lo = P[2][k] < lo ? P[2][k] : lo, hi = P[2][k] > hi ? P[2][k] : hi;
    double e = lo > f->hi[k] ? lo - f->hi[k] : (hi < f->lo[k] ? f->lo[k] - hi : 0);
    s += e * e;
  }
  return sqrt(s);
}

// whether a triangle (field frame) lies farther than margin from the field's box along an axis
static int box_apart(const field* f, const double P[3][3], double margin) {
  for (int k = 0; k < 3; k++) {
    double lo = P[0][k] < P[1][k] ? P[0][k] : P[1][k], hi = P[0][k] > P[1][k] ? P[0][k] : P[1][k];
    lo = P[2][k] < lo ? P[2][k] : lo, hi = P[2][k] > hi ? P[2][k] : hi;
    if (lo > f->hi[k] + margin || hi < f->lo[k] - margin) return 1;
  }
  return 0;
}

// two-way sampling: marks the triangle's vertices along whose edges phi falls faster than
// TWO_WAY_SLOPE (first order, from the cached gradients in x's frame)
static void mark_steep(const sampler* s, const int idx[3], const double* V[3], const double G[3][3],
                       const int ev[3]) {
  for (int k = 0; k < 3; k++) {
    if (!ev[k] || idx[k] >= TF_SDF_VERT_CACHE) continue;
    for (int j = 1; j <= 2; j++) {
      double e[3];
      sub3(e, V[(k + j) % 3], V[k]);
      double ge = dot3(G[k], e);
      if (ge < 0 && ge * ge > TWO_WAY_SLOPE * TWO_WAY_SLOPE * dot3(e, e))
        s->cache->v[idx[k]].flag |= VERT_SLOPE;
    }
  }
}

// two-way sampling: moves a triangle's minimum x (phi, gradient g: updated in place) toward
// the closest pair of the triangle and the field's surface by alternating projections while
// the gradient leans off the triangle's normal (see the design comment)
static void polish(const sampler* s, const double P[3][3], const double nrm[3], double L,
                   double x[3], double* phi, double g[3]) {
  for (int it = 0; it < POLISH_STEPS && *phi < s->margin; it++) {
    double gn = dot3(g, nrm);
    if (1 - gn * gn <= POLISH_LEAN * POLISH_LEAN) return;
    double sp[3], y[3], gy[3], d[3];
    for (int k = 0; k < 3; k++) sp[k] = x[k] - *phi * g[k];
    closest_on_triangle(y, sp, P[0], P[1], P[2]);
    sub3(d, y, x);
    if (norm3(d) <= 1e-9 * L) return;
    double fy = field_local(s->f, y, gy);
    if (!(fy < *phi)) return;
    copy3(x, y);
    copy3(g, gy);
    *phi = fy;
  }
}

// the length of -grad phi projected on the triangle's tangent cone at x: its in-plane part
// inside the triangle, along the edge and into the triangle on an edge (0 at a first-order
// minimum over the triangle)
static double tangent_slope(const double P[3][3], const double nrm[3], const double x[3],
                            const double g[3]) {
  double gn = dot3(g, nrm), d[3];
  for (int k = 0; k < 3; k++) d[k] = gn * nrm[k] - g[k];
  // barycentric coordinates of x: on the edge opposite vertex j when the j-th one is ~0
  double e0[3], e1[3], r[3];
  sub3(e0, P[1], P[0]);
  sub3(e1, P[2], P[0]);
  sub3(r, x, P[0]);
  double d00 = dot3(e0, e0), d01 = dot3(e0, e1), d11 = dot3(e1, e1);
  double d20 = dot3(r, e0), d21 = dot3(r, e1), den = d00 * d11 - d01 * d01;
  double b1 = (d11 * d20 - d01 * d21) / den, b2 = (d00 * d21 - d01 * d20) / den;
  double bary[3] = {1 - b1 - b2, b1, b2};
  int edge = -1;
  for (int j = 0; j < 3; j++) {
    if (bary[j] <= 1e-9) edge = j;
  }
  if (edge < 0) return norm3(d);
  // on the edge from P[a] to P[b]: its direction t, and m in the plane into the triangle
  int a = (edge + 1) % 3, b = (edge + 2) % 3;
  double t[3], m[3], q[3];
  sub3(t, P[b], P[a]);
  normalize3(t);
  sub3(q, P[edge], P[a]);
  double qt = dot3(q, t);
  for (int k = 0; k < 3; k++) m[k] = q[k] - qt * t[k];
  normalize3(m);
  double along = dot3(d, t), in = fmax(dot3(d, m), 0);
  return sqrt(along * along + in * in);
}

// the minimum over tau in [0, 1] of the cubic Hermite interpolant with values a, b and slopes
// da < 0 <= db (per unit tau) at the ends: its slope p'(t) = A t^2 + B t + C changes sign once
// in (0, 1], from below, at the root where p'' = 2 A t + B = sqrt(B^2 - 4 A C) > 0, which is
// its minimum, below both ends; that root in the form without cancellation. The interpolant
// as a + da t + c2 t^2 + c3 t^3 (hermite_min gets c2, c3 from the end values); tau into *tau,
// the interpolant's value there returned
static double hermite_min_of(double a, double da, double c2, double c3, double* tau) {
  double A = 3 * c3, B = 2 * c2, disc = B * B - 4 * A * da;
  double sq = disc > 0 ? sqrt(disc) : 0;
  double t = B >= 0 ? -2 * da / (B + sq) : (sq - B) / (2 * A);
  t = t > 0 ? (t < 1 ? t : 1) : 0;  // (rounding; NaN-free comparisons)
  *tau = t;
  return a + t * (da + t * (c2 + t * c3));
}

static double hermite_min(double a, double b, double da, double db, double* tau) {
  double c2 = 3 * (b - a) - 2 * da - db, c3 = da + db - 2 * (b - a);
  return hermite_min_of(a, da, c2, c3, tau);
}

// the minimum of phi along edge e of the triangle (from P[e] to P[e + 1]): from the cubic
// Hermite model's minimum tau with predicted value pred, at most EDGE_ITERS evaluations, each
// splitting the bracket at the point by the sign of its slope and fitting the model again on
// the part that holds the minimum; it ends when a point's value is within tol of its
// prediction or the model predicts a gain of at most tol. The values and slopes at the ends
// are the vertices' (cached); the first point, at tau, comes evaluated in start. x, *fx, g
// (field frame): the lowest point found; returns whether it lies below both ends
static int descend_edge(const sampler* s, const double P[3][3], const double val[3],
                        const double slope[3][2], int e, double tau, double pred, double tol,
                        const edge_start* start, double x[3], double* fx, double g[3]) {
  int e1 = (e + 1) % 3;
  double lo = 0, hi = 1, flo = val[e], fhi = val[e1], dlo = slope[e][0], dhi = slope[e][1];
  double f = flo < fhi ? flo : fhi, edge[3];
  sub3(edge, P[e1], P[e]);
  int moved = 0;
  for (int it = 0; it < EDGE_ITERS; it++) {
    double y[3], gy[3], fy;
    if (it == 0) {
      copy3(y, start->y), copy3(gy, start->g), fy = start->f;  // evaluated with its batch
    } else {
      for (int j = 0; j < 3; j++) y[j] = P[e][j] + tau * edge[j];
      fy = field_local(s->f, y, gy);
    }
    if (fy < f) f = fy, copy3(x, y), copy3(g, gy), moved = 1;
    if (!(fabs(fy - pred) > tol)) break;
    double dy = dot3(gy, edge), w, t;
    if (dy < 0) {
      lo = tau, flo = fy, dlo = dy;
    } else {
      hi = tau, fhi = fy, dhi = dy;
    }
    w = hi - lo;
    pred = hermite_min(flo, fhi, dlo * w, dhi * w, &t);
    if (!(f - pred > tol)) break;
    tau = lo + t * w;
  }
  *fx = f;
  return moved;
}

// a triangle's descent with the quadratic model (all three vertices evaluated): from a start
// point c0 = (s, t) of the triangle P[k] + s E1 + t E2 (vertex k itself, or an edge's minimum
// whose gradient leans into the triangle) with value f0 and exact edge derivatives b0
// (g . E1, g . E2), and the vertices' curvature h0 (model_hessian), projected Newton steps on
// the model
// m(p) = phi(x) + b . (p - c) + (p - c) H (p - c) / 2 over the triangle, c the current point,
// b its exact edge derivatives and H the vertices' secant curvature, updated along every
// accepted step (BFGS, kept convex: the vertices' curvature is often far off, their gradients
// lying on profile corners where the other part's nearest feature changes). The first step
// is free: a start whose model has its minimum there costs no evaluation. A step that gains at
// most tol ends it, and so does a model decrease of at most tol for a step along the line of
// the last one when that one gained within a factor 2 of its prediction (the model is checked
// along that line; not along another: a flat direction no step has explored yet may still
// hold microns). A step that does not lower phi is retried with the model damped by mu M
// (M = the edges' Gram matrix: a step of about |grad| / mu), mu x4 each time, and only a
// step whose gain matched the model's prediction relaxes it x1/4 (undamping at once sent the
// model back to the step it had just refused, every other evaluation). Returns whether it
// found a point below f0: then x, g (field frame) and *fx are that minimum (*fx is f0 else)
static int descend_model(const sampler* s, const double P[3][3], const double E1[3],
                         const double E2[3], const double h0[3], int k, const double c0[2],
                         double f0, const double b0[2], double tol, double x[3], double* fx,
                         double g[3]) {
  double h[3] = {h0[0], h0[1], h0[2]}, c[2] = {c0[0], c0[1]}, b[2] = {b0[0], b0[1]};
  const double gram[3] = {dot3(E1, E1), dot3(E1, E2), dot3(E2, E2)};
  double L2 = gram[0] > gram[2] ? gram[0] : gram[2], mu = 0, f = f0, dlast[2] = {0, 0};
  int moved = 0, trusted = 0;
  for (int it = 0; it < TRI_ITERS; it++) {
    double hm[3] = {h[0] + mu * gram[0], h[1] + mu * gram[1], h[2] + mu * gram[2]}, pn[2];
    double pred = model_min(pn, hm, b, c);
    double d[2] = {pn[0] - c[0], pn[1] - c[1]};
    double dd = gram[0] * d[0] * d[0] + 2 * gram[1] * d[0] * d[1] + gram[2] * d[1] * d[1];
    if (!(pred > tol)) {
      // converged by the model: at the start (the vertex's own gradient), or when the last
      // step checked the model along the line this one would take (see above)
      if (!moved) break;
      double dl = gram[0] * d[0] * dlast[0] + gram[1] * (d[0] * dlast[1] + d[1] * dlast[0]) +
                  gram[2] * d[1] * dlast[1];
      double ll = gram[0] * dlast[0] * dlast[0] + 2 * gram[1] * dlast[0] * dlast[1] +
                  gram[2] * dlast[1] * dlast[1];
      if (trusted && dl * dl >= TRUST_COS2 * dd * ll) break;
    }
    if (dd <= 1e-18 * L2) break;
    double y[3], gy[3];
    for (int j = 0; j < 3; j++) y[j] = P[k][j] + pn[0] * E1[j] + pn[1] * E2[j];
    double fy = field_local(s->f, y, gy);
    if (!(fy < f)) {
      mu = mu > 0 ? 4 * mu : 1 / sqrt(L2);
      continue;
    }
    double bn[2] = {dot3(gy, E1), dot3(gy, E2)};
    // BFGS: the model's curvature along d made to match the gradient change, kept convex (the
    // undamped curvature: the damping is the trust in it, kept apart)
    double yv[2] = {bn[0] - b[0], bn[1] - b[1]};
    double hd[2] = {h[0] * d[0] + h[1] * d[1], h[1] * d[0] + h[2] * d[1]};
    double yd = yv[0] * d[0] + yv[1] * d[1], dhd = hd[0] * d[0] + hd[1] * d[1];
    if (yd > 0 && dhd > 0) {
      h[0] = h[0] - hd[0] * hd[0] / dhd + yv[0] * yv[0] / yd;
      h[1] = h[1] - hd[0] * hd[1] / dhd + yv[0] * yv[1] / yd;
      h[2] = h[2] - hd[1] * hd[1] / dhd + yv[1] * yv[1] / yd;
    }
    double gain = f - fy;
    trusted = gain > 0.5 * pred && gain < 2 * pred;  // the model held along d
    // the damping relaxes only where the model held: a step that gains far less than its
    // prediction leaves it, so the model does not jump back to the step just refused
    if (trusted) mu *= 0.25;
    dlast[0] = d[0], dlast[1] = d[1];
    f = fy, c[0] = pn[0], c[1] = pn[1], b[0] = bn[0], b[1] = bn[1];
    copy3(x, y);
    copy3(g, gy);
    moved = 1;
    if (gain <= tol) break;
  }
  *fx = f;
  return moved;
}

// where a triangle's search starts (triangle_plan): nowhere, the quadratic model's interior
// minimum from vertex k, or one edge's cubic model minimum
enum { PLAN_NONE, PLAN_INTERIOR, PLAN_EDGE };

// the plan of a triangle whose vertices are all evaluated, from its best vertex k (not a
// first-order minimum), on cached values only: the cheapest model first. Each edge's cubic
// Hermite model (the vertices' values and slopes along it) and the quadratic model's interior
// minimum (descend_model's first step, when its curvature is convex and that minimum lies
// inside) predict where the minimum lies; the lowest prediction is sought, when it lies more
// than tol below the vertex. On a thread's flanks, a saddle-shaped field over the triangle,
// minima lie on edges, where the one-dimensional model is far better than the quadratic one
// fitted from three gradients.
static void triangle_plan(tri_plan* plan, const double ed[3][3], const double G[3][3],
                          const double val[3], int k, double tol) {
  double best = val[k];
  plan->kind = PLAN_NONE;
  for (int e = 0; e < 3; e++) {
    int e1 = e == 2 ? 0 : e + 1;
    double t;
    double* sl = plan->slope[e];
    sl[0] = dot3(G[e], ed[e]), sl[1] = dot3(G[e1], ed[e]);
    if (!(sl[0] < 0 && sl[1] > 0)) continue;
    // the cubic lies below its chord by at most (4 / 27) (|da - chord| + |db - chord|) (its
    // terms beyond the chord, (da - chord) t (1 - t)^2 + (db - chord) t^2 (t - 1), peak at
    // 4 / 27 each): an edge that cannot go below the best needs no root
    double chord = val[e1] - val[e], below = fabs(sl[0] - chord) + fabs(sl[1] - chord);
    if ((val[e] < val[e1] ? val[e] : val[e1]) - (4.0 / 27) * below > best) continue;
    double c2 = 3 * chord - 2 * sl[0] - sl[1], c3 = sl[0] + sl[1] - 2 * chord;
    double pv = hermite_min_of(val[e], sl[0], c2, c3, &t);
    // the cubic's own minimum is the first point sought only where it is nearly a parabola
    // (its cubic term within EDGE_CUBIC of its quadratic one); else the ends lie on different
    // features of the field (a kink between, where the cubic misses by microns) and the search
    // starts at the edge's middle: bisection's safe guess, as in Brent's method
    if (fabs(c3) > EDGE_CUBIC * fabs(c2)) t = 0.5;
    if (pv < best) best = pv, plan->tau = t, plan->pred = pv, plan->edge = e;
  }
  int edge = best < val[k];
  // the quadratic model at vertex k: its stationary point, when the model is convex and the
  // point lies inside (else the minimum over the triangle is on an edge); its slopes along
  // E1 = ed[k] and E2 = -ed[k + 2] are edge k's first and edge k + 2's second, negated
  double* h = plan->h;
  double* b0 = plan->b0;
  model_hessian(h, ed, G, k);
  b0[0] = plan->slope[k][0], b0[1] = -plan->slope[(k + 2) % 3][1];
  double det = h[0] * h[2] - h[1] * h[1];
  if (h[0] > 0 && det > 0) {
    // the step (ds, dt) = (ns, nt) / det: inside tested on the numerators (no division for
    // the triangles whose model's minimum lies outside, nearly all on a thread's flanks)
    double ns = -(h[2] * b0[0] - h[1] * b0[1]), nt = -(h[0] * b0[1] - h[1] * b0[0]);
    double lo = 1e-6 * det;
    if (ns > lo && nt > lo && ns + nt < det - lo) {
      double inner = val[k] + 0.5 * (b0[0] * ns + b0[1] * nt) / det;
      if (inner < best) {
        plan->kind = PLAN_INTERIOR;
        return;
      }
    }
  }
  if (edge && val[k] - best > tol) plan->kind = PLAN_EDGE;
}

// the slot of edge (i, j) in the memo, *fresh set when it was empty (and is now claimed);
// -1 (fresh) when it is not there and the table is three quarters full: it takes no more,
// so a probe always meets an empty slot soon (a large mesh's later edges go unremembered)
static int memo_slot(edge_memo* m, int i, int j, int* fresh) {
  int lo = i < j ? i : j, hi = i < j ? j : i;
  // neighbouring triangles' edges in neighbouring slots (a mesh's order is local, so lookups
  // stay on lines just touched; a scattering hash's probe was the triangle pass's hottest line)
  unsigned hash = 2u * (unsigned)lo + (unsigned)hi;
  *fresh = 1;
  for (unsigned probe = 0;; probe++) {
    int slot = (int)((hash + probe) & (unsigned)m->mask);
    if (m->key[slot][0] == lo && m->key[slot][1] == hi) {
      *fresh = 0;
      return slot;
    }
    if (m->key[slot][0] < 0) {
      if (4 * m->count >= 3 * (m->mask + 1)) return -1;
      m->key[slot][0] = lo, m->key[slot][1] = hi;
      m->count++;
      return slot;
    }
  }
}

// a triangle's search by its plan's edge: the edge's minimum is sought once (the memo: its
// other triangle often picks it too) and offered as a candidate once, by the first triangle
// that picks it where phi does not fall inward across it; where phi falls inward the
// quadratic model's descent continues from there, in vertex k's coordinates. nrm: the
// triangle's normal, of any length (only its side is taken).
// x, *fx, g (field frame): the minimum found; returns whether there is one to write
static int descend_triangle_edge(const sampler* s, const triangle_job* job, double x[3], double* fx,
                                 double g[3]) {
  const tri_plan* plan = &job->plan;
  const double(*P)[3] = (const double(*)[3])job->P;
  const double *E1 = job->E1, *E2 = job->E2, *nrm = job->nrm;
  int ea = plan->edge, eb = (ea + 1) % 3, slot = job->slot, k = job->k;
  double tol = job->tol;
  edge_memo* m = s->memo;
  if (job->fresh) {
    int found = descend_edge(s, P, job->val, plan->slope, ea, plan->tau, plan->pred, tol,
                             &job->start, x, fx, g);
    if (slot >= 0) {
      m->found[slot] = (unsigned char)found, m->offered[slot] = 0;
      if (found) copy3(m->x[slot], x), m->f[slot] = *fx, copy3(m->g[slot], g);
    }
    if (!found) return 0;
  } else {
    if (!m->found[slot]) return 0;
    copy3(x, m->x[slot]), *fx = m->f[slot], copy3(g, m->g[slot]);
  }
  // the in-plane direction across the edge into the triangle: phi falling along it leaves
  // the minimum inside
  double ed[3], across[3], opp[3];
  sub3(ed, P[eb], P[ea]);
  cross3(across, nrm, ed);
  sub3(opp, P[(ea + 2) % 3], x);
  if (dot3(across, opp) < 0) scale3(across, across, -1);
  if (!(dot3(g, across) < 0)) {
    // the edge's minimum is this triangle's: offered once
    if (slot < 0) return 1;
    if (m->offered[slot]) return 0;
    m->offered[slot] = 1;
    return 1;
  }
  double sx[3], c[2], gram00 = dot3(E1, E1), gram01 = dot3(E1, E2), gram11 = dot3(E2, E2);
  sub3(sx, x, P[k]);
  double r0 = dot3(sx, E1), r1 = dot3(sx, E2), dg = gram00 * gram11 - gram01 * gram01;
  c[0] = (gram11 * r0 - gram01 * r1) / dg, c[1] = (gram00 * r1 - gram01 * r0) / dg;
  double bx[2] = {dot3(g, E1), dot3(g, E2)};
  return descend_model(s, P, E1, E2, plan->h, k, c, *fx, bx, tol, x, fx, g);
}

// a triangle's descent without the model (a vertex was not evaluated): from the best vertex,
// evaluated afresh, projected gradient steps x <- closest point of the triangle to
// x - alpha (grad phi - (grad phi . n) n) with Barzilai-Borwein alpha (cut x1/4 when phi does
// not fall); x, *fx, g (field frame): the minimum found; returns whether it moved
static int descend_bb(const sampler* s, const double P[3][3], const double nrm[3], int k, double L,
                      double x[3], double* fx, double g[3]) {
  double alpha = 0.5 * L, y[3], q[3], gy[3], gt[3], gty[3];
  int moved = 0;
  copy3(x, P[k]);
  double f = field_local(s->f, x, g);
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
    if (fy < f) {
      // Barzilai-Borwein: the step that fits the change of the in-plane gradient
      double dg[3];
      gn = dot3(gy, nrm);
      for (int j = 0; j < 3; j++) gty[j] = gy[j] - gn * nrm[j];
      sub3(dg, gty, gt);
      double den = dot3(d, dg);
      // (up to 1e3 L: a flank of a helix is nearly flat along a triangle, and a shorter cap
      // turned the descent into slow fixed steps; the projection keeps x on the triangle)
      alpha = den > 0 ? fmin(fmax(dot3(d, d) / den, 1e-3 * L), 1e3 * L) : fmin(2 * alpha, 1e3 * L);
      copy3(x, y);
      copy3(g, gy);
      copy3(gt, gty);
      double gain = f - fy;
      f = fy;
      moved = 1;
      if (gain <= TRI_TOL * L) break;
    } else {
      alpha *= 0.25;
    }
  }
  *fx = f;
  return moved;
}

// pass 2 for one triangle: the local minimum of phi over it when a vertex does not hold it.
// The tests that usually end it (too far; minimum at a vertex) run on cached values, in the
// sampled shape's own frame, but for the box test on the vertices moved to the field's frame.

// pass 2 for one triangle, up to its search: the local minimum of phi over it when a vertex
// does not hold it. The tests that usually end it (too far; minimum at a vertex) run on
// cached values, in the sampled shape's own frame, but for the box test on the vertices moved
// to the field's frame. Returns whether the triangle needs a search (then job holds it, and a
// fresh edge's first point awaits evaluation in job->start.y)
static int triangle_prepare(const sampler* s, int i0, int i1, int i2, triangle_job* job) {
  int* idx = job->idx;
  idx[0] = i0, idx[1] = i1, idx[2] = i2;
  const double* V[3] = {s->vert + 3 * i0, s->vert + 3 * i1, s->vert + 3 * i2};
  double* val = job->val;
  double G[3][3];
  int ev[3];
  for (int k = 0; k < 3; k++) ev[k] = vertex_value(s, idx[k], &val[k], G[k]);
  if (s->curved) {
    mark_edge(s->cache, i0, i1);
    mark_edge(s->cache, i1, i2);
    mark_edge(s->cache, i2, i0);
  }
  // the edges (vertex e to e + 1, the sampled shape's frame), once for every test below
  double ed[3][3], len2[3], L2 = 0;
  for (int e = 0; e < 3; e++) {
    sub3(ed[e], V[e == 2 ? 0 : e + 1], V[e]);
    len2[e] = dot3(ed[e], ed[e]);
    if (len2[e] > L2) L2 = len2[e];
  }
  double vmax = val[0] > val[1] ? val[0] : val[1], vmin = val[0] < val[1] ? val[0] : val[1];
  if (val[2] > vmax) vmax = val[2];
  if (val[2] < vmin) vmin = val[2];
  // every point of the triangle lies within L of each vertex and within L / sqrt(3) of one
  // (phi is 1-Lipschitz): the triangle's share of the sampler's lower bound, or where that
  // would lower it (a block's long faces), the distance of the triangle's box to the field's
  double below = L2 > 0 ? fmax(vmax - sqrt(L2), vmin - sqrt(L2 * (1.0 / 3))) : vmin;
  if (below < *s->clear) {
    double Q[3][3];
    for (int j = 0; j < 3; j++) cached_position(Q[j], s, idx[j]);
    below = fmax(below, box_distance(s->f, (const double(*)[3])Q));
    if (below < *s->clear) *s->clear = below;
  }
  if (!(L2 > 0)) return 0;
  if (vmax > s->margin && (vmax - s->margin) * (vmax - s->margin) > L2) return 0;
  // (squared: the root below is off the path of this branch)
  if (vmin > s->margin && (vmin - s->margin) * (vmin - s->margin) > L2 * (1.0 / 3)) return 0;
  double L = sqrt(L2);
  double(*P)[3] = job->P;
  // the two-way marks need every triangle near the field's box; else the box test (which
  // moves the vertices to the field's frame) waits for a triangle that needs a search
  int placed = 0;
  if (s->two_way) {
    for (int j = 0; j < 3; j++) cached_position(P[j], s, idx[j]);
    if (box_apart(s->f, (const double(*)[3])P, s->margin)) return 0;
    mark_steep(s, idx, V, G, ev);
    placed = 1;
  }
  int k = 0;
  if (val[1] < val[k]) k = 1;
  if (val[2] < val[k]) k = 2;
  // a first-order minimum at the vertex: the vertex pass has it (the edges leaving vertex k
  // are ed[k] and -ed[k + 2])
  int k2 = (k + 2) % 3;
  if (ev[k]) {
    double ge1 = dot3(G[k], ed[k]), ge2 = -dot3(G[k], ed[k2]);
    if ((ge1 >= 0 || ge1 * ge1 <= 1e-12 * len2[k]) && (ge2 >= 0 || ge2 * ge2 <= 1e-12 * len2[k2]))
      return 0;
  }
  tri_plan* plan = &job->plan;
  double tol = TRI_TOL * L;
  int modelled = ev[0] && ev[1] && ev[2];
  if (modelled) {
    triangle_plan(plan, ed, G, val, k, tol);
    if (plan->kind == PLAN_NONE) return 0;
  }
  if (!placed) {
    for (int j = 0; j < 3; j++) cached_position(P[j], s, idx[j]);
    // an evaluated vertex lies within margin of the field's box (box_gap), so along every
    // axis too, and the triangle's box with it: the test can only fail where one was not
    if (!modelled && box_apart(s->f, (const double(*)[3])P, s->margin)) return 0;
  }
  double* nrm = job->nrm;
  sub3(job->E1, P[(k + 1) % 3], P[k]);
  sub3(job->E2, P[(k + 2) % 3], P[k]);
  cross3(nrm, job->E1, job->E2);
  double area2 = dot3(nrm, nrm);
  if (!(area2 > 1e-24 * L2 * L2)) return 0;  // a sliver (|n| <= 1e-12 L^2): edges sampled
  // the unit normal where a step or a test projects on it (the edge path only takes the side
  // of the edge its direction lies on, which any positive length gives)
  if (!modelled || s->two_way) scale3(nrm, nrm, 1 / sqrt(area2));
  job->k = k, job->modelled = modelled, job->L = L, job->L2 = L2, job->tol = tol;
  job->slot = -1, job->fresh = 0;
  if (modelled && plan->kind == PLAN_EDGE) {
    // the edge's memo slot, claimed now (jobs are prepared and finished in triangle order, so
    // a later triangle that picks the same edge finds it sought); a fresh edge's first point
    int ea = plan->edge, eb = (ea + 1) % 3;
    job->fresh = 1;
    if (s->memo) job->slot = memo_slot(s->memo, idx[ea], idx[eb], &job->fresh);
    if (job->fresh) {
      for (int j = 0; j < 3; j++) job->start.y[j] = P[ea][j] + plan->tau * (P[eb][j] - P[ea][j]);
    }
  }
  return 1;
}

// pass 2 for one prepared triangle: its search, and the minimum found as a candidate
static void triangle_finish(const sampler* s, const triangle_job* job) {
  const double(*P)[3] = (const double(*)[3])job->P;
  const tri_plan* plan = &job->plan;
  const double* nrm = job->nrm;
  double x[3], g[3], fx;
  int moved;
  if (!job->modelled) {
    moved = descend_bb(s, P, nrm, job->k, job->L, x, &fx, g);
  } else if (plan->kind == PLAN_INTERIOR) {
    const double c0[2] = {0, 0};
    moved = descend_model(s, P, job->E1, job->E2, plan->h, job->k, c0, job->val[job->k], plan->b0,
                          job->tol, x, &fx, g);
  } else {
    moved = descend_triangle_edge(s, job, x, &fx, g);
  }
  if (!moved) return;
  if (s->two_way) polish(s, P, nrm, job->L, x, &fx, g);
  for (int j = 0; j < 3; j++) {
    double d[3];
    sub3(d, x, P[j]);
    if (dot3(d, d) <= 1e-12 * job->L2) return;  // at a vertex (within 1e-6 L): sampled already
  }
  if (s->two_way && tangent_slope(P, nrm, x, g) > TWO_WAY_SLOPE) return;
  if (s->curved) tf_sampler_refine(s, x, &fx, g);
  tf_sampler_emit(s, x, fx, g);
}

// the prepared triangles: their fresh edges' first points evaluated together (a tight loop
// of independent queries, which the processor overlaps), then each finished in order
void tf_sampler_finish_triangles(const sampler* s) {
  triangle_batch* b = s->batch;
  for (int i = 0; i < b->n; i++) {
    edge_start* st = &b->job[i].start;
    if (b->job[i].fresh) st->f = field_local(s->f, st->y, st->g);
  }
  for (int i = 0; i < b->n; i++) triangle_finish(s, b->job + i);
  b->n = 0;
}

// pass 2 for one triangle: prepared now, searched with its batch
void tf_sampler_triangle(const sampler* s, int i0, int i1, int i2) {
  triangle_batch* b = s->batch;
  if (triangle_prepare(s, i0, i1, i2, b->job + b->n) && ++b->n == TRI_BATCH)
    tf_sampler_finish_triangles(s);
}
