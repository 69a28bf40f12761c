// The overlap probe's evaluation (probe_set.c calls it): each measured side's samples are
// grouped into spatial clusters, so that a step skips whole clusters far from the other part
// without looking at their samples one by one.
//
// A sample's own bound (probe_set.c's note) needs its position in the other part's frame, a
// rotation and a translation per sample per step: on a gear train's 130k samples that loop,
// not the SDF, was most of the probe's time. A cluster C of samples p_i (within radius r of
// its centre c, the sampled part's frame) keeps a lower bound lb of its samples' values at
// the relative pose (R_0, t_0) where it last looked at them (sampled frame -> other frame).
// At pose (R, t) sample i has moved by (R - R_0)(p_i - c) + (R c + t - (R_0 c + t_0)), at most
// |R - R_0|_F r + |c' - c'_0| with c' = R c + t, so every value is still at least
//   lb - |R - R_0|_F r - |c' - c'_0|,
// and while that stays above the contact threshold the cluster is skipped whole. Otherwise its
// samples are taken one by one exactly as before (each with its own bound or a fresh SDF
// value), and lb becomes the least of what they gave. Either way the step's deepest value is
// the same whenever the step is in contact: a sample below the threshold has every bound on it
// below the threshold too, so it is evaluated, with the same arithmetic.
//
// Clusters are leaves of a median split (along the longest side of the box of the samples,
// ties by sample index, so the layout is fixed) of at most CLUSTER_MAX samples.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error_message.h"
#include "probes.h"

#define CLUSTER_MAX 32  // samples per cluster at most
// m: rounding slack of the cluster bound (the per-sample threshold has 1e-9 for its own frame
// changes; the cluster's composed transform rounds differently, by far less)
#define CLUSTER_SLACK 1e-9

typedef struct sample_key {
  double key;
  int index;
} sample_key;

static int compare_keys(const void* a, const void* b) {
  const sample_key* x = a;
  const sample_key* y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

// the box (lo, hi) of samples order[0 .. n) of points
static void sample_box(double lo[3], double hi[3], const double* points, const int* order, int n) {
  for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
  for (int i = 0; i < n; i++) {
    const double* p = points + 3 * order[i];
    for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], p[k]), hi[k] = fmax(hi[k], p[k]);
  }
}

// splits order[0 .. n) (sample indices of points) into clusters appended to out: a cluster
// when few enough (centred on its box, radius to its farthest sample), else the two halves
// along the box's longest side; keys is scratch of n entries
static void split(tf_overlap_cluster* out, int* nout, const double* points, int* order, int n,
                  int first, sample_key* keys) {
  double lo[3], hi[3];
  sample_box(lo, hi, points, order, n);
  if (n <= CLUSTER_MAX) {
    tf_overlap_cluster* c = &out[(*nout)++];
    for (int k = 0; k < 3; k++) c->centre[k] = 0.5 * (lo[k] + hi[k]);
    double r2 = 0;
    for (int i = 0; i < n; i++) {
      const double* p = points + 3 * order[i];
      double dx = p[0] - c->centre[0], dy = p[1] - c->centre[1], dz = p[2] - c->centre[2];
      r2 = fmax(r2, dx * dx + dy * dy + dz * dz);
    }
    // a hair over the largest distance: its own rounding must not shrink the bound
    c->radius = sqrt(r2) * (1 + 1e-12) + 1e-15;
    c->start = first;
    c->count = n;
    c->lb = NAN;
    return;
  }
  int axis = 0;
  for (int k = 1; k < 3; k++) {
    if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
  }
  for (int i = 0; i < n; i++) {
    keys[i].key = points[3 * order[i] + axis];
    keys[i].index = order[i];
  }
  qsort(keys, (size_t)n, sizeof(keys[0]), compare_keys);
  for (int i = 0; i < n; i++) order[i] = keys[i].index;
  int half = n / 2;
  split(out, nout, points, order, half, first, keys);
  split(out, nout, points, order + half, n - half, first + half, keys);
}

