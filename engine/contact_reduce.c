// Deterministic contact reduction by normal bins (after the contact patches of Narang et al.,
// "Factory", RSS 2022, section on contact reduction).
//
// A patch is a set of contacts that share a normal. Here the patches are fixed in advance: 30
// directions d_b spread evenly over the sphere (the icosidodecahedron's vertices: the six axes
// plus the 24 cyclic permutations of (+-1/2, +-phi/2, +-phi^2/2) / phi, 36 degrees between
// neighbours), fixed in a frame the caller picks. A candidate with normal n goes to the bin
// b = argmax_b n . d_b (ties: the lower b). In each bin the reduction keeps
//   1. the deepest candidate (smallest dist): the row that carries the load;
//   2. the extreme points of the bin's support polygon: for tangent axes u_k at 0, 45, 90 and
//      135 degrees in the plane normal to d_b, the candidates maximising +-(pos . u_k). With
//      directions 45 degrees apart every corner of a rectangle (normal cone 90 degrees) is the
//      unique extreme of some direction, so a flat face keeps its corners.
// Speculative candidates (dist > 0) take part like the others: a coast flank or the far side
// of a bore keeps its rows. The bin needs no search over the 30 directions: with m the
// normal in the bins' frame, the best axis is the largest |m_k|, and the best of the 24 others
// for the cyclic permutation k has the signs of m and the value
// (|m_k| + phi |m_k+1| + phi^2 |m_k+2|) / (2 phi); the largest of these four wins (ties: the
// lower bin, as a search in bin order would give). Only maxima are kept, so candidates stream
// through in O(1) memory per bin. An extreme's tie (a ring of a part coaxial with the field, in
// the field's own frame, has every point equally far along the axis) goes to the normal nearer
// the bin's direction, the patch's own (a shaft's far side in a bore keeps the row facing
// straight across), then to the first arrival: the same candidates in the same order give the
// same bytes. A bin sets up its tangent axes when its first candidate
// arrives, so an empty reducer costs nothing to start. Over the cap, the bin holding the most
// points loses its last extreme (the priority order is +-u0, +-u90, +-u45, +-u135, so what is left
// still spans the patch); single-point bins go shallowest first.
//
// Slabs. A bin of a repeated feature spans every copy of it: one normal bin of a helical thread
// flank holds that flank on every turn, and its extremes land on the outer turns, so the middle
// turns lose their rows and the nut rocks on its end turns. With a slab width w (the caller's
// feature size, half a thread's pitch), a candidate at offset o = d_b . pos (in the
// candidates' axes) has the slab key k = floor(o / w), and each bin also keeps the deepest
// candidate per key in a fixed table of 16 entries (open addressing on k, linear probing from
// k mod 16; when full, the candidate goes to the entry with the nearest key, ties the lower
// key, keeping the deeper point). Every turn of the flank then has a row of its own. Output per
// bin: the deepest, the slab rows by key, the extremes (rows equal to one already written count
// once). Over the cap extremes go first (as above), then slab rows (from the bin holding the most,
// its shallowest first), and only then the deepest: a repeated feature keeps a row per copy before
// the outline of its patch. Still O(1) memory and ties settled by arrival, so still the same bytes.
//
// Frames. A world reducer takes world points and turns each normal into the bins' frame. A
// local one (tf_reduce_init_local: the sampling pairs, which measure in a field's geom frame)
// takes points in the bins' frame itself, keeps its bins' axes there, and turns only the
// points it writes to world: three rotations a candidate fewer. Its slab offsets are from the
// frame's origin, so a thread's slabs are fixed on the part.
#include "contact_reduce.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tf_math.h"

// inlined here: the reduction runs once per candidate, thousands of times per pair
static inline double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// the golden ratio's bin components: (1 / (2 phi), 1 / 2, phi / 2)
#define BIN_A 0.30901699437494742
#define BIN_B 0.5
#define BIN_C 0.80901699437494742

void tf_reduce_bin_direction(double dir[3], int b) {
  assert(b >= 0 && b < TF_REDUCE_NBIN);
  dir[0] = dir[1] = dir[2] = 0;
  if (b < 6) {
    dir[b / 2] = b % 2 ? -1 : 1;
    return;
  }
  // the 24 others: cyclic permutation k of (BIN_A, BIN_B, BIN_C), sign bit c on component c
  const double base[3] = {BIN_A, BIN_B, BIN_C};
  int k = (b - 6) / 8, signs = (b - 6) % 8;
  for (int c = 0; c < 3; c++) dir[(c + k) % 3] = (signs >> c) & 1 ? -base[c] : base[c];
}

