// The SDF library against independent references: every primitive against a brute-force
// distance to its surface (a dense parameter grid refined by pattern search on each patch) with
// the sign from a closed-form membership test; gradients unit and equal to finite differences;
// placements; CSG of two spheres against the exact distance to the combined surface (exact where
// claimed, a conservative bound elsewhere, within the right-angle ratio near the edge); culled
// unions equal to plain minima; malformed trees rejected.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sdf_library.h"

// deterministic uniform numbers in [0, 1) (splitmix64)
static double rnd(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static double urange(uint64_t* s, double lo, double hi) { return lo + (hi - lo) * rnd(s); }

// euclidean distance
static double dist3(const double a[3], const double b[3]) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
              (a[2] - b[2]) * (a[2] - b[2]));
}

// ---------------------------------------------------------------- parametric references

// a primitive seen as surface patches (u, v in [0, 1]) plus a membership test
typedef struct shape_ref {
  tf_sdf_node node;
  int npatch;
  void (*patch)(const tf_sdf_node* n, int k, double u, double v, double out[3]);
  int (*inside)(const tf_sdf_node* n, const double p[3]);
  int wrap_u, wrap_v;  // the parameter is an angle (periodic, not clamped)
} shape_ref;

static const double pi = 3.14159265358979323846;

// surface patches and membership of each primitive
static void sphere_patch(const tf_sdf_node* n, int k, double u, double v, double o[3]) {
  (void)k;
  double r = n->param[0], th = pi * u, ph = 2 * pi * v;
  o[0] = r * sin(th) * cos(ph), o[1] = r * sin(th) * sin(ph), o[2] = r * cos(th);
}
static int sphere_in(const tf_sdf_node* n, const double p[3]) {
  return p[0] * p[0] + p[1] * p[1] + p[2] * p[2] < n->param[0] * n->param[0];
}

// face k of a box of half-sizes b: axis k / 2, side k % 2
static void box_face(const double b[3], int k, double u, double v, double o[3]) {
  int a = k / 2, a1 = (a + 1) % 3, a2 = (a + 2) % 3;
  o[a] = k % 2 ? b[a] : -b[a];
  o[a1] = (2 * u - 1) * b[a1], o[a2] = (2 * v - 1) * b[a2];
}
static void box_patch(const tf_sdf_node* n, int k, double u, double v, double o[3]) {
  box_face(n->param, k, u, v, o);
}
static int box_in(const tf_sdf_node* n, const double p[3]) {
  return fabs(p[0]) < n->param[0] && fabs(p[1]) < n->param[1] && fabs(p[2]) < n->param[2];
}

// rounded box: 6 flat faces, 12 quarter-cylinder edges, 8 sphere octants
static void rbox_patch(const tf_sdf_node* n, int k, double u, double v, double o[3]) {
  double r = n->param[3], b[3] = {n->param[0] - r, n->param[1] - r, n->param[2] - r};
  if (k < 6) {
    box_face(b, k, u, v, o);
    o[k / 2] += k % 2 ? r : -r;
  } else if (k < 18) {
    int e = k - 6, a = e / 4, s1 = e % 2 ? 1 : -1, s2 = (e / 2) % 2 ? 1 : -1;
    int a1 = (a + 1) % 3, a2 = (a + 2) % 3;
    double ang = 0.5 * pi * v;
    o[a] = (2 * u - 1) * b[a];
    o[a1] = s1 * (b[a1] + r * cos(ang)), o[a2] = s2 * (b[a2] + r * sin(ang));
  } else {
    int c = k - 18;
    double s[3] = {c & 1 ? 1 : -1, c & 2 ? 1 : -1, c & 4 ? 1 : -1};
    double th = 0.5 * pi * u, ph = 0.5 * pi * v;
    double d[3] = {sin(th) * cos(ph), sin(th) * sin(ph), cos(th)};
    for (int i = 0; i < 3; i++) o[i] = s[i] * (b[i] + r * d[i]);
  }
}
static int rbox_in(const tf_sdf_node* n, const double p[3]) {
  double r = n->param[3], e = 0;
  for (int i = 0; i < 3; i++) {
    double q = fabs(p[i]) - (n->param[i] - r);
    if (q > 0) e += q * q;
  }
  return e < r * r;
}

