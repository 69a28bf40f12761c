// Bolts and nuts (assets/part_thread.c, on the sections of assets/sdf_profile.c), M4 and M16.
// Exactness: at 10,000 random points within 0.5 mm of the surface the analytic SDF matches
// brute force, the closest point on a fine mesh of the same part (chord error under 0.2 um)
// signed by an independent membership test, within 1 um; at 1,000 of them it matches a local
// minimisation on the parametric surface (the thread's section rebuilt here from the ISO
// numbers, swept around the axis) within the part's error bound and is never above it.
// Gradients are unit length and agree with finite differences; mesh vertices lie on the
// independently computed surface. Thread fit: a nut resting on a bolt's flanks touches them
// (0 +- 1 um), its other flanks stand off 2 delta tan 30 cos 30 and overlap by 10 um cos 30
// when lifted by 2 delta tan 30 + 10 um. Bad parameters are refused with a useful message.
// The feature table (sdf=table, the default) against the section search everywhere
// (sdf=search): at 100,000 points within 0.5 mm of each part, and 20,000 more by the thread's
// ends (chamfer, head, faces, countersinks, where the table must hand over), the two agree
// within the error bound and the table never claims more than the truth; the table alone,
// queried over its radii, answers every point there and matches the search to rounding.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_brute_force.h"
#include "test_rng.h"
#include "parts.h"
#include "parts_internal.h"
#include "thread_table.h"

#define NPOINT 10000
#define NREF 10000     // points checked against the parametric minimisation
#define NTABLE 100000  // points checked of the feature table against the section search
#define SHELL 0.5e-3   // m
#define TWO_PI 6.283185307179586
#define TAN30 0.5773502691896257

// ---------------------------------------------------------------- helpers

// qsort order of doubles
static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

// ---------------------------------------------------------------- the parts, rebuilt here

// ISO 261 / 68-1 / 4032 / 4017 / 965-1 numbers (mm, um)
typedef struct iso_row {
  const char* name;
  double d, p, s, k, m, es, td2, tD2;
} iso_row;

static const iso_row iso_m4 = {"M4", 4, 0.7, 7, 2.8, 3.2, 22, 90, 118};
static const iso_row iso_m16 = {"M16", 16, 2.0, 24, 10, 14.8, 38, 160, 212};

// a bolt or nut as this test understands it, from the standard and the documented frame
typedef struct thread_part {
  int nut;
  double pitch, lead;  // m, m / rad
  double rmaj, rmin;   // the thread profile's crest and root radii (bolt: less delta)
  double apothem;      // hex: half across flats
  double z0, z1;       // threaded length: bolt 0..length, nut 0..m
  double head;         // bolt: head height k
  double rtip;         // bolt: tip face radius (45 deg chamfer)
  double rcs;          // nut: countersink radius at the faces (90 deg)
  double far;          // the section's made-up outer wall (beyond the thread's reach)
} thread_part;

// the part's dimensions from the ISO row, the allowance and the bolt's length
static thread_part make_part(const iso_row* iso, int nut, double delta, double length) {
  thread_part t;
  memset(&t, 0, sizeof(t));
  t.nut = nut;
  t.pitch = iso->p * 1e-3, t.lead = t.pitch / TWO_PI;
  double h = sqrt(3.0) / 2 * t.pitch;
  t.rmaj = iso->d * 0.5e-3 - delta, t.rmin = t.rmaj - 5 * h / 8;
  t.apothem = iso->s * 0.5e-3;
  if (nut) {
    t.z0 = 0, t.z1 = iso->m * 1e-3;
    t.rcs = 0.525 * iso->d * 1e-3;
    t.far = 4 * t.apothem;
  } else {
    t.z0 = 0, t.z1 = length;
    t.head = iso->k * 1e-3;
    t.rtip = t.rmin - t.pitch / 8;
    t.far = 0.5 * (iso->d * 0.5e-3 + t.apothem);
  }
  return t;
}

// the ISO 68-1 basic profile: crest P / 8 wide centred on zeta = 0, 60 deg flanks, root P / 4
static double profile_radius(const thread_part* t, double zeta) {
  double u = zeta / t->pitch - floor(zeta / t->pitch);
  double depth = t->rmaj - t->rmin;
  if (u < 1.0 / 16 || u >= 15.0 / 16) return t->rmaj;
  if (u < 3.0 / 8) return t->rmaj - depth * (u - 1.0 / 16) / (5.0 / 16);
  if (u < 5.0 / 8) return t->rmin;
  return t->rmin + depth * (u - 5.0 / 8) / (5.0 / 16);
}

// the threaded surface's radius at (theta, z): the profile clamped by the tip chamfer (bolt)
// or raised by the two countersinks (nut)
static double surface_radius(const thread_part* t, double theta, double z) {
  double f = profile_radius(t, z - t->lead * theta);
  if (!t->nut) return fmin(f, t->rtip + (t->z1 - z));
  return fmax(f, fmax(t->rcs - z, t->rcs - (t->z1 - z)));
}

// inside the hex prism between z0 and z1
static int inside_hex(const thread_part* t, const double p[3], double z0, double z1) {
  if (p[2] < z0 || p[2] > z1) return 0;
  for (int k = 0; k < 6; k++) {
    if (p[0] * cos(k * TWO_PI / 6) + p[1] * sin(k * TWO_PI / 6) > t->apothem) return 0;
  }
  return 1;
}

// membership of the whole part, straight from the description
static int inside_part(const thread_part* t, const double p[3]) {
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]), theta = atan2(p[1], p[0]);
  if (!t->nut) {
    if (inside_hex(t, p, -t->head, 0)) return 1;
    return p[2] >= 0 && p[2] <= t->z1 && rho <= surface_radius(t, theta, p[2]);
  }
  return inside_hex(t, p, 0, t->z1) && rho >= surface_radius(t, theta, p[2]);
}

