// The distance of an ISO bolt's or nut's threaded solid (the part itself: part_thread.c).
//
// Distance. The threaded solid is handled in its meridional section (sdf_profile.c): the bolt's
// section is the head's slab (out to a radius between the thread and the flats) joined to the
// envelope r <= h(z) of the thread clamped by the tip chamfer; the nut's is the slab between
// its faces minus the envelope r < h(z) of the internal thread raised by the countersinks
// (out to a radius beyond the hex corners). The distance follows each section feature around
// the axis and polishes the nearest with Newton steps (exact to rounding, ~3e-16 m measured
// against a parametric minimisation), then takes a margin of 1e-11 d + 1e-15 m so that it
// never exceeds the true signed distance. The polish rarely stops short: at a few points in
// 1e5 by up to 2.6e-12 m, once 1.6e-13 m above the truth (against the parametric
// minimisation in tests/assets/test_part_thread.c), so the error bound is 1e-11 m. It
// combines with the exact hex prism: bolt = min(section, head), nut = max(section, hex). The
// union is exact outside and, inside, wherever the section's own boundary is the true one
// (everywhere within reach of the thread: the slab's made-up outer wall is farther); the
// intersection is exact inside and outside because each solid's nearest point lies in the
// other. Where a cheap bound shows which side of the min / max wins (the hex beside the head
// or beyond the thread, also above and below a nut's faces; the section above the head or in
// the bore), the other is not evaluated: the same value, bit for bit.
//
// Table. Away from its ends the section is the infinite thread, whose distance depends only
// on (r, z - pitch theta / 2 pi mod pitch) (thread_table.c): a table of the features that
// can be nearest in each cell of that half-plane answers there exactly (to rounding, no
// interpolation: the named features are followed in 3D as above), about 4x to 8x faster than
// the search. It is used where the point's z lies in the free window (no chamfer, head face,
// nut face or countersink clamps the profile) by more than |phi| on both sides, and, for a
// nut, inside the slab's wall by |phi|: a ball of radius |phi| there meets exactly the
// infinite thread's surface, so its distance is the section's. A nut's table also answers by
// its ends: its section is the infinite thread's solid T cut by a convex (r, z) polygon K
// (faces, outer wall, countersinks): a point outside T is exactly phi from the section when
// T's nearest point lies in K; a point inside both is as deep as in the shallower of T and
// K's sides; a point outside K is exactly K's distance away when K's nearest point lies in T
// (the table asked there). A bolt's likewise by its tip: above the head's top face its section
// is T cut by K (under the tip face and the chamfer), so the same three cases hold wherever
// the answer's ball stays above that face (below it the head's slab joins; a short bolt's
// tip turns carry a screwing nut's upper half). Where neither T's nearest point lies in K
// nor K's in T (beside the chamfer's cut turns: the nearest point may be a crease of T and K
// or another turn's flank), the search answers. Elsewhere, and off the table's radii (half
// the least radius of the profile up to a band of half a pitch outside it, then coarser
// cells out to the box's corners for a bolt, the hex corners for a nut), the search answers.
// The cells (~220-270 kB for M16) follow the struct in the params blob; a part builds them
// in ~5-20 ms. sdf=search builds without them (the reference the tests and the bench
// compare with).
//
// Cost of the search: the envelope around the point is queried first, and the static parts
// with the envelope's ends only when a lower bound on their distance (a box in (r, z) around
// each of their segments, valid at every angle) is within twice the nearest distance found: farther
// features can neither win nor leave an end worth following, so the skip changes no value.
// Likewise whole thread periods of the window: a period's features stay within speed |phi|
// of its (r, z) box when followed by phi, at radii >= the envelope's least, which bounds
// their 3D distance from below (query_section); periods beyond twice the nearest distance
// of the point's own period (once 1x, in the last round of ends) are not built at all.
// The hex prism picks its flat by the largest projection on the six normals (no trig).
#include "thread_sdf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN_REL 1e-11  // the margin that keeps values below the true distance despite
#define MARGIN_ABS 1e-15  // rounding: MARGIN_REL d + MARGIN_ABS (m)
#define TABLE_NZ 64       // feature table cells per pitch (square cells)
#define TABLE_BAND 0.5    // the table's radii: the profile's, widened by this many pitches
// outwards, and inwards down to this fraction of the least radius: SDF x SDF descents start
// on a lattice and cross a bolt's core (a seated M16 nut took ~60 searches a pair there)
#define TABLE_CORE 0.5
#define WINDOW_SLACK 1e-9  // m: the table's answer stands this far inside the free window