int tf_overlap_clusters_build(tf_probe_set* s, long nsample, char* err, size_t errlen) {
  const tf_probe_spec* sp = &s->spec;
  // a binary split of n samples into leaves of at most CLUSTER_MAX makes fewer than
  // 2 n / (CLUSTER_MAX / 2) + 1 of them per side
  long most = 0;
  for (int k = 0; k < sp->noverlap; k++) {
    for (int side = 0; side < 2; side++) {
      s->overlap_cluster_adr[k][side] = -1;
      s->overlap_cluster_num[k][side] = 0;
      if (s->overlap_cache_adr[k][side] >= 0) {
        most += 4 * (long)sp->overlap[k][side].npoint / CLUSTER_MAX + 1;
      }
    }
  }
  s->overlap_order = malloc(sizeof(int) * (size_t)(nsample > 0 ? nsample : 1));
  s->overlap_cluster = malloc(sizeof(tf_overlap_cluster) * (size_t)(most > 0 ? most : 1));
  sample_key* keys = malloc(sizeof(sample_key) * (size_t)(nsample > 0 ? nsample : 1));
  if (!s->overlap_order || !s->overlap_cluster || !keys) {
    free(keys);
    return tf_fail(err, errlen, "probes: out of memory");
  }
  int ncluster = 0;
  for (int k = 0; k < sp->noverlap; k++) {
    for (int side = 0; side < 2; side++) {
      int adr = s->overlap_cache_adr[k][side];
      if (adr < 0) continue;
      const tf_probe_surface* a = &sp->overlap[k][side];
      int* order = s->overlap_order + adr;
      for (int i = 0; i < a->npoint; i++) order[i] = i;
      s->overlap_cluster_adr[k][side] = ncluster;
      int before = ncluster;
      split(s->overlap_cluster, &ncluster, a->points, order, a->npoint, 0, keys);
      s->overlap_cluster_num[k][side] = ncluster - before;
    }
  }
  free(keys);
  return 0;
}

// sampled geom frame (rotation ra, origin pa) seen from the other's (rb, pb):
// rot = rb^T ra, off = rb^T (pa - pb)
static void relative_pose(double rot[9], double off[3], const double ra[9], const double pa[3],
                          const double rb[9], const double pb[3]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      rot[3 * i + j] = rb[i] * ra[j] + rb[3 + i] * ra[3 + j] + rb[6 + i] * ra[6 + j];
    }
    off[i] = rb[i] * (pa[0] - pb[0]) + rb[3 + i] * (pa[1] - pb[1]) + rb[6 + i] * (pa[2] - pb[2]);
  }
}

// the least of a cluster's samples (each its own bound, or a fresh value; NaN values left out,
// as the probe always has), their caches updated; *sound = 0 when a value was not finite
static double cluster_samples(tf_probe_set* s, const tf_model* m, const tf_data* d,
                              const tf_probe_surface* a, int gb, int adr,
                              const tf_overlap_cluster* c, double clear, int* sound) {
  const double* ra = d->geom_xmat + 9 * a->geom;
  const double* pa = d->geom_xpos + 3 * a->geom;
  const double* rb = d->geom_xmat + 9 * gb;
  const double* pb = d->geom_xpos + 3 * gb;
  const int* order = s->overlap_order + adr + c->start;
  double least = INFINITY;
  *sound = 1;
  // the samples the bound does not clear, evaluated together (one view of the SDF's geom)
  double world_at[CLUSTER_MAX][3], local_at[CLUSTER_MAX][3], value[CLUSTER_MAX];
  int fresh[CLUSTER_MAX], nfresh = 0;
  for (int j = 0; j < c->count; j++) {
    int i = order[j];
    const double* p = a->points + 3 * i;
    double* world = world_at[nfresh];
    double rel[3], local[3];
    for (int r = 0; r < 3; r++) {
      world[r] = ra[3 * r] * p[0] + ra[3 * r + 1] * p[1] + ra[3 * r + 2] * p[2] + pa[r];
      rel[r] = world[r] - pb[r];
    }
    for (int k = 0; k < 3; k++) local[k] = rb[k] * rel[0] + rb[3 + k] * rel[1] + rb[6 + k] * rel[2];
    const double* cache = s->overlap_cache + 4 * (size_t)(adr + i);
    if (isfinite(cache[3])) {
      double dx = local[0] - cache[0], dy = local[1] - cache[1], dz = local[2] - cache[2];
      double bound = cache[3] - sqrt(dx * dx + dy * dy + dz * dz);
      if (bound >= clear) {
        if (bound < least) least = bound;
        continue;
      }
    }
    memcpy(local_at[nfresh], local, sizeof(local));
    fresh[nfresh++] = i;
  }
  if (nfresh == 0) return least;
  tf_geom_sdf_n(m, d, gb, nfresh, &world_at[0][0], value);
  s->overlap_evaluations += nfresh;
  for (int j = 0; j < nfresh; j++) {
    double* cache = s->overlap_cache + 4 * (size_t)(adr + fresh[j]);
    memcpy(cache, local_at[j], 3 * sizeof(double));
    cache[3] = value[j];
    if (!isfinite(value[j])) *sound = 0;
    if (value[j] < least) least = value[j];
  }
  return least;
}

