// Surface samples of the peg and the hole for the overlap probe: points on the parts' true
// surfaces (not on a chord mesh), in each part's frame.
//
// Round parts are sampled on rings (r, z) of the lathed section. Each ring's stations are
// spaced so that its chord sagitta r (1 - cos(pi / n)) stays under the floor target; the
// caller sets that target to 1/16 of the collider mesh's chord error, i.e. 4x the collider's
// stations per ring. Along the axis the rings follow every edge of the section (tip, chamfer,
// rim, floor) plus rings every WALL_STEP on the straight walls and DISC_STEP across flat
// discs: between two nearly coaxial cylinders the overlap at height z is |offset(z)| -
// clearance with offset affine in z, a convex function whose maximum over any stretch lies at
// its ends, i.e. on an edge ring of one of the parts; the wall rings are a margin on that
// argument, kept sparse because the probe re-reads every sample near a wall at every step.
//
// Square parts are planar faces: their edges (where the deepest point of two overlapping
// polyhedra lies) at a fine step, their interiors on a coarser grid. Points on a flat face are
// exact, so the sampling adds no sagitta (floor 0).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peg.h"

#define TWO_PI 6.283185307179586
#define WALL_STEP 10e-3    // m between wall rings (round) and face grid lines (square)
#define DISC_STEP 5e-3     // m between the rings of a flat disc
#define EDGE_STEP 0.25e-3  // m between samples along a square part's edges
#define MIN_STATIONS 8

// a growable point list
typedef struct point_list {
  double* p;
  int n, cap;
  int failed;
} point_list;

static void push(point_list* l, double x, double y, double z) {
  if (l->failed) return;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 1024;
    double* p = realloc(l->p, sizeof(double) * 3 * (size_t)cap);
    if (!p) {
      l->failed = 1;
      return;
    }
    l->p = p, l->cap = cap;
  }
  l->p[3 * l->n] = x, l->p[3 * l->n + 1] = y, l->p[3 * l->n + 2] = z;
  l->n++;
}

// stations for a ring of radius r whose chord sagitta stays under target
static int ring_stations(double r, double target) {
  if (r <= 0) return 1;
  double x = 1 - target / r;
  int n = x <= -1 ? MIN_STATIONS : (int)ceil(M_PI / acos(x));
  return n < MIN_STATIONS ? MIN_STATIONS : n;
}

// a ring of stations at (r, z); returns its sagitta
static double ring(point_list* l, double r, double z, double target) {
  if (r <= 0) {
    push(l, 0, 0, z);
    return 0;
  }
  int n = ring_stations(r, target);
  for (int i = 0; i < n; i++) {
    double a = TWO_PI * i / n;
    push(l, r * cos(a), r * sin(a), z);
  }
  return r * (1 - cos(M_PI / n));
}

// rings along a straight wall of radius r from z0 to z1 (both ends included), WALL_STEP apart
static double wall(point_list* l, double r, double z0, double z1, double target) {
  int n = (int)ceil(fabs(z1 - z0) / WALL_STEP);
  if (n < 1) n = 1;
  double sag = 0;
  for (int i = 0; i <= n; i++) sag = fmax(sag, ring(l, r, z0 + (z1 - z0) * i / n, target));
  return sag;
}

// a disc of radius r at z as rings DISC_STEP apart, the rim ring included
static double disc(point_list* l, double r, double z, double target) {
  int n = (int)ceil(r / DISC_STEP);
  if (n < 1) n = 1;
  double sag = 0;
  for (int i = 0; i <= n; i++) sag = fmax(sag, ring(l, r * i / n, z, target));
  return sag;
}