static void cyl_patch(const tf_sdf_node* n, int k, double u, double v, double o[3]) {
  double r = n->param[0], h = n->param[1], ang = 2 * pi * u;
  if (k == 0) {
    o[0] = r * cos(ang), o[1] = r * sin(ang), o[2] = (2 * v - 1) * h;
  } else {
    o[0] = v * r * cos(ang), o[1] = v * r * sin(ang), o[2] = k == 1 ? h : -h;
  }
}
static int cyl_in(const tf_sdf_node* n, const double p[3]) {
  return p[0] * p[0] + p[1] * p[1] < n->param[0] * n->param[0] && fabs(p[2]) < n->param[1];
}

static void capsule_patch(const tf_sdf_node* n, int k, double u, double v, double o[3]) {
  double r = n->param[0], h = n->param[1], ang = 2 * pi * u;
  if (k == 0) {
    o[0] = r * cos(ang), o[1] = r * sin(ang), o[2] = (2 * v - 1) * h;
  } else {
    double th = 0.5 * pi * v;
    o[0] = r * sin(th) * cos(ang), o[1] = r * sin(th) * sin(ang);
    o[2] = k == 1 ? h + r * cos(th) : -h - r * cos(th);
  }
}
static int capsule_in(const tf_sdf_node* n, const double p[3]) {
  double c = fmax(-n->param[1], fmin(n->param[1], p[2]));
  return p[0] * p[0] + p[1] * p[1] + (p[2] - c) * (p[2] - c) < n->param[0] * n->param[0];
}

static void torus_patch(const tf_sdf_node* n, int k, double u, double v, double o[3]) {
  (void)k;
  double R = n->param[0], r = n->param[1], a = 2 * pi * u, b = 2 * pi * v;
  o[0] = (R + r * cos(b)) * cos(a), o[1] = (R + r * cos(b)) * sin(a), o[2] = r * sin(b);
}
static int torus_in(const tf_sdf_node* n, const double p[3]) {
  double a = sqrt(p[0] * p[0] + p[1] * p[1]) - n->param[0];
  return a * a + p[2] * p[2] < n->param[1] * n->param[1];
}