// rmin and speed of a thread: kinks move with the lead; the crossing of a flank of slope b
// (dr / dz) with a static line of slope c slides along the line at lead |b| sqrt(1 + c^2) /
// |c - b|, with an end plane at lead |b|
void tf_thread_feature_speeds(thread_sdf* t) {
  const tf_profile_thread* th = &t->thread;
  double lead = th->pitch / TWO_PI;
  t->rmin = INFINITY, t->speed = lead;
  for (int k = 0; k < th->nkink; k++) {
    t->rmin = fmin(t->rmin, th->kink[k][0]);
    int k1 = (k + 1) % th->nkink;
    double dz = th->kink[k1][1] - th->kink[k][1] + (k1 == 0 ? th->pitch : 0);
    double b = (th->kink[k1][0] - th->kink[k][0]) / dz;
    for (int j = 0; j < th->nlo + th->nhi; j++) {
      double c = j < th->nlo ? th->lo[j][1] : th->hi[j - th->nlo][1];
      if (c != b) t->speed = fmax(t->speed, lead * fabs(b) * sqrt(1 + c * c) / fabs(c - b));
    }
    // and a flank's crossing with an end plane slides along it
    if (b != 0) t->speed = fmax(t->speed, lead * fabs(b));
  }
  // h = min(max(f, lo...), hi...): f within the kinks' radii, a line within its end values
  double fmin_r = INFINITY, fmax_r = -INFINITY;
  for (int k = 0; k < th->nkink; k++) {
    fmin_r = fmin(fmin_r, th->kink[k][0]), fmax_r = fmax(fmax_r, th->kink[k][0]);
  }
  double lo_hi = fmax_r, hi_lo = fmin_r;
  for (int j = 0; j < th->nlo; j++) {
    lo_hi = fmax(lo_hi,
                 fmax(th->lo[j][0] + th->lo[j][1] * th->z0, th->lo[j][0] + th->lo[j][1] * th->z1));
  }
  for (int j = 0; j < th->nhi; j++) {
    hi_lo = fmin(hi_lo,
                 fmin(th->hi[j][0] + th->hi[j][1] * th->z0, th->hi[j][0] + th->hi[j][1] * th->z1));
  }
  t->rfloor = fmax(0, hi_lo), t->rceil = lo_hi;
}

// exact distance to the hex prism |hexagon(x, y)| <= apothem, z0 <= z <= z1, flats facing
// +-x and every 60 deg
static double hex_prism(const double p[3], double apothem, double z0, double z1, double grad[3]) {
  // the nearest flat's normal is the one of the six (every 60 deg from +x) with the largest
  // projection: no atan2 / sincos
  static const double nrm[3][2] = {{1, 0}, {0.5, 0.8660254037844386}, {-0.5, 0.8660254037844386}};
  double best = -INFINITY, nx = 1, ny = 0;
  for (int k = 0; k < 3; k++) {
    double dp = p[0] * nrm[k][0] + p[1] * nrm[k][1];
    double sg = dp >= 0 ? 1 : -1;
    if (sg * dp > best) best = sg * dp, nx = sg * nrm[k][0], ny = sg * nrm[k][1];
  }
  // folded: x along the nearest flat's normal, y along the flat
  double x = best, y = p[1] * nx - p[0] * ny, half = apothem * TAN30;
  double d2, g2[2];
  if (x > apothem && fabs(y) > half) {
    double cy = y > 0 ? half : -half;
    double ex = x - apothem, ey = y - cy;
    d2 = sqrt(ex * ex + ey * ey);
    g2[0] = (ex * nx - ey * ny) / d2, g2[1] = (ex * ny + ey * nx) / d2;
  } else {
    d2 = x - apothem;
    g2[0] = nx, g2[1] = ny;
  }
  double zc = 0.5 * (z0 + z1), dz = fabs(p[2] - zc) - 0.5 * (z1 - z0);
  double gz = p[2] >= zc ? 1 : -1;
  if (d2 <= 0 && dz <= 0) {
    if (d2 > dz) {
      grad[0] = g2[0], grad[1] = g2[1], grad[2] = 0;
      return d2;
    }
    grad[0] = grad[1] = 0, grad[2] = gz;
    return dz;
  }
  double a = fmax(d2, 0), b = fmax(dz, 0), d = sqrt(a * a + b * b);
  grad[0] = a * g2[0] / d, grad[1] = a * g2[1] / d, grad[2] = b * gz / d;
  return d;
}

// inside the section's solid at (rho, theta, z); h: the envelope's radius h(z) at theta
// (used only where z0 <= z <= z1)
static int section_inside(const thread_sdf* t, double rho, double z, double h) {
  const tf_profile_thread* th = &t->thread;
  if (!t->nut) {
    if (z >= t->zlo && z <= t->zhi && rho <= t->far) return 1;
    if (z < th->z0 || z > th->z1) return 0;
    return rho <= h;
  }
  if (z < th->z0 || z > th->z1 || rho > t->far) return 0;
  return rho >= h;
}

// the boxes of a static polyline ending (post: starting) at the envelope's end at z: the
// end vertex stays at z and within 0 <= r <= far at every angle
int tf_thread_end_boxes(double box[5][4], const tf_profile_vertex* v, int n, double far, double z,
                        int post) {
  double pr[5], pz[5];
  int m = 0;
  if (post) pr[m] = -1, pz[m++] = z;
  for (int i = 0; i < n; i++) pr[m] = v[i].p[0], pz[m++] = v[i].p[1];
  if (!post) pr[m] = -1, pz[m++] = z;
  for (int i = 0; i + 1 < m; i++) {
    int a = i, b = i + 1;
    int end = pr[a] < 0 || pr[b] < 0;
    box[i][0] = end ? 0 : fmin(pr[a], pr[b]);
    box[i][1] = end ? fmax(far, fmax(pr[a], pr[b])) : fmax(pr[a], pr[b]);
    box[i][2] = fmin(pz[a], pz[b]), box[i][3] = fmax(pz[a], pz[b]);
  }
  return m - 1;
}

