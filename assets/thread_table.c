// The exact distance to an infinite screw thread through a table of candidate features.
//
// Screw invariance. Away from its ends a thread's surface is carried onto itself by the screw
// motion (turn by a, rise by lead a, lead = pitch / 2 pi), and so is its distance field. A
// point at (rho, theta, z) is therefore as far from the surface as the point (rho, 0, zeta),
// zeta = z - lead theta, and zeta may be taken modulo the pitch: the distance is a function
// phi(r, zeta) on one period of a half-plane. In that point's frame a profile point (r, s)
// swept by a turn t sits at X = (r cos t, r sin t, s + lead t), and the surface is made of
//   corners: the helix X(t) of a profile corner (r_c, s_c), per period;
//   flats:   a segment of constant r (crest, root): the cylinder strip s in [lo, hi];
//   flanks:  a slanted segment s = s0 + k r, r in [lo, hi]: a helicoid strip.
// The nearest point of a flat is straight out (t = 0, the same s) when zeta lies in [lo, hi],
// else on a corner. A corner minimises f(t) = rho^2 + r_c^2 - 2 rho r_c cos t + (w - lead t)^2,
// w = zeta - s_c: g = f' / 2 = rho r_c sin t - lead (w - lead t) = 0, g' = rho r_c cos t +
// lead^2 > 0 for |t| < pi / 2 (f convex there; farther turns are >= rho away). A flank
// minimises f(r, t) = rho^2 - 2 rho r cos t + r^2 + u^2, u = w - k r - lead t, w = zeta - s0;
// df/dr = 0 gives r(t) = (rho cos t + k (w - lead t)) / (1 + k^2) in closed form, leaving the
// one equation g(t) = rho r(t) sin t - lead u(t) = 0 (f's Hessian is positive definite for
// the small turns that matter). Both start at the root of g linearised at t = 0 and take
// Newton steps; a step under 1e-8 rad leaves an error of order 1e-18 rad, so it is applied by
// rotating the last cos / sin instead of evaluating them again. A point near the surface takes
// one or two cos / sin (a Taylor series for |t| <= 1/8). The stationary point of a flank
// counts only when its r lies on the strip: otherwise the strip's nearest point is on its
// boundary, which the corners cover. The distance is |P - X| at the point found: a true
// surface point, so never below the true distance, and equal to it up to rounding.
//
// Candidates. A cell of the (r, zeta) table names the features that can be nearest anywhere
// in it; the query follows only those, so it is exact as long as the list is complete. At
// the cell's centre c (half-diagonal R, a Euclidean 3D distance: the half-plane is a plane):
//   lower bound: 2 rho r (1 - cos t) >= 4 rho r t^2 / pi^2 for |t| <= pi, so for any feature
//     (a feature of one period is the part of its sweep within half a turn of the point)
//     |P - X|^2 >= (rho - r)^2 + q (zeta - s)^2 minimised over t, q = c / (c + lead^2),
//     c = 4 rho rmin / pi^2: the distance in the section with zeta scaled by sqrt(q), to the
//     feature's closed segment (or corner) at t = 0: LB_F(c);
//   upper bound: UB(c), the least distance followed at c (features in ascending LB until
//     the next LB exceeds it: then UB(c) is phi(c) itself);
// and each feature's distance (to its closed strip, corners included, for a face) is
// 1-Lipschitz, so at any x in the cell d_F(x) >= LB_F(c) - R and phi(x) <= UB(c) + R. A
// feature with LB_F(c) > UB(c) + 2R can never win in the cell and is left out. The true
// nearest point lies on a corner or inside a strip, and that feature's bound passes, so the
// minimum over the named features is phi. A flat's inside is named only in cells whose zeta
// meets its span (elsewhere its nearest point is a corner). Periods farther than the radial
// span of the table (an upper bound of phi) plus 2R in scaled zeta are beyond every cell's
// reach and not built; a cell looks only at the periods whose (r, zeta) box is within its
// first upper bound |rho - f(zeta)| (the profile's point at t = 0) plus 2R. Cells that would
// name more than TF_THREAD_TABLE_SLOTS features answer nothing (the caller's own search takes
// them; none occur near the thread), and neither does a Newton iteration that fails to settle.
//
// Query. The cell's faces come first: a corner is skipped once a face through it found its
// stationary point inside its strip (that is the least distance to the face's whole helicoid
// or cylinder, on which the corner lies), and any feature past the first is skipped when its
// lower bound at the point itself exceeds the nearest found. The side follows from the
// winner: the offset P - X from a face lies along its normal, whose (r, zeta) part is the
// section normal, and from a corner between its two faces' normals, so it is outside exactly
// when it points along their mean (no profile lookup). The gradient is (P - X) / |P - X|,
// turned to the point's angle by the caller (the section normal on the surface itself).
//
// Layout: square cells, nz per pitch, over a band around the profile, then cells
// TF_THREAD_TABLE_COARSE times as wide out to the outer radius (far points are rare and
// name few features): ~100 kB of 16-byte records for the band. Cost: a build follows a
// handful of features per cell (5-15 ms a part); a query one to three, about 0.1-0.2 us.
#include "thread_table.h"