// prism: per edge a wall and a cap strip on each cap; per vertex a corner wall and two cap
// sectors; plus the inner polygon on each cap as a fan of triangles from vertex 0
static void prism_vertex(const tf_sdf_node* n, int i, double v[2]) {
  i %= n->nvert;
  v[0] = n->param[2 + 2 * i], v[1] = n->param[3 + 2 * i];
}
static void prism_normal(const tf_sdf_node* n, int i, double nn[2]) {
  double a[2], b[2];
  prism_vertex(n, i, a);
  prism_vertex(n, i + 1, b);
  double ex = b[0] - a[0], ey = b[1] - a[1], l = sqrt(ex * ex + ey * ey);
  nn[0] = ey / l, nn[1] = -ex / l;
}
static void prism_patch(const tf_sdf_node* n, int k, double u, double v, double o[3]) {
  int nv = n->nvert, kind = k / nv, i = k % nv;
  double h = n->param[0], r = n->param[1], a[2], b[2], na[2], nb[2];
  prism_vertex(n, i, a);
  prism_vertex(n, i + 1, b);
  prism_normal(n, i, na);
  prism_normal(n, i + nv - 1, nb);            // normal of the edge ending at vertex i
  if (kind == 0 || kind == 1 || kind == 2) {  // wall, top strip, bottom strip of edge i
    double x = a[0] + u * (b[0] - a[0]), y = a[1] + u * (b[1] - a[1]);
    double out = kind == 0 ? r : v * r;
    o[0] = x + out * na[0], o[1] = y + out * na[1];
    o[2] = kind == 0 ? (2 * v - 1) * h : kind == 1 ? h : -h;
  } else if (kind <= 5) {  // corner wall, top sector, bottom sector at vertex i
    double t0 = atan2(nb[1], nb[0]), t1 = atan2(na[1], na[0]);
    if (t1 < t0) t1 += 2 * pi;
    double t = t0 + u * (t1 - t0), out = kind == 3 ? r : v * r;
    o[0] = a[0] + out * cos(t), o[1] = a[1] + out * sin(t);
    o[2] = kind == 3 ? (2 * v - 1) * h : kind == 4 ? h : -h;
  } else {  // fan triangle (0, i+1, i+2) of the inner polygon on the top / bottom cap
    int tri = i % (nv - 2), top = kind == 6;
    double p0[2], p1[2], p2[2];
    prism_vertex(n, 0, p0);
    prism_vertex(n, tri + 1, p1);
    prism_vertex(n, tri + 2, p2);
    double s = u, t = v * (1 - u);
    o[0] = p0[0] + s * (p1[0] - p0[0]) + t * (p2[0] - p0[0]);
    o[1] = p0[1] + s * (p1[1] - p0[1]) + t * (p2[1] - p0[1]);
    o[2] = top ? h : -h;
  }
}
static int prism_in(const tf_sdf_node* n, const double p[3]) {
  if (fabs(p[2]) >= n->param[0]) return 0;
  // inside the inner polygon, or within r of one of its edges
  int inner = 1;
  double best = INFINITY;
  for (int i = 0; i < n->nvert; i++) {
    double a[2], b[2], nn[2];
    prism_vertex(n, i, a);
    prism_vertex(n, i + 1, b);
    prism_normal(n, i, nn);
    if ((p[0] - a[0]) * nn[0] + (p[1] - a[1]) * nn[1] > 0) inner = 0;
    double ex = b[0] - a[0], ey = b[1] - a[1];
    double t = ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / (ex * ex + ey * ey);
    t = fmax(0, fmin(1, t));
    double dx = p[0] - a[0] - t * ex, dy = p[1] - a[1] - t * ey;
    best = fmin(best, sqrt(dx * dx + dy * dy));
  }
  return inner || best < n->param[1];
}

// unsigned distance from p to the shape's surface: dense grid on each patch, then pattern search
static double brute_distance(const shape_ref* s, const double p[3]) {
  const int grid = 48;
  double best = INFINITY;
  for (int k = 0; k < s->npatch; k++) {
    double bu = 0, bv = 0, bd = INFINITY, o[3];
    for (int i = 0; i <= grid; i++) {
      for (int j = 0; j <= grid; j++) {
        s->patch(&s->node, k, (double)i / grid, (double)j / grid, o);
        double d = dist3(o, p);
        if (d < bd) bd = d, bu = (double)i / grid, bv = (double)j / grid;
      }
    }
    for (double step = 1.0 / grid; step > 1e-13; step *= 0.5) {
      int moved = 1;
      while (moved) {
        moved = 0;
        static const double du[8] = {1, -1, 0, 0, 1, 1, -1, -1},
                            dv[8] = {0, 0, 1, -1, 1, -1, 1, -1};
        for (int m = 0; m < 8; m++) {
          double u = bu + step * du[m], v = bv + step * dv[m];
          if (!s->wrap_u) u = fmin(1, fmax(0, u));
          if (!s->wrap_v) v = fmin(1, fmax(0, v));
          s->patch(&s->node, k, u, v, o);
          double d = dist3(o, p);
          if (d < bd) bd = d, bu = u, bv = v, moved = 1;
        }
      }
    }
    best = fmin(best, bd);
  }
  return best;
}