// tangent axes of a direction at 0, 45, 90, 135 degrees from a fixed first axis
static void bin_axes(double axis[TF_REDUCE_NAXIS][3], const double d[3]) {
  // the coordinate axis least aligned with d (ties: the lower one)
  int k = 0;
  for (int i = 1; i < 3; i++) {
    if (fabs(d[i]) < fabs(d[k])) k = i;
  }
  double e[3] = {0, 0, 0}, t0[3], t1[3];
  e[k] = 1;
  tf_vec3_cross(t0, d, e);
  tf_vec3_normalize(t0);
  tf_vec3_cross(t1, d, t0);
  const double c = sqrt(0.5);
  for (int i = 0; i < 3; i++) {
    axis[0][i] = t0[i];
    axis[1][i] = c * (t0[i] + t1[i]);
    axis[2][i] = t1[i];
    axis[3][i] = c * (t1[i] - t0[i]);
  }
}

void tf_reduce_init(tf_contact_reducer* r, const double frame[9], double slab_width) {
  static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  assert(slab_width >= 0);
  memcpy(r->frame, frame ? frame : identity, sizeof(r->frame));
  r->origin[0] = r->origin[1] = r->origin[2] = 0;
  r->local = 0;
  r->slab_width = isfinite(slab_width) ? slab_width : 0;
  r->inv_slab_width = r->slab_width > 0 ? 1 / r->slab_width : 0;
  for (int b = 0; b < TF_REDUCE_NBIN; b++) r->bin[b].count = 0;
  memset(&r->approach, 0, sizeof(r->approach));
  r->approach.margin = INFINITY;
  r->ncandidate = 0;
  r->time_s = 0;
}

void tf_reduce_set_approach(tf_contact_reducer* r, const tf_approach* approach) {
  r->approach = *approach;
}

void tf_reduce_init_local(tf_contact_reducer* r, const double frame[9], const double origin[3],
                          double slab_width) {
  tf_reduce_init(r, frame, slab_width);
  memcpy(r->origin, origin, sizeof(r->origin));
  r->local = 1;
}

// a bin's tangent axes and direction in the candidates' axes, made when its first one arrives
static void bin_setup(tf_contact_reducer* r, int b) {
  double d[3], axis[TF_REDUCE_NAXIS][3];
  tf_reduce_bin_direction(d, b);
  bin_axes(axis, d);
  // in the candidates' own axes: the frame's for a local reducer, the world's else
  for (int k = 0; k < TF_REDUCE_NAXIS; k++) {
    if (r->local) {
      memcpy(r->axis[b][k], axis[k], sizeof(axis[k]));
    } else {
      tf_mat3_mul_vec(r->axis[b][k], r->frame, axis[k]);
    }
  }
  if (r->local) {
    memcpy(r->dir[b], d, sizeof(d));
  } else {
    tf_mat3_mul_vec(r->dir[b], r->frame, d);
  }
  r->bin[b].nslab = 0;
  r->bin[b].used = 0;
}

// the deepest candidate per slab key: its own entry, a free one, or (table full) the entry
// with the nearest key, so a bin's memory stays fixed whatever the candidates
static void slab_add(tf_reduce_bin* bin, const double dir[3], double inv_width,
                     const tf_contact_point* c) {
  double q = dot3(dir, c->pos) * inv_width;
  // keys fit a long long whatever the scale (finite here: tf_reduce_add checked the point;
  // comparisons, not the library's fmin / fmax calls, on this once-per-candidate path), and
  // the floor by truncation, corrected below zero (the same key, without a library call)
  q = q < -1e15 ? -1e15 : (q > 1e15 ? 1e15 : q);
  long long k = (long long)q;
  if ((double)k > q) k--;
  int i = (int)((unsigned long long)k % TF_REDUCE_NSLAB);
  for (int probe = 0; probe < TF_REDUCE_NSLAB; probe++) {
    int j = (i + probe) % TF_REDUCE_NSLAB;
    if (!(bin->used >> j & 1u)) {
      bin->used |= 1u << j;
      bin->nslab++;
      bin->slab_key[j] = k;
      bin->slab[j] = *c;
      return;
    }
    if (bin->slab_key[j] == k) {
      if (c->dist < bin->slab[j].dist) bin->slab[j] = *c;
      return;
    }
  }
  // full: the nearest key (ties: the lower key)
  int best = 0;
  for (int j = 1; j < TF_REDUCE_NSLAB; j++) {
    long long dj = llabs(bin->slab_key[j] - k), db = llabs(bin->slab_key[best] - k);
    if (dj < db || (dj == db && bin->slab_key[j] < bin->slab_key[best])) best = j;
  }
  if (c->dist < bin->slab[best].dist) bin->slab[best] = *c;
}