// exact distance to the hex prism between z0 and z1 (flats facing +-x and every 60 deg)
static double hex_prism_dist(const thread_part* t, const double p[3], double z0, double z1) {
  double rc = t->apothem / cos(TWO_PI / 12), best = INFINITY;
  for (int k = 0; k < 6; k++) {
    double a0 = TWO_PI / 12 + k * TWO_PI / 6, a1 = a0 + TWO_PI / 6;
    double ax = rc * cos(a0), ay = rc * sin(a0), ex = rc * cos(a1) - ax, ey = rc * sin(a1) - ay;
    double s = fmin(1, fmax(0, ((p[0] - ax) * ex + (p[1] - ay) * ey) / (ex * ex + ey * ey)));
    double dx = p[0] - ax - s * ex, dy = p[1] - ay - s * ey;
    best = fmin(best, dx * dx + dy * dy);
  }
  int in = 1;
  for (int k = 0; k < 6; k++) {
    if (p[0] * cos(k * TWO_PI / 6) + p[1] * sin(k * TWO_PI / 6) > t->apothem) in = 0;
  }
  double d2 = in ? -sqrt(best) : sqrt(best);
  double dz = fabs(p[2] - 0.5 * (z0 + z1)) - 0.5 * (z1 - z0);
  if (d2 <= 0 && dz <= 0) return fmax(d2, dz);
  double a = fmax(d2, 0), b = fmax(dz, 0);
  return sqrt(a * a + b * b);
}

// squared distance from q to segment ab in the plane
static double seg_dist2(const double q[2], const double a[2], const double b[2]) {
  double e[2] = {b[0] - a[0], b[1] - a[1]}, d[2] = {q[0] - a[0], q[1] - a[1]};
  double ee = e[0] * e[0] + e[1] * e[1];
  double s = ee > 0 ? fmin(1, fmax(0, (d[0] * e[0] + d[1] * e[1]) / ee)) : 0;
  double x = d[0] - s * e[0], y = d[1] - s * e[1];
  return x * x + y * y;
}

// squared plane distance from q = (r, z) to the section's boundary at angle theta, the
// threaded surface taken within [za, zb]: the graph of surface_radius through every point
// where it can bend (profile corners, their crossings with the chamfer or countersinks)
static double section_dist2(const thread_part* t, double theta, const double q[2], double za,
                            double zb) {
  double zs[512];
  int n = 0;
  za = fmax(za, t->z0), zb = fmin(zb, t->z1);
  double best = INFINITY;
  // the static pieces and the thread's two ends
  double e0[2] = {surface_radius(t, theta, t->z0), t->z0};
  double e1[2] = {surface_radius(t, theta, t->z1), t->z1};
  if (!t->nut) {
    double pre[4][2] = {{0, -t->head}, {t->far, -t->head}, {t->far, 0}, {e0[0], e0[1]}};
    for (int i = 0; i < 3; i++) best = fmin(best, seg_dist2(q, pre[i], pre[i + 1]));
    double tip[2] = {0, t->z1};
    best = fmin(best, seg_dist2(q, e1, tip));
  } else {
    double a[2] = {t->far, t->z0}, b[2] = {t->far, t->z1};
    best = fmin(best, seg_dist2(q, a, e0));
    best = fmin(best, seg_dist2(q, e1, b));
    best = fmin(best, seg_dist2(q, a, b));
  }
  if (za >= zb) return best;
  // candidate bends: corners of the profile, and each profile segment against each line
  const double corner[4] = {1.0 / 16, 3.0 / 8, 5.0 / 8, 15.0 / 16};
  double shift = t->lead * theta;
  zs[n++] = za, zs[n++] = zb;
  for (double per = floor((za - shift) / t->pitch) - 1; per * t->pitch + shift < zb + t->pitch;
       per++) {
    for (int c = 0; c < 4; c++) {
      double z = shift + (per + corner[c]) * t->pitch;
      double zn = shift + (per + (c < 3 ? corner[c + 1] : 1 + corner[0])) * t->pitch;
      if (z > za && z < zb && n < 500) zs[n++] = z;
      // the segment from this corner to the next, as r = r0 + slope (z - z)
      double r0 = profile_radius(t, z - shift), r1 = profile_radius(t, zn - shift);
      double slope = (r1 - r0) / (zn - z);
      double lines[2][2];  // r = a + b z
      int nl = 0;
      if (!t->nut) {
        lines[nl][0] = t->rtip + t->z1, lines[nl++][1] = -1;
      } else {
        lines[nl][0] = t->rcs, lines[nl++][1] = -1;
        lines[nl][0] = t->rcs - t->z1, lines[nl++][1] = 1;
      }
      for (int l = 0; l < nl; l++) {
        if (lines[l][1] == slope) continue;
        double zc = (r0 - slope * z - lines[l][0]) / (lines[l][1] - slope);
        if (zc > fmax(z, za) && zc < fmin(zn, zb) && n < 500) zs[n++] = zc;
      }
    }
  }
  qsort(zs, (size_t)n, sizeof(double), cmp_double);
  double prev[2] = {surface_radius(t, theta, zs[0]), zs[0]};
  for (int i = 1; i < n; i++) {
    double cur[2] = {surface_radius(t, theta, zs[i]), zs[i]};
    best = fmin(best, seg_dist2(q, prev, cur));
    prev[0] = cur[0], prev[1] = cur[1];
  }
  return best;
}

// the section solid (bolt: head slab + shank; nut: slab between the faces outside the bore)
static int section_inside(const thread_part* t, const double p[3]) {
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]), theta = atan2(p[1], p[0]);
  if (!t->nut) {
    if (p[2] >= -t->head && p[2] <= 0 && rho <= t->far) return 1;
    return p[2] >= 0 && p[2] <= t->z1 && rho <= surface_radius(t, theta, p[2]);
  }
  return p[2] >= t->z0 && p[2] <= t->z1 && rho <= t->far && rho >= surface_radius(t, theta, p[2]);
}