// the seven primitives with sizes around 0.1 - 0.3
static shape_ref make_ref(int which) {
  shape_ref s;
  memset(&s, 0, sizeof(s));
  static const double half[3] = {0.3, 0.2, 0.15};
  static const double poly[5][2] = {
      {-0.2, -0.1}, {0.15, -0.15}, {0.25, 0.05}, {0.05, 0.2}, {-0.2, 0.1}};
  switch (which) {
    case 0:
      s.node = tf_sdf_sphere(0.25), s.npatch = 1, s.patch = sphere_patch, s.inside = sphere_in,
      s.wrap_v = 1;
      break;
    case 1:
      s.node = tf_sdf_box(half), s.npatch = 6, s.patch = box_patch, s.inside = box_in;
      break;
    case 2:
      s.node = tf_sdf_rounded_box(half, 0.05), s.npatch = 26, s.patch = rbox_patch,
      s.inside = rbox_in;
      break;
    case 3:
      s.node = tf_sdf_cylinder(0.2, 0.3), s.npatch = 3, s.patch = cyl_patch, s.inside = cyl_in,
      s.wrap_u = 1;
      break;
    case 4:
      s.node = tf_sdf_capsule(0.1, 0.2), s.npatch = 3, s.patch = capsule_patch,
      s.inside = capsule_in;
      s.wrap_u = 1;
      break;
    case 5:
      s.node = tf_sdf_torus(0.3, 0.08), s.npatch = 1, s.patch = torus_patch, s.inside = torus_in;
      s.wrap_u = s.wrap_v = 1;
      break;
    default:
      s.node = tf_sdf_prism(poly, 5, 0.04, 0.12), s.npatch = 8 * 5, s.patch = prism_patch;
      s.inside = prism_in;
      break;
  }
  return s;
}

static const char* const shape_name[7] = {"sphere",  "box",   "rounded box", "cylinder",
                                          "capsule", "torus", "prism"};

// one-node tree of a shape
static tf_sdf_tree* single(const tf_sdf_node* node) {
  tf_sdf_tree* t = tf_sdf_tree_create();
  assert_non_null(t);
  assert_int_equal(tf_sdf_tree_add(&t, node), 0);
  char err[128];
  assert_int_equal(tf_sdf_tree_check(t, tf_sdf_tree_size(t), err, sizeof(err)), 0);
  return t;
}

// each primitive equals the brute-force distance with the membership sign
static void test_primitives_exact(void** state) {
  (void)state;
  uint64_t seed = 1;
  for (int which = 0; which < 7; which++) {
    shape_ref s = make_ref(which);
    tf_sdf_tree* t = single(&s.node);
    double worst = 0;
    for (int i = 0; i < 120; i++) {
      double p[3] = {urange(&seed, -0.45, 0.45), urange(&seed, -0.45, 0.45),
                     urange(&seed, -0.4, 0.4)};
      double g[3];
      double d = tf_sdf_tree_eval(t, p, g);
      double ref = brute_distance(&s, p) * (s.inside(&s.node, p) ? -1 : 1);
      worst = fmax(worst, fabs(d - ref));
      if (fabs(d - ref) > 1e-9) {
        print_message("%s at (%g %g %g): %.12g vs %.12g\n", shape_name[which], p[0], p[1], p[2], d,
                      ref);
      }
      assert_true(fabs(d - ref) <= 1e-9);
    }
    print_message("%-12s worst |sdf - brute force| = %.2e\n", shape_name[which], worst);
    tf_sdf_tree_free(t);
  }
}

