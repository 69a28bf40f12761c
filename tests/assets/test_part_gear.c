// The involute gear: its exact SDF against a brute-force distance to a fine mesh of the same
// part (chord error 0.1 um) at 10,000 points within 0.5 mm of the surface, and against a local
// minimisation on an independently written involute flank; unit gradients matching finite
// differences; a watertight, outward mesh on the surface; and the fit of a 20 / 31 tooth pair at
// its centre distance turned kinematically through a full pinion turn (drive flanks touching,
// coast side at the normal backlash B cos 20 deg).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parts_internal.h"

// the gear helpers of part_gear.c (to move into parts.h with the registry)

static const double pi = 3.14159265358979323846;

// deterministic uniform numbers in [0, 1) (splitmix64)
static double rnd(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

// a gear from the schema defaults with some keys changed (key=value pairs, NULL-terminated)
static int build_gear(tf_part_geometry* g, char* err, size_t errlen, ...) {
  double v[16];
  const tf_part_info* part = &tf_part_gear;
  for (int i = 0; i < part->nparam; i++) v[i] = part->params[i].value;
  va_list ap;
  va_start(ap, errlen);
  for (const char* key = va_arg(ap, const char*); key; key = va_arg(ap, const char*)) {
    double value = va_arg(ap, double);
    int found = 0;
    for (int i = 0; i < part->nparam; i++) {
      if (strcmp(part->params[i].key, key) == 0) v[i] = value, found = 1;
    }
    assert_true(found);
  }
  va_end(ap);
  memset(g, 0, sizeof(*g));
  return part->build(v, g, err, errlen);
}

// the part's SDF at (x, y, z)
static double sdf(const tf_part_geometry* g, double x, double y, double z, double grad[3]) {
  double p[3] = {x, y, z};
  return g->fn(g->params, p, grad);
}

// ---------------------------------------------------------------- mesh helpers

typedef struct edge {
  int a, b;
} edge;

// order of directed edges
static int edge_cmp(const void* x, const void* y) {
  const edge *e = x, *f = y;
  return e->a != f->a ? (e->a < f->a ? -1 : 1) : (e->b < f->b ? -1 : e->b > f->b);
}

// every directed edge once, and its reverse once: a closed, consistently oriented surface
static void assert_watertight(const tf_part_geometry* g) {
  int ne = 3 * g->nface;
  edge* e = malloc((size_t)ne * sizeof(edge));
  for (int f = 0; f < g->nface; f++) {
    for (int k = 0; k < 3; k++) {
      e[3 * f + k].a = g->face[3 * f + k], e[3 * f + k].b = g->face[3 * f + (k + 1) % 3];
      assert_true(e[3 * f + k].a != e[3 * f + k].b);
    }
  }
  qsort(e, (size_t)ne, sizeof(edge), edge_cmp);
  for (int i = 0; i < ne; i++) {
    if (i > 0) assert_false(e[i].a == e[i - 1].a && e[i].b == e[i - 1].b);
    edge r = {e[i].b, e[i].a};
    assert_non_null(bsearch(&r, e, (size_t)ne, sizeof(edge), edge_cmp));
  }
  free(e);
}

// the closest distance from p to triangle abc (Ericson, Real-Time Collision Detection 5.1.5)
static double point_triangle(const double p[3], const double a[3], const double b[3],
                             const double c[3]) {
  double ab[3], ac[3], ap[3], q[3];
  for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
  double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    memcpy(q, a, sizeof(q));
  } else {
    double bp[3], cp[3];
    for (int k = 0; k < 3; k++) bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    double d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
    double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d3 >= 0 && d4 <= d3) {
      memcpy(q, b, sizeof(q));
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
      double v = d1 / (d1 - d3);
      for (int k = 0; k < 3; k++) q[k] = a[k] + v * ab[k];
    } else if (d6 >= 0 && d5 <= d6) {
      memcpy(q, c, sizeof(q));
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
      double w = d2 / (d2 - d6);
      for (int k = 0; k < 3; k++) q[k] = a[k] + w * ac[k];
    } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
      double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
      for (int k = 0; k < 3; k++) q[k] = b[k] + w * (c[k] - b[k]);
    } else {
      double den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
      for (int k = 0; k < 3; k++) q[k] = a[k] + ab[k] * v + ac[k] * w;
    }
  }