static double maxd(double a, double b) { return a > b ? a : b; }
static double mind(double a, double b) { return a < b ? a : b; }

// a lower bound on the distance from (rho, z) to a surface swept by parts whose (r, z) stay
// within the boxes: |p - X|^2 = (rho - r)^2 + 2 rho r (1 - cos phi) + dz^2 >= (rho - r)^2 + dz^2
static double boxes_bound(const double box[5][4], int n, double rho, double z) {
  double best = INFINITY;
  for (int i = 0; i < n; i++) {
    double dr = maxd(maxd(box[i][0] - rho, rho - box[i][1]), 0);
    double dz = maxd(maxd(box[i][2] - z, z - box[i][3]), 0);
    best = mind(best, dr * dr + dz * dz);
  }
  return sqrt(best);
}

// queries the section at angle theta + q->base: the envelope between za and zb, then the
// static parts and the envelope's two ends unless they are out of reach. Out of reach is
// beyond twice the nearest distance found: such a feature can neither win nor leave an
// event that section_search would follow (it follows ends within twice the distance)
static void query_section(tf_profile_query* q, const thread_sdf* t, double theta, double za,
                          double zb, double k) {
  enum { CHUNK = 96 };
  const tf_profile_thread* th = &t->thread;
  double angle = theta + q->base;
  tf_profile_vertex v[CHUNK];
  double segw[2 * CHUNK];
  int n = 0;
  enum { MAXCHUNK = 256 };
  double xs[MAXCHUNK + 1];
  int nchunk = 0;
  // the same chunk starts as the plain walk below, so that the cuts are the same
  for (double x = za; x < zb && nchunk <= MAXCHUNK; x += th->pitch) xs[nchunk++] = x;
  if (nchunk == 0 || nchunk > MAXCHUNK) {
    for (double x = za; x < zb; x += th->pitch) {
      n = tf_profile_thread_section(v, segw, CHUNK, th, angle, x, mind(x + th->pitch, zb));
      if (n > 0) tf_profile_query_polyline(q, v, n, segw, t->nut);
    }
  } else {
    // the chunks [x_i, x_i + pitch] in the plain walk's order (the same ties), less those
    // out of reach of the nearest distance so far or of the point's own chunk's nearest (a
    // scratch query on it first: the walk comes at least as near once it gets there). A
    // feature of a chunk at a turn psi from the section (|psi| <= pi) lies within speed |psi|
    // of the chunk's (r, z) box, at D0 from (rho, z), at a radius >= rfloor, and at an angle
    // phi = b + psi from the point (b = base wrapped to [-pi, pi]): |p - X|^2 >=
    // (D0 - speed |psi|)_+^2 + c w(phi)^2, c = 4 rho rfloor / pi^2 and w(phi) the angle
    // wrapped to [-pi, pi] (1 - cos phi >= 2 w^2 / pi^2). Where w = |b + psi| this is at
    // least (D0 - speed |b|)_+^2 c / (c + speed^2); elsewhere (|b + psi| > pi) w >= pi - |b|,
    // so at least (D0 - speed pi)_+^2 + c (pi - |b|)^2. Beyond k times the nearest distance
    // (k = 2: a feature can neither win, nor be polished, nor leave an end worth following;
    // k = 1 where no ends are followed any more) a chunk changes nothing
    int home = (int)floor((q->z - za) / th->pitch);
    home = home < 0 ? 0 : (home >= nchunk ? nchunk - 1 : home);
    tf_profile_vertex vh[CHUNK];
    double segwh[2 * CHUNK];
    double near = q->dist;
    int nh = -2;  // the home chunk's section, once built
    if (nchunk > 1) {
      nh = tf_profile_thread_section(vh, segwh, CHUNK, th, angle, xs[home],
                                     mind(xs[home] + th->pitch, zb));
      if (nh > 0) {
        tf_profile_query scratch = *q;
        tf_profile_query_polyline(&scratch, vh, nh, segwh, t->nut);
        near = scratch.dist;
      }
    }
    double c = 0.4052847345693511 * q->rho * t->rfloor;  // 4 / pi^2
    double f2 = c / (c + t->speed * t->speed);
    double bw = q->base == 0 ? 0 : fabs(remainder(q->base, TWO_PI));
    double dr = maxd(maxd(t->rfloor - q->rho, q->rho - t->rceil), 0);
    for (int i = 0; i < nchunk; i++) {
      double x = xs[i], x1 = mind(x + th->pitch, zb);
      if (i == home && nh != -2) {
        if (nh > 0) tf_profile_query_polyline(q, vh, nh, segwh, t->nut);
        continue;
      }
      if (nchunk > 1) {
        double dz = maxd(maxd(x - q->z, q->z - x1), 0);
        double d0 = sqrt(dr * dr + dz * dz);
        double e1 = maxd(d0 - t->speed * bw, 0), e2 = maxd(d0 - t->speed * PI, 0);
        double lb2 = mind(f2 * e1 * e1, e2 * e2 + c * (PI - bw) * (PI - bw));
        double d = mind(q->dist, near);
        if (lb2 * (1 - 1e-9) > k * k * d * d) continue;
      }
      n = tf_profile_thread_section(v, segw, CHUNK, th, angle, x, x1);
      if (n > 0) tf_profile_query_polyline(q, v, n, segw, t->nut);
    }
  }
  if (!(boxes_bound(t->box[0], t->nbox[0], q->rho, q->z) > k * q->dist)) {
    n = 0;
    for (int i = 0; i < t->npre; i++) v[n++] = t->pre[i];
    tf_profile_thread_end(&v[n++], th, angle, 0);
    tf_profile_query_polyline(q, v, n, NULL, t->nut);
  }
  if (!(boxes_bound(t->box[1], t->nbox[1], q->rho, q->z) > k * q->dist)) {
    n = 0;
    tf_profile_thread_end(&v[n++], th, angle, 1);
    for (int i = 0; i < t->npost; i++) v[n++] = t->post[i];
    tf_profile_query_polyline(q, v, n, NULL, t->nut);
  }
}