// gradients are unit and match central differences wherever the field is smooth
static void test_primitive_gradients(void** state) {
  (void)state;
  uint64_t seed = 2;
  const double h = 1e-6;
  for (int which = 0; which < 7; which++) {
    shape_ref s = make_ref(which);
    tf_sdf_tree* t = single(&s.node);
    int checked = 0;
    for (int i = 0; i < 4000; i++) {
      double p[3] = {urange(&seed, -0.5, 0.5), urange(&seed, -0.5, 0.5),
                     urange(&seed, -0.45, 0.45)};
      double g[3];
      double d = tf_sdf_tree_eval(t, p, g);
      assert_true(fabs(sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) - 1) < 1e-12);
      double fd[3];
      int smooth = 1;
      for (int k = 0; k < 3; k++) {
        double a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
        a[k] += h, b[k] -= h;
        double fa = tf_sdf_tree_eval(t, a, NULL), fb = tf_sdf_tree_eval(t, b, NULL);
        fd[k] = (fa - fb) / (2 * h);
        if (fabs(fa - 2 * d + fb) > 1e-9) smooth = 0;  // a kink (medial axis) between
      }
      if (!smooth) continue;
      checked++;
      for (int k = 0; k < 3; k++) assert_true(fabs(fd[k] - g[k]) < 1e-5);
    }
    assert_true(checked > 3500);
    tf_sdf_tree_free(t);
  }
}

// a placed node equals the unplaced one at the inverse-transformed point; gradients rotate
static void test_placement(void** state) {
  (void)state;
  const double half[3] = {0.3, 0.1, 0.2};
  tf_sdf_node plain = tf_sdf_rounded_box(half, 0.03);
  tf_sdf_node placed = plain;
  const double pos[3] = {0.1, -0.2, 0.3};
  double quat[4] = {cos(0.4), sin(0.4) * 0.48, sin(0.4) * 0.6, sin(0.4) * 0.64};
  tf_sdf_node_place(&placed, pos, quat);
  tf_sdf_tree *a = single(&plain), *b = single(&placed);
  const double* r = b->node[0].rot;
  uint64_t seed = 3;
  for (int i = 0; i < 1000; i++) {
    double p[3] = {urange(&seed, -0.5, 0.7), urange(&seed, -0.7, 0.4), urange(&seed, -0.2, 0.8)};
    double d[3] = {p[0] - pos[0], p[1] - pos[1], p[2] - pos[2]};
    double q[3];
    for (int k = 0; k < 3; k++) q[k] = r[k] * d[0] + r[3 + k] * d[1] + r[6 + k] * d[2];
    double ga[3], gb[3];
    double va = tf_sdf_tree_eval(a, q, ga), vb = tf_sdf_tree_eval(b, p, gb);
    assert_true(fabs(va - vb) < 1e-14);
    for (int k = 0; k < 3; k++) {
      double gk = r[3 * k] * ga[0] + r[3 * k + 1] * ga[1] + r[3 * k + 2] * ga[2];
      assert_true(fabs(gk - gb[k]) < 1e-12);
    }
  }
  tf_sdf_tree_free(a);
  tf_sdf_tree_free(b);
}

// ---------------------------------------------------------------- CSG of two spheres

typedef struct two_spheres {
  double c[2][3], r[2];
} two_spheres;