#undef DOT
  return sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
              (p[2] - q[2]) * (p[2] - q[2]));
}

// brute-force unsigned distance to the mesh, skipping triangles whose box is beyond `within`
static double mesh_distance(const tf_part_geometry* g, const double* box, const double p[3],
                            double within) {
  double best = INFINITY;
  for (int f = 0; f < g->nface; f++) {
    const double* b = box + 6 * f;
    double e = 0;
    for (int k = 0; k < 3; k++) {
      double o = p[k] < b[k] ? b[k] - p[k] : p[k] > b[3 + k] ? p[k] - b[3 + k] : 0;
      e += o * o;
    }
    if (e > within * within || e > best * best) continue;
    const int* t = g->face + 3 * f;
    double d = point_triangle(p, g->vert + 3 * t[0], g->vert + 3 * t[1], g->vert + 3 * t[2]);
    if (d < best) best = d;
  }
  return best;
}

// the bounding box of every triangle (lo, hi)
static double* face_boxes(const tf_part_geometry* g) {
  double* box = malloc((size_t)g->nface * 6 * sizeof(double));
  for (int f = 0; f < g->nface; f++) {
    for (int k = 0; k < 3; k++) box[6 * f + k] = INFINITY, box[6 * f + 3 + k] = -INFINITY;
    for (int j = 0; j < 3; j++) {
      const double* v = g->vert + 3 * g->face[3 * f + j];
      for (int k = 0; k < 3; k++) {
        box[6 * f + k] = fmin(box[6 * f + k], v[k]);
        box[6 * f + 3 + k] = fmax(box[6 * f + 3 + k], v[k]);
      }
    }
  }
  return box;
}

// the directed outline edges on the top cap: from wall triangles with two top vertices
typedef struct outline {
  double (*a)[2], (*b)[2];
  int n;
} outline;

static outline top_outline(const tf_part_geometry* g, double ztop) {
  outline o = {malloc((size_t)g->nface * sizeof(*o.a)), malloc((size_t)g->nface * sizeof(*o.b)), 0};
  for (int f = 0; f < g->nface; f++) {
    const int* t = g->face + 3 * f;
    int top[3], ntop = 0;
    for (int k = 0; k < 3; k++) top[k] = g->vert[3 * t[k] + 2] == ztop, ntop += top[k];
    if (ntop != 2) continue;
    for (int k = 0; k < 3; k++) {
      if (top[k] && top[(k + 1) % 3]) {
        // the wall's top edge runs against the cap's boundary direction
        const double* u = g->vert + 3 * t[(k + 1) % 3];
        const double* w = g->vert + 3 * t[k];
        o.a[o.n][0] = u[0], o.a[o.n][1] = u[1], o.b[o.n][0] = w[0], o.b[o.n][1] = w[1];
        o.n++;
      }
    }
  }
  return o;
}

// inside the outline (crossing number; the bore loop makes the hole)
static int outline_inside(const outline* o, double x, double y) {
  int c = 0;
  for (int i = 0; i < o->n; i++) {
    const double *a = o->a[i], *b = o->b[i];
    if ((a[1] > y) != (b[1] > y)) {
      double xi = a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
      if (xi > x) c ^= 1;
    }
  }
  return c;
}

// the part registered with a builder and compiled: the model's copy of the parameters (plain
// data, no pointers) evaluates exactly like the original
static void assert_model_copy(const tf_part_geometry* g, const char* name) {
  tf_builder* b = tf_builder_create();
  assert_true(tf_part_add_to_builder(b, name, g) >= 0);
  char err[256];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  if (!m) print_message("compile: %s\n", err);
  assert_non_null(m);
  tf_builder_destroy(b);
  assert_int_equal(m->nsdf, 1);
  const void* params = m->sdf_param + m->sdf_paramadr[0];
  for (int i = 0; i < 1000; i++) {
    double p[3];
    for (int k = 0; k < 3; k++)
      p[k] = g->aabb[k] + (g->aabb[3 + k] - g->aabb[k]) *
                              (i * 0.618034 * (k + 1) - floor(i * 0.618034 * (k + 1)));
    double ga[3], gb[3];
    assert_true(m->sdf_fn[0](params, p, ga) == g->fn(g->params, p, gb));
    for (int k = 0; k < 3; k++) assert_true(ga[k] == gb[k]);
  }
  tf_model_destroy(m);
}