// distance to the section's solid by the search over its features (any point)
static double section_search(const thread_sdf* t, const double p[3], double rho, double theta,
                             double c, double s, double grad[3]) {
  const tf_profile_thread* th = &t->thread;
  tf_profile_query q;
  tf_profile_query_init(&q, rho, p[2]);
  // the envelope within reach: any surface point bounds the distance d from above; a surface
  // point turned by phi is at least r |sin phi| away, so only turns up to asin(d / rmin)
  // matter, over which a feature's image moves by at most speed * phi
  double zc = mind(maxd(p[2], th->z0), th->z1);
  double hz = tf_profile_thread_radius(th, theta, zc);
  double reach = sqrt((rho - hz) * (rho - hz) + (p[2] - zc) * (p[2] - zc));
  double turn = reach < t->rmin ? asin(reach / t->rmin) : PI;
  double half = reach + t->speed * turn + 1e-9;
  query_section(&q, t, theta, maxd(p[2] - half, th->z0), mind(p[2] + half, th->z1), 2);
  // features that end within the turn that matters: look just past their ends, where
  // features the point's own section lacks (a corner emerging from a chamfer) begin
  double done[2 * TF_PROFILE_MAXEVENT];
  int ndone = 0;
  for (int round = 0; round < 2 && ndone < 2 * TF_PROFILE_MAXEVENT; round++) {
    int nev = q.nevent;
    double ev[TF_PROFILE_MAXEVENT], evd[TF_PROFILE_MAXEVENT];
    memcpy(ev, q.event, sizeof(ev)), memcpy(evd, q.event_dist, sizeof(evd));
    q.nevent = 0;
    for (int e = 0; e < nev && ndone < 2 * TF_PROFILE_MAXEVENT; e++) {
      if (evd[e] > 2 * q.dist) continue;
      int seen = 0;
      for (int k = 0; k < ndone; k++) seen |= fabs(done[k] - ev[e]) < 1e-7;
      if (seen) continue;
      done[ndone++] = ev[e];
      q.base = ev[e];
      double more = half + t->speed * fabs(ev[e]);
      query_section(&q, t, theta, maxd(p[2] - more, th->z0), mind(p[2] + more, th->z1),
                    round == 1 ? 1 : 2);
    }
  }
  tf_profile_query_refine(&q);
  int inside = section_inside(t, rho, p[2], hz);  // zc == p[2] wherever hz is used
  tf_profile_query_gradient(grad, &q, c, s, inside);
  // the nearest point found is a surface point, so q.dist is never below the true distance,
  // and after the polish it is the true distance up to rounding: a margin over the rounding
  // keeps the value below the true signed distance on both sides
  double margin = MARGIN_REL * q.dist + MARGIN_ABS;
  return inside ? -q.dist - margin : q.dist - margin;
}

