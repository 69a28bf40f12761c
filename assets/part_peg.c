// Pegs and holes, round and square, with ISO 286 fits.
//
// Frames: z is the insertion axis. A peg stands on its tip: the chamfered tip face at z = 0,
// the body up to z = length. A hole is a block whose top face is z = 0, with a blind bore (or
// square pocket) of the peg's size plus twice the radial clearance, from an entry chamfer at
// the top down to z = -depth; the block spans |x|, |y| <= side / 2, -height <= z <= 0. A peg
// placed in the hole's frame with its tip at z = -depth is seated.
//
// Distances, all exact (error bound 0):
// - round peg: a solid of revolution, the 2D distance to its (r, z) section (sdf_profile.c).
// - round hole: the block (box) intersected with B, the solid of revolution "z <= 0 outside
//   the bore" out to a radius beyond the block's corners. max(box, B) is exact: inside an
//   intersection the max of exact distances always is (the nearer boundary is reached first),
//   and outside it is whenever the nearest point of one solid lies in the other, which holds
//   here because B's boundary near the block is the block's own top face, the entry chamfer
//   and the bore. (Box minus a cylinder is only a bound by the rim: beside an edge whose faces
//   turn by an angle a it reads as little as d cos(a / 2), 146 um short at 0.5 mm from a
//   square rim.)
// - square peg and square hole: polyhedra; the distance is the nearest of their triangles
//   (closest point on a triangle, exact) and the sign comes from a membership test.
//
// Lengths are parameters in mm (`diameter_mm`, ...), like the tasks' (issue 19); each builder
// converts with `mm * 1e-3`, the tasks' own arithmetic, so a task's part is bit for bit the
// geometry its metre values describe (tf_part_mm gives the mm value to pass).
//
// ISO 286 fits: the hole's bore is the peg's diameter plus twice clearance_um; a named fit
// replaces clearance_um by its mid-tolerance value for the peg's diameter: with the hole at
// the middle of its H band (EI = 0, width IT_hole) and the shaft at the middle of its band
// (upper deviation es, width IT_shaft), the radial clearance is
//   (IT_hole / 2 - es + IT_shaft / 2) / 2,
// e.g. H7/h6 at 8 mm: (15 / 2 + 9 / 2) / 2 = 6 um. IT grades and es from ISO 286-1 / -2.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parts_internal.h"
#include "sdf_profile.h"

#define TWO_PI 6.283185307179586

// ---------------------------------------------------------------- ISO 286

enum { FIT_NONE = 0, FIT_H7_H6, FIT_H7_G6, FIT_H8_F7, FIT_N };

// upper ends of the nominal size ranges (mm), "over the previous, up to and including"
static const double iso286_upto[] = {3, 6, 10, 18, 30, 50, 80, 120};
static const double iso286_it6[] = {6, 8, 9, 11, 13, 16, 19, 22};             // um
static const double iso286_it7[] = {10, 12, 15, 18, 21, 25, 30, 35};          // um
static const double iso286_it8[] = {14, 18, 22, 27, 33, 39, 46, 54};          // um
static const double iso286_es_f[] = {-6, -10, -13, -16, -20, -25, -30, -36};  // um
static const double iso286_es_g[] = {-2, -4, -5, -6, -7, -9, -10, -12};       // um

// radial mid-tolerance clearance (um) of a named fit at diameter mm; -1 outside the table
static double iso286_clearance_um(int fit, double mm) {
  int n = (int)(sizeof(iso286_upto) / sizeof(iso286_upto[0]));
  int k = 0;
  while (k < n && mm > iso286_upto[k]) k++;
  if (k == n || mm < 1) return -1;
  double it_hole, it_shaft, es;
  switch (fit) {
    case FIT_H7_H6:
      it_hole = iso286_it7[k], it_shaft = iso286_it6[k], es = 0;
      break;
    case FIT_H7_G6:
      it_hole = iso286_it7[k], it_shaft = iso286_it6[k], es = iso286_es_g[k];
      break;
    case FIT_H8_F7:
      it_hole = iso286_it8[k], it_shaft = iso286_it7[k], es = iso286_es_f[k];
      break;
    default:
      return -1;
  }
  return 0.5 * (0.5 * it_hole - es + 0.5 * it_shaft);
}