// ---------------------------------------------------------------- tests

// closed, outward meshes on the surface within their chord error, solid and bored, two tooth counts
static void test_mesh_closed_on_surface(void** state) {
  (void)state;
  char err[256];
  const double chords[2] = {2, 0.5};
  const double bores[2] = {5, 0};
  for (int c = 0; c < 2; c++) {
    tf_part_geometry g;
    assert_int_equal(build_gear(&g, err, sizeof(err), "chord_um", chords[c], "bore_mm", bores[c],
                                "teeth", c ? 57.0 : 20.0, NULL),
                     0);
    assert_true(g.chord_error > 0 && g.chord_error <= chords[c] * 1e-6);
    assert_watertight(&g);
    // every vertex on the surface, every chord within the chord error of it
    for (int i = 0; i < g.nvert; i++) {
      const double* v = g.vert + 3 * i;
      assert_true(fabs(sdf(&g, v[0], v[1], v[2], NULL)) < 1e-12);
    }
    double volume = 0;
    for (int f = 0; f < g.nface; f++) {
      const int* t = g.face + 3 * f;
      const double *a = g.vert + 3 * t[0], *b = g.vert + 3 * t[1], *d = g.vert + 3 * t[2];
      double ab[3], ad[3], n[3], mid[3], grad[3];
      for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ad[k] = d[k] - a[k];
      n[0] = ab[1] * ad[2] - ab[2] * ad[1];
      n[1] = ab[2] * ad[0] - ab[0] * ad[2];
      n[2] = ab[0] * ad[1] - ab[1] * ad[0];
      volume += (a[0] * n[0] + a[1] * n[1] + a[2] * n[2]) / 6;
      double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      assert_true(len > 0);
      for (int k = 0; k < 3; k++) mid[k] = 0.5 * (a[k] + b[k]);
      assert_true(sdf(&g, mid[0], mid[1], mid[2], NULL) <= g.chord_error + 1e-12);
      // outward: the face normal agrees with the gradient just inside the face
      for (int k = 0; k < 3; k++) mid[k] = (a[k] + b[k] + d[k]) / 3 - 1e-9 * n[k] / len;
      sdf(&g, mid[0], mid[1], mid[2], grad);
      assert_true((grad[0] * n[0] + grad[1] * n[1] + grad[2] * n[2]) / len > 0.5);
    }
    // the caps tile the section exactly once: volume = face width x the outline's area
    outline o = top_outline(&g, g.aabb[5]);
    double area = 0;
    for (int i = 0; i < o.n; i++) area += 0.5 * (o.a[i][0] * o.b[i][1] - o.a[i][1] * o.b[i][0]);
    free(o.a);
    free(o.b);
    double z = c ? 57 : 20, face = g.aabb[5] - g.aabb[2];
    assert_true(fabs(volume - face * area) < 1e-12 * volume);
    assert_true(area > 0.25 * 3.14159265358979323846 * 1e-6 *
                           ((z - 2.5) * (z - 2.5) - bores[c] * bores[c]));
    print_message("z=%g chord %g um: %d vertices, %d faces, chord error %.3g um\n", z, chords[c],
                  g.nvert, g.nface, g.chord_error * 1e6);
    tf_part_geometry_free(&g);
  }
}