// atan2(y, x) for (x, y) != (0, 0), within a few 1e-16 rad of the library's and about three
// times cheaper (it ran on every query): folded to t = min / max in [0, 1] (then |y| > |x|:
// pi / 2 - r, x < 0: pi - r, y < 0: -r), atan t = atan c + atan u with c = k / 8 the nearest
// eighth and u = (t - c) / (1 + t c), |u| <= 1 / 16 (to rounding of the eighth's choice),
// whose series to u^15 leaves out less than 1e-21. The angle only sets zeta = z - lead theta (and
// the search's section): an error of a few 1e-16 rad moves the point by under 1e-18 m, far below
// the values' margin
static double fast_atan2(double y, double x) {
  static const double atan_eighth[9] = {
      0,
      0.12435499454676144,
      0.24497866312686414,
      0.35877067027057225,
      0.46364760900080609,
      0.55859931534356244,
      0.64350110879328437,
      0.71882999962162453,
      0.78539816339744828,
  };
  double ax = fabs(x), ay = fabs(y);
  int swap = ay > ax;
  double num = swap ? ax : ay, den = swap ? ay : ax;  // t = num / den in [0, 1]
  // the nearest eighth by comparisons (t >= (k - 1/2) / 8) and u = (num - c den) /
  // (den + c num): one division where t and then u took two
  int k = (16 * num >= den) + (16 * num >= 3 * den) + (16 * num >= 5 * den) +
          (16 * num >= 7 * den) + (16 * num >= 9 * den) + (16 * num >= 11 * den) +
          (16 * num >= 13 * den) + (16 * num >= 15 * den);
  double c = 0.125 * k, u = (num - c * den) / (den + c * num), u2 = u * u;
  // the series' coefficients by Estrin's scheme (three levels of products where Horner's
  // rule chained seven: the query waits on this angle)
  double u4 = u2 * u2, u8 = u4 * u4;
  double q = (-1.0 / 3 + u2 * (1.0 / 5)) + u4 * (-1.0 / 7 + u2 * (1.0 / 9)) +
             u8 * ((-1.0 / 11 + u2 * (1.0 / 13)) + u4 * (-1.0 / 15));
  double r = atan_eighth[k] + (u + u * u2 * q);
  if (swap) r = 0.5 * PI - r;
  if (x < 0) r = PI - r;
  return y < 0 ? -r : r;
}

// whether the thread has no upper clamp lines (a nut's): its envelope is max(profile, lo...)
static int th_has_nhi_zero(const thread_sdf* t) { return t->thread.nhi == 0; }

// a nut: whether the point at radius r, height z (a point of the infinite thread's surface)
// lies on the section's own surface, WINDOW_SLACK inside its length, its countersinks' lines
// and its slab's outer wall (there the clamped envelope h is the profile itself)
static int on_nut_section(const thread_sdf* t, double r, double z) {
  const tf_profile_thread* th = &t->thread;
  if (!(z > th->z0 + WINDOW_SLACK && z < th->z1 - WINDOW_SLACK && r < t->far - WINDOW_SLACK))
    return 0;
  for (int j = 0; j < th->nlo; j++) {
    if (!(r > th->lo[j][0] + th->lo[j][1] * z + WINDOW_SLACK)) return 0;
  }
  return th->nhi == 0;
}

// a nut, at a point (rho, z) inside the infinite thread's solid T at depth d (> 0) with the
// table's outward gradient g (the point's frame): the section's solid is T cut by the
// countersinks (r >= a + b z, axisymmetric, so their distance is the section's distance to
// their lines), the end faces and the slab's outer wall, and inside an intersection the depth
// is the least depth in any of them, with that one's gradient. Returns the depth with grad
// (the point's frame), or -1 where the point is outside the cuts or a line's nearest point
// would lie across the axis (the search answers there)
static double nut_depth(const thread_sdf* t, double rho, double z, double d, const double g[3],
                        double grad[3]) {
  const tf_profile_thread* th = &t->thread;
  double best = d, gb[3] = {g[0], g[1], g[2]};
  double faces[3][2] = {{z - th->z0, -1}, {th->z1 - z, 1}, {t->far - rho, 0}};
  for (int k = 0; k < 3; k++) {
    if (!(faces[k][0] >= 0)) return -1;
    if (faces[k][0] < best) {
      best = faces[k][0];
      gb[0] = k == 2 ? 1 : 0, gb[1] = 0, gb[2] = faces[k][1];
    }
  }
  for (int j = 0; j < th->nlo; j++) {
    double a = th->lo[j][0], b = th->lo[j][1], len = sqrt(1 + b * b);
    double e = (rho - a - b * z) / len;  // the depth beyond the line r = a + b z
    if (!(e >= 0) || rho - e / len < 0) return -1;
    if (e < best) best = e, gb[0] = -1 / len, gb[1] = 0, gb[2] = b / len;
  }
  grad[0] = gb[0], grad[1] = gb[1], grad[2] = gb[2];
  return best;
}

// a bolt: whether the point at radius r, height z (a point of the infinite thread's surface)
// lies on the section's thread surface, WINDOW_SLACK inside its length and under its chamfer
// (there the clamped envelope h is the profile itself). The head's slab is the caller's
static int on_bolt_section(const thread_sdf* t, double r, double z) {
  const tf_profile_thread* th = &t->thread;
  if (!(z > th->z0 + WINDOW_SLACK && z < th->z1 - WINDOW_SLACK)) return 0;
  for (int j = 0; j < th->nhi; j++) {
    if (!(r < th->hi[j][0] + th->hi[j][1] * z - WINDOW_SLACK)) return 0;
  }
  return th->nlo == 0;
}

