// SDF x SDF contacts: descent on two fields (see collision_sdf.c for the pair functions that
// call it: SDF x SDF, and a plane against an SDF without a surface mesh).
//
// SDF x SDF (CRISP IV-B2, after MuJoCo): minimise f = phi1 + phi2 + |max(phi1, phi2)| from a
// lattice of starts over the overlap of the two world boxes (at most TF_SDF_MAX_STARTS, cells
// about cubic; a start farther than margin + half a cell diagonal from either surface is
// skipped: some other start lies within that of every point of contact). Where the gradients
// oppose (|g1 - g2| >= 1), f's minimisers lie on lines along n = (g1 - g2) / |g1 - g2| at a
// lateral stationary point of phi1 + phi2, so one descent step on f is, in two orthogonal
// parts:
//   along n: the balancing Newton step s = (phi2 - phi1) / |g1 - g2|, to f's minimum on that
//            line (separated: phi1 = phi2; overlapping, f is min(phi1, phi2) on the segment
//            between the two surfaces and phi1 + phi2 is the same all along it: we take its
//            middle);
//   across n: -alpha P(g1 + g2), the lateral part of f's (sub)gradient, with Barzilai-Borwein
//            steps alpha = (dx . dx) / (dx . d(P(g1 + g2))), at most one cell long.
// Elsewhere (gradients alike: not between the surfaces yet) a plain step down grad f. At each
// minimiser the gap is phi1 + phi2 (not f, which is 1.5 times the gap when separated), the
// normal from a to b is n, and pos the midpoint x + (phi2 - phi1) n / 2. Minimisers closer
// than a quarter cell with the same normal count once.
// Repeated features (a field's feature_size, a thread's pitch): the lattice (a seated M16
// nut's cells are ~6 mm, three pitches) meets only some copies, and found rows on both
// flanks of 2 of 5 engaged turns. A copy of a contact lies about one spacing away across the
// surfaces (a thread's next flank is a pitch up the axis, pitch cos 30 deg along its normal),
// so each minimiser seeds a start one spacing either way along its normal, unless a minimiser
// with that normal is found within 3/4 of a spacing of the seed already; the minimisers
// seeds find seed in turn (at most MAX_SEEDS starts, SEED_ITERS steps each: a seed
// starts next to a copy). The seated nut then has rows on both flanks of all 5 turns, for
// about twice the evaluations.

#include <string.h>

#include "collision_sdf.h"
#include "collision_sdf_field.h"
#include "stage_timer.h"

#define GD_ITERS 24  // steps of one SDF x SDF descent
// minimisers kept for counting each once, and starts seeded from them along the fields'
// repeated features (a thread's turns)
#define MAX_FOUND 256
#define MAX_SEEDS 192
#define SEED_ITERS 6   // steps of a seeded descent: it starts by a copy of a minimiser
#define STEP_TOL 1e-6  // a descent ends on a step shorter than this, per unit cell

typedef struct pair_value {
  double phi1, phi2, g1[3], g2[3];
} pair_value;

// both fields at a world point
static void pair_eval(pair_value* v, const field* f1, const field* f2, const double x[3]) {
  v->phi1 = field_world(f1, x, v->g1);
  v->phi2 = field_world(f2, x, v->g2);
}