// ---------------------------------------------------------------- distance pieces

#define SECTION_MAXV 8
#define POLY_MAXTRI 48

// a solid of revolution: its section polyline (material on the left) and the closed polygon
typedef struct section_sdf {
  int n;
  tf_profile_vertex v[SECTION_MAXV];
  double poly[SECTION_MAXV][2];
  tf_profile_static table;  // the queries' shared part
} section_sdf;

// a polyhedron as triangles (counter-clockwise from outside) plus what membership needs
typedef struct poly_sdf {
  int hole;        // 0: square peg, 1: block with a square pocket
  double half;     // peg: half side; hole: pocket half side
  double chamfer;  // 45 deg, at the peg's tip / the pocket's entry
  double length;   // peg: length; hole: pocket depth
  double block_half, block_height;
  int ntri;
  double tri[POLY_MAXTRI][3][3];
} poly_sdf;

typedef struct round_hole_sdf {
  double block_half, block_height;
  section_sdf bore;  // B: z <= 0 outside the bore
} round_hole_sdf;

// even-odd test of (r, z) against a closed polygon: crossings along +r
static int polygon_inside(const double (*poly)[2], int n, double r, double z) {
  int in = 0;
  for (int i = 0, j = n - 1; i < n; j = i++) {
    if ((poly[i][1] > z) != (poly[j][1] > z)) {
      double x =
          poly[j][0] + (z - poly[j][1]) / (poly[i][1] - poly[j][1]) * (poly[i][0] - poly[j][0]);
      if (r < x) in = !in;
    }
  }
  return in;
}

// a static section from points (material on the left), also kept as the closed polygon
static void section_set(section_sdf* s, const double (*pts)[2], int n) {
  memset(s, 0, sizeof(*s));
  s->n = n;
  for (int i = 0; i < n; i++) {
    s->v[i].p[0] = s->poly[i][0] = pts[i][0];
    s->v[i].p[1] = s->poly[i][1] = pts[i][1];
  }
  // n <= SECTION_MAXV, within the table's size
  (void)tf_profile_static_init(&s->table, s->v, n, 0);
}

// distance from the section in the point's own half-plane; sign from the polygon
static double section_eval(const section_sdf* s, const double p[3], double grad[3]) {
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
  double c = rho > 0 ? p[0] / rho : 1, sn = rho > 0 ? p[1] / rho : 0;
  // a static section (section_set leaves every w and phi zero): the static query
  tf_profile_query q;
  tf_profile_query_static(&q, rho, p[2], &s->table);
  int inside = polygon_inside(s->poly, s->n, rho, p[2]);
  tf_profile_query_gradient(grad, &q, c, sn, inside);
  return inside ? -q.dist : q.dist;
}

// tf_sdf_fn of the round peg
static double sdf_peg_round(const void* params, const double p[3], double grad[3]) {
  double g[3];
  double d = section_eval(params, p, g);
  if (grad) memcpy(grad, g, sizeof(g));
  return d;
}

// exact box distance, box centred at c with half sizes h
static double box_eval(const double c[3], const double h[3], const double p[3], double grad[3]) {
  double q[3], out = 0, inmax = -INFINITY;
  int axis = 0;
  for (int k = 0; k < 3; k++) {
    q[k] = fabs(p[k] - c[k]) - h[k];
    if (q[k] > 0) out += q[k] * q[k];
    if (q[k] > inmax) inmax = q[k], axis = k;
  }
  if (out > 0) {
    out = sqrt(out);
    for (int k = 0; k < 3; k++) {
      grad[k] = q[k] > 0 ? (p[k] >= c[k] ? q[k] : -q[k]) / out : 0;
    }
    return out;
  }
  for (int k = 0; k < 3; k++) grad[k] = 0;
  grad[axis] = p[axis] >= c[axis] ? 1 : -1;
  return inmax;
}