// the distance to the section solid by local minimisation on the swept surface: a point of
// the half-plane at theta + phi lies at |p - q|^2 = (rho cos phi - r)^2 + (z - zq)^2 +
// (rho sin phi)^2, so minimise the plane distance plus (rho sin phi)^2 over phi
static double section_dist(const thread_part* t, const double p[3]) {
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]), theta = atan2(p[1], p[0]);
  double q0[2] = {rho, p[2]};
  double dm = sqrt(section_dist2(t, theta, q0, -INFINITY, INFINITY));
  double win = dm + t->pitch;
  double phimax = dm >= rho ? M_PI : fmin(M_PI, 1.1 * asin(dm / rho) + 1e-6);
  enum { SAMPLES = 96 };
  double best = INFINITY, bphi = 0;
  for (int i = 0; i <= SAMPLES; i++) {
    double phi = -phimax + 2 * phimax * i / SAMPLES;
    double q[2] = {rho * cos(phi), p[2]};
    double v =
        section_dist2(t, theta + phi, q, p[2] - win, p[2] + win) + rho * rho * sin(phi) * sin(phi);
    if (v < best) best = v, bphi = phi;
  }
  // golden section on the bracket around the best sample
  double a = bphi - 2 * phimax / SAMPLES, b = bphi + 2 * phimax / SAMPLES;
  const double gr = 0.6180339887498949;
  double x1 = b - gr * (b - a), x2 = a + gr * (b - a), f[2];
  for (int k = 0; k < 2; k++) {
    double phi = k ? x2 : x1, q[2] = {rho * cos(phi), p[2]};
    f[k] =
        section_dist2(t, theta + phi, q, p[2] - win, p[2] + win) + rho * rho * sin(phi) * sin(phi);
  }
  for (int it = 0; it < 70; it++) {
    if (f[0] < f[1]) {
      b = x2, x2 = x1, f[1] = f[0], x1 = b - gr * (b - a);
      double q[2] = {rho * cos(x1), p[2]};
      f[0] =
          section_dist2(t, theta + x1, q, p[2] - win, p[2] + win) + rho * rho * sin(x1) * sin(x1);
    } else {
      a = x1, x1 = x2, f[0] = f[1], x2 = a + gr * (b - a);
      double q[2] = {rho * cos(x2), p[2]};
      f[1] =
          section_dist2(t, theta + x2, q, p[2] - win, p[2] + win) + rho * rho * sin(x2) * sin(x2);
    }
  }
  double d = sqrt(fmin(best, fmin(f[0], f[1])));
  return section_inside(t, p) ? -d : d;
}

// the whole part from the section solid's distance s: bolt = section solid joined with the
// head, nut = section solid within the hex
static double reference_dist(const thread_part* t, const double p[3], double s) {
  if (!t->nut) return fmin(s, hex_prism_dist(t, p, -t->head, 0));
  return fmax(s, hex_prism_dist(t, p, 0, t->z1));
}

// ---------------------------------------------------------------- checks

// builds a part, failing the test with the message if it is refused
static void build(tf_part_geometry* g, const char* name, const tf_kv* kv, int nkv) {
  char err[512];
  int rc = tf_part_build(name, kv, nkv, g, err, sizeof(err));
  if (rc) print_message("%s\n", err);
  assert_int_equal(rc, 0);
}

// a part against everything: mesh, vertices on the surface, chord error, brute force on the
// mesh, the parametric minimisation, gradients
static void check_thread_part(const iso_row* iso, int nut) {
  const char* name = nut ? "nut" : "bolt";
  double length = 0.012;
  tf_kv kv[] = {{"size", iso->name}, {"chord_um", "0.1"}, {"length_mm", "12"}};
  tf_part_geometry g;
  build(&g, name, kv, nut ? 2 : 3);
  thread_part t = make_part(iso, nut, nut ? 0 : 0.5 * iso->es * 1e-6, length);

  double vol;
  assert_int_equal(check_watertight(&g, &vol), nut ? 0 : 2);  // a nut is a torus
  assert_true(vol > 0);
  assert_true(g.chord_error < 0.2e-6);
  assert_true(g.error_bound > 0 && g.error_bound <= 1e-8);
  // every vertex on the surface as described (thread, faces, hex), and on the SDF's zero set
  double grad[3];
  for (int i = 0; i < g.nvert; i++) {
    const double* v = g.vert + 3 * i;
    double rho = sqrt(v[0] * v[0] + v[1] * v[1]);
    double hex = fabs(hex_prism_dist(&t, v, nut ? 0 : -t.head, nut ? t.z1 : 0));
    double thread = v[2] >= t.z0 && v[2] <= t.z1
                        ? fabs(rho - surface_radius(&t, atan2(v[1], v[0]), v[2]))
                        : INFINITY;
    double axis = rho < 1e-15 ? 0 : INFINITY;  // the centres of the head and tip faces
    assert_true(fmin(fmin(hex, thread), axis) < 1e-12);
    assert_true(fabs(g.fn(g.params, v, grad)) < 1e-12);
  }
  // the mesh stays within its chord error: points inside each triangle
  double chord = 0;
  for (int f = 0; f < g.nface; f++) {
    const int* fv = g.face + 3 * f;
    double p[3];
    for (int k = 0; k < 3; k++) {
      double a = g.vert[3 * fv[0] + k], b = g.vert[3 * fv[1] + k], c = g.vert[3 * fv[2] + k];
      p[k] = (a + b + c) / 3;
    }
    chord = fmax(chord, fabs(g.fn(g.params, p, grad)));
  }
  assert_true(chord <= g.chord_error + g.error_bound);

  test_rng rng = {0x7EAD ^ (uint64_t)(iso->d * 10) ^ (uint64_t)nut};
  double* pts = malloc(sizeof(double) * 3 * NPOINT);
  assert_non_null(pts);
  sample_near(pts, NPOINT, &g, SHELL, &rng);
  tri_grid grid;
  grid_build(&grid, &g, 0.25e-3, 2 * SHELL);
  double worst = 0, worst_above = -INFINITY, worst_norm = 0, worst_fd = 0;
  double worst_ref = 0, worst_ref_above = -INFINITY, worst_cos = 0;
  for (int i = 0; i < NPOINT; i++) {
    const double* p = pts + 3 * i;
    double d = g.fn(g.params, p, grad);
    double ref = grid_nearest(&grid, p);
    if (inside_part(&t, p)) ref = -ref;
    worst = fmax(worst, fabs(d - ref));
    worst_above = fmax(worst_above, d - ref);
    worst_norm =
        fmax(worst_norm, fabs(sqrt(grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2]) - 1));
    if (i < NREF) {
      double s = section_dist(&t, p);
      double exact = reference_dist(&t, p, s);
      worst_ref = fmax(worst_ref, fabs(d - exact));
      worst_ref_above = fmax(worst_ref_above, d - exact);
      // what the plain meridional distance times cos(lead angle at the minor radius) gives
      double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
      double q[2] = {rho, p[2]};
      double dm = sqrt(section_dist2(&t, atan2(p[1], p[0]), q, -INFINITY, INFINITY));
      double dcos = dm * t.rmin / sqrt(t.rmin * t.rmin + t.lead * t.lead);
      if (fabs(s) < SHELL &&
          fabs(s) < fabs(hex_prism_dist(&t, p, nut ? 0 : -t.head, nut ? t.z1 : 0))) {
        worst_cos = fmax(worst_cos, fabs(dcos - fabs(s)));
      }
    }
    if (i % 10 == 0) {
      // the gradient is the distance's derivative (central differences), except on the
      // medial axis, where the nearest point jumps and the gradients either side differ
      double h = 1e-7, fd[3], ga[3], gb[3], jump = 0;
      for (int k = 0; k < 3; k++) {
        double a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
        a[k] += h, b[k] -= h;
        fd[k] = (g.fn(g.params, a, ga) - g.fn(g.params, b, gb)) / (2 * h);
        for (int j = 0; j < 3; j++) jump = fmax(jump, fabs(ga[j] - gb[j]));
      }
      double e =
          sqrt((fd[0] - grad[0]) * (fd[0] - grad[0]) + (fd[1] - grad[1]) * (fd[1] - grad[1]) +
               (fd[2] - grad[2]) * (fd[2] - grad[2]));
      if (jump < 1e-3) worst_fd = fmax(worst_fd, e);
    }
  }
  print_message(
      "%s %s: %d triangles, chord %.3g um (sampled %.3g); vs mesh: |sdf - brute| <= "
      "%.3g um, sdf - brute <= %.3g um; vs parametric (%d pts): |sdf - exact| <= %.3g "
      "nm, sdf - exact <= %.3g nm (plain cos(lambda) would be off by %.3g um); "
      "||grad| - 1| <= %.2g, |grad - fd| <= %.2g\n",
      name, iso->name, g.nface, g.chord_error * 1e6, chord * 1e6, worst * 1e6, worst_above * 1e6,
      NREF, worst_ref * 1e9, worst_ref_above * 1e9, worst_cos * 1e6, worst_norm, worst_fd);
  assert_true(worst < 1e-6);
  assert_true(worst <= g.chord_error + g.error_bound);
  assert_true(worst_above <= g.chord_error);
  assert_true(worst_ref <= g.error_bound);
  assert_true(worst_ref_above <= 1e-15);  // a lower bound (up to the hex prism's rounding)
  assert_true(worst_norm < 1e-6);
  assert_true(worst_fd < 1e-5);
  grid_free(&grid);
  free(pts);
  tf_part_geometry_free(&g);
}