double tf_overlap_deepest(tf_probe_set* s, const tf_model* m, const tf_data* d,
                          double* pair_deepest) {
  const tf_probe_spec* sp = &s->spec;
  double all = INFINITY;
  for (int k = 0; k < sp->noverlap; k++) {
    double deepest = INFINITY;
    for (int side = 0; side < 2; side++) {
      int adr = s->overlap_cache_adr[k][side];
      if (adr < 0) continue;
      const tf_probe_surface* a = &sp->overlap[k][side];
      int gb = sp->overlap[k][1 - side].geom;
      // 1e-9 m covers the rounding of the frame changes themselves
      double clear = sp->contact_m + 2 * m->sdf_error_bound[m->geom_sdfid[gb]] + 1e-9;
      double rot[9], off[3];
      relative_pose(rot, off, d->geom_xmat + 9 * a->geom, d->geom_xpos + 3 * a->geom,
                    d->geom_xmat + 9 * gb, d->geom_xpos + 3 * gb);
      tf_overlap_cluster* first = s->overlap_cluster + s->overlap_cluster_adr[k][side];
      for (int ci = 0; ci < s->overlap_cluster_num[k][side]; ci++) {
        tf_overlap_cluster* c = first + ci;
        double centre[3];
        for (int r = 0; r < 3; r++) {
          centre[r] = rot[3 * r] * c->centre[0] + rot[3 * r + 1] * c->centre[1] +
                      rot[3 * r + 2] * c->centre[2] + off[r];
        }
        if (!isnan(c->lb)) {
          double moved2 = 0, turned2 = 0;
          for (int r = 0; r < 3; r++) {
            double dc = centre[r] - c->seen_centre[r];
            moved2 += dc * dc;
          }
          for (int r = 0; r < 9; r++) {
            double dr = rot[r] - c->seen_rot[r];
            turned2 += dr * dr;
          }
          double bound = c->lb - sqrt(moved2) - sqrt(turned2) * c->radius;
          if (bound >= clear + CLUSTER_SLACK) {
            if (bound < deepest) deepest = bound;
            continue;
          }
        }
        int sound;
        double least = cluster_samples(s, m, d, a, gb, adr, c, clear, &sound);
        // a value that is not finite bounds nothing: such a cluster is looked at every step
        c->lb = sound && isfinite(least) ? least : NAN;
        memcpy(c->seen_centre, centre, sizeof(centre));
        memcpy(c->seen_rot, rot, sizeof(rot));
        if (least < deepest) deepest = least;
      }
    }
    if (pair_deepest) pair_deepest[k] = deepest;
    if (deepest < all) all = deepest;
  }
  return all;
}
