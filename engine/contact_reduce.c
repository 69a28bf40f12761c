// Deterministic contact reduction by normal bins (after the contact patches of Narang et al.,
// "Factory", RSS 2022, section on contact reduction; see /work/shared/reference/002_...).
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
// through in O(1) memory per bin, and ties keep the first arrival: the same candidates in the
// same order give the same bytes. A bin sets up its tangent axes when its first candidate
// arrives, so an empty reducer costs nothing to start. Over the cap, the bin holding the most
// points loses its last extreme (the priority order is +-u0, +-u90, +-u45, +-u135, so what is left
// still spans the patch); single-point bins go shallowest first.
#include "contact_reduce.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "engine_math.h"

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

void tf_reduce_init(tf_contact_reducer* r, const double frame[9]) {
  static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(r->frame, frame ? frame : identity, sizeof(r->frame));
  for (int b = 0; b < TF_REDUCE_NBIN; b++) r->bin[b].count = 0;
  r->ncandidate = 0;
}

// a bin's tangent axes in world axes, made when its first candidate arrives
static void bin_setup(tf_contact_reducer* r, int b) {
  double d[3], axis[TF_REDUCE_NAXIS][3];
  tf_reduce_bin_direction(d, b);
  bin_axes(axis, d);
  for (int k = 0; k < TF_REDUCE_NAXIS; k++) tf_mat3_mul_vec(r->axis[b][k], r->frame, axis[k]);
}

// the bin of a normal m given in the bins' frame (the argmax of m . d_b, ties to the lower b)
static int bin_of(const double m[3]) {
  double a[3] = {fabs(m[0]), fabs(m[1]), fabs(m[2])};
  int best = m[0] < 0;
  double value = a[0];
  for (int k = 1; k < 3; k++) {
    if (a[k] > value) value = a[k], best = 2 * k + (m[k] < 0);
  }
  for (int k = 0; k < 3; k++) {
    int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    double v = BIN_A * a[k] + BIN_B * a[k1] + BIN_C * a[k2];
    if (v > value) {
      value = v;
      best = 6 + 8 * k + (m[k] < 0) + 2 * (m[k1] < 0) + 4 * (m[k2] < 0);
    }
  }
  return best;
}

void tf_reduce_add(tf_contact_reducer* r, const tf_contact_point* c) {
  r->ncandidate++;
  if (!isfinite(c->dist) || !isfinite(c->pos[0] + c->pos[1] + c->pos[2]) ||
      !isfinite(c->normal[0] + c->normal[1] + c->normal[2]))
    return;
  // the normal in the bins' frame: frame^T n
  const double* f = r->frame;
  const double* n = c->normal;
  double m[3] = {f[0] * n[0] + f[3] * n[1] + f[6] * n[2], f[1] * n[0] + f[4] * n[1] + f[7] * n[2],
                 f[2] * n[0] + f[5] * n[1] + f[8] * n[2]};
  int best = bin_of(m);
  tf_reduce_bin* bin = r->bin + best;
  const double(*axis)[3] = r->axis[best];
  if (bin->count++ == 0) {
    bin_setup(r, best);
    bin->deepest = *c;
    for (int k = 0; k < TF_REDUCE_NAXIS; k++) {
      double s = dot3(c->pos, axis[k]);
      bin->extreme[2 * k] = bin->extreme[2 * k + 1] = *c;
      bin->score[2 * k] = s;
      bin->score[2 * k + 1] = -s;
    }
    return;
  }
  if (c->dist < bin->deepest.dist) bin->deepest = *c;
  for (int k = 0; k < TF_REDUCE_NAXIS; k++) {
    double s = dot3(c->pos, axis[k]);
    if (s > bin->score[2 * k]) bin->score[2 * k] = s, bin->extreme[2 * k] = *c;
    if (-s > bin->score[2 * k + 1]) bin->score[2 * k + 1] = -s, bin->extreme[2 * k + 1] = *c;
  }
}

// whether two kept points are the same row
static int same_point(const tf_contact_point* a, const tf_contact_point* b) {
  double d[3];
  tf_vec3_sub(d, a->pos, b->pos);
  return tf_vec3_dot(d, d) <= TF_REDUCE_MERGE_DIST * TF_REDUCE_MERGE_DIST &&
         tf_vec3_dot(a->normal, b->normal) >= 1 - 1e-12;
}

// a bin's distinct points in priority order: deepest, then +-u0, +-u90, +-u45, +-u135
static int bin_points(const tf_contact_point* pts[TF_REDUCE_PER_BIN], const tf_reduce_bin* bin) {
  static const int order[2 * TF_REDUCE_NAXIS] = {0, 1, 4, 5, 2, 3, 6, 7};
  int n = 0;
  pts[n++] = &bin->deepest;
  for (int i = 0; i < 2 * TF_REDUCE_NAXIS; i++) {
    const tf_contact_point* c = bin->extreme + order[i];
    int dup = 0;
    for (int j = 0; j < n && !dup; j++) dup = same_point(pts[j], c);
    if (!dup) pts[n++] = c;
  }
  return n;
}

int tf_reduce_finish(tf_contact_point* out, const tf_contact_reducer* r, int cap,
                     tf_reduce_counts* counts) {
  assert(cap >= 1);
  const tf_contact_point* pts[TF_REDUCE_NBIN][TF_REDUCE_PER_BIN];
  int keep[TF_REDUCE_NBIN], total = 0, bins = 0;
  for (int b = 0; b < TF_REDUCE_NBIN; b++) {
    keep[b] = r->bin[b].count > 0 ? bin_points(pts[b], r->bin + b) : 0;
    total += keep[b];
    bins += keep[b] > 0;
  }
  while (total > cap) {
    // the bin holding the most points (ties: more candidates, then the lower bin)
    int worst = -1;
    for (int b = 0; b < TF_REDUCE_NBIN; b++) {
      if (keep[b] == 0) continue;
      if (worst < 0 || keep[b] > keep[worst] ||
          (keep[b] == keep[worst] && r->bin[b].count > r->bin[worst].count))
        worst = b;
    }
    if (keep[worst] == 1) {
      // only deepest points left: the shallowest goes (ties: the higher bin)
      for (int b = 0; b < TF_REDUCE_NBIN; b++) {
        if (keep[b] == 1 && pts[b][0]->dist >= pts[worst][0]->dist) worst = b;
      }
    }
    keep[worst]--;
    total--;
  }
  int n = 0;
  for (int b = 0; b < TF_REDUCE_NBIN; b++) {
    for (int i = 0; i < keep[b]; i++) out[n++] = *pts[b][i];
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
  tf_reduce_init(&r, frame);
  for (int i = 0; i < n; i++) tf_reduce_add(&r, in + i);
  return tf_reduce_finish(out, &r, cap, counts);
}
