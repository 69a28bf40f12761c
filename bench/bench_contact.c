// Contact benchmark: for each solver, steps per second and mean solver iterations on a
// 3-box stack, a 20-box pile and a 7-joint chain beside a box on a plane; then the narrow
// phase's time per call for every supported shape pair in contact. Prints one JSON object.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_stats.h"
#include "collision.h"
#include "gate_util.h"
#include "tightfit.h"

static const double identity[4] = {1, 0, 0, 0};

static tf_model* build_stack3(tf_solver_type solver, char* err, size_t n) {
  tf_builder* b = tf_gate_builder(0.002, solver, 9.81);
  tf_gate_plane(b, "floor", 0, 1.0);
  double size[3] = {0.05, 0.05, 0.05};
  for (int i = 0; i < 3; i++) {
    char name[8] = "box0";
    name[3] = (char)('0' + i);
    double pos[3] = {0, 0, 0.05 + 0.1 * i};
    tf_gate_free_geom(b, name, TF_GEOM_BOX, size, 1.0, pos, identity, 1.0, -1);
  }
  tf_model* m = tf_builder_compile(b, err, n);
  tf_builder_destroy(b);
  return m;
}

// 20 boxes in a loose 2 x 2 x 5 column, slightly turned, that settle into a pile
static tf_model* build_pile20(tf_solver_type solver, char* err, size_t n) {
  tf_builder* b = tf_gate_builder(0.002, solver, 9.81);
  tf_gate_plane(b, "floor", 0, 0.8);
  double size[3] = {0.04, 0.03, 0.02};
  for (int i = 0; i < 20; i++) {
    char name[8];
    snprintf(name, sizeof(name), "b%d", i);
    double a = 0.3 * i;
    double pos[3] = {0.09 * (i % 2) - 0.045, 0.07 * ((i / 2) % 2) - 0.035, 0.03 + 0.06 * (i / 4)};
    double quat[4] = {cos(0.5 * a), 0, 0, sin(0.5 * a)};
    tf_gate_free_geom(b, name, TF_GEOM_BOX, size, 0.2, pos, quat, 0.8, -1);
  }
  tf_option opt = tf_option_default();
  opt.timestep = 0.002;
  opt.solver = solver;
  opt.nconmax = 256;
  tf_builder_set_option(b, &opt);
  tf_model* m = tf_builder_compile(b, err, n);
  tf_builder_destroy(b);
  return m;
}

// a 7-hinge chain with capsule links hanging beside a box resting on the floor
static tf_model* build_chain_box(tf_solver_type solver, char* err, size_t n) {
  tf_builder* b = tf_gate_builder(0.002, solver, 9.81);
  tf_gate_plane(b, "floor", 0, 1.0);
  int parent = 0;
  for (int i = 0; i < 7; i++) {
    char name[16];
    tf_body_def body = tf_body_def_default();
    snprintf(name, sizeof(name), "link%d", i);
    body.name = name;
    body.parent = parent;
    body.pos[2] = i == 0 ? 0.9 : -0.1;
    body.pos[0] = i == 0 ? -0.3 : 0;
    body.mass = 0.5;
    body.com[2] = -0.05;
    parent = tf_builder_add_body(b, &body);
    tf_joint_def hinge = tf_joint_def_default();
    snprintf(name, sizeof(name), "joint%d", i);
    hinge.name = name;
    hinge.body = parent;
    hinge.axis[0] = 0, hinge.axis[1] = i % 2 ? 1 : 0, hinge.axis[2] = i % 2 ? 0 : 1;
    hinge.damping = 0.05;
    hinge.qpos0[0] = 0.2;
    tf_builder_add_joint(b, &hinge);
    tf_geom_def g = tf_geom_def_default();
    snprintf(name, sizeof(name), "capsule%d", i);
    g.name = name;
    g.body = parent;
    g.type = TF_GEOM_CAPSULE;
    g.size[0] = 0.02, g.size[1] = 0.04;
    g.pos[2] = -0.05;
    tf_builder_add_geom(b, &g);
  }
  double size[3] = {0.05, 0.05, 0.05}, pos[3] = {0, 0, 0.05};
  tf_gate_free_geom(b, "box", TF_GEOM_BOX, size, 1.0, pos, identity, 1.0, -1);
  tf_model* m = tf_builder_compile(b, err, n);
  tf_builder_destroy(b);
  return m;
}

typedef tf_model* (*scene_builder)(tf_solver_type, char*, size_t);

