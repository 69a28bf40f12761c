// Connector plug and socket (D-sub DE-15-like, DisplayPort-like, RJ45-like): CSG trees of the SDF
// library, and meshes built from the same prisms and cylinders.
//
// Frame: the mating axis is z. The plug's mating face is z = 0 facing -z; its shell rises to
// z = length and its pins hang below the face to z = -pin_len. The socket's opening is z = 0
// facing +z; its cavity floor is at z = -depth and the pin holes go further down. The plug is
// seated when its mating face reaches the floor: plug frame = socket frame shifted by -depth.
// Mating depths: dsub 6 mm, dp 8 mm, rj45 10 mm.
//
// Sections. The shell section is a convex polygon with rounded corners, exactly the inner
// polygon (each edge moved in by the corner radius rc) grown by a disc of radius rc: a rounded
// trapezoid with 10 degree sides (dsub), a rectangle with one corner chamfered (dp), a rounded
// rectangle (rj45, optionally with a latch tab on top). The socket cavity is the same inner
// polygon grown by rc + c, i.e. the exact offset of the plug section by the clearance c, so the
// gap is c all round; the latch slot is the tab rectangle grown by c. Pin holes have the radius
// pin_r + c + 50 um, so the shell guides the plug before a pin can touch.
//
// SDF trees (exact primitives: prism, box, cylinder):
//   plug   = (shell prism [u latch box]) u union(pins)            union: exact outside
//   socket = (block box - (cavity prism [u slot prism])) - union(holes)
// Every CSG edge where two operand surfaces meet is a right angle (pin and face, hole and
// floor, cavity wall and top face, tab and shell), so |fn - d| <= (1 - 1/sqrt 2) |d|; the rj45
// socket with a latch slot also has points where three meet (slot wall, cavity wall, top face):
// (1 - 1/sqrt 3) |d|. error_bound states that ratio over TF_SDF_ERROR_BAND (0 for a plug that is
// one prism); the part test measures it against a fine mesh.
//
// Meshes: the plug is one closed component per solid (shell prism, latch box, each pin
// cylinder; they overlap like the CSG union does). The socket is one closed surface: block walls
// and bottom, the top face (block outline with the cavity outline as a hole), cavity walls, the
// floor (cavity outline with the pin-hole circles as holes), hole walls and bottoms. Planar faces
// with holes are triangulated by ear clipping after bridging each hole to the outer boundary.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_builder.h"
#include "parts_internal.h"
#include "sdf_library.h"

static const double pi = 3.14159265358979323846;

#define PIN_EXTRA 50e-6  // m: radial gap of a pin in its hole beyond the shell clearance
#define MAXPIN 24

// the fixed geometry of one connector type (m)
typedef struct conn_type {
  const char* name;
  int nvert;
  double outer[8][2];  // shell section before rounding (convex, counter-clockwise)
  double corner;       // corner radius of the shell section
  double depth;        // mating depth
  double length;       // plug shell height above the mating face
  double pin_r, pin_len;
  int npin;
  double pin[MAXPIN][2];
} conn_type;

// the dimensions of each family (mm in the comments, m in the values)
static conn_type make_type(int which) {
  conn_type t;
  memset(&t, 0, sizeof(t));
  if (which == 0) {  // D-sub DE-15: trapezoid 15.7 / 13.44 x 6.4 mm, three rows of five pins
    double half_top = 7.85e-3, h = 3.2e-3, half_bottom = half_top - 2 * h * tan(10 * pi / 180);
    t.name = "dsub";
    t.nvert = 4;
    double o[4][2] = {{-half_bottom, -h}, {half_bottom, -h}, {half_top, h}, {-half_top, h}};
    memcpy(t.outer, o, sizeof(o));
    t.corner = 1.0e-3, t.depth = 6e-3, t.length = 12e-3;
    t.pin_r = 0.5e-3, t.pin_len = 4e-3;
    for (int row = 0; row < 3; row++) {
      for (int i = 0; i < 5; i++) {
        double x0 = row == 1 ? -5.725e-3 : -4.58e-3;
        t.pin[t.npin][0] = x0 + 2.29e-3 * i;
        t.pin[t.npin][1] = (1 - row) * 1.98e-3;
        t.npin++;
      }
    }
  } else if (which == 1) {  // DisplayPort: 16.1 x 4.76 mm, one corner cut, two rows of ten
    double w = 8.05e-3, h = 2.38e-3, ch = 1.4e-3;
    t.name = "dp";
    t.nvert = 5;
    double o[5][2] = {{-w, -h}, {w, -h}, {w, h}, {-w + ch, h}, {-w, h - ch}};
    memcpy(t.outer, o, sizeof(o));
    t.corner = 0.25e-3, t.depth = 8e-3, t.length = 14e-3;
    t.pin_r = 0.25e-3, t.pin_len = 3e-3;
    for (int row = 0; row < 2; row++) {
      for (int i = 0; i < 10; i++) {
        t.pin[t.npin][0] = -5.85e-3 + 1.3e-3 * i;
        t.pin[t.npin][1] = row ? -0.9e-3 : 0.9e-3;
        t.npin++;
      }
    }
  } else {  // RJ45: 11.7 x 8.0 mm, eight contacts at 1.02 mm in the upper half
    double w = 5.85e-3, h = 4.0e-3;
    t.name = "rj45";
    t.nvert = 4;
    double o[4][2] = {{-w, -h}, {w, -h}, {w, h}, {-w, h}};
    memcpy(t.outer, o, sizeof(o));
    t.corner = 0.5e-3, t.depth = 10e-3, t.length = 16e-3;
    t.pin_r = 0.2e-3, t.pin_len = 2e-3;
    for (int i = 0; i < 8; i++) {
      t.pin[t.npin][0] = -3.57e-3 + 1.02e-3 * i;
      t.pin[t.npin][1] = 2.0e-3;
      t.npin++;
    }
  }
  return t;
}