// a planar quad c0 c1 c2 c3 (in order round its boundary): the boundary every EDGE_STEP,
// the interior on a bilinear grid about WALL_STEP apart
static void quad(point_list* l, const double c[4][3]) {
  for (int e = 0; e < 4; e++) {
    const double* a = c[e];
    const double* b = c[(e + 1) % 4];
    double len = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) +
                      (b[2] - a[2]) * (b[2] - a[2]));
    int n = (int)ceil(len / EDGE_STEP);
    if (n < 1) n = 1;
    for (int i = 0; i < n; i++) {
      double t = (double)i / n;
      push(l, a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]));
    }
  }
  double lu = 0, lv = 0;
  for (int k = 0; k < 3; k++) {
    lu = fmax(lu, fabs(c[1][k] - c[0][k]));
    lv = fmax(lv, fabs(c[3][k] - c[0][k]));
  }
  int nu = (int)ceil(lu / WALL_STEP), nv = (int)ceil(lv / WALL_STEP);
  for (int i = 1; i < nu; i++) {
    for (int j = 1; j < nv; j++) {
      double u = (double)i / nu, v = (double)j / nv;
      double p[3];
      for (int k = 0; k < 3; k++) {
        p[k] = (1 - u) * (1 - v) * c[0][k] + u * (1 - v) * c[1][k] + u * v * c[2][k] +
               (1 - u) * v * c[3][k];
      }
      push(l, p[0], p[1], p[2]);
    }
  }
}

// corner k (0..3, counter-clockwise from +x+y) of a square of half side h at height z
static void corner(double out[3], int k, double h, double z) {
  static const double sx[4] = {1, -1, -1, 1}, sy[4] = {1, 1, -1, -1};
  out[0] = sx[k & 3] * h, out[1] = sy[k & 3] * h, out[2] = z;
}

// the band between two concentric squares (h0 at z0, h1 at z1) as four quads
static void square_band(point_list* l, double h0, double z0, double h1, double z1) {
  for (int k = 0; k < 4; k++) {
    double c[4][3];
    corner(c[0], k, h0, z0);
    corner(c[1], k + 1, h0, z0);
    corner(c[2], k + 1, h1, z1);
    corner(c[3], k, h1, z1);
    quad(l, (const double(*)[3])c);
  }
}

// a full square of half side h at z
static void square_face(point_list* l, double h, double z) {
  double c[4][3];
  for (int k = 0; k < 4; k++) corner(c[k], k, h, z);
  quad(l, (const double(*)[3])c);
}

static int finish(peg_samples* out, point_list* l, double floor) {
  if (l->failed) {
    free(l->p);
    memset(out, 0, sizeof(*out));
    return -1;
  }
  out->points = l->p, out->npoint = l->n, out->floor = floor;
  return 0;
}

int peg_samples_peg(peg_samples* out, const peg_config* c, double floor_target) {
  point_list l = {0};
  double half = 0.5 * c->diameter, ch = c->chamfer, len = c->length;
  if (c->square) {
    square_face(&l, half - ch, 0);
    if (ch > 0) square_band(&l, half - ch, 0, half, ch);
    square_band(&l, half, ch, half, len);
    square_face(&l, half, len);
    return finish(out, &l, 0);
  }
  double sag = disc(&l, half - ch, 0, floor_target);
  if (ch > 0) sag = fmax(sag, ring(&l, half - 0.5 * ch, 0.5 * ch, floor_target));
  sag = fmax(sag, wall(&l, half, ch, len, floor_target));
  sag = fmax(sag, disc(&l, half, len, floor_target));
  return finish(out, &l, sag);
}

int peg_samples_hole(peg_samples* out, const peg_config* c, double bore_half, double floor_target) {
  point_list l = {0};
  double ch = c->chamfer, depth = c->depth, rim = bore_half + ch;
  // the top face around the entry: where a peg that misses the bore lands
  double top_reach = 2e-3;
  if (c->square) {
    square_band(&l, rim, 0, rim + top_reach, 0);
    if (ch > 0) square_band(&l, rim, 0, bore_half, -ch);
    square_band(&l, bore_half, -ch, bore_half, -depth);
    square_face(&l, bore_half, -depth);
    return finish(out, &l, 0);
  }
  double sag = 0;
  sag = fmax(sag, ring(&l, rim + top_reach, 0, floor_target));
  sag = fmax(sag, ring(&l, rim + 0.25 * top_reach, 0, floor_target));
  sag = fmax(sag, ring(&l, rim, 0, floor_target));
  if (ch > 0) sag = fmax(sag, ring(&l, bore_half + 0.5 * ch, -0.5 * ch, floor_target));
  sag = fmax(sag, wall(&l, bore_half, -ch, -depth, floor_target));
  sag = fmax(sag, disc(&l, bore_half, -depth, floor_target));
  return finish(out, &l, sag);
}

void peg_samples_free(peg_samples* s) {
  free(s->points);
  memset(s, 0, sizeof(*s));
}