// 10,000 points within 0.5 mm of the surface: the SDF against a mesh with chord error 0.1 um
static void test_exact_vs_fine_mesh(void** state) {
  (void)state;
  char err[256];
  tf_part_geometry g;
  assert_int_equal(build_gear(&g, err, sizeof(err), "chord_um", 0.1, NULL), 0);
  assert_true(g.chord_error <= 0.1e-6);
  assert_true(g.error_bound == 0);
  double* box = face_boxes(&g);
  double ztop = g.aabb[5];
  outline o = top_outline(&g, ztop);
  uint64_t seed = 11;
  double ra = g.aabb[3], worst = 0, worst_unit = 0, worst_fd = 0;
  int n = 0, tries = 0, checked_fd = 0;
  while (n < 10000) {
    tries++;
    double rho, phi = 2 * pi * rnd(&seed), z = (2 * rnd(&seed) - 1) * (ztop + 0.5e-3);
    // mostly in the tooth band, some around the bore
    rho = rnd(&seed) < 0.85 ? ra - 3.3e-3 + 3.8e-3 * rnd(&seed) : 2e-3 + 1e-3 * rnd(&seed);
    double p[3] = {rho * cos(phi), rho * sin(phi), z}, grad[3];
    double v = g.fn(g.params, p, grad);
    if (fabs(v) > 0.5e-3) continue;
    n++;
    double dm = mesh_distance(&g, box, p, fabs(v) + 2e-6);
    int inside = fabs(z) <= ztop && outline_inside(&o, p[0], p[1]);
    double ref = inside ? -dm : dm;
    worst = fmax(worst, fabs(v - ref));
    if (fabs(v - ref) > 1e-6) {
      print_message("(%g %g %g): sdf %.9g mm, mesh %.9g mm\n", p[0], p[1], p[2], v * 1e3,
                    ref * 1e3);
    }
    assert_true(fabs(v - ref) <= 1e-6);
    worst_unit =
        fmax(worst_unit, fabs(sqrt(grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2]) - 1));
    // finite differences on a tenth of the points, where the field is smooth
    if (n % 10 == 0) {
      const double h = 1e-8;
      double fd[3], bend = 0;
      for (int k = 0; k < 3; k++) {
        double a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
        a[k] += h, b[k] -= h;
        double fa = g.fn(g.params, a, NULL), fb = g.fn(g.params, b, NULL);
        fd[k] = (fa - fb) / (2 * h);
        bend = fmax(bend, fabs(fa - 2 * v + fb));
      }
      if (bend < 1e-12) {
        checked_fd++;
        for (int k = 0; k < 3; k++) worst_fd = fmax(worst_fd, fabs(fd[k] - grad[k]));
      }
    }
  }
  print_message(
      "10000 points (%d tried): worst |sdf - mesh| = %.3g um, worst ||grad| - 1| = %.2g, "
      "worst |grad - finite difference| = %.2g over %d\n",
      tries, worst * 1e6, worst_unit, worst_fd, checked_fd);
  assert_true(worst_unit < 1e-6);
  assert_true(worst_fd < 1e-5);
  assert_true(checked_fd > 800);
  free(o.a);
  free(o.b);
  free(box);
  tf_part_geometry_free(&g);
}

// the flank written out here from the textbook: tooth 0's upper flank at involute parameter t
static void ref_flank(double out[2], double rb, double theta_b, double t) {
  double rho = rb * sqrt(1 + t * t), ang = theta_b - (t - atan(t));
  out[0] = rho * cos(ang), out[1] = rho * sin(ang);
}