// the rj45 latch tab: x in [-1.5, 1.5] mm, y from inside the shell to 1.5 mm above it, from
// 1 mm above the mating face to the top
static const double tab_lo[2] = {-1.5e-3, 3.0e-3}, tab_hi[2] = {1.5e-3, 5.5e-3};
static const double tab_z0 = 1e-3;
#define FLOOR_THICK 2e-3  // m: socket material below the holes (or the floor)
#define WALL_THICK 2e-3   // m: socket block margin around the cavity
#define CUT_OVER 1e-3     // m: cavity and holes run this far past the faces they open

// the seated plug's mating face sits this far below the socket opening; -1 for an unknown type
double tf_connector_mating_depth(const char* type) {
  for (int i = 0; i < 3; i++) {
    conn_type t = make_type(i);
    if (type && strcmp(type, t.name) == 0) return t.depth;
  }
  return -1;
}

// unit outward normal of edge i -> i+1 of a counter-clockwise polygon
static void edge_normal(double n[2], const double (*p)[2], int nv, int i) {
  const double* a = p[i];
  const double* b = p[(i + 1) % nv];
  double ex = b[0] - a[0], ey = b[1] - a[1], l = hypot(ex, ey);
  n[0] = ey / l, n[1] = -ex / l;
}

// the convex polygon with every edge moved inward by r (the inner polygon of a rounded section)
static void inset(double (*out)[2], const double (*p)[2], int nv, double r) {
  for (int i = 0; i < nv; i++) {
    double a[2], b[2];
    edge_normal(a, p, nv, (i + nv - 1) % nv);
    edge_normal(b, p, nv, i);
    double k = r / (1 + a[0] * b[0] + a[1] * b[1]);
    out[i][0] = p[i][0] - k * (a[0] + b[0]);
    out[i][1] = p[i][1] - k * (a[1] + b[1]);
  }
}

// ---------------------------------------------------------------- 2D outlines

typedef struct poly2 {
  double (*p)[2];
  int n, cap;
} poly2;

// appends a 2D point
static int push2(poly2* a, double x, double y) {
  if (a->n == a->cap) {
    int cap = a->cap ? 2 * a->cap : 64;
    double(*grown)[2] = realloc(a->p, (size_t)cap * sizeof(*grown));
    if (!grown) return -1;
    a->p = grown, a->cap = cap;
  }
  a->p[a->n][0] = x, a->p[a->n][1] = y;
  a->n++;
  return 0;
}

// arc segments of radius r over angle with sagitta <= chord; the sagitta kept in *err
static int arc_steps(double r, double angle, double chord, double* err) {
  if (r <= 0 || angle <= 0) return 0;
  double step = chord < r ? 2 * acos(1 - chord / r) : pi;
  int n = (int)ceil(angle / step - 1e-9);
  if (n < 1) n = 1;
  double e = r * (1 - cos(0.5 * angle / n));
  if (e > *err) *err = e;
  return n;
}

// appends the arc about c of radius r from angle a0 to a1 (counter-clockwise), end points included
static int push_arc(poly2* out, const double c[2], double r, double a0, double a1, double chord,
                    double* err) {
  if (r <= 0) return push2(out, c[0], c[1]);
  int n = arc_steps(r, a1 - a0, chord, err);
  if (n < 1) n = 1;
  for (int j = 0; j <= n; j++) {
    double a = a0 + (a1 - a0) * j / n;
    if (push2(out, c[0] + r * cos(a), c[1] + r * sin(a))) return -1;
  }
  return 0;
}

// a convex polygon grown by r (rounded corners), counter-clockwise
static int rounded_outline(poly2* out, const double (*p)[2], int nv, double r, double chord,
                           double* err) {
  for (int i = 0; i < nv; i++) {
    double a[2], b[2];
    edge_normal(a, p, nv, (i + nv - 1) % nv);
    edge_normal(b, p, nv, i);
    double a0 = atan2(a[1], a[0]), a1 = atan2(b[1], b[0]);
    if (a1 < a0) a1 += 2 * pi;
    if (push_arc(out, p[i], r, a0, a1, chord, err)) return -1;
  }
  return 0;
}