// descends f from x (updated in place, v its fields' values there); returns 1 when it ends
// between the two surfaces
static int descend(double x[3], pair_value* v, const field* f1, const field* f2, double cell,
                   int iters) {
  double alpha = 0.1 * cell, prev_lat[3] = {0, 0, 0}, prev_h[3] = {0, 0, 0};
  int have_prev = 0;
  for (int it = 0; it < iters; it++) {
    double d[3], step[3];
    sub3(d, v->g1, v->g2);
    double ld = norm3(d);
    if (ld < 1) {
      // not between the surfaces: down the gradient of f, by about the larger distance
      const double* gm = v->phi1 >= v->phi2 ? v->g1 : v->g2;
      double sm = fmax(v->phi1, v->phi2) >= 0 ? 1 : -1, gf[3];
      for (int k = 0; k < 3; k++) gf[k] = v->g1[k] + v->g2[k] + sm * gm[k];
      double lg = norm3(gf);
      if (lg < 1e-12) break;
      double len = fmax(0.5 * fmax(fabs(v->phi1), fabs(v->phi2)), 1e-3 * cell);
      scale3(step, gf, -len / lg);
      have_prev = 0;
    } else {
      double n[3], h[3], lat[3];
      scale3(n, d, 1 / ld);
      double s = (v->phi2 - v->phi1) / ld;
      add3(h, v->g1, v->g2);
      double hn = dot3(h, n);
      for (int k = 0; k < 3; k++) h[k] -= hn * n[k];
      if (have_prev) {
        double dh[3];
        sub3(dh, h, prev_h);
        double den = dot3(prev_lat, dh);
        if (den > 0) alpha = fmin(fmax(dot3(prev_lat, prev_lat) / den, 1e-6 * cell), 1e3 * cell);
      }
      scale3(lat, h, -alpha);
      double ll = norm3(lat);
      if (ll > cell) scale3(lat, lat, cell / ll);
      for (int k = 0; k < 3; k++) step[k] = s * n[k] + lat[k];
      copy3(prev_lat, lat);
      copy3(prev_h, h);
      have_prev = 1;
    }
    add3(x, x, step);
    pair_eval(v, f1, f2, x);
    // a step this short leaves the minimiser within a few nm (cell: a lattice cell, mm, or
    // the features' spacing): far below what the gap and the rows resolve
    if (norm3(step) <= STEP_TOL * cell) break;
  }
  double d[3];
  sub3(d, v->g1, v->g2);
  return norm3(d) >= 1;
}

// the minimisers found so far (position, normal; gap), to count each once. Under touching
// the reducer takes them only once all are found (tf_sdf_descend_fields)
typedef struct found_set {
  double at[MAX_FOUND][6];
  double gap[MAX_FOUND];
  int n, defer;
} found_set;

// a minimiser within radius of one found with the same normal
static int found_near(const found_set* fs, const double pos[3], const double normal[3],
                      double radius) {
  // this runs over every minimiser found for every start and seed: one axis first, then the
  // squared distance
  double r2 = radius * radius;
  for (int m = 0; m < fs->n; m++) {
    double dx = pos[0] - fs->at[m][0];
    if (dx * dx >= r2) continue;
    double dd[3];
    sub3(dd, pos, fs->at[m]);
    if (dot3(dd, dd) < r2 && dot3(normal, fs->at[m] + 3) > 0.99) return 1;
  }
  return 0;
}

// found point m as a contact candidate
static void found_point(tf_contact_point* c, const found_set* fs, int m) {
  memset(c, 0, sizeof(*c));  // padding too, and side 0: both fields, no surface was sampled
  copy3(c->pos, fs->at[m]);
  copy3(c->normal, fs->at[m] + 3);
  c->dist = fs->gap[m];
}

// the contact at x between the surfaces (fields v there, |g1 - g2| > 0): normal g1 - g2
// (from the first field's part to the second's), the midpoint between the two surfaces along
// it, the gap phi1 + phi2
static void midsurface_point(tf_contact_point* c, const double x[3], const pair_value* v) {
  memset(c, 0, sizeof(*c));  // padding too, and side 0: both fields, no surface was sampled
  sub3(c->normal, v->g1, v->g2);
  normalize3(c->normal);
  for (int k = 0; k < 3; k++) c->pos[k] = x[k] + 0.5 * (v->phi2 - v->phi1) * c->normal[k];
  c->dist = v->phi1 + v->phi2;
}

// records a point between the surfaces into the found set; returns 0 when one with its
// normal lies within radius already, or the set is full
static int found_add(found_set* fs, const double pos[3], const double normal[3], double gap,
                     double radius) {
  if (found_near(fs, pos, normal, radius) || fs->n == MAX_FOUND) return 0;
  copy3(fs->at[fs->n], pos);
  copy3(fs->at[fs->n] + 3, normal);
  fs->gap[fs->n++] = gap;
  return 1;
}

// one descent from x unless x is farther than reach from either surface: a new minimiser
// under margin goes to the reducer and the found set
static void try_start(tf_contact_reducer* red, found_set* fs, const field* f1, const field* f2,
                      double x[3], double margin, double reach, double cell, double dedup,
                      int iters) {
  pair_value v;
  // the second field only when the first does not rule the start out (a lattice point far
  // from both parts often answers through the slower search)
  v.phi1 = field_world(f1, x, v.g1);
  if (v.phi1 > margin + reach) return;
  v.phi2 = field_world(f2, x, v.g2);
  if (v.phi2 > margin + reach) return;
  if (!descend(x, &v, f1, f2, cell, iters)) return;
  if (!(v.phi1 + v.phi2 < margin)) return;
  tf_contact_point c;
  midsurface_point(&c, x, &v);
  if (!found_add(fs, c.pos, c.normal, c.dist, dedup) || fs->defer) return;
  double t0 = tf_stage_start();
  tf_reduce_add(red, &c);
  red->time_s += tf_stage_since(t0);
}