// points offset along the flank normal: the SDF equals the offset and a local minimisation of
// the distance to the textbook involute; the tooth is as thick as the standard says
static void test_involute_reference(void** state) {
  (void)state;
  char err[256];
  tf_part_geometry g;
  const double m = 2e-3, z = 23, alpha = 20 * pi / 180, B = 0.15e-3;
  assert_int_equal(build_gear(&g, err, sizeof(err), "module_mm", 2.0, "teeth", 23.0, "backlash_mm",
                              0.15, "bore_mm", 10.0, NULL),
                   0);
  double r = 0.5 * m * z, rb = r * cos(alpha), ra = r + m;
  double s = 0.5 * pi * m - 0.5 * B;
  double theta_b = s / (2 * r) + tan(alpha) - alpha;
  double ta = sqrt(ra * ra - rb * rb) / rb;
  uint64_t seed = 12;
  double worst = 0;
  for (int i = 0; i < 2000; i++) {
    double t = 0.3 + (ta - 0.35) * rnd(&seed), off = -0.2e-3 + 0.7e-3 * rnd(&seed);
    double q[2], q2[2];
    ref_flank(q, rb, theta_b, t);
    ref_flank(q2, rb, theta_b, t + 1e-7);
    double tx = q2[0] - q[0], ty = q2[1] - q[1], tl = hypot(tx, ty);
    double nx = -ty / tl, ny = tx / tl;  // left of the outward-running flank: into the space
    double p[2] = {q[0] + off * nx, q[1] + off * ny};
    // local minimisation over t: scan, then golden section
    double best_t = 0, best = INFINITY, f[2];
    for (int k = 0; k <= 400; k++) {
      double tt = ta * k / 400;
      ref_flank(f, rb, theta_b, tt);
      double d = hypot(p[0] - f[0], p[1] - f[1]);
      if (d < best) best = d, best_t = tt;
    }
    double lo = fmax(0, best_t - ta / 400), hi = fmin(ta, best_t + ta / 400);
    const double gr = 0.5 * (sqrt(5) - 1);
    for (int k = 0; k < 100; k++) {
      double a = hi - gr * (hi - lo), b = lo + gr * (hi - lo), fa2[2], fb2[2];
      ref_flank(fa2, rb, theta_b, a);
      ref_flank(fb2, rb, theta_b, b);
      if (hypot(p[0] - fa2[0], p[1] - fa2[1]) < hypot(p[0] - fb2[0], p[1] - fb2[1])) {
        hi = b;
      } else {
        lo = a;
      }
    }
    ref_flank(f, rb, theta_b, 0.5 * (lo + hi));
    double ref = hypot(p[0] - f[0], p[1] - f[1]) * (off < 0 ? -1 : 1);
    double v = sdf(&g, p[0], p[1], 0, NULL);
    worst = fmax(worst, fmax(fabs(v - ref), fabs(v - off)));
    assert_true(fabs(v - ref) < 1e-9 && fabs(v - off) < 1e-9);
  }
  print_message("flank offsets vs textbook involute minimisation: worst %.2g nm\n", worst * 1e9);
  // tooth thickness on the pitch circle: the SDF changes sign at the half-angle s / (2 r)
  double lo = 0, hi = pi / z;
  for (int k = 0; k < 80; k++) {
    double a = 0.5 * (lo + hi);
    if (sdf(&g, r * cos(a), r * sin(a), 0, NULL) < 0) {
      lo = a;
    } else {
      hi = a;
    }
  }
  assert_true(fabs(2 * r * lo - s) < 1e-12);
  // tip, root and bore circles and the face
  assert_true(fabs(sdf(&g, ra, 0, 0, NULL)) < 1e-15);
  double rf = r - 1.25 * m;
  assert_true(fabs(sdf(&g, rf * cos(pi / z), rf * sin(pi / z), 0, NULL)) < 1e-15);
  assert_true(fabs(sdf(&g, 5e-3, 0, 0, NULL)) < 1e-15);
  assert_true(fabs(sdf(&g, 8e-3, 0, 2.5e-3, NULL)) < 1e-15);
  assert_true(fabs(sdf(&g, 8e-3, 0, 3e-3, NULL) - 0.5e-3) < 1e-15);
  tf_part_geometry_free(&g);
}

// ---------------------------------------------------------------- the fit of a pair

// gear 1's outline as an ordered loop (2D, gear-1 frame), the outer loop of the top cap
typedef struct loop {
  double (*p)[2];
  int n;
} loop;

static loop outer_loop(const tf_part_geometry* g) {
  outline o = top_outline(g, g->aabb[5]);
  // keep the outer loop (the bore loop is far inside) and chain the edges by their end points
  loop l = {malloc((size_t)o.n * sizeof(*l.p)), 0};
  int* used = calloc((size_t)o.n, sizeof(int));
  int start = 0;
  for (int i = 0; i < o.n; i++) {
    if (hypot(o.a[i][0], o.a[i][1]) > hypot(o.a[start][0], o.a[start][1])) start = i;
  }
  int cur = start;
  while (!used[cur]) {
    used[cur] = 1;
    memcpy(l.p[l.n++], o.a[cur], sizeof(l.p[0]));
    int next = -1;
    for (int j = 0; j < o.n && next < 0; j++) {
      if (!used[j] && o.a[j][0] == o.b[cur][0] && o.a[j][1] == o.b[cur][1]) next = j;
    }
    if (next < 0) break;
    cur = next;
  }
  free(used);
  free(o.a);
  free(o.b);
  return l;
}

typedef struct pair {
  const tf_part_geometry *g1, *g2;
  int z1;
  double a;         // centre distance
  double th1, th2;  // rotations
} pair;

// gear 2's 2D SDF at a point of gear 1's frame
static double other_sdf(const pair* pr, const double x[2]) {
  double c1 = cos(pr->th1), s1 = sin(pr->th1), c2 = cos(pr->th2), s2 = sin(pr->th2);
  double wx = c1 * x[0] - s1 * x[1] - pr->a, wy = s1 * x[0] + c1 * x[1];
  return sdf(pr->g2, c2 * wx + s2 * wy, -s2 * wx + c2 * wy, 0, NULL);
}