// a bolt, at a point (rho, z) inside the infinite thread's solid T at depth d (> 0) with the
// table's outward gradient g (the point's frame): above the head the section's solid is T
// under the top face and inside the chamfer (r <= a + b z, axisymmetric), and the depth is the
// least of T's, the face's and the chamfer's, with that one's gradient, provided that ball
// stays above the head's top face zhi (below it the head's slab joins the solid). Returns
// the depth with grad (the point's frame), or -1 where the point is outside the cuts or the
// ball reaches the head (the search answers there)
static double bolt_depth(const thread_sdf* t, double rho, double z, double d, const double g[3],
                         double grad[3]) {
  const tf_profile_thread* th = &t->thread;
  if (th->nlo != 0) return -1;
  double best = d, gb[3] = {g[0], g[1], g[2]};
  if (!(th->z1 - z >= 0)) return -1;
  if (th->z1 - z < best) best = th->z1 - z, gb[0] = 0, gb[1] = 0, gb[2] = 1;
  for (int j = 0; j < th->nhi; j++) {
    double a = th->hi[j][0], b = th->hi[j][1], len = sqrt(1 + b * b);
    double e = (a + b * z - rho) / len;  // the depth under the line r = a + b z
    // the line's foot rho + e / len lies off the axis (e >= 0)
    if (!(e >= 0)) return -1;
    if (e < best) best = e, gb[0] = 1 / len, gb[1] = 0, gb[2] = -b / len;
  }
  if (!(best + WINDOW_SLACK < z - t->zhi)) return -1;
  grad[0] = gb[0], grad[1] = gb[1], grad[2] = gb[2];
  return best;
}

// signed distance from (r, z) to a convex polygon (counter-clockwise), its nearest boundary
// point y and the outward unit normal there (from the point's offset outside; the nearest
// edge's inside)
static double polygon_distance(const double v[][2], int n, double r, double z, double y[2],
                               double nrm[2]) {
  int inside = 1;
  double best = INFINITY, depth = INFINITY, out[2] = {1, 0}, in[2] = {1, 0};
  y[0] = r, y[1] = z;
  for (int i = 0; i < n; i++) {
    const double* a = v[i];
    const double* b = v[(i + 1) % n];
    double er = b[0] - a[0], ez = b[1] - a[1], len = sqrt(er * er + ez * ez);
    double pr = r - a[0], pz = z - a[1];
    double side = (er * pz - ez * pr) / len;  // > 0: left of the edge, inside
    if (side < 0) inside = 0;
    double u = (pr * er + pz * ez) / (len * len);
    u = u < 0 ? 0 : (u > 1 ? 1 : u);
    double dr = pr - u * er, dz = pz - u * ez, d = sqrt(dr * dr + dz * dz);
    if (d < best) {
      best = d, y[0] = a[0] + u * er, y[1] = a[1] + u * ez;
      // the offset's own components: unit to rounding however near the point is
      if (d > 0) out[0] = dr / d, out[1] = dz / d;
    }
    if (side < depth) depth = side, in[0] = ez / len, in[1] = -er / len;
  }
  if (inside) {
    // the nearest edge's foot: the depth is the least distance to an edge's line
    y[0] = r - depth * in[0], y[1] = z - depth * in[1];
    nrm[0] = in[0], nrm[1] = in[1];
    return -depth;
  }
  nrm[0] = out[0], nrm[1] = out[1];
  return best;
}