// ---------------------------------------------------------------- tests

// M4 bolt against brute force and the parametric minimisation
static void test_bolt_m4_exact(void** state) {
  (void)state;
  check_thread_part(&iso_m4, 0);
}

// M4 nut against brute force and the parametric minimisation
static void test_nut_m4_exact(void** state) {
  (void)state;
  check_thread_part(&iso_m4, 1);
}

// M16 bolt against brute force and the parametric minimisation
static void test_bolt_m16_exact(void** state) {
  (void)state;
  check_thread_part(&iso_m16, 0);
}

// M16 nut against brute force and the parametric minimisation
static void test_nut_m16_exact(void** state) {
  (void)state;
  check_thread_part(&iso_m16, 1);
}

// the part built twice, with the feature table and with the section search everywhere
static void build_both(tf_part_geometry* table, tf_part_geometry* search, const iso_row* iso,
                       int nut, const char* length) {
  tf_kv kt[] = {{"size", iso->name}, {"sdf", "table"}, {"length_mm", length}};
  tf_kv ks[] = {{"size", iso->name}, {"sdf", "search"}, {"length_mm", length}};
  build(table, nut ? "nut" : "bolt", kt, nut ? 2 : 3);
  build(search, nut ? "nut" : "bolt", ks, nut ? 2 : 3);
  assert_true(table->params_size > search->params_size);  // the cells came along
}

// table against search at n points: |difference| within the error bound, the table never
// above the search by more than the search's own margin below the truth (1e-11 d + 1e-15:
// so never above the true distance), unit gradients. Where the two differ by more than
// rounding (the search's polish rarely stops short, by up to ~1e-12 m) the parametric
// minimisation decides, and the table must be the one within rounding of it. Returns the
// largest difference; *above the largest table - search - margin, *judged the points decided
static double table_vs_search(const tf_part_geometry* table, const tf_part_geometry* search,
                              const thread_part* t, const double* pts, int n, double* above,
                              int* judged) {
  double worst = 0, norm = 0;
  *above = -INFINITY;
  *judged = 0;
  for (int i = 0; i < n; i++) {
    const double* p = pts + 3 * i;
    double gt[3], gs[3];
    double dt = table->fn(table->params, p, gt), ds = search->fn(search->params, p, gs);
    double margin = 1e-11 * fabs(ds) + 1e-15;
    if (fabs(dt - ds) > margin + 1e-15) {
      double exact = reference_dist(t, p, section_dist(t, p));
      double m = 1e-11 * fabs(exact) + 1e-15;
      print_message("  at (%.17g, %.17g, %.17g): table %.17g search %.17g parametric %.17g\n", p[0],
                    p[1], p[2], dt, ds, exact);
      assert_true(dt <= exact + 1e-15 && dt >= exact - m - 1e-14);
      (*judged)++;
    } else {
      *above = fmax(*above, dt - ds - margin);
    }
    worst = fmax(worst, fabs(dt - ds));
    norm = fmax(norm, fabs(sqrt(gt[0] * gt[0] + gt[1] * gt[1] + gt[2] * gt[2]) - 1));
  }
  assert_true(worst <= table->error_bound);
  assert_true(*above <= 0);
  assert_true(norm < 1e-12);
  return worst;
}

