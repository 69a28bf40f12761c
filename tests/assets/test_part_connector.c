// Connector plug and socket: every type builds a tree that checks, closed meshes (per component)
// on the surface; seated, the plug and socket do not overlap, the shell gap is the clearance and
// the pin gap the clearance plus 50 um, the mating face rests on the floor, and a lateral shift
// past the clearance overlaps; the CSG value is never above a brute-force mesh distance and
// within the stated error_bound near the surface; bad parameters give useful messages.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parts.h"
#include "sdf_library.h"

// the helper of part_connector.c (to move into parts.h with the registry)

#define PIN_EXTRA 50e-6

// deterministic uniform numbers in [0, 1) (splitmix64)
static double rnd(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static const char* const types[3] = {"dsub", "dp", "rj45"};

// plug or socket of a type; latch only for rj45
static void build(tf_part_geometry* g, const char* part, const char* type, const char* clearance,
                  const char* pins, const char* latch, const char* chord) {
  tf_kv kv[5] = {{"type", type},
                 {"clearance_um", clearance},
                 {"pins", pins},
                 {"latch", latch},
                 {"chord_um", chord}};
  char err[256];
  int rc = tf_part_build(part, kv, 5, g, err, sizeof(err));
  if (rc) print_message("%s %s: %s\n", part, type, err);
  assert_int_equal(rc, 0);
  char why[128];
  assert_int_equal(tf_sdf_tree_check(g->params, g->params_size, why, sizeof(why)), 0);
}

// the part's SDF at (x, y, z)
static double eval(const tf_part_geometry* g, double x, double y, double z, double grad[3]) {
  double p[3] = {x, y, z};
  return g->fn(g->params, p, grad);
}

typedef struct edge {
  int a, b;
} edge;

// order of directed edges
static int edge_cmp(const void* x, const void* y) {
  const edge *e = x, *f = y;
  return e->a != f->a ? (e->a < f->a ? -1 : 1) : (e->b < f->b ? -1 : e->b > f->b);
}

// every directed edge once and its reverse once (each component closed and oriented)
static void assert_watertight(const tf_part_geometry* g) {
  int ne = 3 * g->nface;
  edge* e = malloc((size_t)ne * sizeof(edge));
  for (int f = 0; f < g->nface; f++) {
    for (int k = 0; k < 3; k++) {
      e[3 * f + k].a = g->face[3 * f + k], e[3 * f + k].b = g->face[3 * f + (k + 1) % 3];
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

// face normal (unnormalised) and centroid
static double face_frame(const tf_part_geometry* g, int f, double n[3], double c[3]) {
  const int* t = g->face + 3 * f;
  const double *a = g->vert + 3 * t[0], *b = g->vert + 3 * t[1], *d = g->vert + 3 * t[2];
  double ab[3], ad[3];
  for (int k = 0; k < 3; k++)
    ab[k] = b[k] - a[k], ad[k] = d[k] - a[k], c[k] = (a[k] + b[k] + d[k]) / 3;
  n[0] = ab[1] * ad[2] - ab[2] * ad[1];
  n[1] = ab[2] * ad[0] - ab[0] * ad[2];
  n[2] = ab[0] * ad[1] - ab[1] * ad[0];
  return sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
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

// closed meshes on the surface, faces facing out, for every type and option
static void test_builds_and_meshes(void** state) {
  (void)state;
  for (int t = 0; t < 3; t++) {
    for (int option = 0; option < (t == 2 ? 3 : 2); option++) {
      const char* pins = option == 1 ? "no" : "yes";
      const char* latch = option == 2 ? "yes" : "no";
      for (int side = 0; side < 2; side++) {
        tf_part_geometry g;
        build(&g, side ? "connector_socket" : "connector_plug", types[t], "50", pins, latch, "2");
        assert_true(g.chord_error > 0);
        assert_true(g.chord_error <= 2e-6);
        assert_watertight(&g);
        for (int i = 0; i < g.nvert; i++) {
          const double* v = g.vert + 3 * i;
          double d = eval(&g, v[0], v[1], v[2], NULL);
          // socket: one surface; plug: components may sit inside each other
          assert_true(side ? fabs(d) < 1e-12 : d < 1e-12);
          for (int k = 0; k < 3; k++)
            assert_true(v[k] >= g.aabb[k] - 1e-12 && v[k] <= g.aabb[3 + k] + 1e-12);
        }
        double area = 0;
        for (int f = 0; f < g.nface; f++) {
          double n[3], c[3], grad[3];
          double len = face_frame(&g, f, n, c);
          assert_true(len > 0);
          area += 0.5 * len;
          if (fabs(eval(&g, c[0], c[1], c[2], NULL)) > 1e-9) continue;  // a hidden face
          for (int k = 0; k < 3; k++) c[k] -= 1e-9 * n[k] / len;
          eval(&g, c[0], c[1], c[2], grad);
          assert_true((grad[0] * n[0] + grad[1] * n[1] + grad[2] * n[2]) / len > 0.5);
        }
        print_message(
            "%-16s %-4s pins %-3s latch %-3s: %5d vertices %5d faces, chord %.2f um, "
            "error_bound %.1f um, %d tree nodes\n",
            side ? "connector_socket" : "connector_plug", types[t], pins, latch, g.nvert, g.nface,
            g.chord_error * 1e6, g.error_bound * 1e6, ((const tf_sdf_tree*)g.params)->nnode);
        if (option == 0) assert_model_copy(&g, side ? "socket" : "plug");
        tf_part_geometry_free(&g);
      }
    }
  }
}

// random points on the plug's true surface: points outside projected along the gradient (a
// union is exact outside, so the projection lands on the surface)
static int plug_samples(const tf_part_geometry* plug, double (*out)[3], int n, uint64_t* seed) {
  int got = 0;
  while (got < n) {
    double p[3], grad[3];
    for (int k = 0; k < 3; k++)
      p[k] = plug->aabb[k] - 1e-3 + (plug->aabb[3 + k] - plug->aabb[k] + 2e-3) * rnd(seed);
    double d = plug->fn(plug->params, p, grad);
    if (d <= 0 || d > 1e-3) continue;
    for (int k = 0; k < 3; k++) out[got][k] = p[k] - d * grad[k];
    assert_true(fabs(eval(plug, out[got][0], out[got][1], out[got][2], NULL)) < 1e-12);
    got++;
  }
  return got;
}

// the least socket value over the plug samples and vertices, the plug moved by shift
static double least_gap(const tf_part_geometry* plug, const tf_part_geometry* socket,
                        const double (*samples)[3], int n, const double shift[3]) {
  double least = INFINITY;
  for (int i = 0; i < n + plug->nvert; i++) {
    const double* p = i < n ? samples[i] : plug->vert + 3 * (i - n);
    least = fmin(least, eval(socket, p[0] + shift[0], p[1] + shift[1], p[2] + shift[2], NULL));
  }
  return least;
}

// each type seated with 50 um clearance: contact without overlap, exact gaps, a tight lateral fit
static void test_seated_fit(void** state) {
  (void)state;
  const int nsample = 20000;
  double(*samples)[3] = malloc((size_t)nsample * sizeof(*samples));
  uint64_t seed = 21;
  for (int t = 0; t < 3; t++) {
    const double c = 50e-6;
    tf_part_geometry plug, socket;
    const char* latch = t == 2 ? "yes" : "no";
    build(&plug, "connector_plug", types[t], "50", "yes", latch, "2");
    build(&socket, "connector_socket", types[t], "50", "yes", latch, "2");
    double depth = tf_connector_mating_depth(types[t]);
    assert_true(depth > 0);
    assert_true(fabs(socket.aabb[5]) < 1e-15 && plug.aabb[2] < 0);
    plug_samples(&plug, samples, nsample, &seed);
    double seat[3] = {0, 0, -depth};
    // no overlap, and the mating face on the floor
    double least = least_gap(&plug, &socket, (const double(*)[3])samples, nsample, seat);
    assert_true(least > -1e-12 && least < 1e-12);
    // the socket's vertices stay out of the seated plug
    for (int i = 0; i < socket.nvert; i++) {
      const double* v = socket.vert + 3 * i;
      assert_true(eval(&plug, v[0], v[1], v[2] + depth, NULL) > -1e-12);
    }
    // shell gap: the plug's section (its vertices on the mating face) lifted to mid-depth
    // pin gap: the pin circles (their tips' vertices) lifted to mid-pin
    double shell = INFINITY, pin = INFINITY;
    double pin_len = -plug.aabb[2];
    for (int i = 0; i < plug.nvert; i++) {
      const double* v = plug.vert + 3 * i;
      if (v[2] == 0) shell = fmin(shell, eval(&socket, v[0], v[1], -0.5 * depth, NULL));
      if (v[2] == -pin_len) {
        pin = fmin(pin, eval(&socket, v[0], v[1], -depth - 0.5 * pin_len, NULL));
      }
    }
    print_message("%-4s seated: least gap %.2g um, shell gap %.6f um, pin gap %.6f um\n", types[t],
                  least * 1e6, shell * 1e6, pin * 1e6);
    assert_true(fabs(shell - c) < 1e-12);
    assert_true(fabs(pin - (c + PIN_EXTRA)) < 1e-12);
    // a lateral shift within the clearance still fits; beyond it, the shell overlaps
    for (int dir = 0; dir < 8; dir++) {
      double a = 0.25 * 3.14159265358979323846 * dir;
      double in[3] = {0.9 * c * cos(a), 0.9 * c * sin(a), -depth};
      double out[3] = {1.3 * c * cos(a), 1.3 * c * sin(a), -depth};
      assert_true(least_gap(&plug, &socket, (const double(*)[3])samples, nsample, in) > -1e-12);
      assert_true(least_gap(&plug, &socket, (const double(*)[3])samples, nsample, out) < -0.1 * c);
    }
    tf_part_geometry_free(&plug);
    tf_part_geometry_free(&socket);
  }
  free(samples);
}

// ---------------------------------------------------------------- error bound against a mesh

// closest distance from p to triangle abc (Ericson, Real-Time Collision Detection 5.1.5)
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

// brute-force unsigned distance to the mesh below `within`, boxes culling triangles
static double mesh_distance(const tf_part_geometry* g, const double* box, const double p[3],
                            double within) {
  double best = within;
  for (int f = 0; f < g->nface; f++) {
    const double* b = box + 6 * f;
    double e = 0;
    for (int k = 0; k < 3; k++) {
      double o = p[k] < b[k] ? b[k] - p[k] : p[k] > b[3 + k] ? p[k] - b[3 + k] : 0;
      e += o * o;
    }
    if (e > best * best) continue;
    const int* t = g->face + 3 * f;
    best =
        fmin(best, point_triangle(p, g->vert + 3 * t[0], g->vert + 3 * t[1], g->vert + 3 * t[2]));
  }
  return best;
}

// points within the band of the surface, many near edges (offsets from mesh vertices, which all
// lie on edges of the planar faces): the value never exceeds the mesh distance (plus its chord
// error) and the shortfall stays under error_bound
static void test_error_bound(void** state) {
  (void)state;
  uint64_t seed = 31;
  for (int t = 0; t < 4; t++) {
    for (int side = 0; side < 2; side++) {
      tf_part_geometry g;
      build(&g, side ? "connector_socket" : "connector_plug", types[t < 3 ? t : 2], "50", "yes",
            t == 3 ? "yes" : "no", "0.5");
      double* box = malloc((size_t)g.nface * 6 * sizeof(double));
      for (int f = 0; f < g.nface; f++) {
        for (int k = 0; k < 3; k++) box[6 * f + k] = INFINITY, box[6 * f + 3 + k] = -INFINITY;
        for (int j = 0; j < 3; j++) {
          const double* v = g.vert + 3 * g.face[3 * f + j];
          for (int k = 0; k < 3; k++) {
            box[6 * f + k] = fmin(box[6 * f + k], v[k]),
                        box[6 * f + 3 + k] = fmax(box[6 * f + 3 + k], v[k]);
          }
        }
      }
      const double band = TF_SDF_ERROR_BAND;
      double worst = 0, worst_ratio = 0, above = -INFINITY;
      int n = 0;
      while (n < 1500) {
        const double* v = g.vert + 3 * (int)(rnd(&seed) * g.nvert);
        double p[3], u[3], len = 0;
        for (int k = 0; k < 3; k++) u[k] = 2 * rnd(&seed) - 1, len += u[k] * u[k];
        len = sqrt(len);
        if (len > 1 || len < 1e-3) continue;
        double r = band * rnd(&seed);
        for (int k = 0; k < 3; k++) p[k] = v[k] + r * u[k] / len;
        double value = eval(&g, p[0], p[1], p[2], NULL);
        if (side == 0 && value < 0) continue;  // the plug's mesh has hidden faces inside
        double dm = mesh_distance(&g, box, p, 2 * band);
        if (dm > band) continue;
        n++;
        above = fmax(above, fabs(value) - dm - g.chord_error);
        worst = fmax(worst, dm - fabs(value));
        if (dm > 5e-6) worst_ratio = fmax(worst_ratio, (dm - fabs(value)) / dm);
      }
      print_message(
          "%-16s %-4s%s: %d points within %.0f um: worst shortfall %.2f um (bound %.2f "
          "um), worst ratio %.4f, value above distance by at most %.2g um\n",
          side ? "connector_socket" : "connector_plug", types[t < 3 ? t : 2],
          t == 3 ? "+latch" : "", n, band * 1e6, worst * 1e6, g.error_bound * 1e6, worst_ratio,
          above * 1e6);
      assert_true(above <= 1e-12);
      assert_true(worst <= g.error_bound + g.chord_error);
      free(box);
      tf_part_geometry_free(&g);
    }
  }
}

// inside the plug where a pin meets the mating face (the union's inexact side): the true depth
// of a point above the pin, inside the shell, is its distance to the pin's rim circle
static void test_plug_inside_bound(void** state) {
  (void)state;
  tf_part_geometry g;
  build(&g, "connector_plug", "dsub", "50", "yes", "no", "2");
  // one pin's centre and radius from its tip circle in the mesh
  const double* v0 = NULL;
  double centre[2] = {0, 0};
  int count = 0;
  for (int i = 0; i < g.nvert; i++) {
    const double* v = g.vert + 3 * i;
    if (v[2] != g.aabb[2]) continue;
    if (!v0) v0 = v;
    if (hypot(v[0] - v0[0], v[1] - v0[1]) < 1.2e-3) centre[0] += v[0], centre[1] += v[1], count++;
  }
  centre[0] /= count, centre[1] /= count;
  double r = hypot(v0[0] - centre[0], v0[1] - centre[1]);
  uint64_t seed = 41;
  double worst_ratio = 0;
  for (int i = 0; i < 5000; i++) {
    double rho = r * rnd(&seed), z = TF_SDF_ERROR_BAND * rnd(&seed),
           a = 6.283185307179586 * rnd(&seed);
    double depth = hypot(z, r - rho);
    if (depth > TF_SDF_ERROR_BAND || depth < 1e-9) continue;
    double value = eval(&g, centre[0] + rho * cos(a), centre[1] + rho * sin(a), z, NULL);
    assert_true(value < 0 && -value <= depth + 1e-15);
    worst_ratio = fmax(worst_ratio, (depth + value) / depth);
  }
  print_message("plug inside at a pin root: worst relative shortfall %.4f (1 - 1/sqrt 2 = %.4f)\n",
                worst_ratio, TF_SDF_CSG_RATIO_2);
  assert_true(worst_ratio <= TF_SDF_CSG_RATIO_2 + 1e-9);
  assert_true(worst_ratio > 0.25);  // the bound is reached: the stated error is not loose
  tf_part_geometry_free(&g);
}

// unknown key, value out of range, unknown type, latch on the wrong type
static void test_bad_params(void** state) {
  (void)state;
  char err[512];
  tf_part_geometry g;
  tf_kv unknown[1] = {{"colour", "red"}};
  assert_int_equal(tf_part_build("connector_plug", unknown, 1, &g, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "colour"));
  assert_non_null(strstr(err, "valid: type clearance_um pins latch chord_um"));
  tf_kv range[1] = {{"clearance_um", "500"}};
  assert_int_equal(tf_part_build("connector_socket", range, 1, &g, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "clearance_um must be in [0, 200]"));
  tf_kv type[1] = {{"type", "usb"}};
  assert_int_equal(tf_part_build("connector_socket", type, 1, &g, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "dsub|dp|rj45"));
  tf_kv latch[2] = {{"type", "dp"}, {"latch", "yes"}};
  assert_int_equal(tf_part_build("connector_plug", latch, 2, &g, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "rj45 only"));
  // the ends of the clearance range build for every type
  const char* const ends[2] = {"0", "200"};
  for (int t = 0; t < 4; t++) {
    for (int k = 0; k < 4; k++) {
      tf_part_geometry ok;
      build(&ok, k % 2 ? "connector_socket" : "connector_plug", types[t < 3 ? t : 2], ends[k / 2],
            "yes", t == 3 ? "yes" : "no", "5");
      assert_watertight(&ok);
      tf_part_geometry_free(&ok);
    }
  }
  assert_true(tf_connector_mating_depth("dsub") == 6e-3);
  assert_true(tf_connector_mating_depth("dp") == 8e-3);
  assert_true(tf_connector_mating_depth("rj45") == 10e-3);
  assert_true(tf_connector_mating_depth("usb") < 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builds_and_meshes), cmocka_unit_test(test_seated_fit),
      cmocka_unit_test(test_error_bound),       cmocka_unit_test(test_plug_inside_bound),
      cmocka_unit_test(test_bad_params),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