// tf_sdf_fn of the round hole: box intersected with the outside of the bore
static double sdf_hole_round(const void* params, const double p[3], double grad[3]) {
  const round_hole_sdf* h = params;
  double c[3] = {0, 0, -0.5 * h->block_height};
  double half[3] = {h->block_half, h->block_half, 0.5 * h->block_height};
  double gb[3], gs[3];
  double db = box_eval(c, half, p, gb);
  double ds = section_eval(&h->bore, p, gs);
  if (grad) memcpy(grad, db > ds ? gb : gs, sizeof(gb));
  return db > ds ? db : ds;
}

// closest point to p on triangle abc (Voronoi regions of the vertices, edges and face)
static void closest_on_triangle(double out[3], const double p[3], const double a[3],
                                const double b[3], const double c[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  for (int k = 0; k < 3; k++) {
    ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
    bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
  }
#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
  double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
  double d3 = DOT(ab, bp), d4 = DOT(ac, bp);
  double d5 = DOT(ab, cp), d6 = DOT(ac, cp);
#undef DOT
  if (d1 <= 0 && d2 <= 0) {
    memcpy(out, a, 3 * sizeof(double));
    return;
  }
  if (d3 >= 0 && d4 <= d3) {
    memcpy(out, b, 3 * sizeof(double));
    return;
  }
  if (d6 >= 0 && d5 <= d6) {
    memcpy(out, c, 3 * sizeof(double));
    return;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    double t = d1 / (d1 - d3);
    for (int k = 0; k < 3; k++) out[k] = a[k] + t * ab[k];
    return;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    double t = d2 / (d2 - d6);
    for (int k = 0; k < 3; k++) out[k] = a[k] + t * ac[k];
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int k = 0; k < 3; k++) out[k] = b[k] + t * (c[k] - b[k]);
    return;
  }
  double den = 1 / (va + vb + vc);
  double v = vb * den, w = vc * den;
  for (int k = 0; k < 3; k++) out[k] = a[k] + v * ab[k] + w * ac[k];
}

// half side of a 45 deg chamfered square section at height z above the chamfer's small end
static double chamfered_half(double half, double chamfer, double z) {
  return z < chamfer ? half - chamfer + z : half;
}

// membership of the square peg or the block with its square pocket
static int poly_inside(const poly_sdf* s, const double p[3]) {
  double ax = fabs(p[0]), ay = fabs(p[1]), z = p[2];
  if (!s->hole) {
    if (z < 0 || z > s->length) return 0;
    double h = chamfered_half(s->half, s->chamfer, z);
    return ax <= h && ay <= h;
  }
  if (z > 0 || z < -s->block_height || ax > s->block_half || ay > s->block_half) return 0;
  if (z <= -s->length) return 1;
  // the pocket widens by the chamfer over the top chamfer height
  double h = z > -s->chamfer ? s->half + s->chamfer + z : s->half;
  return !(ax < h && ay < h);
}

// tf_sdf_fn of the square parts: the nearest triangle, signed by membership
static double sdf_poly(const void* params, const double p[3], double grad[3]) {
  const poly_sdf* s = params;
  double best = INFINITY, x[3], bx[3] = {0, 0, 0};
  int bt = 0;
  for (int t = 0; t < s->ntri; t++) {
    closest_on_triangle(x, p, s->tri[t][0], s->tri[t][1], s->tri[t][2]);
    double d2 = (p[0] - x[0]) * (p[0] - x[0]) + (p[1] - x[1]) * (p[1] - x[1]) +
                (p[2] - x[2]) * (p[2] - x[2]);
    if (d2 < best) {
      best = d2, bt = t;
      memcpy(bx, x, sizeof(x));
    }
  }
  double d = sqrt(best);
  int inside = poly_inside(s, p);
  if (grad) {
    if (d > 1e-15) {
      double k = (inside ? -1.0 : 1.0) / d;
      for (int i = 0; i < 3; i++) grad[i] = (p[i] - bx[i]) * k;
    } else {
      const double(*t)[3] = s->tri[bt];
      double e1[3], e2[3];
      for (int i = 0; i < 3; i++) e1[i] = t[1][i] - t[0][i], e2[i] = t[2][i] - t[0][i];
      double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                     e1[0] * e2[1] - e1[1] * e2[0]};
      double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      for (int i = 0; i < 3; i++) grad[i] = n[i] / nn;
    }
  }
  return inside ? -d : d;
}