// the bin of a normal m given in the bins' frame (the argmax of m . d_b, ties to the lower b)
static int bin_of(const double m[3]) {
  double a[3] = {fabs(m[0]), fabs(m[1]), fabs(m[2])};
  int best = m[0] < 0;
  double value = a[0];
  for (int k = 1; k < 3; k++) {
    if (a[k] > value) value = a[k], best = 2 * k + (m[k] < 0);
  }
  // the cyclic permutations k = 0, 1, 2 spelled out (the index arithmetic cost more than the
  // products on this once-per-candidate path)
  int sign = (m[0] < 0) | (m[1] < 0) << 1 | (m[2] < 0) << 2;
  double v0 = BIN_A * a[0] + BIN_B * a[1] + BIN_C * a[2];
  double v1 = BIN_A * a[1] + BIN_B * a[2] + BIN_C * a[0];
  double v2 = BIN_A * a[2] + BIN_B * a[0] + BIN_C * a[1];
  // sign bits in the permutation's order: component k first, then k + 1, then k + 2
  if (v0 > value) value = v0, best = 6 + sign;
  if (v1 > value) value = v1, best = 14 + ((sign >> 1) | (sign & 1) << 2);
  if (v2 > value) best = 22 + ((sign >> 2) | (sign & 3) << 1);
  return best;
}

void tf_reduce_add(tf_contact_reducer* r, const tf_contact_point* c) {
  r->ncandidate++;
  // every field finite: an infinite or NaN one makes the sum so, and sum - sum is then NaN (one
  // test on this once-per-candidate path; a point whose sum overflows is no contact either)
  const double* p = c->pos;
  const double* n = c->normal;
  double sum = c->dist + (p[0] + p[1] + p[2]) + (n[0] + n[1] + n[2]);
  if (!(sum - sum == 0)) return;
  // the normal in the bins' frame: as given (local), else frame^T n
  int best;
  if (r->local) {
    best = bin_of(n);
  } else {
    const double* f = r->frame;
    double m[3] = {f[0] * n[0] + f[3] * n[1] + f[6] * n[2], f[1] * n[0] + f[4] * n[1] + f[7] * n[2],
                   f[2] * n[0] + f[5] * n[1] + f[8] * n[2]};
    best = bin_of(m);
  }
  tf_reduce_bin* bin = r->bin + best;
  const double(*axis)[3] = r->axis[best];
  if (bin->count++ == 0) {
    bin_setup(r, best);
    bin->deepest = *c;
    double facing = dot3(c->normal, r->dir[best]);
    for (int k = 0; k < TF_REDUCE_NAXIS; k++) {
      double s = dot3(c->pos, axis[k]);
      bin->extreme[2 * k] = bin->extreme[2 * k + 1] = *c;
      bin->offset[2 * k] = bin->offset[2 * k + 1] = s;
      bin->facing[2 * k] = bin->facing[2 * k + 1] = facing;
    }
    if (r->slab_width > 0) slab_add(bin, r->dir[best], r->inv_slab_width, c);
    return;
  }
  if (r->slab_width > 0) slab_add(bin, r->dir[best], r->inv_slab_width, c);
  if (c->dist < bin->deepest.dist) bin->deepest = *c;
  // an extreme's tie (points equally far along a tangent axis: a ring of a part coaxial with
  // the field, in the field's own frame) goes to the normal facing the bin's direction more,
  // the patch's own; then to the first arrival
  double facing = dot3(c->normal, r->dir[best]);
  for (int k = 0; k < TF_REDUCE_NAXIS; k++) {
    double s = dot3(c->pos, axis[k]), *o = bin->offset + 2 * k, *f = bin->facing + 2 * k;
    // (inside the running range, the usual case, costs one test per end)
    if (s >= o[0] && (s > o[0] || facing > f[0])) o[0] = s, f[0] = facing, bin->extreme[2 * k] = *c;
    if (s <= o[1] && (s < o[1] || facing > f[1]))
      o[1] = s, f[1] = facing, bin->extreme[2 * k + 1] = *c;
  }
}