// the rj45 section with the latch tab spliced into its top edge: the rounded rectangle `body`
// (top edge at y = top) and the tab rectangle grown by rt
static int splice_tab(poly2* out, const poly2* body, double top, double rt, double chord,
                      double* err) {
  double w = tab_hi[0] + rt;
  for (int i = 0; i < body->n; i++) {
    const double* a = body->p[i];
    const double* b = body->p[(i + 1) % body->n];
    if (push2(out, a[0], a[1])) return -1;
    if (fabs(a[1] - top) < 1e-12 && fabs(b[1] - top) < 1e-12 && a[0] > w && b[0] < -w) {
      // up the tab's right side, round its top corners, down its left side
      double cr[2] = {tab_hi[0], tab_hi[1]}, cl[2] = {tab_lo[0], tab_hi[1]};
      if (push2(out, w, top)) return -1;
      if (rt > 0) {
        if (push_arc(out, cr, rt, 0, 0.5 * pi, chord, err)) return -1;
        if (push_arc(out, cl, rt, 0.5 * pi, pi, chord, err)) return -1;
      } else {
        if (push2(out, cr[0], cr[1]) || push2(out, cl[0], cl[1])) return -1;
      }
      if (push2(out, -w, top)) return -1;
    }
  }
  return 0;
}

// ---------------------------------------------------------------- triangulation

// twice the signed area of triangle abc
static double cross3(const double a[2], const double b[2], const double c[2]) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static int same(const double a[2], const double b[2]) { return a[0] == b[0] && a[1] == b[1]; }

// p inside or on triangle abc (counter-clockwise)
static int in_triangle(const double p[2], const double a[2], const double b[2], const double c[2]) {
  return cross3(a, b, p) >= 0 && cross3(b, c, p) >= 0 && cross3(c, a, p) >= 0;
}

typedef struct ilist {
  int* v;
  int n, cap;
} ilist;

// appends an index
static int ipush(ilist* l, int x) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 64;
    int* grown = realloc(l->v, (size_t)cap * sizeof(int));
    if (!grown) return -1;
    l->v = grown, l->cap = cap;
  }
  l->v[l->n++] = x;
  return 0;
}