// ---------------------------------------------------------------- meshes

// the largest station gap for a chord error at radius r
static double station_step(double r, double chord) {
  double x = 1 - chord / r;
  return x <= -1 ? TWO_PI : 2 * acos(x);
}

// the widest angle between neighbouring stations, the closing gap included
static double largest_gap(const double* theta, int n) {
  double gap = theta[0] + TWO_PI - theta[n - 1];
  for (int i = 1; i < n; i++) gap = fmax(gap, theta[i] - theta[i - 1]);
  return gap;
}

// stations of a full turn for chord error `chord` at radius r; returns the count, -1 on
// failure (caller frees *theta)
static int uniform_stations(double** theta, double r, double chord) {
  double step = station_step(r, chord);
  int cap = (int)ceil(TWO_PI / (0.95 * step)) + 8;
  *theta = malloc(sizeof(double) * (size_t)cap);
  if (!*theta) return -1;
  return tf_profile_stations(*theta, cap, step, NULL, 0);
}

// drops consecutive duplicate points of a profile; returns the new count
static int dedupe(double (*pts)[2], int n) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (k > 0 && pts[i][0] == pts[k - 1][0] && pts[i][1] == pts[k - 1][1]) continue;
    pts[k][0] = pts[i][0], pts[k][1] = pts[i][1];
    k++;
  }
  return k;
}

// hands the mesh to the geometry, or reports the failure
static int finish_mesh(tf_profile_mesh* m, tf_part_geometry* out, char* err, size_t errlen,
                       const char* name) {
  if (m->failed) {
    tf_profile_mesh_free(m);
    snprintf(err, errlen, "part '%s': out of memory building the mesh", name);
    return -1;
  }
  out->vert = m->vert, out->nvert = m->nvert;
  out->face = m->face, out->nface = m->nface;
  return 0;
}

// a quad a b c d (counter-clockwise from outside) as two triangles
static void quad(tf_profile_mesh* m, int a, int b, int c, int d) {
  tf_profile_mesh_face(m, a, b, c);
  tf_profile_mesh_face(m, a, c, d);
}

// four vertices of a square ring of half side h at height z, counter-clockwise from +z
static void square_ring(tf_profile_mesh* m, int idx[4], double h, double z) {
  static const double sx[4] = {1, -1, -1, 1}, sy[4] = {1, 1, -1, -1};
  for (int k = 0; k < 4; k++) idx[k] = tf_profile_mesh_vertex(m, sx[k] * h, sy[k] * h, z);
}

// the band between two square rings: lower below upper, outward normals away from the axis
// (flip for inward)
static void square_band(tf_profile_mesh* m, const int lower[4], const int upper[4], int flip) {
  for (int k = 0; k < 4; k++) {
    int k1 = (k + 1) % 4;
    if (flip) {
      quad(m, lower[k], upper[k], upper[k1], lower[k1]);
    } else {
      quad(m, lower[k], lower[k1], upper[k1], upper[k]);
    }
  }
}

// the polyhedron's triangles into the SDF's plain-data parameters
static void copy_triangles(poly_sdf* s, const tf_profile_mesh* m) {
  s->ntri = m->nface;
  for (int t = 0; t < m->nface; t++) {
    for (int k = 0; k < 3; k++)
      memcpy(s->tri[t][k], m->vert + 3 * m->face[3 * t + k], 3 * sizeof(double));
  }
}

// ---------------------------------------------------------------- peg