// whether two kept points are the same row (the inlined dot3: every pair of kept rows of a
// bin is compared)
static int same_point(const tf_contact_point* a, const tf_contact_point* b) {
  double d[3] = {a->pos[0] - b->pos[0], a->pos[1] - b->pos[1], a->pos[2] - b->pos[2]};
  return dot3(d, d) <= TF_REDUCE_MERGE_DIST * TF_REDUCE_MERGE_DIST &&
         dot3(a->normal, b->normal) >= 1 - 1e-12;
}

// whether c equals one of the first n points
static int seen(const tf_contact_point* const* pts, int n, const tf_contact_point* c) {
  for (int j = 0; j < n; j++) {
    if (same_point(pts[j], c)) return 1;
  }
  return 0;
}

// a bin's distinct points in output order: deepest, slab rows by key, then the extremes
// +-u0, +-u90, +-u45, +-u135; *nslab gets the slab rows' count
static int bin_points(const tf_contact_point* pts[TF_REDUCE_PER_BIN], int* nslab,
                      const tf_reduce_bin* bin) {
  static const int order[2 * TF_REDUCE_NAXIS] = {0, 1, 4, 5, 2, 3, 6, 7};
  int n = 0;
  pts[n++] = &bin->deepest;
  // slab entries by key (insertion sort: at most 16)
  int idx[TF_REDUCE_NSLAB], m = 0;
  for (int j = 0; j < TF_REDUCE_NSLAB; j++) {
    if (!(bin->used >> j & 1u)) continue;
    int i = m++;
    for (; i > 0 && bin->slab_key[idx[i - 1]] > bin->slab_key[j]; i--) idx[i] = idx[i - 1];
    idx[i] = j;
  }
  for (int i = 0; i < m; i++) {
    if (!seen(pts, n, bin->slab + idx[i])) pts[n++] = bin->slab + idx[i];
  }
  *nslab = n - 1;
  for (int i = 0; i < 2 * TF_REDUCE_NAXIS; i++) {
    const tf_contact_point* c = bin->extreme + order[i];
    if (!seen(pts, n, c)) pts[n++] = c;
  }
  return n;
}

// the bin holding the most points among those with with[b] > 0 (ties: more candidates, then
// the lower bin), or -1
static int fullest(const int keep[TF_REDUCE_NBIN], const int with[TF_REDUCE_NBIN],
                   const tf_contact_reducer* r) {
  int worst = -1;
  for (int b = 0; b < TF_REDUCE_NBIN; b++) {
    if (with[b] == 0) continue;
    if (worst < 0 || keep[b] > keep[worst] ||
        (keep[b] == keep[worst] && r->bin[b].count > r->bin[worst].count))
      worst = b;
  }
  return worst;
}

// whether a kept point stays farther apart than the touch margin over the step (the
// speculative test's straight-line part: such a point never becomes a row)
static int stays_apart(const tf_contact_reducer* r, const tf_contact_point* c) {
  const tf_approach* a = &r->approach;
  if (!(c->dist > a->margin)) return 0;
  double pos[3], normal[3], v[3];
  if (r->local) {
    tf_mat3_mul_vec(pos, r->frame, c->pos);
    for (int k = 0; k < 3; k++) pos[k] += r->origin[k];
    tf_mat3_mul_vec(normal, r->frame, c->normal);
  } else {
    memcpy(pos, c->pos, sizeof(pos));
    memcpy(normal, c->normal, sizeof(normal));
  }
  tf_vec3_cross(v, a->ang, pos);
  for (int k = 0; k < 3; k++) v[k] += a->lin[k];
  return c->dist - a->h * dot3(v, normal) > a->margin;
}