// a part near its surface and near its thread's ends
static void check_table_part(const iso_row* iso, int nut) {
  tf_part_geometry table, search;
  double length = 0.02;
  build_both(&table, &search, iso, nut, "20");
  assert_true(table.error_bound == search.error_bound);
  test_rng rng = {0x7AB1E ^ (uint64_t)(iso->d * 10) ^ (uint64_t)nut};
  double* pts = malloc(sizeof(double) * 3 * NTABLE);
  assert_non_null(pts);
  sample_near(pts, NTABLE, &search, SHELL, &rng);
  thread_part t = make_part(iso, nut, nut ? 0 : 0.5 * iso->es * 1e-6, length);
  int judged, judged_end;
  double above, worst = table_vs_search(&table, &search, &t, pts, NTABLE, &above, &judged);
  // by the ends: within 1.5 pitches + the shell of the chamfer's start, the head's face, the
  // nut's faces (the countersinks reach past that): the table's window ends there
  double p = iso->p * 1e-3, top = nut ? iso->m * 1e-3 : length;
  double reach = 1.5 * p + SHELL + (nut ? 0.525 * iso->d * 1e-3 - 0.5 * iso->d * 1e-3 : 0);
  int nend = 0;
  while (nend < NTABLE / 5) {
    double q[3 * 1024];
    sample_near(q, 1024, &search, SHELL, &rng);
    for (int i = 0; i < 1024 && nend < NTABLE / 5; i++) {
      double z = q[3 * i + 2], rho = sqrt(q[3 * i] * q[3 * i] + q[3 * i + 1] * q[3 * i + 1]);
      double chamfer = nut ? top
                           : top - (0.5 * iso->d * 1e-3 - 0.5 * iso->es * 1e-6 -
                                    (5.0 / 8 * sqrt(3.0) / 2 * p - p / 8));
      int end = fabs(z) < reach || fabs(z - top) < reach || fabs(z - chamfer) < reach;
      if (end && rho < 0.5 * iso->d * 1e-3 + p) {
        memcpy(pts + 3 * nend, q + 3 * i, sizeof(double) * 3);
        nend++;
      }
    }
  }
  double above_end,
      worst_end = table_vs_search(&table, &search, &t, pts, nend, &above_end, &judged_end);
  print_message(
      "%s %s table vs search: %d points near the surface |diff| <= %.3g m, table - search - "
      "margin <= %.3g m (%d decided by the parametric minimisation); %d by the ends |diff| <= "
      "%.3g m, %.3g m (%d decided); error bound %.3g m; params %zu bytes (search %zu)\n",
      nut ? "nut" : "bolt", iso->name, NTABLE, worst, above, judged, nend, worst_end, above_end,
      judged_end, table.error_bound, table.params_size, search.params_size);
  free(pts);
  tf_part_geometry_free(&table);
  tf_part_geometry_free(&search);
}

// M4 and M16 bolts and nuts: the table where it applies, the search elsewhere, as the search
static void test_table_vs_search(void** state) {
  (void)state;
  check_table_part(&iso_m4, 0);
  check_table_part(&iso_m4, 1);
  check_table_part(&iso_m16, 0);
  check_table_part(&iso_m16, 1);
}

// the table build against the search at the given points (as table_vs_search: never above
// it, the parametric minimisation deciding any disagreement, unit gradients), and their
// gradients alike but where two features are equally near (the medial axis)
static void compare_builds(const iso_row* iso, int nut, const double* pts, int n,
                           const char* where) {
  tf_part_geometry table, search;
  build_both(&table, &search, iso, nut, "20");
  thread_part t = make_part(iso, nut, nut ? 0 : 0.5 * iso->es * 1e-6, 0.02);
  int judged, ties = 0;
  double above, worst = table_vs_search(&table, &search, &t, pts, n, &above, &judged);
  double worst_grad = 0;
  for (int i = 0; i < n; i++) {
    double gt[3], gs[3];
    table.fn(table.params, pts + 3 * i, gt);
    search.fn(search.params, pts + 3 * i, gs);
    double e = sqrt((gt[0] - gs[0]) * (gt[0] - gs[0]) + (gt[1] - gs[1]) * (gt[1] - gs[1]) +
                    (gt[2] - gs[2]) * (gt[2] - gs[2]));
    if (e > 1e-3) {
      ties++;
    } else {
      worst_grad = fmax(worst_grad, e);
    }
  }
  print_message(
      "%s %s %s: %d points |table - search| <= %.3g m, table - search - margin <= %.3g m (%d "
      "decided by the parametric minimisation), |grad - search's| <= %.2g (%d on the medial "
      "axis)\n",
      nut ? "nut" : "bolt", iso->name, where, n, worst, above, judged, worst_grad, ties);
  assert_true(worst_grad < 1e-4);  // the search's own polish leaves its normal ~1e-5 off
  assert_true(ties < n / 1000 + 1);
  tf_part_geometry_free(&table);
  tf_part_geometry_free(&search);
}

enum { NENDS = 40000 };

// a nut's ends, where the table also answers beside the countersinks and faces (the infinite
// thread cut by the (r, z) polygon of faces, wall and countersinks: part_thread.c): points
// all around both ends, in the bore, the countersinks, the material and beyond the faces
static void check_nut_ends(const iso_row* iso) {
  thread_part t = make_part(iso, 1, 0, 0.02);
  test_rng rng = {0xE2D5 ^ (uint64_t)(iso->d * 10)};
  double* pts = malloc(sizeof(double) * 3 * NENDS);
  assert_non_null(pts);
  double p = iso->p * 1e-3, m = iso->m * 1e-3, rcs = 0.525 * iso->d * 1e-3;
  for (int i = 0; i < NENDS; i++) {
    double rho = rng_uniform(&rng, t.rmin - p, rcs + 1e-3);
    double theta = rng_uniform(&rng, -M_PI, M_PI), dz = rng_uniform(&rng, -1e-3, 2 * p);
    double z = i % 2 ? m - dz : dz;
    pts[3 * i] = rho * cos(theta), pts[3 * i + 1] = rho * sin(theta), pts[3 * i + 2] = z;
  }
  compare_builds(iso, 1, pts, NENDS, "ends");
  free(pts);
}

