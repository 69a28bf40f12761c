// SDF contact benchmark: contact generation plus reduction for a seated, contact-rich pose, and
// the reduction alone on 16k candidates. Until the bolt and nut parts exist the seated pose is
// a shaft in a bore: a cylinder tessellated into about 4k triangles (mesh x SDF), or the
// cylinder's analytic SDF (SDF x SDF), in an analytic bore with 10 um radial clearance, lying
// against one side of it 1 um deep. Prints one JSON object; times are the best of five rounds.
// Budgets (issue 6/7): generation plus reduction under 600 us per pair, 16k candidates reduced
// to at most 300 in under 2 ms.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_stats.h"
#include "collision.h"
#include "contact_reduce.h"
#include "tf_math.h"
#include "tightfit.h"

// monotonic seconds
#define SEGMENTS 64
#define RINGS 32
#define NVERT (SEGMENTS * RINGS + 2)
#define NFACE (2 * SEGMENTS * (RINGS - 1) + 2 * SEGMENTS)

static const double shaft_r = 0.004, shaft_h = 0.008;  // radius, half-length (m)
static const double clearance = 10e-6;                 // radial clearance (m)
static const double block[3] = {0.010, 0.010, 0.006};  // bore block half-sizes (m)

// a block with a hole of radius r along z: max(box, r - rho)
typedef struct bore_param {
  double half[3];
  double r;
} bore_param;

// exact inside the block near the bore (the max of two exact distances), a bound elsewhere
static double bore_fn(const void* params, const double p[3], double grad[3]) {
  const bore_param* b = params;
  double q[3], out = 0;
  int km = 0;
  for (int k = 0; k < 3; k++) {
    q[k] = fabs(p[k]) - b->half[k];
    if (q[k] > 0) out += q[k] * q[k];
    if (q[k] > q[km]) km = k;
  }
  double value;
  if (out > 0) {
    value = sqrt(out);
    for (int k = 0; k < 3; k++) grad[k] = q[k] > 0 ? (p[k] >= 0 ? 1 : -1) * q[k] / value : 0;
  } else {
    value = q[km];
    grad[0] = grad[1] = grad[2] = 0;
    grad[km] = p[km] >= 0 ? 1 : -1;
  }
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]), hole = b->r - rho;
  if (hole > value) {
    value = hole;
    grad[0] = rho > 0 ? -p[0] / rho : -1;
    grad[1] = rho > 0 ? -p[1] / rho : 0;
    grad[2] = 0;
  }
  return value;
}

// a cylinder of radius r, half-length h along z
typedef struct cyl_param {
  double r, h;
} cyl_param;

// the exact cylinder distance
static double cyl_fn(const void* params, const double p[3], double grad[3]) {
  const cyl_param* c = params;
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]), ux = rho > 0 ? p[0] / rho : 1,
         uy = rho > 0 ? p[1] / rho : 0;
  double dr = rho - c->r, dz = fabs(p[2]) - c->h, sz = p[2] >= 0 ? 1 : -1;
  if (dr > 0 || dz > 0) {
    double a = fmax(dr, 0), b = fmax(dz, 0), d = sqrt(a * a + b * b);
    grad[0] = a * ux / d, grad[1] = a * uy / d, grad[2] = b * sz / d;
    return d;
  }
  if (dr >= dz) {
    grad[0] = ux, grad[1] = uy, grad[2] = 0;
    return dr;
  }
  grad[0] = 0, grad[1] = 0, grad[2] = sz;
  return dz;
}

static double vert[3 * NVERT];
static int face[3 * NFACE];

// the shaft's tessellation: rings of SEGMENTS vertices on the true cylinder, fanned caps
static void build_shaft(void) {
  int nv = 0, nf = 0;
  for (int i = 0; i < RINGS; i++) {
    double z = -shaft_h + 2 * shaft_h * i / (RINGS - 1);
    for (int j = 0; j < SEGMENTS; j++) {
      double a = 2 * M_PI * j / SEGMENTS;
      vert[3 * nv] = shaft_r * cos(a), vert[3 * nv + 1] = shaft_r * sin(a), vert[3 * nv + 2] = z;
      nv++;
    }
  }
  int bottom = nv++, top = nv++;
  vert[3 * bottom] = vert[3 * bottom + 1] = 0, vert[3 * bottom + 2] = -shaft_h;
  vert[3 * top] = vert[3 * top + 1] = 0, vert[3 * top + 2] = shaft_h;
  for (int i = 0; i + 1 < RINGS; i++) {
    for (int j = 0; j < SEGMENTS; j++) {
      int a = i * SEGMENTS + j, b = i * SEGMENTS + (j + 1) % SEGMENTS;
      int c = b + SEGMENTS, d = a + SEGMENTS;
      int* f = face + 3 * nf++;
      f[0] = a, f[1] = b, f[2] = c;
      f = face + 3 * nf++;
      f[0] = a, f[1] = c, f[2] = d;
    }
  }
  for (int j = 0; j < SEGMENTS; j++) {
    int a = j, b = (j + 1) % SEGMENTS;
    int* f = face + 3 * nf++;
    f[0] = bottom, f[1] = b, f[2] = a;
    f = face + 3 * nf++;
    f[0] = top, f[1] = (RINGS - 1) * SEGMENTS + a, f[2] = (RINGS - 1) * SEGMENTS + b;
  }
}

typedef struct timing {
  double us;
  int candidates, kept, dropped;
} timing;