// a point of the polyline near vertex i (s in [-1, 1] toward the neighbours) moved onto gear
// 1's true surface with its own exact SDF
static void on_surface(double out[2], const pair* pr, const loop* l, int i, double s) {
  const double* v = l->p[i];
  const double* w = s >= 0 ? l->p[(i + 1) % l->n] : l->p[(i + l->n - 1) % l->n];
  double x = v[0] + fabs(s) * (w[0] - v[0]), y = v[1] + fabs(s) * (w[1] - v[1]), grad[3];
  double d = sdf(pr->g1, x, y, 0, grad);
  out[0] = x - d * grad[0], out[1] = y - d * grad[1];
}

// the least distance from gear 1's drive half (tooth-local angle > 0) or coast half to gear 2:
// gear 2's SDF over gear 1's outline vertices, each local minimum near the best refined by a
// golden-section search along the true surface
static double side_gap(const pair* pr, const loop* l, int drive) {
  double pitch = 2 * pi / pr->z1;
  double* val = malloc((size_t)l->n * sizeof(double));
  double best = INFINITY;
  for (int i = 0; i < l->n; i++) {
    val[i] = INFINITY;
    const double* v = l->p[i];
    double phi = atan2(v[1], v[0]);
    double local = phi - pitch * floor(phi / pitch + 0.5);
    if ((local > 0) != drive) continue;
    double c = cos(pr->th1), s = sin(pr->th1);
    double wx = c * v[0] - s * v[1] - pr->a, wy = s * v[0] + c * v[1];
    if (hypot(wx, wy) > pr->g2->aabb[3] + 0.3e-3) continue;  // far from gear 2
    val[i] = other_sdf(pr, v);
    best = fmin(best, val[i]);
  }
  double refined = best;
  for (int i = 0; i < l->n; i++) {
    double prev = val[(i + l->n - 1) % l->n], next = val[(i + 1) % l->n];
    if (!(val[i] <= prev && val[i] <= next && val[i] < best + 3e-6)) continue;
    const double gr = 0.5 * (sqrt(5) - 1);
    double lo = isfinite(prev) ? -1 : 0, hi = isfinite(next) ? 1 : 0, x[2];
    for (int k = 0; k < 60; k++) {
      double a = hi - gr * (hi - lo), b = lo + gr * (hi - lo), xa[2], xb[2];
      on_surface(xa, pr, l, i, a);
      on_surface(xb, pr, l, i, b);
      if (other_sdf(pr, xa) < other_sdf(pr, xb)) {
        hi = b;
      } else {
        lo = a;
      }
    }
    on_surface(x, pr, l, i, 0.5 * (lo + hi));
    refined = fmin(refined, other_sdf(pr, x));
  }
  free(val);
  return refined;
}