// 0. of the reduction over the cap: the points that do not close within the step (each
// tested once), farthest first (ties: the later bin, then the later point; a bin's deepest
// only as its last point), until total is cap or none is left; returns the new total
static int drop_apart(const tf_contact_reducer* r,
                      const tf_contact_point* pts[TF_REDUCE_NBIN][TF_REDUCE_PER_BIN],
                      int keep[TF_REDUCE_NBIN], int nslab[TF_REDUCE_NBIN],
                      int nextreme[TF_REDUCE_NBIN], int total, int cap) {
  if (total <= cap) return total;
  unsigned char apart[TF_REDUCE_NBIN][TF_REDUCE_PER_BIN];
  for (int b = 0; b < TF_REDUCE_NBIN; b++) {
    for (int i = 0; i < keep[b]; i++) apart[b][i] = (unsigned char)stays_apart(r, pts[b][i]);
  }
  while (total > cap) {
    int wb = -1, wi = -1;
    for (int b = 0; b < TF_REDUCE_NBIN; b++) {
      for (int i = keep[b] > 1; i < keep[b]; i++) {
        if (apart[b][i] && (wb < 0 || pts[b][i]->dist >= pts[wb][wi]->dist)) wb = b, wi = i;
      }
    }
    if (wb < 0) break;
    for (int i = wi; i + 1 < keep[wb]; i++) {
      pts[wb][i] = pts[wb][i + 1];
      apart[wb][i] = apart[wb][i + 1];
    }
    if (wi == 0) {
      keep[wb] = 0;
    } else if (wi <= nslab[wb]) {
      nslab[wb]--, keep[wb]--;
    } else {
      nextreme[wb]--, keep[wb]--;
    }
    total--;
  }
  return total;
}

int tf_reduce_finish(tf_contact_point* out, const tf_contact_reducer* r, int cap,
                     tf_reduce_counts* counts) {
  assert(cap >= 1);
  const tf_contact_point* pts[TF_REDUCE_NBIN][TF_REDUCE_PER_BIN];
  int keep[TF_REDUCE_NBIN], nslab[TF_REDUCE_NBIN], nextreme[TF_REDUCE_NBIN];
  int total = 0, bins = 0;
  for (int b = 0; b < TF_REDUCE_NBIN; b++) {
    keep[b] = nslab[b] = 0;
    if (r->bin[b].count > 0) keep[b] = bin_points(pts[b], nslab + b, r->bin + b);
    nextreme[b] = keep[b] > 0 ? keep[b] - 1 - nslab[b] : 0;
    total += keep[b];
    bins += keep[b] > 0;
  }
  total = drop_apart(r, pts, keep, nslab, nextreme, total, cap);
  // 1. extremes, from the bins holding the most points, each bin's last first
  while (total > cap) {
    int worst = fullest(keep, nextreme, r);
    if (worst < 0) break;
    nextreme[worst]--, keep[worst]--, total--;
  }
  // 2. slab rows (no extremes left), from the bin holding the most, its shallowest first
  // (ties: the later one); the survivors keep their order
  while (total > cap) {
    int worst = fullest(keep, nslab, r);
    if (worst < 0) break;
    const tf_contact_point** s = pts[worst] + 1;
    int drop = 0;
    for (int i = 1; i < nslab[worst]; i++) {
      if (s[i]->dist >= s[drop]->dist) drop = i;
    }
    for (int i = drop; i + 1 < nslab[worst]; i++) s[i] = s[i + 1];
    nslab[worst]--, keep[worst]--, total--;
  }
  // 3. the bins' deepest, shallowest first (ties: the higher bin)
  while (total > cap) {
    int worst = -1;
    for (int b = 0; b < TF_REDUCE_NBIN; b++) {
      if (keep[b] == 1 && (worst < 0 || pts[b][0]->dist >= pts[worst][0]->dist)) worst = b;
    }
    keep[worst]--;
    total--;
  }
  int n = 0;
  for (int b = 0; b < TF_REDUCE_NBIN; b++) {
    for (int i = 0; i < keep[b]; i++) {
      const tf_contact_point* c = pts[b][i];
      if (!r->local) {
        out[n++] = *c;
        continue;
      }
      // a local reducer's points to world (padding zeroed: the same bytes every time)
      tf_contact_point* w = out + n++;
      memset(w, 0, sizeof(*w));
      tf_mat3_mul_vec(w->pos, r->frame, c->pos);
      for (int k = 0; k < 3; k++) w->pos[k] += r->origin[k];
      tf_mat3_mul_vec(w->normal, r->frame, c->normal);
      w->dist = c->dist;
      w->side = c->side;
    }
  }
  if (counts) {
    counts->candidates = r->ncandidate;
    counts->kept = n;
    counts->dropped = r->ncandidate - n;
    counts->bins = bins;
  }
  return n;
}

int tf_contact_reduce(tf_contact_point* out, const tf_contact_point* in, int n, int cap,
                      const double frame[9], tf_reduce_counts* counts) {
  tf_contact_reducer r;
  tf_reduce_init(&r, frame, 0);
  for (int i = 0; i < n; i++) tf_reduce_add(&r, in + i);
  return tf_reduce_finish(out, &r, cap, counts);
}