// best of five rounds of reps calls
static timing time_pair(const tf_shape* a, const tf_shape* b, double margin, int cap, int reps) {
  tf_contact_point out[TF_COLLIDE_MAX];
  timing t = {INFINITY, 0, 0, 0};
  for (int round = 0; round < 5; round++) {
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) {
      t.kept = tf_collide_n(a, b, margin, cap, out, &t.candidates);
    }
    t.us = fmin(t.us, 1e6 * (bench_now() - t0) / reps);
  }
  t.dropped = t.candidates - t.kept;
  return t;
}

// one JSON member
static void print_timing(const char* name, timing t, double budget_us, int last) {
  printf(
      "  \"%s\": {\"us\": %.1f, \"candidates\": %d, \"kept\": %d, \"dropped\": %d, "
      "\"budget_us\": %.0f, \"within_budget\": %s}%s\n",
      name, t.us, t.candidates, t.kept, t.dropped, budget_us, t.us <= budget_us ? "true" : "false",
      last ? "" : ",");
}

// the seated shaft (mesh x SDF, SDF x SDF), then the reduction alone
int main(void) {
  build_shaft();
  bore_param bore = {{block[0], block[1], block[2]}, shaft_r + clearance};
  cyl_param cyl = {shaft_r, shaft_h};
  // the bore block turned a little so nothing lines up with the world axes
  double q[4], axis[3] = {0.3, -0.2, 1}, rot[9];
  tf_vec3_normalize(axis);
  tf_quat_from_axis_angle(q, axis, 0.4);
  tf_quat_to_mat(rot, q);
  tf_shape hole;
  memset(&hole, 0, sizeof(hole));
  hole.type = TF_GEOM_SDF;
  hole.pos[0] = 0.1, hole.pos[1] = 0.2, hole.pos[2] = 0.3;
  memcpy(hole.mat, rot, sizeof(rot));
  hole.sdf.fn = bore_fn;
  hole.sdf.params = &bore;
  for (int k = 0; k < 3; k++) hole.sdf.aabb[k] = -block[k], hole.sdf.aabb[3 + k] = block[k];
  // the shaft on the bore's axis, pushed against its +x side 1 um deep, a vertex line there
  double off_local[3] = {clearance + 1e-6, 0, 0}, off[3];
  tf_mat3_mul_vec(off, rot, off_local);
  tf_shape mesh;
  memset(&mesh, 0, sizeof(mesh));
  mesh.type = TF_GEOM_MESH;
  tf_vec3_add(mesh.pos, hole.pos, off);
  memcpy(mesh.mat, rot, sizeof(rot));
  mesh.mesh.nvert = NVERT;
  mesh.mesh.vert = vert;
  mesh.mesh.nface = NFACE;
  mesh.mesh.face = face;
  mesh.mesh.rbound = hypot(shaft_r, shaft_h);
  tf_shape shaft = mesh;
  shaft.type = TF_GEOM_SDF;
  memset(&shaft.mesh, 0, sizeof(shaft.mesh));
  shaft.sdf.fn = cyl_fn;
  shaft.sdf.params = &cyl;
  shaft.sdf.aabb[0] = shaft.sdf.aabb[1] = -shaft_r, shaft.sdf.aabb[2] = -shaft_h;
  shaft.sdf.aabb[3] = shaft.sdf.aabb[4] = shaft_r, shaft.sdf.aabb[5] = shaft_h;
  double margin = 1e-4;  // the default min_margin: the whole 20 um gap is within reach
  timing mesh_sdf = time_pair(&mesh, &hole, margin, 128, 200);
  timing sdf_sdf = time_pair(&shaft, &hole, margin, 128, 200);

  // 16k synthetic candidates: normals over three flank-like cones, points around a ring
  enum { N = 16384 };
  static tf_contact_point cand[N], out[TF_REDUCE_MAX_KEEP];
  unsigned s = 12345;
  for (int i = 0; i < N; i++) {
    s = s * 1103515245u + 12345u;
    double a = 2 * M_PI * (s >> 8) / 16777216.0, tilt = (i % 3 - 1) * 0.5;
    double n[3] = {cos(a) * cos(tilt), sin(a) * cos(tilt), sin(tilt)};
    tf_vec3_copy(cand[i].normal, n);
    for (int k = 0; k < 3; k++) cand[i].pos[k] = 0.004 * n[k] + 1e-4 * (i % 7) * (k == 2);
    cand[i].dist = 1e-6 * (double)(i % 101) - 2e-5;
  }
  timing reduce[2];
  int caps[2] = {128, TF_REDUCE_MAX_KEEP};
  for (int c = 0; c < 2; c++) {
    tf_reduce_counts counts = {0, 0, 0, 0};
    reduce[c].us = INFINITY;
    for (int round = 0; round < 5; round++) {
      double t0 = bench_now();
      for (int r = 0; r < 20; r++) tf_contact_reduce(out, cand, N, caps[c], NULL, &counts);
      reduce[c].us = fmin(reduce[c].us, 1e6 * (bench_now() - t0) / 20);
    }
    reduce[c].candidates = counts.candidates;
    reduce[c].kept = counts.kept;
    reduce[c].dropped = counts.dropped;
  }
  printf("{\n  \"bench\": \"sdf_contact\",\n");
  printf("  \"scene\": \"shaft r %.1f mm in a bore, %.0f um clearance, lying on one side\",\n",
         1e3 * shaft_r, 1e6 * clearance);
  printf("  \"mesh_triangles\": %d,\n  \"mesh_vertices\": %d,\n", NFACE, NVERT);
  print_timing("mesh_sdf", mesh_sdf, 600, 0);
  print_timing("sdf_sdf", sdf_sdf, 600, 0);
  print_timing("reduce_16k_cap128", reduce[0], 2000, 0);
  print_timing("reduce_16k_uncapped", reduce[1], 2000, 1);
  printf("}\n");
  return 0;
}