// two gears at their centre distance: the driven gear turned until the drive flanks touch, then
// both turned at the exact ratio through a full pinion turn (steps angles)
static void fit_pair(int z1, int z2, double module_mm, double backlash_mm, int steps) {
  char err[256];
  const double m = module_mm * 1e-3, B = backlash_mm * 1e-3, alpha = 20 * pi / 180;
  tf_part_geometry g1, g2;
  assert_int_equal(
      build_gear(&g1, err, sizeof(err), "teeth", (double)z1, "module_mm", module_mm, "backlash_mm",
                 backlash_mm, "bore_mm", 2 * module_mm, "chord_um", 0.5, NULL),
      0);
  assert_int_equal(
      build_gear(&g2, err, sizeof(err), "teeth", (double)z2, "module_mm", module_mm, "backlash_mm",
                 backlash_mm, "bore_mm", 2 * module_mm, "chord_um", 5.0, NULL),
      0);
  pair pr = {&g1, &g2, z1, tf_gear_center_distance(m, z1, z2), 0, 0};
  assert_true(fabs(pr.a - 0.5 * m * (z1 + z2)) < 1e-15);
  loop l = outer_loop(&g1);
  assert_true(l.n > 1000);
  // centred: the backlash splits evenly
  pr.th2 = tf_gear_mesh_angle(z1, z2, 0);
  double drive0 = side_gap(&pr, &l, 1), coast0 = side_gap(&pr, &l, 0);
  assert_true(fabs(drive0 - 0.5 * B * cos(alpha)) < 1e-6);
  assert_true(fabs(coast0 - 0.5 * B * cos(alpha)) < 1e-6);
  // turn the driven gear until the drive flanks touch
  double lo = 0, hi = 2 * tf_gear_backlash_angle(m, z2, B);
  for (int k = 0; k < 50; k++) {
    double mid = 0.5 * (lo + hi);
    pr.th2 = tf_gear_mesh_angle(z1, z2, 0) + mid;
    if (side_gap(&pr, &l, 1) > 0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  double shift = 0.5 * (lo + hi), r2 = 0.5 * m * z2;
  double off = (shift - tf_gear_backlash_angle(m, z2, B)) * r2;
  assert_true(fabs(off) < 0.1e-6);
  // a full pinion turn at the exact ratio (a prime number of steps: every tooth phase differs)
  double dmin = INFINITY, dmax = -INFINITY, cmin = INFINITY, cmax = -INFINITY;
  for (int i = 0; i < steps; i++) {
    pr.th1 = 2 * pi * i / steps;
    pr.th2 = tf_gear_mesh_angle(z1, z2, pr.th1) + shift;
    double d = side_gap(&pr, &l, 1), c = side_gap(&pr, &l, 0);
    dmin = fmin(dmin, d), dmax = fmax(dmax, d), cmin = fmin(cmin, c), cmax = fmax(cmax, c);
  }
  double target = B * cos(alpha);
  print_message(
      "%d / %d teeth, m %g mm, B %g mm: centred gaps %.4f / %.4f um (B cos a / 2 = "
      "%.4f); contact shift off by %.2g um on the pitch circle; over %d angles drive "
      "gap [%.3g, %.3g] um, coast gap [%.6f, %.6f] um, B cos 20 = %.6f um\n",
      z1, z2, module_mm, backlash_mm, drive0 * 1e6, coast0 * 1e6, 0.5 * target * 1e6, off * 1e6,
      steps, dmin * 1e6, dmax * 1e6, cmin * 1e6, cmax * 1e6, target * 1e6);
  assert_true(dmin > -1e-6 && dmax < 1e-6);
  assert_true(cmin >= 0 && fabs(cmin - target) < 5e-6 && fabs(cmax - target) < 5e-6);
  free(l.p);
  tf_part_geometry_free(&g1);
  tf_part_geometry_free(&g2);
}

// the pair of the acceptance test, and a 17-tooth pinion with a 57-tooth wheel
static void test_gear_fit(void** state) {
  (void)state;
  fit_pair(20, 31, 1, 0.1, 997);
  fit_pair(17, 57, 0.5, 0.04,
           211);  // the smallest pinion without undercut, a fillet on the involute
}

// helper values and refused parameters
static void test_params(void** state) {
  (void)state;
  char err[256];
  tf_part_geometry g;
  assert_true(fabs(tf_gear_center_distance(2e-3, 17, 40) - 57e-3) < 1e-15);
  assert_true(fabs(tf_gear_mesh_angle(20, 31, 0) - (pi - pi / 31)) < 1e-15);
  assert_int_equal(build_gear(&g, err, sizeof(err), "teeth", 20.5, NULL), -1);
  assert_non_null(strstr(err, "integer"));
  assert_int_equal(build_gear(&g, err, sizeof(err), "bore_mm", 17.0, NULL), -1);
  assert_non_null(strstr(err, "bore_mm"));
  assert_int_equal(build_gear(&g, err, sizeof(err), "backlash_mm", 1.5, NULL), -1);
  assert_non_null(strstr(err, "point"));
  // a wide range of gears builds, with a closed mesh
  const double teeth[4] = {8, 17, 41, 150}, press[4] = {20, 14.5, 25, 20};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(build_gear(&g, err, sizeof(err), "teeth", teeth[i], "pressure_deg", press[i],
                                "bore_mm", 2.0, "chord_um", 5.0, NULL),
                     0);
    assert_watertight(&g);
    if (i == 3) assert_model_copy(&g, "gear");
    tf_part_geometry_free(&g);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mesh_closed_on_surface),
      cmocka_unit_test(test_exact_vs_fine_mesh),
      cmocka_unit_test(test_involute_reference),
      cmocka_unit_test(test_gear_fit),
      cmocka_unit_test(test_params),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