// exact signed distance to op(A, B) for spheres A, B: the candidates are each sphere's radial
// projection where it lies on the combined surface, and the intersection circle
static double two_sphere_exact(const two_spheres* s, tf_sdf_type op, const double p[3]) {
  double d[2], in[2];
  for (int k = 0; k < 2; k++) d[k] = dist3(p, s->c[k]) - s->r[k];
  for (int k = 0; k < 2; k++) in[k] = d[k] < 0;
  int inside = op == TF_SDF_UNION          ? (in[0] || in[1])
               : op == TF_SDF_INTERSECTION ? (in[0] && in[1])
                                           : (in[0] && !in[1]);
  double best = INFINITY;
  for (int k = 0; k < 2; k++) {
    double v[3], n = dist3(p, s->c[k]), q[3];
    for (int i = 0; i < 3; i++) v[i] = (p[i] - s->c[k][i]) / n;
    for (int i = 0; i < 3; i++) q[i] = s->c[k][i] + s->r[k] * v[i];
    double other = dist3(q, s->c[1 - k]) - s->r[1 - k];  // < 0: q inside the other sphere
    int on = op == TF_SDF_UNION          ? other >= 0
             : op == TF_SDF_INTERSECTION ? other <= 0
                                         : (k == 0 ? other >= 0 : other <= 0);
    if (on) best = fmin(best, fabs(d[k]));
  }
  // the intersection circle: centre along the axis, radius a
  double axis[3], L = dist3(s->c[0], s->c[1]);
  for (int i = 0; i < 3; i++) axis[i] = (s->c[1][i] - s->c[0][i]) / L;
  double x = (L * L + s->r[0] * s->r[0] - s->r[1] * s->r[1]) / (2 * L);
  double a = sqrt(s->r[0] * s->r[0] - x * x);
  double w[3], along = 0;
  for (int i = 0; i < 3; i++) w[i] = p[i] - s->c[0][i];
  for (int i = 0; i < 3; i++) along += w[i] * axis[i];
  double perp2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2] - along * along;
  double perp = sqrt(fmax(perp2, 0));
  best = fmin(best, sqrt((along - x) * (along - x) + (perp - a) * (perp - a)));
  return inside ? -best : best;
}

// union, intersection and subtraction of two spheres against their exact distance
static void test_csg_two_spheres(void** state) {
  (void)state;
  // spheres meeting at right angles: L^2 = r0^2 + r1^2
  two_spheres s = {{{0, 0, 0}, {0.5, 0, 0}}, {0.3, 0.4}};
  const tf_sdf_type ops[3] = {TF_SDF_UNION, TF_SDF_INTERSECTION, TF_SDF_SUBTRACTION};
  uint64_t seed = 4;
  for (int o = 0; o < 3; o++) {
    tf_sdf_tree* t = tf_sdf_tree_create();
    tf_sdf_node a = tf_sdf_sphere(s.r[0]), b = tf_sdf_sphere(s.r[1]);
    tf_sdf_node_place(&b, s.c[1], NULL);
    assert_int_equal(tf_sdf_tree_add(&t, &a), 0);
    assert_int_equal(tf_sdf_tree_add(&t, &b), 1);
    assert_int_equal(tf_sdf_tree_op(&t, ops[o], 0, 1), 2);
    double worst_ratio = 0;
    for (int i = 0; i < 20000; i++) {
      double p[3] = {urange(&seed, -0.4, 1.0), urange(&seed, -0.5, 0.5), urange(&seed, -0.5, 0.5)};
      double g[3];
      double v = tf_sdf_tree_eval(t, p, g), ex = two_sphere_exact(&s, ops[o], p);
      assert_true(fabs(sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) - 1) < 1e-12);
      assert_true((v < 0) == (ex < 0) || fabs(ex) < 1e-12);    // the sign is right
      assert_true(fabs(v) <= fabs(ex) + 1e-12);                // never above the distance
      int exact = ops[o] == TF_SDF_UNION ? ex >= 0 : ex <= 0;  // where the bound is exact
      if (exact) assert_true(fabs(v - ex) < 1e-12);
      if (fabs(ex) < 0.02) worst_ratio = fmax(worst_ratio, (fabs(ex) - fabs(v)) / fabs(ex));
    }
    // near the right-angle edge the error stays within 1 - 1/sqrt 2 of the distance (curvature
    // of the spheres adds a little at 0.02 from the surface)
    print_message("csg op %d: worst relative error within 0.02 = %.4f\n", o, worst_ratio);
    assert_true(worst_ratio <= TF_SDF_CSG_RATIO_2 * 1.05);
    tf_sdf_tree_free(t);
  }
}