// the lattice of starts over the overlap of the two fields' boxes grown by margin: its box
// (lo, hi), points per axis n, cell sides step, their diagonal *diag and shortest side (the
// descents' length scale) returned; -1 when the boxes are apart or both unbounded
static double lattice(const field* f1, const field* f2, double margin, double lo[3], double hi[3],
                      int n[3], double step[3], double* diag) {
  double lo2[3], hi2[3], e[3];
  field_world_box(lo, hi, f1);
  field_world_box(lo2, hi2, f2);
  double volume = 1;
  for (int k = 0; k < 3; k++) {
    lo[k] = fmax(lo[k], lo2[k]) - margin;
    hi[k] = fmin(hi[k], hi2[k]) + margin;
    e[k] = hi[k] - lo[k];
    if (!(e[k] >= 0) || !isfinite(e[k])) return -1;
    volume *= fmax(e[k], 1e-9);
  }
  // about cubic cells, at most TF_SDF_MAX_STARTS points
  double cell = cbrt(volume / TF_SDF_MAX_STARTS);
  for (int k = 0; k < 3; k++) {
    double want = floor(e[k] / cell + 0.5);
    n[k] = want < 1 ? 1 : (want > TF_SDF_MAX_STARTS ? TF_SDF_MAX_STARTS : (int)want);
  }
  while (n[0] * n[1] * n[2] > TF_SDF_MAX_STARTS) {
    int k = 0;
    if (n[1] > n[k]) k = 1;
    if (n[2] > n[k]) k = 2;
    n[k]--;
  }
  double d2 = 0, cmin = INFINITY;
  for (int k = 0; k < 3; k++) {
    step[k] = e[k] / n[k];
    d2 += step[k] * step[k];
    if (step[k] > 0) cmin = fmin(cmin, step[k]);
  }
  *diag = sqrt(d2);
  return isfinite(cmin) ? cmin : fmax(margin, 1e-9);
}

// multi-start descent over the overlap of the two boxes; minimisers into fs (and into red
// unless fs defers them). spacing: the fields' repeated features' spacing (0: none), whose
// copies each get starts of their own. Returns the lattice's cell (-1: no lattice)
static double descend_lattice(found_set* fs, tf_contact_reducer* red, const field* f1,
                              const field* f2, double margin, double spacing, const double* warm,
                              int nwarm) {
  double lo[3], hi[3], step[3], diag;
  int n[3];
  double cmin = lattice(f1, f2, margin, lo, hi, n, step, &diag);
  if (cmin < 0) return -1;  // apart, or both unbounded
  for (int i = 0; i < n[0]; i++) {
    for (int j = 0; j < n[1]; j++) {
      for (int l = 0; l < n[2]; l++) {
        double x[3] = {lo[0] + (i + 0.5) * step[0], lo[1] + (j + 0.5) * step[1],
                       lo[2] + (l + 0.5) * step[2]};
        try_start(red, fs, f1, f2, x, margin, 0.5 * diag, cmin, 0.25 * cmin, GD_ITERS);
      }
    }
  }
  // the pair's last contacts: a lattice cell is about a gear's tooth pitch, and which tooth
  // pair a start descends to changes as the gears turn, so a pair of teeth in contact was
  // lost for eight steps at 1 ms (and sank 120 um into each other) until some start found it
  // again; from where it touched last step, its descent finds it again
  for (int i = 0; i < nwarm; i++) {
    double x[3];
    copy3(x, warm + 3 * i);
    try_start(red, fs, f1, f2, x, margin, 0.5 * diag, cmin, 0.25 * cmin, GD_ITERS);
  }
  // repeated features (a thread's turns, a gear's teeth): the lattice meets only some of the
  // copies. The next copy of a contact lies about one spacing away across the surfaces (a
  // thread's next flank is a pitch up the axis, pitch cos(flank angle) along its normal; the
  // next pair of teeth in mesh a base pitch along the line of action), so every minimiser
  // found seeds a start one spacing either way along its normal, and those found in turn seed
  // theirs, until no new copy turns up
  if (!(spacing > 0) || !(spacing < cmin)) return cmin;
  int budget = MAX_SEEDS;
  for (int m = 0; m < fs->n && budget > 0; m++) {
    for (int side = -1; side <= 1 && budget > 0; side += 2) {
      double x[3];
      int inside = 1;
      for (int k = 0; k < 3; k++) {
        x[k] = fs->at[m][k] + side * spacing * fs->at[m][3 + k];
        inside &= x[k] >= lo[k] && x[k] <= hi[k];
      }
      if (!inside || found_near(fs, x, fs->at[m] + 3, 0.75 * spacing)) continue;
      budget--;
      try_start(red, fs, f1, f2, x, margin, spacing, spacing, 0.25 * spacing, SEED_ITERS);
    }
  }
  return cmin;
}