// splices a hole (clockwise index loop) into the polygon through a bridge from the hole's
// rightmost vertex to a visible polygon vertex (ray to +x, then the reflex vertex of least angle
// inside the triangle of the ray hit; Eberly, "Triangulation by ear clipping")
static int bridge_hole(ilist* poly, const double (*xy)[2], const int* hole, int nh) {
  int m = 0;
  for (int i = 1; i < nh; i++) {
    const double *a = xy[hole[i]], *b = xy[hole[m]];
    if (a[0] > b[0] || (a[0] == b[0] && a[1] < b[1])) m = i;
  }
  const double* M = xy[hole[m]];
  double best = INFINITY;
  int at = -1;
  int exact = 0;
  for (int i = 0; i < poly->n; i++) {
    const double* a = xy[poly->v[i]];
    const double* b = xy[poly->v[(i + 1) % poly->n]];
    if ((a[1] > M[1]) == (b[1] > M[1]) && a[1] != M[1] && b[1] != M[1]) continue;
    if (a[1] == b[1]) {  // horizontal edge on the ray: its nearer end point
      if (a[1] != M[1]) continue;
      for (int k = 0; k < 2; k++) {
        const double* e = k ? b : a;
        if (e[0] >= M[0] && e[0] < best) best = e[0], at = (i + k) % poly->n, exact = 1;
      }
      continue;
    }
    double x = a[0] + (M[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
    if (x < M[0] || x >= best) continue;
    best = x;
    if (a[1] == M[1]) {
      at = i, exact = 1;
    } else if (b[1] == M[1]) {
      at = (i + 1) % poly->n, exact = 1;
    } else {
      at = a[0] > b[0] ? i : (i + 1) % poly->n, exact = 0;
    }
  }
  if (at < 0) return -1;
  if (!exact) {
    // a polygon vertex inside triangle (M, I, P) would block the view: take the one closest in
    // angle to the ray
    double I[2] = {best, M[1]};
    const double* P = xy[poly->v[at]];
    double tri[3][2] = {{M[0], M[1]}, {I[0], I[1]}, {P[0], P[1]}};
    if (cross3(tri[0], tri[1], tri[2]) < 0) {
      double t0 = tri[1][0], t1 = tri[1][1];
      tri[1][0] = tri[2][0], tri[1][1] = tri[2][1], tri[2][0] = t0, tri[2][1] = t1;
    }
    double best_angle = INFINITY, best_dist = INFINITY;
    int choice = at;
    for (int i = 0; i < poly->n; i++) {
      const double* r = xy[poly->v[i]];
      if (same(r, P) || !in_triangle(r, tri[0], tri[1], tri[2])) continue;
      const double* prev = xy[poly->v[(i + poly->n - 1) % poly->n]];
      const double* next = xy[poly->v[(i + 1) % poly->n]];
      if (cross3(prev, r, next) > 0) continue;  // convex vertices cannot block
      double dx = r[0] - M[0], dy = r[1] - M[1], d = hypot(dx, dy);
      double angle = fabs(atan2(dy, dx));
      if (angle < best_angle || (angle == best_angle && d < best_dist)) {
        best_angle = angle, best_dist = d, choice = i;
      }
    }
    at = choice;
  }
  // a vertex that earlier bridges made appear more than once: splice at the copy whose corner
  // (the polygon's inside between its two edges) holds the direction to M
  for (int i = 0; i < poly->n; i++) {
    if (!same(xy[poly->v[i]], xy[poly->v[at]])) continue;
    const double* a = xy[poly->v[(i + poly->n - 1) % poly->n]];
    const double* p = xy[poly->v[i]];
    const double* b = xy[poly->v[(i + 1) % poly->n]];
    double l = cross3(a, p, M), r = cross3(p, b, M);
    if (cross3(a, p, b) > 0 ? (l > 0 && r > 0) : (l > 0 || r > 0)) {
      at = i;
      break;
    }
  }
  // poly[0..at], hole from m around back to m, poly[at], poly[at+1..]
  ilist out = {0};
  for (int i = 0; i <= at; i++) {
    if (ipush(&out, poly->v[i])) goto fail;
  }
  for (int k = 0; k <= nh; k++) {
    if (ipush(&out, hole[(m + k) % nh])) goto fail;
  }
  for (int i = at; i < poly->n; i++) {
    if (ipush(&out, poly->v[i])) goto fail;
  }
  free(poly->v);
  *poly = out;
  return 0;
fail:
  free(out.v);
  return -1;
}

// max x of a loop, for the order in which holes are bridged
static double loop_max_x(const double (*xy)[2], const int* loop, int n) {
  double x = -INFINITY;
  for (int i = 0; i < n; i++) x = fmax(x, xy[loop[i]][0]);
  return x;
}

// triangulates the region inside the counter-clockwise loop `outer` and outside the clockwise
// loops `holes` (indices into xy); appends counter-clockwise triangles to tri. The triangle
// areas must add up to the region's area, else -1.
static int triangulate(ilist* tri, const double (*xy)[2], const int* outer, int nouter,
                       const int* const* holes, const int* nhole, int nholes) {
  ilist poly = {0};
  int* order = NULL;
  int* prev = NULL;
  int* next = NULL;
  int status = -1;
  for (int i = 0; i < nouter; i++) {
    if (ipush(&poly, outer[i])) goto done;
  }
  order = malloc((size_t)(nholes > 0 ? nholes : 1) * sizeof(int));
  if (!order) goto done;
  for (int h = 0; h < nholes; h++) order[h] = h;
  for (int a = 0; a < nholes; a++) {  // rightmost hole first
    for (int b = a + 1; b < nholes; b++) {
      if (loop_max_x(xy, holes[order[b]], nhole[order[b]]) >
          loop_max_x(xy, holes[order[a]], nhole[order[a]])) {
        int t = order[a];
        order[a] = order[b], order[b] = t;
      }
    }
  }
  for (int h = 0; h < nholes; h++) {
    if (bridge_hole(&poly, xy, holes[order[h]], nhole[order[h]])) goto done;
  }
  int n = poly.n;
  if (n < 3) goto done;
  prev = calloc((size_t)n, sizeof(int));
  next = calloc((size_t)n, sizeof(int));
  if (!prev || !next) goto done;
  for (int i = 0; i < n; i++) prev[i] = (i + n - 1) % n, next[i] = (i + 1) % n;
  double area = 0;
  int left = n, cur = 0, misses = 0;
  while (left > 3) {
    int u = prev[cur], w = next[cur];
    const double *a = xy[poly.v[u]], *b = xy[poly.v[cur]], *c = xy[poly.v[w]];
    double turn = cross3(a, b, c);
    int ear = turn > 0;
    for (int k = next[w]; ear && k != u; k = next[k]) {
      const double* r = xy[poly.v[k]];
      if (same(r, a) || same(r, b) || same(r, c)) continue;
      if (in_triangle(r, a, b, c)) ear = 0;
    }
    // a spike of zero area (a bridge folding back, a repeated point) goes without a triangle
    int spike = turn == 0 && (same(a, b) || same(b, c) || same(a, c) ||
                              (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]) < 0);
    if (ear || spike) {
      if (ear) {
        if (ipush(tri, poly.v[u]) || ipush(tri, poly.v[cur]) || ipush(tri, poly.v[w])) goto done;
        area += turn;
      }
      next[u] = w, prev[w] = u;
      left--;
      cur = u;
      misses = 0;
      continue;
    }
    if (misses > left) goto done;  // a full turn without an ear: not a simple polygon
    cur = next[cur];
    misses++;
  }
  {
    int u = prev[cur], w = next[cur];
    double turn = cross3(xy[poly.v[u]], xy[poly.v[cur]], xy[poly.v[w]]);
    if (turn > 0) {
      if (ipush(tri, poly.v[u]) || ipush(tri, poly.v[cur]) || ipush(tri, poly.v[w])) goto done;
      area += turn;
    }
  }
  // the area check: twice the outer area minus the holes'
  double want = 0;
  for (int i = 0; i < nouter; i++) {
    const double *a = xy[outer[i]], *b = xy[outer[(i + 1) % nouter]];
    want += a[0] * b[1] - a[1] * b[0];
  }
  for (int h = 0; h < nholes; h++) {
    for (int i = 0; i < nhole[h]; i++) {
      const double *a = xy[holes[h][i]], *b = xy[holes[h][(i + 1) % nhole[h]]];
      want += a[0] * b[1] - a[1] * b[0];
    }
  }
  status = fabs(area - want) <= 1e-9 * fabs(want) ? 0 : -1;
done:
  free(poly.v);
  free(order);
  free(prev);
  free(next);
  return status;
}

// ---------------------------------------------------------------- meshes

// a loop of mesh vertices v0 .. v0 + n - 1, counter-clockwise in xy
typedef struct loop3 {
  int v0, n;
} loop3;

// the loop's outline at height z
static loop3 add_loop(tf_mesh_builder* m, const poly2* p, double z) {
  loop3 l = {m->nvert, p->n};
  for (int i = 0; i < p->n; i++) {
    if (tf_mesh_builder_vertex(m, p->p[i][0], p->p[i][1], z) < 0) l.n = -1;
  }
  return l;
}

// walls between two copies of a loop (lo below hi), facing away from the loop's inside when
// outward, else toward it
static int walls(tf_mesh_builder* m, loop3 lo, loop3 hi, int outward) {
  for (int i = 0; i < lo.n; i++) {
    int j = (i + 1) % lo.n;
    int a = lo.v0 + i, b = lo.v0 + j, c = hi.v0 + j, d = hi.v0 + i;
    int bad = outward
                  ? tf_mesh_builder_triangle(m, a, b, c) || tf_mesh_builder_triangle(m, a, c, d)
                  : tf_mesh_builder_triangle(m, a, c, b) || tf_mesh_builder_triangle(m, a, d, c);
    if (bad) return -1;
  }
  return 0;
}

// a planar face: inside `outer`, outside the `holes` (all counter-clockwise loops at one height),
// facing +z when up
static int cap(tf_mesh_builder* m, loop3 outer, const loop3* holes, int nholes, int up) {
  int total = outer.n;
  for (int h = 0; h < nholes; h++) total += holes[h].n;
  double(*xy)[2] = malloc((size_t)total * sizeof(*xy));
  int* global = malloc((size_t)total * sizeof(int));
  int* ids = malloc((size_t)total * sizeof(int));
  const int** hole_ids = malloc((size_t)(nholes + 1) * sizeof(int*));
  int* hole_n = malloc((size_t)(nholes + 1) * sizeof(int));
  ilist tri = {0};
  int status = -1, at = 0;
  if (!xy || !global || !ids || !hole_ids || !hole_n) goto done;
  for (int i = 0; i < outer.n; i++, at++) {
    global[at] = outer.v0 + i, ids[at] = at;
  }
  for (int h = 0; h < nholes; h++) {
    hole_ids[h] = ids + at;
    hole_n[h] = holes[h].n;
    for (int i = 0; i < holes[h].n; i++, at++) {  // reversed: holes run clockwise
      global[at] = holes[h].v0 + holes[h].n - 1 - i, ids[at] = at;
    }
  }
  for (int i = 0; i < total; i++) {
    xy[i][0] = m->vert[3 * global[i]], xy[i][1] = m->vert[3 * global[i] + 1];
  }
  if (triangulate(&tri, (const double(*)[2])xy, ids, outer.n, hole_ids, hole_n, nholes)) goto done;
  for (int t = 0; t + 2 < tri.n; t += 3) {
    int a = global[tri.v[t]], b = global[tri.v[t + 1]], c = global[tri.v[t + 2]];
    if (up ? tf_mesh_builder_triangle(m, a, b, c) : tf_mesh_builder_triangle(m, a, c, b)) goto done;
  }
  status = 0;
done:
  free(xy);
  free(global);
  free(ids);
  free(hole_ids);
  free(hole_n);
  free(tri.v);
  return status;
}

// a closed prism component: the outline extruded from z0 to z1
static int prism_mesh(tf_mesh_builder* m, const poly2* outline, double z0, double z1) {
  loop3 lo = add_loop(m, outline, z0), hi = add_loop(m, outline, z1);
  if (lo.n < 0 || hi.n < 0) return -1;
  if (walls(m, lo, hi, 1)) return -1;
  return cap(m, hi, NULL, 0, 1) || cap(m, lo, NULL, 0, 0) ? -1 : 0;
}

// a circle of radius r about c as a counter-clockwise outline with sagitta <= chord; the vertex
// phase (a fraction of a step) differs between circles so that no two holes in a row share the
// height of a vertex (collinear vertices would leave the ear clipping without ears)
static int circle(poly2* out, const double c[2], double r, double chord, double phase,
                  double* err) {
  int n = arc_steps(r, 2 * pi, chord, err);
  if (n < 12) n = 12;
  double e = r * (1 - cos(pi / n));
  if (e > *err) *err = e;
  for (int i = 0; i < n; i++) {
    double a = 2 * pi * (i + phase) / n;
    if (push2(out, c[0] + r * cos(a), c[1] + r * sin(a))) return -1;
  }
  return 0;
}

// ---------------------------------------------------------------- the parts

typedef struct conn {
  conn_type t;
  double clear;  // m
  int pins, latch;
  double chord;
  double inner[8][2];  // the shell section's inner polygon
  double hole_r, hole_depth, block_lo[3], block_hi[3];
} conn;

// distance from p to a convex counter-clockwise polygon (negative inside)
static double polygon_distance(const double (*p)[2], int n, const double q[2]) {
  double inside = -INFINITY, best = INFINITY;
  for (int i = 0; i < n; i++) {
    double nn[2];
    edge_normal(nn, p, n, i);
    const double *a = p[i], *b = p[(i + 1) % n];
    inside = fmax(inside, (q[0] - a[0]) * nn[0] + (q[1] - a[1]) * nn[1]);
    double ex = b[0] - a[0], ey = b[1] - a[1];
    double t = ((q[0] - a[0]) * ex + (q[1] - a[1]) * ey) / (ex * ex + ey * ey);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    best = fmin(best, hypot(q[0] - a[0] - t * ex, q[1] - a[1] - t * ey));
  }
  return inside <= 0 ? inside : best;
}

// parses the schema values and checks that the holes fit; 0 or -1 with a message
static int conn_setup(conn* c, const double* v, const char* part, char* err, size_t errlen) {
  memset(c, 0, sizeof(*c));
  c->t = make_type((int)v[0]);
  c->clear = v[1] * 1e-6;
  c->pins = v[2] == 0;
  c->latch = v[3] == 1;
  c->chord = v[4] * 1e-6;
  if (c->latch && strcmp(c->t.name, "rj45") != 0) {
    snprintf(err, errlen, "part '%s': latch applies to type rj45 only (got type %s)", part,
             c->t.name);
    return -1;
  }
  inset(c->inner, (const double(*)[2])c->t.outer, c->t.nvert, c->t.corner);
  c->hole_r = c->t.pin_r + c->clear + PIN_EXTRA;
  c->hole_depth = c->t.pin_len + 0.5e-3;
  // each hole at least 0.1 mm inside the cavity floor, at least 0.05 mm from its neighbours
  for (int i = 0; c->pins && i < c->t.npin; i++) {
    double d = polygon_distance((const double(*)[2])c->inner, c->t.nvert, c->t.pin[i]) -
               (c->t.corner + c->clear);
    int bad = d > -(c->hole_r + 0.1e-3);
    for (int j = 0; j < i; j++) {
      double s = hypot(c->t.pin[i][0] - c->t.pin[j][0], c->t.pin[i][1] - c->t.pin[j][1]);
      if (s < 2 * c->hole_r + 0.05e-3) bad = 1;
    }
    if (bad) {
      snprintf(err, errlen, "part '%s': clearance_um %g leaves no wall between the pin holes", part,
               v[1]);
      return -1;
    }
  }
  // the socket block: the cavity's box plus a wall, from the bottom to the opening
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (int i = 0; i < c->t.nvert; i++) {
    for (int k = 0; k < 2; k++) {
      lo[k] = fmin(lo[k], c->t.outer[i][k]), hi[k] = fmax(hi[k], c->t.outer[i][k]);
    }
  }
  if (c->latch) hi[1] = fmax(hi[1], tab_hi[1]);
  for (int k = 0; k < 2; k++) {
    c->block_lo[k] = lo[k] - c->clear - WALL_THICK, c->block_hi[k] = hi[k] + c->clear + WALL_THICK;
  }
  c->block_hi[2] = 0;
  c->block_lo[2] = -(c->t.depth + (c->pins ? c->hole_depth : 0) + FLOOR_THICK);
  return 0;
}

// a prism node of the inner polygon grown by r over z in [z0, z1]
static int add_prism(tf_sdf_tree** tree, const double (*poly)[2], int n, double r, double z0,
                     double z1) {
  tf_sdf_node node = tf_sdf_prism(poly, n, r, 0.5 * (z1 - z0));
  double pos[3] = {0, 0, 0.5 * (z0 + z1)};
  tf_sdf_node_place(&node, pos, NULL);
  return tf_sdf_tree_add(tree, &node);
}

// the pins (plug) or holes (socket) as cylinders over z in [z0, z1], united
static int add_pins(tf_sdf_tree** tree, const conn* c, double r, double z0, double z1) {
  int index[MAXPIN];
  for (int i = 0; i < c->t.npin; i++) {
    tf_sdf_node node = tf_sdf_cylinder(r, 0.5 * (z1 - z0));
    double pos[3] = {c->t.pin[i][0], c->t.pin[i][1], 0.5 * (z0 + z1)};
    tf_sdf_node_place(&node, pos, NULL);
    index[i] = tf_sdf_tree_add(tree, &node);
    if (index[i] < 0) return -1;
  }
  return tf_sdf_tree_union_all(tree, index, c->t.npin);
}

static const double tab_rect[4][2] = {
    {-1.5e-3, 3.0e-3}, {1.5e-3, 3.0e-3}, {1.5e-3, 5.5e-3}, {-1.5e-3, 5.5e-3}};

// shell (and latch tab) united with the pins
static tf_sdf_tree* plug_tree(const conn* c) {
  tf_sdf_tree* t = tf_sdf_tree_create();
  if (!t) return NULL;
  const double(*inner)[2] = (const double(*)[2])c->inner;
  int root = add_prism(&t, inner, c->t.nvert, c->t.corner, 0, c->t.length);
  if (c->latch) {
    int tab = add_prism(&t, tab_rect, 4, 0, tab_z0, c->t.length);
    root = tab < 0 ? -1 : tf_sdf_tree_op(&t, TF_SDF_UNION, root, tab);
  }
  if (c->pins && root >= 0) {
    int pins = add_pins(&t, c, c->t.pin_r, -c->t.pin_len, 0.2e-3);
    root = pins < 0 ? -1 : tf_sdf_tree_op(&t, TF_SDF_UNION, root, pins);
  }
  if (root < 0) {
    tf_sdf_tree_free(t);
    return NULL;
  }
  return t;
}

// block minus the cavity (and latch slot), minus the pin holes
static tf_sdf_tree* socket_tree(const conn* c) {
  tf_sdf_tree* t = tf_sdf_tree_create();
  if (!t) return NULL;
  const double(*inner)[2] = (const double(*)[2])c->inner;
  double half[3], pos[3];
  for (int k = 0; k < 3; k++) {
    half[k] = 0.5 * (c->block_hi[k] - c->block_lo[k]),
    pos[k] = 0.5 * (c->block_hi[k] + c->block_lo[k]);
  }
  tf_sdf_node block = tf_sdf_box(half);
  tf_sdf_node_place(&block, pos, NULL);
  int b = tf_sdf_tree_add(&t, &block);
  int cavity = add_prism(&t, inner, c->t.nvert, c->t.corner + c->clear, -c->t.depth, CUT_OVER);
  if (c->latch && cavity >= 0) {
    int slot = add_prism(&t, tab_rect, 4, c->clear, -c->t.depth, CUT_OVER);
    cavity = slot < 0 ? -1 : tf_sdf_tree_op(&t, TF_SDF_UNION, cavity, slot);
  }
  int root = b < 0 || cavity < 0 ? -1 : tf_sdf_tree_op(&t, TF_SDF_SUBTRACTION, b, cavity);
  if (c->pins && root >= 0) {
    int holes = add_pins(&t, c, c->hole_r, -c->t.depth - c->hole_depth, -c->t.depth + CUT_OVER);
    root = holes < 0 ? -1 : tf_sdf_tree_op(&t, TF_SDF_SUBTRACTION, root, holes);
  }
  if (root < 0) {
    tf_sdf_tree_free(t);
    return NULL;
  }
  return t;
}

// the shell section (plug: radius 0 tab; socket: everything grown by the clearance)
static int section(poly2* out, const conn* c, double grow, double* err) {
  poly2 body = {0};
  int status = rounded_outline(&body, (const double(*)[2])c->inner, c->t.nvert, c->t.corner + grow,
                               c->chord, err);
  if (!status && c->latch) {
    status = splice_tab(out, &body, c->inner[2][1] + c->t.corner + grow, grow, c->chord, err);
    free(body.p);
  } else {
    *out = body;
  }
  return status;
}

// one closed component per solid of the union
static int plug_mesh(tf_mesh_builder* m, const conn* c, double* err) {
  poly2 shell = {0}, tab = {0}, pin = {0};
  int status = -1;
  // the plug shell without the tab: the tab is its own component
  conn body = *c;
  body.latch = 0;
  if (section(&shell, &body, 0, err) || prism_mesh(m, &shell, 0, c->t.length)) goto done;
  if (c->latch) {
    for (int i = 0; i < 4; i++) {
      if (push2(&tab, tab_rect[i][0], tab_rect[i][1])) goto done;
    }
    if (prism_mesh(m, &tab, tab_z0, c->t.length)) goto done;
  }
  for (int i = 0; c->pins && i < c->t.npin; i++) {
    pin.n = 0;
    if (circle(&pin, c->t.pin[i], c->t.pin_r, c->chord, 0.5, err)) goto done;
    if (prism_mesh(m, &pin, -c->t.pin_len, 0.2e-3)) goto done;
  }
  status = 0;
done:
  free(shell.p);
  free(tab.p);
  free(pin.p);
  return status;
}

// one closed surface: block, top face, cavity, floor, holes
static int socket_mesh(tf_mesh_builder* m, const conn* c, double* err) {
  poly2 block = {0}, cavity = {0}, hole = {0};
  loop3* top = NULL;
  loop3* bottom = NULL;
  int status = -1, np = c->pins ? c->t.npin : 0;
  const double *lo = c->block_lo, *hi = c->block_hi;
  if (push2(&block, lo[0], lo[1]) || push2(&block, hi[0], lo[1]) || push2(&block, hi[0], hi[1]) ||
      push2(&block, lo[0], hi[1])) {
    goto done;
  }
  if (section(&cavity, c, c->clear, err)) goto done;
  loop3 b_bot = add_loop(m, &block, lo[2]), b_top = add_loop(m, &block, 0);
  loop3 c_bot = add_loop(m, &cavity, -c->t.depth), c_top = add_loop(m, &cavity, 0);
  if (b_bot.n < 0 || b_top.n < 0 || c_bot.n < 0 || c_top.n < 0) goto done;
  if (walls(m, b_bot, b_top, 1) || cap(m, b_bot, NULL, 0, 0)) goto done;
  if (cap(m, b_top, &c_top, 1, 1) || walls(m, c_bot, c_top, 0)) goto done;
  top = malloc((size_t)(np + 1) * sizeof(loop3));
  bottom = malloc((size_t)(np + 1) * sizeof(loop3));
  if (!top || !bottom) goto done;
  for (int i = 0; i < np; i++) {
    hole.n = 0;
    double phase = 0.5 + 0.618033988749895 * i;
    if (circle(&hole, c->t.pin[i], c->hole_r, c->chord, phase - floor(phase), err)) goto done;
    top[i] = add_loop(m, &hole, -c->t.depth);
    bottom[i] = add_loop(m, &hole, -c->t.depth - c->hole_depth);
    if (top[i].n < 0 || bottom[i].n < 0) goto done;
    if (walls(m, bottom[i], top[i], 0) || cap(m, bottom[i], NULL, 0, 1)) goto done;
  }
  if (cap(m, c_bot, top, np, 1)) goto done;
  status = 0;
done:
  free(block.p);
  free(cavity.p);
  free(hole.p);
  free(top);
  free(bottom);
  return status;
}

// builds one side: the tree as the SDF parameters, the aabb, the error bound and the mesh
static int conn_build(const double* v, tf_part_geometry* out, char* err, size_t errlen,
                      int socket) {
  const char* part = socket ? "connector_socket" : "connector_plug";
  conn c;
  if (conn_setup(&c, v, part, err, errlen)) return -1;
  tf_sdf_tree* tree = socket ? socket_tree(&c) : plug_tree(&c);
  char why[128];
  if (!tree || tf_sdf_tree_check(tree, tf_sdf_tree_size(tree), why, sizeof(why))) {
    snprintf(err, errlen, "part '%s': %s", part, tree ? why : "out of memory");
    tf_sdf_tree_free(tree);
    return -1;
  }
  out->fn = tf_sdf_tree_eval;
  out->params = tree;
  out->params_size = tf_sdf_tree_size(tree);
  if (socket) {
    memcpy(out->aabb, c.block_lo, sizeof(c.block_lo));
    memcpy(out->aabb + 3, c.block_hi, sizeof(c.block_hi));
    double ratio = c.latch ? TF_SDF_CSG_RATIO_3 : TF_SDF_CSG_RATIO_2;
    out->error_bound = ratio * TF_SDF_ERROR_BAND;
  } else {
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int i = 0; i < c.t.nvert; i++) {
      for (int k = 0; k < 2; k++) {
        lo[k] = fmin(lo[k], c.t.outer[i][k]), hi[k] = fmax(hi[k], c.t.outer[i][k]);
      }
    }
    if (c.latch) hi[1] = fmax(hi[1], tab_hi[1]);
    out->aabb[0] = lo[0], out->aabb[1] = lo[1], out->aabb[2] = c.pins ? -c.t.pin_len : 0;
    out->aabb[3] = hi[0], out->aabb[4] = hi[1], out->aabb[5] = c.t.length;
    out->error_bound = c.pins || c.latch ? TF_SDF_CSG_RATIO_2 * TF_SDF_ERROR_BAND : 0;
  }
  tf_mesh_builder m = {0};
  double chord_err = 0;
  if (socket ? socket_mesh(&m, &c, &chord_err) : plug_mesh(&m, &c, &chord_err)) {
    free(m.vert);
    free(m.face);
    snprintf(err, errlen, "part '%s': mesh construction failed", part);
    return -1;
  }
  out->vert = m.vert, out->nvert = m.nvert;
  out->face = m.face, out->nface = m.nface;
  out->chord_error = chord_err;
  return 0;
}