// the core: the table reaches down to half the profile's least radius (SDF x SDF starts
// there), the search below; points from 0.4 of that radius out to the thread, along the
// threaded length away from its ends
static void check_core(const iso_row* iso, int nut) {
  thread_part t = make_part(iso, nut, nut ? 0 : 0.5 * iso->es * 1e-6, 0.02);
  test_rng rng = {0xC02E ^ (uint64_t)(iso->d * 10) ^ (uint64_t)nut};
  double* pts = malloc(sizeof(double) * 3 * NENDS);
  assert_non_null(pts);
  double p = iso->p * 1e-3, top = nut ? iso->m * 1e-3 : 0.02;
  for (int i = 0; i < NENDS; i++) {
    double rho = rng_uniform(&rng, 0.4 * t.rmin, t.rmin);
    double theta = rng_uniform(&rng, -M_PI, M_PI), z = rng_uniform(&rng, 2 * p, top - 2 * p);
    pts[3 * i] = rho * cos(theta), pts[3 * i + 1] = rho * sin(theta), pts[3 * i + 2] = z;
  }
  compare_builds(iso, nut, pts, NENDS, "core");
  free(pts);
}

// a bolt's ends, where the table also answers by the tip (the infinite thread cut by the
// (r, z) polygon of the tip face and chamfer, whenever the answer's ball stays above the
// head's top face: part_thread.c): points all around the tip face, the chamfer and the turns
// it cuts, in the material and beyond, from the axis out past the crests; and by the head,
// where the head's slab joins and the search must keep answering
static void check_bolt_ends(const iso_row* iso) {
  thread_part t = make_part(iso, 0, 0.5 * iso->es * 1e-6, 0.02);
  test_rng rng = {0xB017 ^ (uint64_t)(iso->d * 10)};
  double* pts = malloc(sizeof(double) * 3 * NENDS);
  assert_non_null(pts);
  double p = iso->p * 1e-3, chamfer = t.rmaj - t.rtip;
  for (int i = 0; i < NENDS; i++) {
    double rho = rng_uniform(&rng, 0, t.rmaj + 1e-3), theta = rng_uniform(&rng, -M_PI, M_PI);
    // three in four by the tip, from 1 mm above its face to 2 pitches below the chamfer
    double z = i % 4 ? t.z1 - rng_uniform(&rng, -1e-3, chamfer + 2 * p)
                     : rng_uniform(&rng, -0.5e-3, 2 * p);
    pts[3 * i] = rho * cos(theta), pts[3 * i + 1] = rho * sin(theta), pts[3 * i + 2] = z;
  }
  compare_builds(iso, 0, pts, NENDS, "ends");
  free(pts);
}

// a nut by its faces, from the thread out past the hex (the gripper around it), mostly beyond:
// the hex answers alone there (part_thread.c), against the parametric minimisation of the
// section within the hex
static void check_nut_beside_faces(const iso_row* iso) {
  enum { N = 2000 };
  tf_part_geometry g;
  tf_kv kv[] = {{"size", iso->name}};
  build(&g, "nut", kv, 1);
  thread_part t = make_part(iso, 1, 0, 0.02);
  test_rng rng = {0xFACE ^ (uint64_t)(iso->d * 10)};
  double corner = t.apothem / cos(M_PI / 6), worst = 0, above = -INFINITY;
  for (int i = 0; i < N; i++) {
    double rho = rng_uniform(&rng, t.rmin, corner + 1e-3), theta = rng_uniform(&rng, -M_PI, M_PI);
    double dz = rng_uniform(&rng, -1e-3, 2e-3), z = i % 2 ? t.z1 + dz : -dz, grad[3];
    double p[3] = {rho * cos(theta), rho * sin(theta), z};
    double d = g.fn(g.params, p, grad), exact = reference_dist(&t, p, section_dist(&t, p));
    worst = fmax(worst, fabs(d - exact)), above = fmax(above, d - exact);
    assert_true(fabs(sqrt(grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2]) - 1) < 1e-12);
  }
  print_message(
      "nut %s beside the faces: %d points |sdf - exact| <= %.3g m, sdf - exact <= %.3g m\n",
      iso->name, N, worst, above);
  assert_true(worst <= g.error_bound);
  assert_true(above <= 1e-15);
  tf_part_geometry_free(&g);
}

static void test_ends_and_cores(void** state) {
  (void)state;
  check_nut_ends(&iso_m4);
  check_nut_ends(&iso_m16);
  check_bolt_ends(&iso_m4);
  check_bolt_ends(&iso_m16);
  check_nut_beside_faces(&iso_m4);
  check_nut_beside_faces(&iso_m16);
  for (int nut = 0; nut < 2; nut++) {
    check_core(&iso_m4, nut);
    check_core(&iso_m16, nut);
  }
}