#include <math.h>
#include <string.h>

#define PI 3.141592653589793
#define TWO_PI 6.283185307179586
#define SLACK 1e-12      // m: rounding allowance in the candidate tests
#define SMALL_STEP 1e-8  // rad: a Newton step this small is the last one
#define MAX_NEWTON 16

_Static_assert(TF_THREAD_TABLE_MAXFEATURE <= 256, "feature ids are bytes");

// the larger (fmax is a library call here, and the values are never NaN)
static double maxd(double a, double b) { return a > b ? a : b; }

// cos and sin of a turn: Taylor series where the turns are small, their length picked so the
// first term left out is below 1e-19 relative (|phi| <= 1/8: to phi^13), within a few ulp of
// the library's and several times cheaper; a point near a flank turns by ~1e-4
static void cos_sin(double phi, double* c, double* s) {
  double x2 = phi * phi;
  if (x2 <= 1e-6) {  // |phi| <= 1e-3: the next terms below 2e-22 relative
    *s = phi * (1 + x2 * (-1.0 / 6 + x2 * (1.0 / 120)));
    *c = 1 + x2 * (-0.5 + x2 * (1.0 / 24 + x2 * (-1.0 / 720)));
    return;
  }
  if (x2 <= 1.0 / 64) {
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

// ---------------------------------------------------------------- one feature

// nearest point of a corner's helix: offset P - X in (e_r, e_theta, e_z); returns |P - X|, or
// -1 when Newton does not settle
static double corner_offset(double off[3], const tf_thread_feature* f, double lead, double rho,
                            double zeta) {
  double a = rho * f->r, l2 = lead * lead, w = zeta - f->zeta;
  double t = lead * w / (a + l2), c, s;
  cos_sin(t, &c, &s);
  int it = 0;
  for (; it < MAX_NEWTON; it++) {
    double dt = (a * s - lead * (w - lead * t)) / (a * c + l2);
    t -= dt;
    if (fabs(dt) < SMALL_STEP) {
      double c1 = c + s * dt, s1 = s - c * dt;  // turned by -dt (second order: ~1e-17)
      c = c1, s = s1;
      break;
    }
    cos_sin(t, &c, &s);
  }
  if (it == MAX_NEWTON) return -1;
  off[0] = rho - f->r * c, off[1] = -f->r * s, off[2] = w - lead * t;
  return sqrt(off[0] * off[0] + off[1] * off[1] + off[2] * off[2]);
}

// nearest point of a flank's helicoid when it lies on the strip: as corner_offset, INFINITY
// when the stationary point is off the strip
static double flank_offset(double off[3], const tf_thread_feature* f, double lead, double rho,
                           double zeta) {
  double k = f->k, k1 = f->k1, w = zeta - f->zeta, l2 = lead * lead;
  double r0 = (rho + k * w) * k1, u0 = w - k * r0;
  double t = lead * u0 / (rho * r0 + l2 * k1), c, s, r = r0, u = u0;
  cos_sin(t, &c, &s);
  int it = 0;
  for (; it < MAX_NEWTON; it++) {
    r = (rho * c + k * (w - lead * t)) * k1;
    u = w - k * r - lead * t;
    double dr = (-rho * s - k * lead) * k1, du = -k * dr - lead;
    double g = rho * r * s - lead * u, gp = rho * (dr * s + r * c) - lead * du;
    double dt = g / gp;
    t -= dt;
    if (fabs(dt) < SMALL_STEP) {
      double c1 = c + s * dt, s1 = s - c * dt;
      c = c1, s = s1;
      r = (rho * c + k * (w - lead * t)) * k1;
      u = w - k * r - lead * t;
      break;
    }
    cos_sin(t, &c, &s);
  }
  if (it == MAX_NEWTON) return -1;
  if (r < f->lo || r > f->hi) return INFINITY;
  off[0] = rho - r * c, off[1] = -r * s, off[2] = u;
  return sqrt(off[0] * off[0] + off[1] * off[1] + off[2] * off[2]);
}

// the feature's nearest point: offset and distance; INFINITY when its nearest point is on
// another feature, -1 when the iteration does not settle
static double feature_offset(double off[3], const tf_thread_feature* f, double lead, double rho,
                             double zeta) {
  if (f->kind == TF_THREAD_CORNER) return corner_offset(off, f, lead, rho, zeta);
  if (f->kind == TF_THREAD_FLANK) return flank_offset(off, f, lead, rho, zeta);
  if (zeta < f->lo || zeta > f->hi) return INFINITY;
  off[0] = rho - f->r, off[1] = 0, off[2] = 0;
  return fabs(off[0]);
}

// the lower bound LB_F squared: the distance in the section with zeta scaled by sq = sqrt(q)
// to the feature's corner or closed segment at t = 0
static double feature_bound2(const tf_thread_feature* f, double sq, double rho, double zeta) {
  double ar, az, br, bz;
  if (f->kind == TF_THREAD_CORNER) {
    double dr = rho - f->r, dz = sq * (zeta - f->zeta);
    return dr * dr + dz * dz;
  }
  if (f->kind == TF_THREAD_FLAT) {
    ar = br = f->r, az = f->lo, bz = f->hi;
  } else {
    ar = f->lo, az = f->zeta + f->k * f->lo, br = f->hi, bz = f->zeta + f->k * f->hi;
  }
  double er = br - ar, ez = sq * (bz - az), pr = rho - ar, pz = sq * (zeta - az);
  double ee = er * er + ez * ez, u = ee > 0 ? (pr * er + pz * ez) / ee : 0;
  u = u < 0 ? 0 : (u > 1 ? 1 : u);
  double dr = pr - u * er, dz = pz - u * ez;
  return dr * dr + dz * dz;
}

static double feature_bound(const tf_thread_feature* f, double sq, double rho, double zeta) {
  return sqrt(feature_bound2(f, sq, rho, zeta));
}

// ---------------------------------------------------------------- build

// the profile's radius at zeta in [0, pitch]: the polyline through the corners, periodic
static double profile_radius(const tf_thread_table* tab, double zeta) {
  int n = tab->nkink;
  double p = tab->pitch;
  // from the last corner a period down to the first, then corner to corner, then on to the
  // first a period up
  double ar = tab->kink[n - 1][0], az = tab->kink[n - 1][1] - p;
  for (int j = 0; j <= n; j++) {
    double br = tab->kink[j % n][0], bz = tab->kink[j % n][1] + (j == n ? p : 0);
    if (zeta <= bz) return bz > az ? ar + (br - ar) * (zeta - az) / (bz - az) : br;
    ar = br, az = bz;
  }
  return ar;
}

size_t tf_thread_table_init(tf_thread_table* tab, const tf_profile_thread* t, int nut, double rlo,
                            double rmid, double rhi, int nz) {
  memset(tab, 0, sizeof(*tab));
  int n = t->nkink;
  if (n < 2 || n > TF_PROFILE_MAXKINK || nz < 1 || !(rlo > 0) || !(rmid > rlo)) return 0;
  double p = t->pitch, lead = p / TWO_PI;
  tab->pitch = p, tab->lead = lead, tab->nut = nut, tab->nkink = n;
  double rmin = INFINITY, rmax = -INFINITY;
  for (int j = 0; j < n; j++) {
    tab->kink[j][0] = t->kink[j][0], tab->kink[j][1] = t->kink[j][1];
    rmin = fmin(rmin, t->kink[j][0]), rmax = fmax(rmax, t->kink[j][0]);
  }
  tab->hz = p / nz, tab->hr = tab->hz, tab->hr2 = TF_THREAD_TABLE_COARSE * tab->hz;
  tab->nz = nz;
  tab->nr1 = (int)ceil((rmid - rlo) / tab->hr);
  tab->r0 = rlo, tab->r1 = rlo + tab->nr1 * tab->hr;
  tab->nr = tab->nr1 + (rhi > tab->r1 ? (int)ceil((rhi - tab->r1) / tab->hr2) : 0);
  rhi = tab->r1 + (tab->nr - tab->nr1) * tab->hr2;
  tab->inv_hr = 1 / tab->hr, tab->inv_hr2 = 1 / tab->hr2;
  tab->inv_hz = 1 / tab->hz, tab->inv_pitch = 1 / p;
  double cq0 = 4 * rlo * rmin / (PI * PI);
  tab->sq_min = sqrt(cq0 / (cq0 + lead * lead));
  // the window of periods: phi <= the radial distance to the profile at t = 0 <= span; a
  // period w + 1 away or more is at least (w - 1) pitches off in zeta (the cell's zeta and
  // the period's segments each span one period) and sqrt(q) of that in the lower bound
  double span = fmax(rmax - rlo, rhi - rmin);
  double half_diag = 0.5 * sqrt(tab->hr2 * tab->hr2 + tab->hz * tab->hz);
  double cq = 4 * rlo * rmin / (PI * PI), sq = sqrt(cq / (cq + lead * lead));
  int window = 2 + (int)ceil((span + 2 * half_diag + SLACK) / (sq * p));
  if (2 * n * (2 * window + 1) > TF_THREAD_TABLE_MAXFEATURE) return 0;
  tab->window = window, tab->rlow = rmin, tab->rhigh = rmax;
  // features: per period a corner and the segment that follows it
  for (int per = -window; per <= window; per++) {
    for (int j = 0; j < n; j++) {
      int j1 = (j + 1) % n;
      double ar = t->kink[j][0], az = t->kink[j][1] + per * p;
      double br = t->kink[j1][0], bz = t->kink[j1][1] + per * p + (j1 == 0 ? p : 0);
      double len = sqrt((br - ar) * (br - ar) + (bz - az) * (bz - az));
      // outward normal of a solid inside the profile: the segment (dr, dz) turned clockwise
      double nr = (bz - az) / len, nzv = -(br - ar) / len;
      if (nut) nr = -nr, nzv = -nzv;
      tf_thread_feature* c = &tab->feature[tab->nfeature++];
      tf_thread_feature* f = &tab->feature[tab->nfeature++];
      memset(c, 0, sizeof(*c)), memset(f, 0, sizeof(*f));
      c->kind = TF_THREAD_CORNER, c->r = ar, c->zeta = az;
      f->normal[0] = nr, f->normal[1] = nzv;
      if (ar == br) {
        f->kind = TF_THREAD_FLAT, f->r = ar, f->lo = az, f->hi = bz;
      } else {
        f->kind = TF_THREAD_FLANK;
        f->k = (bz - az) / (br - ar), f->k1 = 1 / (1 + f->k * f->k);
        f->zeta = az - f->k * ar;
        f->lo = fmin(ar, br), f->hi = fmax(ar, br);
      }
    }
  }
  // a corner's normal: the mean of the segments' either side (the previous one is two back)
  for (int i = 0; i < tab->nfeature; i += 2) {
    const tf_thread_feature* next = &tab->feature[i + 1];
    const tf_thread_feature* prev = i >= 2 ? &tab->feature[i - 1] : &tab->feature[2 * n - 1];
    double mr = next->normal[0] + prev->normal[0], mz = next->normal[1] + prev->normal[1];
    double m = sqrt(mr * mr + mz * mz);
    tab->feature[i].normal[0] = m > 0 ? mr / m : next->normal[0];
    tab->feature[i].normal[1] = m > 0 ? mz / m : next->normal[1];
  }
  return (size_t)tab->nr * (size_t)tab->nz * TF_THREAD_TABLE_RECORD;
}

// one cell: its candidate features, from the bounds at its centre
static void fill_cell(unsigned char* rec, tf_thread_table* tab, double rho, double zeta,
                      double reach) {
  double zreach = 0.5 * tab->hz + SLACK;
  int per = 2 * tab->nkink, nper = tab->nfeature / per;
  double lb[TF_THREAD_TABLE_MAXFEATURE], off[3];
  unsigned char done[TF_THREAD_TABLE_MAXFEATURE];
  double cq = 4 * rho * tab->rlow / (PI * PI), sq = sqrt(cq / (cq + tab->lead * tab->lead));
  // a first upper bound: the profile's point at the cell's zeta (t = 0, a surface point); a
  // period whose own (r, zeta) box is beyond it by 2R in the lower bound's metric holds no
  // candidate and is not looked at again
  double ub0 = fabs(rho - profile_radius(tab, zeta));
  double dr = maxd(0, maxd(tab->rlow - rho, rho - tab->rhigh)), cut = ub0 + 2 * reach + SLACK;
  int first = -1, last = -1;
  for (int k = 0; k < nper; k++) {
    double zlo = (k - tab->window) * tab->pitch + tab->kink[0][1], zhi = zlo + tab->pitch;
    double dz = sq * maxd(0, maxd(zlo - zeta, zeta - zhi));
    if (dr * dr + dz * dz > cut * cut) continue;
    if (first < 0) first = k * per;
    last = (k + 1) * per;
  }
  if (first < 0) {  // cannot happen: the period holding the nearest point passes
    rec[0] = 0;
    tab->nfallback++;
    return;
  }
  for (int i = first; i < last; i++) {
    lb[i] = feature_bound(&tab->feature[i], sq, rho, zeta), done[i] = 0;
  }
  // features in ascending lower bound until the next cannot beat the nearest found
  double ub = INFINITY;
  for (;;) {
    int best = -1;
    for (int i = first; i < last; i++) {
      if (!done[i] && (best < 0 || lb[i] < lb[best])) best = i;
    }
    if (best < 0 || lb[best] > ub) break;
    done[best] = 1;
    double d = feature_offset(off, &tab->feature[best], tab->lead, rho, zeta);
    if (d < 0) {  // did not settle: leave the cell to the caller
      rec[0] = 0;
      tab->nfallback++;
      return;
    }
    if (d < ub) ub = d;
  }
  // the candidates: faces first, then corners, each in ascending lower bound (the query
  // skips a corner once a face through it has its nearest point inside: see above)
  int count = 0;
  unsigned char ids[TF_THREAD_TABLE_MAXFEATURE];
  for (int corner = 0; corner < 2; corner++) {
    int from = count;
    for (int i = first + (corner ? 0 : 1); i < last; i += 2) {
      const tf_thread_feature* f = &tab->feature[i];
      // a flat's inside is nearest only straight out from it: zeta within its span
      if (f->kind == TF_THREAD_FLAT && (zeta + zreach < f->lo || zeta - zreach > f->hi)) continue;
      if (lb[i] <= ub + 2 * reach + SLACK) ids[count++] = (unsigned char)i;
    }
    for (int a = from + 1; a < count; a++) {
      for (int b = a; b > from && lb[ids[b]] < lb[ids[b - 1]]; b--) {
        unsigned char x = ids[b];
        ids[b] = ids[b - 1], ids[b - 1] = x;
      }
    }
  }
  if (count > TF_THREAD_TABLE_SLOTS) {
    rec[0] = 0;
    tab->nfallback++;
    return;
  }
  rec[0] = (unsigned char)count;
  for (int k = 0; k < TF_THREAD_TABLE_SLOTS; k++) rec[1 + k] = k < count ? ids[k] : 0;
}

void tf_thread_table_fill(tf_thread_table* tab, unsigned char* cells) {
  tab->nfallback = 0;
  for (int i = 0; i < tab->nr; i++) {
    int fine = i < tab->nr1;
    double hr = fine ? tab->hr : tab->hr2;
    double rc = fine ? tab->r0 + (i + 0.5) * hr : tab->r1 + (i - tab->nr1 + 0.5) * hr;
    double reach = 0.5 * sqrt(hr * hr + tab->hz * tab->hz);
    for (int j = 0; j < tab->nz; j++) {
      unsigned char* rec = cells + ((size_t)i * tab->nz + j) * TF_THREAD_TABLE_RECORD;
      fill_cell(rec, tab, rc, (j + 0.5) * tab->hz, reach);
    }
  }
}

// ---------------------------------------------------------------- query

int tf_thread_table_eval(double* phi, double grad[3], const tf_thread_table* tab,
                         const unsigned char* cells, double rho, double zeta) {
  double u = (rho - tab->r0) * tab->inv_hr;
  if (!(u >= 0)) return 0;
  if (u >= tab->nr1) {
    u = tab->nr1 + (rho - tab->r1) * tab->inv_hr2;
    if (!(u < tab->nr)) return 0;
  }
  // zeta modulo the pitch (a truncation and a correction below zero: cheaper than floor)
  double q = zeta * tab->inv_pitch;
  if (!(fabs(q) < 1e15)) return 0;
  double per = (double)(long long)q;
  if (per > q) per -= 1;
  double s = zeta - tab->pitch * per;
  int i = (int)u, j = (int)(s * tab->inv_hz);
  if (i >= tab->nr) i = tab->nr - 1;  // rounding at the zones' seam
  // s just outside [0, pitch) after rounding: the nearest cell holds it within SLACK
  j = j < 0 ? 0 : (j >= tab->nz ? tab->nz - 1 : j);
  const unsigned char* rec = cells + ((size_t)i * tab->nz + j) * TF_THREAD_TABLE_RECORD;
  int count = rec[0];
  if (count == 0) return 0;
  double best = INFINITY, off[3], boff[3] = {0, 0, 0};
  int win = -1, valid[TF_THREAD_TABLE_SLOTS];
  for (int k = 0; k < count; k++) {
    int id = rec[1 + k];
    const tf_thread_feature* f = &tab->feature[id];
    valid[k] = 0;
    if (!(id & 1)) {
      // a corner lies on the surfaces of its two faces: one with its nearest point inside
      // (the least distance to its whole helicoid or cylinder) is at least as near
      int skip = 0;
      for (int m = 0; m < k; m++)
        skip |= valid[m] && (rec[1 + m] == id + 1 || rec[1 + m] == id - 1);
      if (skip) continue;
    }
    if (k > 0) {
      // past the first: the lower bound at the point itself often rules a feature out (with
      // the zeta scale of the table's least radius, which is below the point's: a weaker
      // bound, but no divisions or roots on the query's path)
      if (feature_bound2(f, tab->sq_min, rho, s) > best * best) continue;
    }
    double d = feature_offset(off, f, tab->lead, rho, s);
    if (d < 0) return 0;
    valid[k] = d < INFINITY;
    if (d < best) best = d, win = id, boff[0] = off[0], boff[1] = off[1], boff[2] = off[2];
  }
  if (win < 0) return 0;  // cannot happen: the nearest point is on a named feature
  // the side: the offset from a face's nearest point is along its normal, whose (r, z) part
  // is the section normal; from a corner's it lies between its faces' normals, so on the
  // side of their mean either way
  const double* n = tab->feature[win].normal;
  int inside = boff[0] * n[0] + boff[2] * n[1] < 0;
  if (best > 1e-15) {
    double g = (inside ? -1.0 : 1.0) / best;
    grad[0] = boff[0] * g, grad[1] = boff[1] * g, grad[2] = boff[2] * g;
  } else {
    grad[0] = n[0], grad[1] = 0, grad[2] = n[1];
  }
  *phi = inside ? -best : best;
  return 1;
}