// Touching (re-linearisation: the iterate's collision finds where the step takes the pair).
// Descent finds minima of the gap, and a bore on its shaft has one along its ring: the
// contact, plus a few far-side points 50-100 um apart. Rows there hold the bore only
// along the contact's normal, and the step's solve slid bores 30-50 deg round their shafts
// into them (21 um deep at the iterate), so at 50 Hz a gear train's steps ran 3.9 passes.
// So every minimiser within TOUCH_BAND of the deepest takes points beside it, RING_DIRS
// directions across its normal at RING_STEPS steps of RING_STEP cells, each moved onto the
// midsurface by the balancing step (the descent's, along n): on a ring they are the
// rows of a polygon round it, whose corners lie c (1 / cos(dtheta / 2) - 1) inside (0.4 um
// for c = 50 um and 15 deg). A direction ends where the surfaces stop being conformal: the
// gap rising by RING_SLOPE per unit length (a tooth flank, curved against its mate, rises
// 50 um in its first mm), the normal turning past 60 deg or less than 1 deg (flat: a face
// or a bore's length, which the lattice's minimisers hold), or the gap reaching margin. Then
// only the points within TOUCH_BAND of the deepest go to the reducer: a far-side point, or a
// tooth pair 50-100 um apart, is for the iterate's collision to find if the step takes the
// pair there. Without the band the iterate after a pass found teeth 0.1-1 mm into each other
// in 59 of 372 iterates (seed 0, 50 Hz), with it in 3; the far-side points also took the
// reducer's slots from the ring. Passes a step on that train: 3.9 without either, 3.8 with
// the band alone (bores still 20-50 um in), about 2.4 with the ring alone (teeth still
// thrown), 1.2 with both; a 40 um band gave 2.0. Ring points a third of a cell apart
// (10 deg) gave 1.4 passes and cost fbnewton, whose Newton matrix nearly parallel rows make
// more singular, 4 of the gate's 21 speeds at 100 Hz; half a cell apart, 2.
#define TOUCH_BAND 12e-6  // m: a touching pair's rows lie within this of its deepest gap
#define RING_DIRS 8
#define RING_STEPS 3
#define RING_STEP 0.5          // cells between the points of a ring (15 deg round a gear's bore)
#define RING_SLOPE 0.01        // gap rise per unit length where the surfaces stop being conformal
#define RING_FLAT_COS 0.99985  // a normal turned by less than 1 deg: the surfaces are flat there

// the points beside each minimiser under deepest + TOUCH_BAND (see above), into fs
static void add_ring(found_set* fs, const field* f1, const field* f2, double margin, double cell,
                     double deepest) {
  int nfound = fs->n;
  for (int m = 0; m < nfound; m++) {
    double gap0 = fs->gap[m], at[3], n[3], t1[3], t2[3];
    if (!(gap0 <= deepest + TOUCH_BAND)) continue;
    copy3(at, fs->at[m]);
    copy3(n, fs->at[m] + 3);
    // a tangent basis from the world axis least along n
    double axis[3] = {0, 0, 0};
    int k0 = fabs(n[0]) <= fabs(n[1]) ? 0 : 1;
    if (fabs(n[2]) < fabs(n[k0])) k0 = 2;
    axis[k0] = 1;
    cross3(t1, n, axis);
    normalize3(t1);
    cross3(t2, n, t1);
    for (int dir = 0; dir < RING_DIRS; dir++) {
      double angle = 2 * M_PI * dir / RING_DIRS, ca = cos(angle), sa = sin(angle);
      for (int j = 1; j <= RING_STEPS; j++) {
        double r = j * RING_STEP * cell, x[3], d[3];
        for (int k = 0; k < 3; k++) x[k] = at[k] + r * (ca * t1[k] + sa * t2[k]);
        pair_value v;
        pair_eval(&v, f1, f2, x);
        sub3(d, v.g1, v.g2);
        double ld = norm3(d);
        if (ld < 1) break;  // not between the surfaces
        double s = (v.phi2 - v.phi1) / ld;
        for (int k = 0; k < 3; k++) x[k] += s * d[k] / ld;
        pair_eval(&v, f1, f2, x);
        sub3(d, v.g1, v.g2);
        double gap = v.phi1 + v.phi2;
        if (norm3(d) < 1 || !(gap < margin) || !(gap - gap0 < RING_SLOPE * r)) break;
        tf_contact_point c;
        midsurface_point(&c, x, &v);
        // a face's normal does not turn along it, and its lattice minimisers hold it (the
        // rows a ring adds there are copies: a gear's face on its shoulder filled the set)
        double turn = dot3(c.normal, n);
        if (turn < 0.5 || turn > RING_FLAT_COS) break;
        found_add(fs, c.pos, c.normal, c.dist, 0.25 * cell);  // one found already: ring goes on
      }
    }
  }
}