// distance to the section's solid (the threaded part): the feature table where the infinite
// thread is provably the surface within reach, else the search
static double section_eval(const thread_sdf* t, const double p[3], double grad[3]) {
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
  double theta = rho > 0 ? fast_atan2(p[1], p[0]) : 0;
  double inv_rho = rho > 0 ? 1 / rho : 0;
  double c = rho > 0 ? p[0] * inv_rho : 1, s = rho > 0 ? p[1] * inv_rho : 0;
  int in_window = p[2] > t->free_lo && p[2] < t->free_hi;
  // a nut's table also answers beside its countersinks and faces, a bolt's by its tip (below)
  if (t->use_table && (in_window || t->ncut > 0)) {
    double phi, g[3];
    const unsigned char* cells = (const unsigned char*)(t + 1);
    if (tf_thread_table_eval(&phi, g, &t->table, cells, rho, p[2] - t->table.lead * theta)) {
      // the section equals the infinite thread over free_lo < z < free_hi (r < far): a ball
      // of radius |phi| in there meets the same surface, so phi is the section's distance
      double a = fabs(phi) + WINDOW_SLACK;
      int exact = in_window && a < p[2] - t->free_lo && a < t->free_hi - p[2] &&
                  (!t->nut || rho + a < t->far);
      // a nut's section is the infinite thread's solid T cut by its countersinks and slab,
      // so a point outside T is at least phi from the section; when the infinite thread's
      // nearest point X = p - phi grad (the table's offset) lies on the section's surface it
      // is at most that too, and phi is exact (a seated nut's end turns, by its countersinks)
      if (!exact && t->nut && phi > 0) {
        double xr = rho - phi * g[0], xt = phi * g[1];
        exact = on_nut_section(t, sqrt(xr * xr + xt * xt), p[2] - phi * g[2]);
      }
      // inside T, the depth of the intersection (nut_depth)
      if (!exact && t->nut && phi <= 0 && th_has_nhi_zero(t)) {
        double gd[3], depth = nut_depth(t, rho, p[2], -phi, g, gd);
        if (depth >= 0) phi = -depth, g[0] = gd[0], g[1] = gd[1], g[2] = gd[2], exact = 1;
      }
      // outside the cut K (beyond a face, in a countersink): the section lies in K, so it is at
      // least K's distance away, and exactly that when K's nearest point Y (an axisymmetric
      // set: at the point's own angle) lies in T (the table at Y says so): then Y is on the
      // section (a seated nut's end turns, the lattice's and the seeds' points by its faces)
      if (!exact && t->nut && t->ncut > 0 && th_has_nhi_zero(t)) {
        double y[2], n2[2], dk = polygon_distance(t->cut, t->ncut, rho, p[2], y, n2), py, gy[3];
        if (dk > 0 &&
            tf_thread_table_eval(&py, gy, &t->table, cells, y[0], y[1] - t->table.lead * theta) &&
            py <= 0)
          phi = dk, g[0] = n2[0], g[1] = 0, g[2] = n2[1], exact = 1;
      }
      // a bolt is T cut by K (its top face and chamfer) above the head's top face zhi, joined
      // with the head's slab below it, which is at least z - zhi away: where the answer's ball
      // stays above zhi the same three cases hold (its tip turns, the top face)
      if (!exact && !t->nut && t->ncut > 0 && phi > 0 && phi + WINDOW_SLACK < p[2] - t->zhi) {
        double xr = rho - phi * g[0], xt = phi * g[1];
        exact = on_bolt_section(t, sqrt(xr * xr + xt * xt), p[2] - phi * g[2]);
      }
      if (!exact && !t->nut && t->ncut > 0 && phi <= 0) {
        double gd[3], depth = bolt_depth(t, rho, p[2], -phi, g, gd);
        if (depth >= 0) phi = -depth, g[0] = gd[0], g[1] = gd[1], g[2] = gd[2], exact = 1;
      }
      if (!exact && !t->nut && t->ncut > 0 && t->thread.nlo == 0) {
        // K's nearest point Y lies in T where its radius is under the profile's least
        // (material inside it at every zeta), else where the table at Y says so
        double y[2], n2[2], dk = polygon_distance(t->cut, t->ncut, rho, p[2], y, n2), py, gy[3];
        if (dk > 0 && dk + WINDOW_SLACK < p[2] - t->zhi &&
            (y[0] < t->table.rlow - WINDOW_SLACK ||
             (tf_thread_table_eval(&py, gy, &t->table, cells, y[0], y[1] - t->table.lead * theta) &&
              py <= 0)))
          phi = dk, g[0] = n2[0], g[1] = 0, g[2] = n2[1], exact = 1;
      }
      if (exact) {
        grad[0] = g[0] * c - g[1] * s, grad[1] = g[0] * s + g[1] * c, grad[2] = g[2];
        // exact up to rounding, as the search: the same margin keeps it below the truth
        double margin = MARGIN_REL * fabs(phi) + MARGIN_ABS;
        return phi - margin;
      }
    }
  }
  return section_search(t, p, rho, theta, c, s, grad);
}

// tf_sdf_fn of the bolt: the threaded section joined with the head
double tf_thread_sdf_bolt(const void* params, const double p[3], double grad[3]) {
  const thread_sdf* t = params;
  double gs[3], gh[3];
  if (p[2] > t->hex_z1) {
    // above the head the hex is at least z - hex_z1 away: a section nearer than that wins
    double ds = section_eval(t, p, gs);
    if (ds < p[2] - t->hex_z1) {
      if (grad) memcpy(grad, gs, sizeof(gs));
      return ds;
    }
    double dh = hex_prism(p, t->apothem, t->hex_z0, t->hex_z1, gh);
    if (grad) memcpy(grad, ds < dh ? gs : gh, sizeof(gs));
    return ds < dh ? ds : dh;
  }
  double dh = hex_prism(p, t->apothem, t->hex_z0, t->hex_z1, gh);
  // outside the hex the section's solid (the thread within rceil, the head's slab) is at
  // least min(rho - rceil, slab distance) away: where the hex is nearer than both (less the
  // margin, so that the section's computed value could not be below it either) the union is
  // the hex, and the section is not needed (beside and under the head)
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
  double sr = fmax(rho - t->far, 0), sz = fmax(fmax(p[2] - t->zhi, t->zlo - p[2]), 0);
  double bound = fmin(rho - t->rceil, sqrt(sr * sr + sz * sz));
  if (dh >= 0 && dh <= bound * (1 - 2 * MARGIN_REL) - 2 * MARGIN_ABS) {
    if (grad) memcpy(grad, gh, sizeof(gh));
    return dh;
  }
  double ds = section_eval(t, p, gs);
  if (grad) memcpy(grad, ds < dh ? gs : gh, sizeof(gs));
  return ds < dh ? ds : dh;
}