enum { PEG_SHAPE, PEG_DIAMETER, PEG_LENGTH, PEG_CHAMFER, PEG_CHORD, PEG_N };

static const tf_param_spec peg_params[PEG_N] = {
    {"shape", 0, 0, 1, "", "round|square", "round: cylinder; square: square prism"},
    {"diameter_mm", 8, 1, 100, "mm", NULL, "diameter (round) or side (square)"},
    {"length_mm", 30, 2, 500, "mm", NULL, "from the tip (z = 0) to the top"},
    {"chamfer_mm", 0.5, 0, 10, "mm", NULL, "45 deg chamfer at the tip"},
    {"chord_um", 2, 0.01, 1000, "um", NULL, "mesh: largest distance from the true surface"},
};

// builds a peg: a lathed section (round) or a chamfered prism (square)
static int build_peg(const double* v, tf_part_geometry* out, char* err, size_t errlen) {
  int square = v[PEG_SHAPE] > 0.5;
  double half = 0.5 * (v[PEG_DIAMETER] * 1e-3), len = v[PEG_LENGTH] * 1e-3;
  double ch = v[PEG_CHAMFER] * 1e-3, chord = v[PEG_CHORD] * 1e-6;
  if (ch >= 0.5 * half || ch >= 0.5 * len) {
    snprintf(err, errlen,
             "part 'peg': chamfer_mm must be under a quarter of diameter_mm and half "
             "of length_mm (got %g mm)",
             v[PEG_CHAMFER]);
    return -1;
  }
  tf_profile_mesh m;
  memset(&m, 0, sizeof(m));
  out->aabb[0] = out->aabb[1] = -half, out->aabb[2] = 0;
  out->aabb[3] = out->aabb[4] = half, out->aabb[5] = len;
  out->error_bound = 0;
  if (!square) {
    double prof[5][2] = {{0, 0}, {half - ch, 0}, {half, ch}, {half, len}, {0, len}};
    int n = dedupe(prof, 5);
    section_sdf* s = calloc(1, sizeof(*s));
    double* theta = NULL;
    int nt = uniform_stations(&theta, half, chord);
    int* ring = malloc(sizeof(int) * 2 * (size_t)(nt > 0 ? nt : 1));
    if (!s || nt < 0 || !ring) {
      free(s), free(theta), free(ring);
      snprintf(err, errlen, "part 'peg': out of memory");
      return -1;
    }
    section_set(s, (const double(*)[2])prof, n);
    tf_profile_mesh_lathe(&m, ring, ring + nt, (const double(*)[2])prof, n, theta, nt);
    out->chord_error = half * (1 - cos(0.5 * largest_gap(theta, nt)));
    free(theta), free(ring);
    out->fn = sdf_peg_round, out->params = s, out->params_size = sizeof(*s);
    return finish_mesh(&m, out, err, errlen, "peg");
  }
  poly_sdf* s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(err, errlen, "part 'peg': out of memory");
    return -1;
  }
  s->hole = 0, s->half = half, s->chamfer = ch, s->length = len;
  int tip[4], body[4], top[4];
  square_ring(&m, tip, half - ch, 0);
  if (ch > 0) {
    square_ring(&m, body, half, ch);
    square_band(&m, tip, body, 0);
  } else {
    memcpy(body, tip, sizeof(body));
  }
  square_ring(&m, top, half, len);
  square_band(&m, body, top, 0);
  quad(&m, tip[3], tip[2], tip[1], tip[0]);  // bottom, looking down
  quad(&m, top[0], top[1], top[2], top[3]);
  copy_triangles(s, &m);
  out->chord_error = 0;
  out->fn = sdf_poly, out->params = s, out->params_size = sizeof(*s);
  return finish_mesh(&m, out, err, errlen, "peg");
}

const tf_part_info tf_part_peg = {
    "peg",      "round or square peg standing on its chamfered tip at z = 0 (exact SDF)",
    peg_params, PEG_N,
    build_peg,
};