// steps/s and mean iterations over `steps` steps from the initial state
static void run_scene(const char* name, scene_builder build, int steps, int last) {
  printf("    \"%s\": {", name);
  for (int s = 0; s < TF_SOLVER_N; s++) {
    char err[256];
    tf_model* m = build((tf_solver_type)s, err, sizeof(err));
    if (!m) {
      fprintf(stderr, "bench_contact: %s\n", err);
      printf("%s\"%s\": null", s ? ", " : "", tf_solver_name(s));
      continue;
    }
    tf_data* d = tf_data_create(m);
    double wall = 0, iters = 0, contacts = 0;
    int done = 0;
    for (int i = 0; i < steps; i++) {
      double t0 = bench_now();
      if (tf_step(m, d)) break;
      wall += bench_now() - t0;
      iters += d->solver_iterations;
      contacts += d->ncon;
      done++;
    }
    printf(
        "%s\"%s\": {\"steps_per_s\": %.1f, \"iterations_mean\": %.2f, \"contacts_mean\": %.2f, "
        "\"steps\": %d}",
        s ? ", " : "", tf_solver_name(s), done / fmax(wall, 1e-12), iters / fmax(done, 1),
        contacts / fmax(done, 1), done);
    tf_data_destroy(d);
    tf_model_destroy(m);
  }
  printf("}%s\n", last ? "" : ",");
}

// a shape of the given type at the origin with unit-ish size; hulls reuse a cube's points
static tf_shape make_shape(int type, double z, const tf_model* hull_model) {
  tf_shape s;
  memset(&s, 0, sizeof(s));
  s.type = type;
  s.size[0] = 0.05, s.size[1] = 0.05, s.size[2] = 0.05;
  s.pos[2] = z;
  s.mat[0] = s.mat[4] = s.mat[8] = 1;
  if (type == TF_GEOM_HULL) {
    tf_hull_view* v = &s.hull;
    v->nvert = hull_model->hull_vertnum[0];
    v->vert = hull_model->hull_vert;
    v->nface = hull_model->hull_facenum[0];
    v->face_plane = hull_model->hull_face_plane;
    v->face_vertadr = hull_model->hull_face_vertadr;
    v->face_vertnum = hull_model->hull_face_vertnum;
    v->face_vert = hull_model->hull_face_vert;
    v->rbound = hull_model->hull_rbound[0];
  }
  return s;
}

// the extent of a shape below its origin along z, to place pairs just in contact
static double half_height(int type) {
  switch (type) {
    case TF_GEOM_CAPSULE:
      return 0.1;
    case TF_GEOM_PLANE:
      return 0;
    default:
      return 0.05;
  }
}

static void time_pairs(void) {
  // a model holding one cube hull, for the hull shapes
  double pts[24];
  for (int k = 0; k < 8; k++) {
    pts[3 * k] = (k & 1 ? 1 : -1) * 0.05;
    pts[3 * k + 1] = (k & 2 ? 1 : -1) * 0.05;
    pts[3 * k + 2] = (k & 4 ? 1 : -1) * 0.05;
  }
  tf_builder* b = tf_builder_create();
  tf_builder_add_hull(b, "cube", pts, 8);
  char err[256];
  tf_model* hm = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  printf("  \"narrow_phase_us\": {");
  int first = 1;
  for (int t1 = 0; t1 < TF_GEOM_NTYPE; t1++) {
    for (int t2 = t1; t2 < TF_GEOM_NTYPE; t2++) {
      if (!tf_collide_supported(t1, t2) || !hm) continue;
      // resting on each other, 1 um of overlap, slightly turned
      tf_shape a = make_shape(t1, 0, hm);
      tf_shape c = make_shape(t2, half_height(t1) + half_height(t2) - 1e-6, hm);
      double q[4] = {cos(0.05), 0.02, 0.03, sin(0.05)}, n2 = 0;
      for (int k = 0; k < 4; k++) n2 += q[k] * q[k];
      for (int k = 0; k < 4; k++) q[k] /= sqrt(n2);
      double w = q[0], x = q[1], y = q[2], z = q[3];
      double mat[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                       2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
      if (t2 != TF_GEOM_PLANE) memcpy(c.mat, mat, sizeof(mat));
      tf_contact_point out[TF_MAX_PAIR_CONTACTS];
      int reps = 2000, count = 0;
      double best = INFINITY;
      for (int round = 0; round < 5; round++) {
        double t0 = bench_now();
        for (int r = 0; r < reps; r++) count = tf_collide(&a, &c, 1e-3, out);
        best = fmin(best, (bench_now() - t0) / reps);
      }
      printf("%s\"%s_%s\": {\"us\": %.3f, \"points\": %d}", first ? "" : ", ",
             tf_geom_type_name(t1), tf_geom_type_name(t2), 1e6 * best, count);
      first = 0;
    }
  }
  printf("}\n");
  tf_model_destroy(hm);
}

int main(void) {
  printf("{\n  \"bench\": \"contact\",\n  \"dt\": 0.002,\n  \"scenes\": {\n");
  run_scene("stack3", build_stack3, 500, 0);
  run_scene("pile20", build_pile20, 500, 0);
  run_scene("chain7_box", build_chain_box, 500, 1);
  printf("  },\n");
  time_pairs();
  printf("}\n");
  return 0;
}