// a balanced union of many placed shapes (with bounding-sphere culling) equals the plain minimum
static void test_union_culling(void** state) {
  (void)state;
  tf_sdf_tree* t = tf_sdf_tree_create();
  int index[40];
  uint64_t seed = 5;
  for (int i = 0; i < 40; i++) {
    tf_sdf_node n = i % 2 ? tf_sdf_cylinder(urange(&seed, 0.01, 0.05), urange(&seed, 0.01, 0.2))
                          : tf_sdf_sphere(urange(&seed, 0.01, 0.05));
    double pos[3] = {urange(&seed, -1, 1), urange(&seed, -1, 1), urange(&seed, -1, 1)};
    tf_sdf_node_place(&n, pos, NULL);
    index[i] = tf_sdf_tree_add(&t, &n);
  }
  int root = tf_sdf_tree_union_all(&t, index, 40);
  assert_int_equal(root, t->root);
  assert_int_equal(t->nnode, 79);
  char err[128];
  assert_int_equal(tf_sdf_tree_check(t, tf_sdf_tree_size(t), err, sizeof(err)), 0);
  // the same union as a holder block minus the holes: subtraction culls too
  for (int i = 0; i < 2000; i++) {
    double p[3] = {urange(&seed, -1.2, 1.2), urange(&seed, -1.2, 1.2), urange(&seed, -1.2, 1.2)};
    double g[3], best = INFINITY, bg[3] = {0, 0, 0};
    for (int k = 0; k < 40; k++) {
      double gk[3];
      double v = tf_sdf_node_eval(t, index[k], p, gk);
      if (v < best) best = v, memcpy(bg, gk, sizeof(bg));
    }
    double v = tf_sdf_tree_eval(t, p, g);
    assert_true(v == best);
    for (int k = 0; k < 3; k++) assert_true(g[k] == bg[k]);
  }
  const double half[3] = {1, 1, 1};
  tf_sdf_node block = tf_sdf_box(half);
  int b = tf_sdf_tree_add(&t, &block);
  int cut = tf_sdf_tree_op(&t, TF_SDF_SUBTRACTION, b, root);
  assert_true(cut > 0);
  for (int i = 0; i < 2000; i++) {
    double p[3] = {urange(&seed, -1.2, 1.2), urange(&seed, -1.2, 1.2), urange(&seed, -1.2, 1.2)};
    double gb[3], gu[3];
    double vb = tf_sdf_node_eval(t, b, p, gb), vu = tf_sdf_node_eval(t, root, p, gu);
    assert_true(tf_sdf_tree_eval(t, p, NULL) == fmax(vb, -vu));
  }
  tf_sdf_tree_free(t);
}