static const tf_param_spec connector_spec[] = {
    {"type", 0, 0, 2, "", "dsub|dp|rj45", "family: D-sub DE-15, DisplayPort, RJ45 (-like)"},
    {"clearance_um", 50, 0, 200, "um", NULL,
     "per-side gap between plug shell and socket cavity (pin holes get 50 um more)"},
    {"pins", 0, 0, 1, "", "yes|no", "pins on the plug and holes in the socket"},
    {"latch", 0, 0, 1, "", "no|yes", "rj45 only: a latch tab on the plug, its slot in the socket"},
    {"chord_um", 2, 0.05, 1000, "um", NULL, "mesh: largest distance to the true surface"},
};

// the registry entry points
static int plug_build(const double* v, tf_part_geometry* out, char* err, size_t errlen) {
  return conn_build(v, out, err, errlen, 0);
}

static int socket_build(const double* v, tf_part_geometry* out, char* err, size_t errlen) {
  return conn_build(v, out, err, errlen, 1);
}

const tf_part_info tf_part_connector_plug = {
    "connector_plug",
    "connector plug: shell from the mating face z = 0 up, pins below it (mate along -z)",
    connector_spec,
    (int)(sizeof(connector_spec) / sizeof(connector_spec[0])),
    plug_build,
};

const tf_part_info tf_part_connector_socket = {
    "connector_socket",
    "connector socket: opening at z = 0 facing +z, cavity floor at -mating depth, pin holes",
    connector_spec,
    (int)(sizeof(connector_spec) / sizeof(connector_spec[0])),
    socket_build,
};