void tf_sdf_descend_fields(tf_contact_reducer* red, const field* f1, const field* f2, double margin,
                           double spacing, const double* warm, int nwarm, int touching) {
  found_set fs;
  fs.n = 0;
  fs.defer = touching;
  double cell = descend_lattice(&fs, red, f1, f2, margin, spacing, warm, nwarm);
  if (!touching || !(cell > 0) || fs.n == 0) return;
  double deepest = INFINITY;
  for (int m = 0; m < fs.n; m++) deepest = fmin(deepest, fs.gap[m]);
  add_ring(&fs, f1, f2, margin, cell, deepest);
  double t0 = tf_stage_start();
  for (int m = 0; m < fs.n; m++) {
    if (!(fs.gap[m] <= deepest + TOUCH_BAND)) continue;
    tf_contact_point c;
    found_point(&c, &fs, m);
    tf_reduce_add(red, &c);
  }
  red->time_s += tf_stage_since(t0);
}

// the point x between the surfaces (fields v) as a contact into *out when its gap is under
// below and no point found already lies within a quarter cell with its normal; returns 1
// when it was written
static int keep_below(found_set* fs, const double x[3], const pair_value* v, double below,
                      double cell, tf_contact_point* out) {
  double d[3];
  sub3(d, v->g1, v->g2);
  if (!(norm3(d) >= 1) || !(v->phi1 + v->phi2 < below)) return 0;
  tf_contact_point c;
  midsurface_point(&c, x, v);
  if (!found_add(fs, c.pos, c.normal, c.dist, 0.25 * cell)) return 0;
  *out = c;
  return 1;
}

int tf_sdf_descend_from(const tf_shape* a, const tf_shape* b, const double* starts, int nstart,
                        int ndescend, double below, tf_contact_point* out, int cap) {
  if (!sdf_present(&a->sdf) || !sdf_present(&b->sdf)) return 0;
  field f1, f2;
  field_init(&f1, a, FIELD_SDF);
  field_init(&f2, b, FIELD_SDF);
  double lo[3], hi[3], step[3], diag;
  int n[3];
  // the lattice search's own length scale, so that these descents step as its do
  double cell = lattice(&f1, &f2, 0, lo, hi, n, step, &diag);
  if (cell < 0) return 0;
  found_set fs;
  fs.n = 0;
  fs.defer = 0;
  int count = 0;
  for (int i = 0; i < nstart && count < cap; i++) {
    double x[3];
    copy3(x, starts + 3 * i);
    pair_value v;
    pair_eval(&v, &f1, &f2, x);
    // the start moved onto the midsurface by the balancing step alone, then its descent: a
    // ring (a bore on its shaft) is nearly level along its circle, and a descent from beside
    // the deepest point stalls there, where the start's own point still measures its gap
    double d[3];
    sub3(d, v.g1, v.g2);
    double ld = norm3(d);
    if (ld >= 1) {
      double y[3], s = (v.phi2 - v.phi1) / ld;
      for (int k = 0; k < 3; k++) y[k] = x[k] + s * d[k] / ld;
      pair_value w;
      pair_eval(&w, &f1, &f2, y);
      count += keep_below(&fs, y, &w, below, cell, out + count);
      if (count >= cap) break;
    }
    if (i >= ndescend || !descend(x, &v, &f1, &f2, cell, GD_ITERS)) continue;
    count += keep_below(&fs, x, &v, below, cell, out + count);
  }
  return count;
}