// ---------------------------------------------------------------- hole

enum {
  HOLE_SHAPE,
  HOLE_DIAMETER,
  HOLE_CLEARANCE,
  HOLE_FIT,
  HOLE_DEPTH,
  HOLE_CHAMFER,
  HOLE_SIDE,
  HOLE_HEIGHT,
  HOLE_CHORD,
  HOLE_N
};

static const tf_param_spec hole_params[HOLE_N] = {
    {"shape", 0, 0, 1, "", "round|square", "round bore or square pocket"},
    {"diameter_mm", 8, 1, 100, "mm", NULL, "the mating peg's diameter (or side)"},
    {"clearance_um", 25, 0, 2000, "um", NULL, "radial clearance, (hole - peg) / 2"},
    {"fit", 0, 0, FIT_N - 1, "", "none|H7/h6|H7/g6|H8/f7",
     "ISO 286 fit at mid-tolerance for the diameter; replaces clearance_um unless none"},
    {"depth_mm", 20, 1, 500, "mm", NULL, "bore depth below the top face (z = 0)"},
    {"chamfer_mm", 0.5, 0, 10, "mm", NULL, "45 deg entry chamfer"},
    {"block_side_mm", 30, 3, 1000, "mm", NULL, "the block's width and breadth"},
    {"block_height_mm", 30, 2, 1000, "mm", NULL, "the block's height (> depth_mm)"},
    {"chord_um", 2, 0.01, 1000, "um", NULL, "mesh: largest distance from the true surface"},
};