// turned boxes, prisms, capsules and tori in a balanced union, culled by their bounding
// boxes as well as spheres: the union gives the bits of the plain minimum (first on ties),
// also at points on and just off the shapes' surfaces, where culling is closest to wrong
static void test_union_culling_turned(void** state) {
  (void)state;
  tf_sdf_tree* t = tf_sdf_tree_create();
  enum { N = 24 };
  int index[N];
  uint64_t seed = 11;
  const double tri[3][2] = {{-0.03, -0.02}, {0.04, -0.02}, {0.0, 0.05}};
  for (int i = 0; i < N; i++) {
    double half[3] = {urange(&seed, 0.01, 0.2), urange(&seed, 0.005, 0.05), 0.02};
    tf_sdf_node n = i % 4 == 0   ? tf_sdf_box(half)
                    : i % 4 == 1 ? tf_sdf_prism(tri, 3, 0.005, urange(&seed, 0.01, 0.2))
                    : i % 4 == 2 ? tf_sdf_capsule(0.01, urange(&seed, 0.01, 0.3))
                                 : tf_sdf_torus(0.05, 0.01);
    double pos[3] = {urange(&seed, -0.5, 0.5), urange(&seed, -0.5, 0.5), urange(&seed, -0.5, 0.5)};
    double quat[4] = {urange(&seed, -1, 1), urange(&seed, -1, 1), urange(&seed, -1, 1),
                      urange(&seed, -1, 1)};
    tf_sdf_node_place(&n, pos, quat);
    index[i] = tf_sdf_tree_add(&t, &n);
    assert_true(index[i] >= 0);
  }
  int root = tf_sdf_tree_union_all(&t, index, N);
  assert_true(root >= 0);
  for (int i = 0; i < 4000; i++) {
    double p[3] = {urange(&seed, -0.7, 0.7), urange(&seed, -0.7, 0.7), urange(&seed, -0.7, 0.7)};
    if (i % 2) {
      // onto the nearest shape's surface, then a hair off it either way
      double g[3];
      double v = tf_sdf_tree_eval(t, p, g), off = (i % 4 == 1 ? 1 : -1) * 1e-13;
      for (int k = 0; k < 3; k++) p[k] -= (v - off) * g[k];
    }
    double g[3], best = INFINITY, bg[3] = {0, 0, 0};
    for (int k = 0; k < N; k++) {
      double gk[3];
      double v = tf_sdf_node_eval(t, index[k], p, gk);
      if (v < best) best = v, memcpy(bg, gk, sizeof(bg));
    }
    double v = tf_sdf_tree_eval(t, p, g);
    assert_true(v == best);
    assert_memory_equal(g, bg, sizeof(g));
  }
  tf_sdf_tree_free(t);
}

// malformed trees and parameters are rejected with a message
static void test_check(void** state) {
  (void)state;
  char err[128];
  const double bad[4][2] = {{0, 0}, {1, 0}, {0.2, 0.2}, {0, 1}};  // reflex vertex at index 2
  tf_sdf_node p = tf_sdf_prism(bad, 4, 0, 1);
  tf_sdf_node ball = tf_sdf_sphere(1);
  tf_sdf_tree* t = single(&ball);
  assert_int_equal(tf_sdf_tree_add(&t, &p), -1);  // refused on the way in
  tf_sdf_node fine = tf_sdf_sphere(2);
  assert_int_equal(tf_sdf_tree_add(&t, &fine), 1);
  t->node[1] = p;  // and caught in bytes that come from elsewhere
  assert_int_equal(tf_sdf_tree_check(t, tf_sdf_tree_size(t), err, sizeof(err)), -1);
  assert_non_null(strstr(err, "convex"));
  t->node[1] = tf_sdf_sphere(-1);
  assert_int_equal(tf_sdf_tree_check(t, tf_sdf_tree_size(t), err, sizeof(err)), -1);
  t->node[1] = tf_sdf_csg(TF_SDF_UNION, 0, 1);  // refers to itself
  assert_int_equal(tf_sdf_tree_check(t, tf_sdf_tree_size(t), err, sizeof(err)), -1);
  assert_non_null(strstr(err, "earlier"));
  t->node[1] = tf_sdf_csg(TF_SDF_UNION, 0, 0);
  assert_int_equal(tf_sdf_tree_check(t, tf_sdf_tree_size(t), err, sizeof(err)), 0);
  assert_int_equal(tf_sdf_tree_check(t, tf_sdf_tree_size(t) - 8, err, sizeof(err)), -1);
  t->node[0].rot[0] = 2;
  assert_int_equal(tf_sdf_tree_check(t, tf_sdf_tree_size(t), err, sizeof(err)), -1);
  tf_sdf_node forward = tf_sdf_csg(TF_SDF_UNION, 0, 7);
  assert_int_equal(tf_sdf_tree_add(&t, &forward), -1);
  tf_sdf_tree_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_primitives_exact),
      cmocka_unit_test(test_primitive_gradients),
      cmocka_unit_test(test_placement),
      cmocka_unit_test(test_csg_two_spheres),
      cmocka_unit_test(test_union_culling),
      cmocka_unit_test(test_union_culling_turned),
      cmocka_unit_test(test_check),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