// tf_sdf_fn of the nut: the threaded section within the hex
double tf_thread_sdf_nut(const void* params, const double p[3], double grad[3]) {
  const thread_sdf* t = params;
  double gs[3], gh[3];
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
  if (rho <= t->rceil && rho <= t->apothem) {
    // in the bore the hex (its flats contain the circle of radius apothem) is at most
    // max(rho - apothem, the slab's signed distance): a section above that wins
    double ds = section_eval(t, p, gs);
    double zc = 0.5 * (t->hex_z0 + t->hex_z1), dz = fabs(p[2] - zc) - 0.5 * (t->hex_z1 - t->hex_z0);
    if (ds > fmax(rho - t->apothem, dz)) {
      if (grad) memcpy(grad, gs, sizeof(gs));
      return ds;
    }
    double dh = hex_prism(p, t->apothem, t->hex_z0, t->hex_z1, gh);
    if (grad) memcpy(grad, ds > dh ? gs : gh, sizeof(gs));
    return ds > dh ? ds : dh;
  }
  double dh = hex_prism(p, t->apothem, t->hex_z0, t->hex_z1, gh);
  // between the faces, beyond the envelope's reach and inside the slab's wall the point is
  // in the section's solid, its value at most -min(rho - rceil, far - rho, z - zlo, zhi - z);
  // where the hex is above that (it is never below -min(z - zlo, zhi - z)) the intersection
  // is the hex, and the section is not needed
  if (p[2] >= t->zlo && p[2] <= t->zhi && rho > t->rceil && rho < t->far &&
      dh >= -fmin(rho - t->rceil, t->far - rho) + MARGIN_ABS) {
    if (grad) memcpy(grad, gh, sizeof(gh));
    return dh;
  }
  // above or below the slab, beyond the envelope's reach and inside its wall (the gripper
  // around the hex, off the table's radii): the section's solid holds the point's foot on the
  // face, and nothing beyond that face, so the section is exactly the face's distance away
  // (its value below that by its margin), while the hex, between the same faces, is at least
  // that far: the intersection is the hex, and the section is not needed
  if ((p[2] > t->zhi || p[2] < t->zlo) && rho >= t->rceil && rho <= t->far && t->hex_z0 == t->zlo &&
      t->hex_z1 == t->zhi) {
    if (grad) memcpy(grad, gh, sizeof(gh));
    return dh;
  }
  double ds = section_eval(t, p, gs);
  if (grad) memcpy(grad, ds > dh ? gs : gh, sizeof(gs));
  return ds > dh ? ds : dh;
}

// a vertex of the section that is there at every angle
void tf_thread_static_vertex(tf_profile_vertex* v, double r, double z) {
  memset(v, 0, sizeof(*v));
  v->p[0] = r, v->p[1] = z;
  v->phi[0] = -PI, v->phi[1] = PI;
}

// the open z interval where the section is the infinite thread: within the threaded length,
// where no static line clamps the profile (lo lines stay at or below the profile's least
// radius, hi lines at or above its greatest)
static void free_window(thread_sdf* t) {
  const tf_profile_thread* th = &t->thread;
  double fmin_r = INFINITY, fmax_r = -INFINITY;
  for (int k = 0; k < th->nkink; k++) {
    fmin_r = fmin(fmin_r, th->kink[k][0]), fmax_r = fmax(fmax_r, th->kink[k][0]);
  }
  double lo = th->z0, hi = th->z1;
  for (int j = 0; j < th->nlo + th->nhi; j++) {
    int low = j < th->nlo;
    double a = low ? th->lo[j][0] : th->hi[j - th->nlo][0];
    double b = low ? th->lo[j][1] : th->hi[j - th->nlo][1];
    // low: a + b z <= fmin_r; high: a + b z >= fmax_r, i.e. -a - b z <= -fmax_r
    double sa = low ? a : -a, sb = low ? b : -b, bound = low ? fmin_r : -fmax_r;
    if (sb > 0) hi = fmin(hi, (bound - sa) / sb);
    if (sb < 0) lo = fmax(lo, (bound - sa) / sb);
    if (sb == 0 && sa > bound) hi = lo;  // clamps everywhere
  }
  t->free_lo = lo, t->free_hi = hi;
}

// the free window and, when asked, the feature table over radii from TABLE_CORE of the
// profile's least radius out to rout (at least a band outside it), its cells appended to the
// params blob; returns the (moved) params and their size, or NULL when out of memory (t freed)
thread_sdf* tf_thread_add_table(thread_sdf* t, int use, double rout, size_t* size) {
  free_window(t);
  *size = sizeof(*t);
  t->use_table = 0;
  if (!use || !(t->free_hi > t->free_lo)) return t;
  double rmax = -INFINITY, band = TABLE_BAND * t->thread.pitch;
  for (int k = 0; k < t->thread.nkink; k++) rmax = fmax(rmax, t->thread.kink[k][0]);
  size_t cells = tf_thread_table_init(&t->table, &t->thread, t->nut, TABLE_CORE * t->rmin,
                                      rmax + band, rout, TABLE_NZ);
  if (cells == 0) return t;
  thread_sdf* grown = realloc(t, sizeof(*t) + cells);
  if (!grown) {
    free(t);
    return NULL;
  }
  t = grown;
  tf_thread_table_fill(&t->table, (unsigned char*)(t + 1));
  t->use_table = 1;
  *size += cells;
  return t;
}