// the table module alone over its fine radii (a band of half a pitch around the profile) at
// points of the threaded length away from the ends: every point answered, within rounding of
// the search (whose value is the exact one less its margin), unit gradients along the
// search's; the profile is rebuilt here from the ISO numbers
static void check_table_module(const iso_row* iso, int nut) {
  thread_part t = make_part(iso, nut, nut ? 0 : 0.5 * iso->es * 1e-6, 0.04);
  tf_profile_thread th;
  memset(&th, 0, sizeof(th));
  th.pitch = t.pitch, th.nkink = 4;
  const double corner[4][2] = {{t.rmaj, t.pitch / 16},
                               {t.rmin, 3 * t.pitch / 8},
                               {t.rmin, 5 * t.pitch / 8},
                               {t.rmaj, 15 * t.pitch / 16}};
  memcpy(th.kink, corner, sizeof(corner));
  tf_thread_table tab;
  double band = 0.5 * t.pitch;
  size_t bytes = tf_thread_table_init(&tab, &th, nut, t.rmin - band, t.rmaj + band, 0, 64);
  assert_true(bytes > 0);
  unsigned char* cells = malloc(bytes);
  assert_non_null(cells);
  tf_thread_table_fill(&tab, cells);
  assert_int_equal(tab.nfallback, 0);
  tf_part_geometry search;
  tf_kv ks[] = {{"size", iso->name}, {"sdf", "search"}, {"length_mm", "40"}};
  build(&search, nut ? "nut" : "bolt", ks, nut ? 2 : 3);
  test_rng rng = {0x7AB1E5 ^ (uint64_t)(iso->d * 10) ^ (uint64_t)nut};
  double zmid = nut ? 0.5 * iso->m * 1e-3 : 0.02, worst = 0, worst_grad = 0, norm = 0;
  int ties = 0, judged = 0;
  for (int i = 0; i < NTABLE; i++) {
    double rho = rng_uniform(&rng, t.rmin - band, t.rmaj + band);
    double theta = rng_uniform(&rng, -M_PI, M_PI), dz = rng_uniform(&rng, -0.5, 0.5) * t.pitch;
    double p[3] = {rho * cos(theta), rho * sin(theta), zmid + dz};
    double phi, g[3], gs[3];
    // the point turned to angle 0: zeta = z - lead theta (theta as the part computes it)
    assert_int_equal(
        tf_thread_table_eval(&phi, g, &tab, cells, rho, p[2] - t.lead * atan2(p[1], p[0])), 1);
    double ds = search.fn(search.params, p, gs);
    // the search is the exact value less 1e-11 |d| + 1e-15; the table has no margin
    double margin = 1e-11 * fabs(ds) + 1e-15;
    double exact = ds + margin;
    int wrong = fabs(phi - exact) > 1e-14;
    if (wrong) {
      // the search stopped short (rarely, by up to ~1e-12 m): the parametric minimisation
      // on the infinite thread decides (the point's z, far from the ends, at angle 0)
      double q[3] = {rho, 0, p[2] - t.lead * atan2(p[1], p[0])};
      exact = section_dist(&t, q);
      print_message("  at rho %.17g zeta %.17g: table %.17g search %.17g parametric %.17g\n", rho,
                    q[2], phi, ds, exact);
      judged++;
    }
    worst = fmax(worst, fabs(phi - exact));
    // the gradient in x y z at the point's angle
    double c = p[0] / rho, s = p[1] / rho;
    double gx[3] = {g[0] * c - g[1] * s, g[0] * s + g[1] * c, g[2]};
    double e = sqrt((gx[0] - gs[0]) * (gx[0] - gs[0]) + (gx[1] - gs[1]) * (gx[1] - gs[1]) +
                    (gx[2] - gs[2]) * (gx[2] - gs[2]));
    norm = fmax(norm, fabs(sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) - 1));
    if (e > 1e-3) {
      ties++;  // two features at the same distance (the medial axis): either normal is right
    } else if (!wrong) {
      worst_grad = fmax(worst_grad, e);  // (the search's normal is off where its value is)
    }
  }
  print_message(
      "table %s %s: %d cells (%zu bytes), %d features; %d points: |table - exact| <= %.3g m "
      "(%d decided by the parametric minimisation), ||grad| - 1| <= %.2g, |grad - search's| "
      "<= %.2g (%d on the medial axis)\n",
      nut ? "nut" : "bolt", iso->name, tab.nr * tab.nz, bytes, tab.nfeature, NTABLE, worst, judged,
      norm, worst_grad, ties);
  assert_true(worst < 1e-14);
  assert_true(norm < 1e-12);
  assert_true(worst_grad < 1e-4);  // the search's own polish leaves its normal ~1e-5 off
  assert_true(ties < NTABLE / 1000);
  free(cells);
  tf_part_geometry_free(&search);
}

// the table module for M4 and M16 bolts and nuts
static void test_table_module(void** state) {
  (void)state;
  check_table_module(&iso_m4, 0);
  check_table_module(&iso_m4, 1);
  check_table_module(&iso_m16, 0);
  check_table_module(&iso_m16, 1);
}

// the nut's SDF at a world point, the nut's frame at height z0 turned by theta0
static double nut_sdf(const tf_part_geometry* nut, double z0, double theta0, const double p[3]) {
  double c = cos(theta0), s = sin(theta0), grad[3];
  double q[3] = {c * p[0] + s * p[1], -s * p[0] + c * p[1], p[2] - z0};
  return nut->fn(nut->params, q, grad);
}

// a point of the bolt's thread flank at radius r and angle theta, in the period n; upper:
// the flank facing +z (above the crest), else the one facing -z
static void bolt_flank_point(double p[3], const thread_part* t, double r, double theta, int n,
                             int upper) {
  double depth = t->rmaj - t->rmin, u = 5.0 / 16 * (t->rmaj - r) / depth;
  double zeta = (upper ? 1.0 / 16 + u : 15.0 / 16 - u) * t->pitch;
  p[0] = r * cos(theta), p[1] = r * sin(theta);
  p[2] = zeta + n * t->pitch + t->lead * theta;
}