// builds a hole: block with a lathed bore (round) or a chamfered square pocket
static int build_hole(const double* v, tf_part_geometry* out, char* err, size_t errlen) {
  int square = v[HOLE_SHAPE] > 0.5;
  int fit = (int)v[HOLE_FIT];
  double clear_um = v[HOLE_CLEARANCE];
  if (fit != FIT_NONE) {
    clear_um = iso286_clearance_um(fit, v[HOLE_DIAMETER]);
    if (clear_um < 0) {
      snprintf(err, errlen, "part 'hole': fit needs a diameter_mm of 1 to 120 (got %g)",
               v[HOLE_DIAMETER]);
      return -1;
    }
  }
  double rb = 0.5 * (v[HOLE_DIAMETER] * 1e-3) + clear_um * 1e-6;
  double depth = v[HOLE_DEPTH] * 1e-3, ch = v[HOLE_CHAMFER] * 1e-3;
  double bh = 0.5 * (v[HOLE_SIDE] * 1e-3), height = v[HOLE_HEIGHT] * 1e-3;
  double chord = v[HOLE_CHORD] * 1e-6;
  if (depth >= height) {
    snprintf(err, errlen, "part 'hole': depth_mm must be below block_height_mm (%g >= %g)",
             v[HOLE_DEPTH], v[HOLE_HEIGHT]);
    return -1;
  }
  if (ch >= 0.5 * depth || ch >= rb) {
    snprintf(err, errlen,
             "part 'hole': chamfer_mm must be under half of depth_mm and the bore's radius "
             "(got %g mm)",
             v[HOLE_CHAMFER]);
    return -1;
  }
  double rim = rb + ch;
  // the pocket's corner sits sqrt(2) further out than its side
  double reach = square ? rim * sqrt(2.0) : rim;
  if (reach > bh - 0.0005) {
    snprintf(err, errlen,
             "part 'hole': block_side_mm must leave at least 0.5 mm of wall around "
             "the %s (got %g mm)",
             square ? "pocket" : "bore", v[HOLE_SIDE]);
    return -1;
  }
  tf_profile_mesh m;
  memset(&m, 0, sizeof(m));
  out->aabb[0] = out->aabb[1] = -bh, out->aabb[2] = -height;
  out->aabb[3] = out->aabb[4] = bh, out->aabb[5] = 0;
  out->error_bound = 0;
  if (!square) {
    round_hole_sdf* s = calloc(1, sizeof(*s));
    double* theta = NULL;
    int nt = uniform_stations(&theta, rim, chord);
    size_t per = (size_t)(nt > 0 ? nt : 1);
    int* ring = malloc(sizeof(int) * (4 * per + 16));
    double* ang = malloc(sizeof(double) * (per + 8));
    if (!s || nt < 0 || !ring || !ang) {
      free(s), free(theta), free(ring), free(ang);
      snprintf(err, errlen, "part 'hole': out of memory");
      return -1;
    }
    // B's section: the block's bottom, a far wall, the top face, the chamfer, the bore
    double far = 2 * bh * sqrt(2.0) + height;
    double sec[7][2] = {{0, -height}, {far, -height}, {far, 0},   {rim, 0},
                        {rb, -ch},    {rb, -depth},   {0, -depth}};
    int ns = dedupe(sec, 7);
    s->block_half = bh, s->block_height = height;
    section_set(&s->bore, (const double(*)[2])sec, ns);
    // the bore's surface from the rim down to the floor's centre
    double prof[4][2] = {{rim, 0}, {rb, -ch}, {rb, -depth}, {0, -depth}};
    int np = dedupe(prof, 4);
    int* rim_ring = ring;
    int* floor_ring = ring + per;
    int* top = ring + 2 * per;
    int* bottom = top + per + 4;
    tf_profile_mesh_lathe(&m, rim_ring, floor_ring, (const double(*)[2])prof, np, theta, nt);
    int no = tf_profile_mesh_polygon_ring(&m, top, ang, theta, nt, 4, bh, 0, 0);
    tf_profile_mesh_polygon_ring(&m, bottom, ang, theta, nt, 4, bh, 0, -height);
    tf_profile_mesh_zip(&m, rim_ring, theta, nt, top, ang, no, 1);
    tf_profile_mesh_strip(&m, top, bottom, no, 0);
    int centre = tf_profile_mesh_vertex(&m, 0, 0, -height);
    tf_profile_mesh_fan(&m, centre, bottom, no, 1);
    out->chord_error = rim * (1 - cos(0.5 * largest_gap(theta, nt)));
    free(theta), free(ring), free(ang);
    out->fn = sdf_hole_round, out->params = s, out->params_size = sizeof(*s);
    return finish_mesh(&m, out, err, errlen, "hole");
  }
  poly_sdf* s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(err, errlen, "part 'hole': out of memory");
    return -1;
  }
  s->hole = 1, s->half = rb, s->chamfer = ch, s->length = depth;
  s->block_half = bh, s->block_height = height;
  int otop[4], obot[4], open[4], wall[4], floor_[4];
  square_ring(&m, otop, bh, 0);
  square_ring(&m, obot, bh, -height);
  square_ring(&m, open, rim, 0);
  if (ch > 0) {
    square_ring(&m, wall, rb, -ch);
  } else {
    memcpy(wall, open, sizeof(wall));
  }
  square_ring(&m, floor_, rb, -depth);
  square_band(&m, obot, otop, 0);                // outer sides
  quad(&m, obot[3], obot[2], obot[1], obot[0]);  // bottom
  for (int k = 0; k < 4; k++) {                  // the top face, a square annulus
    int k1 = (k + 1) % 4;
    quad(&m, open[k], otop[k], otop[k1], open[k1]);
  }
  if (ch > 0) square_band(&m, wall, open, 1);            // the chamfer, facing the axis
  square_band(&m, floor_, wall, 1);                      // the pocket's walls
  quad(&m, floor_[0], floor_[1], floor_[2], floor_[3]);  // the floor, looking up
  copy_triangles(s, &m);
  out->chord_error = 0;
  out->fn = sdf_poly, out->params = s, out->params_size = sizeof(*s);
  return finish_mesh(&m, out, err, errlen, "hole");
}

const tf_part_info tf_part_hole = {
    "hole",
    "block with a round bore or square pocket (peg size + 2 clearance), top face z = 0 (exact "
    "SDF)",
    hole_params,
    HOLE_N,
    build_hole,
};