// nut resting on the bolt's flanks, then lifted past its play
static void check_fit(const iso_row* iso, const char* fit, const char* clearance, double delta) {
  double length = 2 * iso->m * 1e-3 + 0.004;
  char len[32];
  snprintf(len, sizeof(len), "%.3f", length * 1e3);
  tf_kv kb[] = {{"size", iso->name}, {"length_mm", len}, {"fit", fit}, {"clearance_um", clearance}};
  tf_kv kn[] = {{"size", iso->name}};
  tf_part_geometry bolt, nut;
  build(&bolt, "bolt", kb, 4);
  build(&nut, "nut", kn, 1);
  thread_part tb = make_part(iso, 0, delta, length);
  double p = tb.pitch, r2 = iso->d * 0.5e-3 - 3.0 / 8 * sqrt(3.0) / 2 * p;  // pitch radius
  double play = 2 * delta * TAN30;
  // a turned nut engages where z0 - pitch theta0 / 2 pi is a whole number of pitches; it
  // rests (its lower flanks on the bolt's upper flanks) half the play lower
  double theta0 = 0.7;
  int n0 = (int)floor(0.25 * length / p);
  double z0 = n0 * p + tb.lead * theta0 - 0.5 * play;
  // the flank points of period nmid span about nmid p + [p / 4, 7 p / 4): centred in the nut
  int nmid = (int)floor((z0 + 0.5 * iso->m * 1e-3) / p - 0.5);
  double touch = 0, gap_lo = INFINITY, gap_hi = -INFINITY;
  for (int i = 0; i < 64; i++) {
    double theta = TWO_PI * i / 64, a[3], b[3];
    bolt_flank_point(a, &tb, r2, theta, nmid, 1);
    bolt_flank_point(b, &tb, r2, theta, nmid, 0);
    touch = fmax(touch, fabs(nut_sdf(&nut, z0, theta0, a)));
    double gap = nut_sdf(&nut, z0, theta0, b);
    gap_lo = fmin(gap_lo, gap), gap_hi = fmax(gap_hi, gap);
  }
  // nowhere do the two overlap: the bolt's vertices within the nut's reach
  double least = INFINITY;
  for (int i = 0; i < bolt.nvert; i++) {
    const double* v = bolt.vert + 3 * i;
    if (v[2] > z0 - 0.001 && v[2] < z0 + iso->m * 1e-3 + 0.001) {
      least = fmin(least, nut_sdf(&nut, z0, theta0, v));
    }
  }
  // lifted by the play and 10 um more: the upper flanks overlap by 10 um cos 30
  double lift = play + 10e-6, over_lo = INFINITY, over_hi = -INFINITY;
  for (int i = 0; i < 64; i++) {
    double theta = TWO_PI * i / 64, b[3];
    bolt_flank_point(b, &tb, r2, theta, nmid, 0);
    double d = nut_sdf(&nut, z0 + lift, theta0, b);
    over_lo = fmin(over_lo, d), over_hi = fmax(over_hi, d);
  }
  double want = play * cos(M_PI / 6);
  print_message(
      "fit %s %s (delta %.2f um): resting flanks |gap| <= %.3g um; other flanks gap "
      "%.4f..%.4f um (2 delta tan30 cos30 = %.4f); least clearance over the bolt's "
      "vertices %.3g um; lifted %.2f um: overlap %.4f..%.4f um (want -8.66)\n",
      iso->name, fit, delta * 1e6, touch * 1e6, gap_lo * 1e6, gap_hi * 1e6, want * 1e6, least * 1e6,
      lift * 1e6, over_lo * 1e6, over_hi * 1e6);
  assert_true(touch < 1e-6);
  assert_true(fabs(gap_lo - want) < 2e-6 && fabs(gap_hi - want) < 2e-6);
  assert_true(least > -1e-6);
  assert_true(fabs(over_lo + 10e-6 * cos(M_PI / 6)) < 2e-6);
  assert_true(fabs(over_hi + 10e-6 * cos(M_PI / 6)) < 2e-6);
  // the bolt sees the nut the same way: the nut's flank facing down sits on the bolt
  double grad[3], a[3];
  bolt_flank_point(a, &tb, r2, 1.3, nmid, 1);
  assert_true(fabs(bolt.fn(bolt.params, a, grad)) < 1e-12);
  tf_part_geometry_free(&bolt);
  tf_part_geometry_free(&nut);
}

// M4: the 6H/6g allowance and a custom 50 um one
static void test_fit_m4(void** state) {
  (void)state;
  check_fit(&iso_m4, "6H/6g", "0", 0.5 * iso_m4.es * 1e-6);  // 6g allowance: 11 um
  check_fit(&iso_m4, "none", "50", 50e-6);
}

// M16: the 6H/6g allowance at maximum material and at mid-tolerance
static void test_fit_m16(void** state) {
  (void)state;
  check_fit(&iso_m16, "6H/6g", "0", 0.5 * iso_m16.es * 1e-6);  // 19 um
  double mid = 0.5 * (iso_m16.es + 0.5 * iso_m16.td2 + 0.5 * iso_m16.tD2) * 1e-6;
  check_fit(&iso_m16, "6H/6g-mid", "0", mid);  // 112 um
}

// a refused build: -1 and a message holding each needle
static void expect_error(const char* part, const tf_kv* kv, int nkv, const char* n1,
                         const char* n2) {
  char err[512];
  tf_part_geometry g;
  assert_int_equal(tf_part_build(part, kv, nkv, &g, err, sizeof(err)), -1);
  if (!strstr(err, n1) || (n2 && !strstr(err, n2))) print_message("message: %s\n", err);
  assert_non_null(strstr(err, n1));
  if (n2) assert_non_null(strstr(err, n2));
  assert_null(g.vert);
  assert_null(g.params);
}

// unknown size, unknown key, out-of-range clearance, unknown fit, too short
static void test_bad_parameters(void** state) {
  (void)state;
  tf_kv size[] = {{"size", "M5"}};
  expect_error("bolt", size, 1, "part 'bolt': size must be one of M4|M8|M12|M16|M20", "'M5'");
  tf_kv unknown[] = {{"pitch", "1"}};
  expect_error("nut", unknown, 1, "part 'nut': unknown parameter 'pitch'", "valid: size chord_um");
  tf_kv clearance[] = {{"fit", "none"}, {"clearance_um", "500"}};
  expect_error("bolt", clearance, 2, "part 'bolt': clearance_um must be in", "um");
  tf_kv fit[] = {{"fit", "6H/4h"}};
  expect_error("bolt", fit, 1, "fit must be one of 6H/6g|6H/6g-mid|none", NULL);
  tf_kv shorty[] = {{"size", "M20"}, {"length_mm", "4"}};
  expect_error("bolt", shorty, 2, "part 'bolt': length_mm must be at least", "(got 4)");
}

// the suite
int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bolt_m4_exact),   cmocka_unit_test(test_nut_m4_exact),
      cmocka_unit_test(test_bolt_m16_exact),  cmocka_unit_test(test_nut_m16_exact),
      cmocka_unit_test(test_fit_m4),          cmocka_unit_test(test_fit_m16),
      cmocka_unit_test(test_table_vs_search), cmocka_unit_test(test_table_module),
      cmocka_unit_test(test_bad_parameters),  cmocka_unit_test(test_ends_and_cores),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
