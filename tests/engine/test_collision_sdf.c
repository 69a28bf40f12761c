// Tests of the SDF and mesh pairs (collision_sdf.c) and of contact reduction
// (contact_reduce.c): closed-form agreement (an SDF sphere against a primitive sphere, two SDF
// spheres, a box on an SDF half-space keeping its four corners), a sphere dropped into an SDF
// bowl that settles at the bottom, mesh pairs against exact answers, every new pair in both
// orders, two-way sampling finding what one way misses (a block's edge under a plate's face,
// a pocket's floor under a plug), and the reduction's determinism, cap and trimming order on
// synthetic candidates.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "collision.h"
#include "collision_primitive.h"
#include "collision_sdf.h"
#include "collision_stage.h"
#include "contact_reduce.h"
#include "tf_math.h"
#include "mesh_primitive.h"
#include "tightfit.h"

// fails with both values printed when |a - b| > tol
#define assert_near(a, b, tol)                                                                  \
  do {                                                                                          \
    double a_ = (a), b_ = (b);                                                                  \
    if (!(fabs(a_ - b_) <= (tol))) {                                                            \
      print_error("%s = %.17g, expected %s = %.17g (tol %g)\n", #a, a_, #b, b_, (double)(tol)); \
      fail();                                                                                   \
    }                                                                                           \
  } while (0)

// splitmix64, so every run sees the same numbers
typedef struct test_rng {
  uint64_t state;
} test_rng;

static double rng_uniform(test_rng* rng, double lo, double hi) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

// ---------------------------------------------------------------------------------------------
// analytic SDFs of the tests (geom frame)

typedef struct sphere_param {
  double r;
} sphere_param;

static double sphere_fn(const void* params, const double p[3], double grad[3]) {
  const sphere_param* s = params;
  double n = tf_vec3_norm(p);
  if (n > 0) {
    tf_vec3_scale(grad, p, 1 / n);
  } else {
    grad[0] = 0, grad[1] = 0, grad[2] = 1;
  }
  return n - s->r;
}

// the solid z <= 0
static double halfspace_fn(const void* params, const double p[3], double grad[3]) {
  (void)params;
  grad[0] = 0, grad[1] = 0, grad[2] = 1;
  return p[2];
}

// exact box distance
static double box_fn(const void* params, const double p[3], double grad[3]) {
  const double* h = params;
  double q[3], out = 0;
  int km = 0;
  for (int k = 0; k < 3; k++) {
    q[k] = fabs(p[k]) - h[k];
    if (q[k] > 0) out += q[k] * q[k];
    if (q[k] > q[km]) km = k;
  }
  if (out > 0) {
    double d = sqrt(out);
    for (int k = 0; k < 3; k++) grad[k] = q[k] > 0 ? (p[k] >= 0 ? 1 : -1) * q[k] / d : 0;
    return d;
  }
  grad[0] = grad[1] = grad[2] = 0;
  grad[km] = p[km] >= 0 ? 1 : -1;
  return q[km];
}

// a bowl: the block [-R-w, R+w]^2 x [-w, R] less the ball of radius R about (0, 0, R), so the
// cavity's lowest point is the origin. Exact near the cavity (the max of exact distances)
typedef struct bowl_param {
  double R, w;
} bowl_param;

static double bowl_fn(const void* params, const double p[3], double grad[3]) {
  const bowl_param* b = params;
  double c[3] = {p[0], p[1], p[2] - b->R};
  double n = tf_vec3_norm(c);
  double value = b->R - n;
  if (n > 0) {
    tf_vec3_scale(grad, c, -1 / n);
  } else {
    grad[0] = 0, grad[1] = 0, grad[2] = 1;
  }
  double h[3] = {b->R + b->w, b->R + b->w, 0.5 * (b->R + b->w)}, q[3] = {p[0], p[1], 0}, g[3];
  q[2] = p[2] - 0.5 * (b->R - b->w);
  double outer = box_fn(h, q, g);
  if (outer > value) {
    value = outer;
    tf_vec3_copy(grad, g);
  }
  return value;
}

// a block with a bore of radius r along z: max(box, r - rho)
typedef struct bore_param {
  double half[3];
  double r;
} bore_param;

static double bore_fn(const void* params, const double p[3], double grad[3]) {
  const bore_param* b = params;
  double value = box_fn(b->half, p, grad);
  double rho = hypot(p[0], p[1]), hole = b->r - rho;
  if (hole > value) {
    value = hole;
    grad[0] = rho > 0 ? -p[0] / rho : -1;
    grad[1] = rho > 0 ? -p[1] / rho : 0;
    grad[2] = 0;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// shapes

static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

static tf_shape make_shape(int type, const double size[3], const double pos[3],
                           const double mat[9]) {
  tf_shape s;
  memset(&s, 0, sizeof(s));
  s.type = type;
  if (size) memcpy(s.size, size, sizeof(s.size));
  memcpy(s.pos, pos, sizeof(s.pos));
  memcpy(s.mat, mat, sizeof(s.mat));
  return s;
}

// an analytic SDF shape with the given box and error bound
static tf_shape make_sdf(tf_sdf_fn fn, const void* params, const double aabb[6], double error_bound,
                         const double pos[3], const double mat[9]) {
  tf_shape s = make_shape(TF_GEOM_SDF, NULL, pos, mat);
  s.sdf.fn = fn;
  s.sdf.params = params;
  memcpy(s.sdf.aabb, aabb, sizeof(s.sdf.aabb));
  s.sdf.error_bound = error_bound;
  return s;
}

static void rotation(double mat[9], double ax, double ay, double az, double angle) {
  double axis[3] = {ax, ay, az}, q[4];
  tf_vec3_normalize(axis);
  tf_quat_from_axis_angle(q, axis, angle);
  tf_quat_to_mat(mat, q);
}

// the deepest of n points
static const tf_contact_point* deepest(const tf_contact_point* p, int n) {
  const tf_contact_point* best = p;
  for (int i = 1; i < n; i++) {
    if (p[i].dist < best->dist) best = p + i;
  }
  return best;
}

static double angle_between(const double a[3], const double b[3]) {
  double c[3];
  tf_vec3_cross(c, a, b);
  return atan2(tf_vec3_norm(c), tf_vec3_dot(a, b));
}

// every point finite, under margin, with a unit normal; at most cap of them
static void expect_sane(const tf_contact_point* p, int n, int cap, double margin) {
  assert_true(n >= 0 && n <= cap);
  for (int i = 0; i < n; i++) {
    assert_true(isfinite(p[i].dist) && isfinite(p[i].pos[0] + p[i].pos[1] + p[i].pos[2]));
    assert_true(p[i].dist < margin);
    assert_near(tf_vec3_norm(p[i].normal), 1, 1e-9);
  }
}

// ---------------------------------------------------------------------------------------------
// closed-form agreement

// an SDF sphere against a primitive sphere: the same contact as the closed-form sphere pair,
// through the exact path (error_bound 0) and through surface sampling (error_bound > 0), in
// both argument orders
static void test_sphere_vs_sdf_sphere(void** state) {
  (void)state;
  test_rng rng = {7};
  sphere_param sp = {0.012};
  const double aabb[6] = {-0.012, -0.012, -0.012, 0.012, 0.012, 0.012};
  for (int trial = 0; trial < 20; trial++) {
    double rot[9], pa[3] = {rng_uniform(&rng, -0.1, 0.1), rng_uniform(&rng, -0.1, 0.1), 0.05};
    rotation(rot, rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), 1, rng_uniform(&rng, 0, 6));
    double dir[3] = {rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1)};
    tf_vec3_normalize(dir);
    double r = 0.008, gap = rng_uniform(&rng, -5e-4, 5e-4), pb[3];
    for (int k = 0; k < 3; k++) pb[k] = pa[k] + (sp.r + r + gap) * dir[k];
    tf_shape ball = make_shape(TF_GEOM_SPHERE, (double[3]){r, 0, 0}, pb, identity);
    tf_shape twin = make_shape(TF_GEOM_SPHERE, (double[3]){sp.r, 0, 0}, pa, identity);
    tf_contact_point ref[TF_MAX_PAIR_CONTACTS];
    assert_int_equal(tf_collide_sphere_sphere(&ball, &twin, 1e-3, ref), 1);
    for (int exact = 1; exact >= 0; exact--) {
      tf_shape sdf = make_sdf(sphere_fn, &sp, aabb, exact ? 0 : 1e-6, pa, rot);
      tf_contact_point out[TF_COLLIDE_MAX];
      int cand = -1;
      int n = tf_collide_n(&ball, &sdf, 1e-3, TF_COLLIDE_MAX, out, &cand);
      expect_sane(out, n, TF_COLLIDE_MAX, 1e-3);
      assert_true(n >= 1 && cand >= n);
      const tf_contact_point* d = deepest(out, n);
      assert_near(d->dist, ref[0].dist, 1e-6);
      assert_true(angle_between(d->normal, ref[0].normal) < 1e-6);
      for (int k = 0; k < 3; k++) assert_near(d->pos[k], ref[0].pos[k], 1e-6);
      // the other order: the same points with the normals turned round
      tf_contact_point back[TF_COLLIDE_MAX];
      assert_int_equal(tf_collide_n(&sdf, &ball, 1e-3, TF_COLLIDE_MAX, back, NULL), n);
      for (int k = 0; k < 3; k++) assert_near(back[0].normal[k], -out[0].normal[k], 0);
    }
  }
}

// two SDF spheres: the descent on phi1 + phi2 + |max(phi1, phi2)| finds the closed form
static void test_sdf_sdf_spheres(void** state) {
  (void)state;
  test_rng rng = {11};
  sphere_param s1 = {0.01}, s2 = {0.007};
  const double box1[6] = {-0.01, -0.01, -0.01, 0.01, 0.01, 0.01};
  const double box2[6] = {-0.007, -0.007, -0.007, 0.007, 0.007, 0.007};
  for (int trial = 0; trial < 20; trial++) {
    double rot1[9], rot2[9], dir[3], pa[3] = {0.2, -0.1, 0.3}, pb[3];
    rotation(rot1, rng_uniform(&rng, -1, 1), 1, 0.5, rng_uniform(&rng, 0, 6));
    rotation(rot2, 1, rng_uniform(&rng, -1, 1), 0.5, rng_uniform(&rng, 0, 6));
    for (int k = 0; k < 3; k++) dir[k] = rng_uniform(&rng, -1, 1);
    tf_vec3_normalize(dir);
    double gap = rng_uniform(&rng, -8e-4, 4e-4);
    for (int k = 0; k < 3; k++) pb[k] = pa[k] + (s1.r + s2.r + gap) * dir[k];
    tf_shape a = make_sdf(sphere_fn, &s1, box1, 0, pa, rot1);
    tf_shape b = make_sdf(sphere_fn, &s2, box2, 0, pb, rot2);
    tf_contact_point out[TF_COLLIDE_MAX];
    int cand = 0;
    int n = tf_collide_n(&a, &b, 1e-3, TF_COLLIDE_MAX, out, &cand);
    expect_sane(out, n, TF_COLLIDE_MAX, 1e-3);
    assert_true(n >= 1);
    const tf_contact_point* d = deepest(out, n);
    assert_near(d->dist, gap, 1e-9);
    assert_true(angle_between(d->normal, dir) < 1e-6);
    // the midpoint between the surfaces on the line of centres
    for (int k = 0; k < 3; k++) assert_near(d->pos[k], pa[k] + (s1.r + 0.5 * gap) * dir[k], 1e-6);
    // every minimiser is the same contact: the points agree
    for (int i = 0; i < n; i++) assert_near(out[i].dist, gap, 1e-6);
  }
  // apart by more than the margin: nothing
  double far[3] = {0.2, -0.1, 0.3 + 0.02}, p0[3] = {0.2, -0.1, 0.3};
  tf_shape a = make_sdf(sphere_fn, &s1, box1, 0, p0, identity);
  tf_shape b = make_sdf(sphere_fn, &s2, box2, 0, far, identity);
  tf_contact_point out[TF_COLLIDE_MAX];
  int cand = -1;
  assert_int_equal(tf_collide_n(&a, &b, 1e-3, TF_COLLIDE_MAX, out, &cand), 0);
  assert_int_equal(cand, 0);
}

// a tilted box resting on a tilted SDF half-space: the closed-form deepest corner and normal,
// and the reduced set keeps all four lower corners
static void test_box_on_halfspace(void** state) {
  (void)state;
  const double aabb[6] = {-1, -1, -1, 1, 1, 0};
  double half[3] = {0.05, 0.04, 0.03};
  test_rng rng = {5};
  for (int trial = 0; trial < 10; trial++) {
    double ps[3] = {rng_uniform(&rng, -0.2, 0.2), rng_uniform(&rng, -0.2, 0.2), 0.1}, rs[9];
    rotation(rs, rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), 1, rng_uniform(&rng, 0, 0.5));
    tf_shape plane = make_sdf(halfspace_fn, NULL, aabb, 0, ps, rs);
    // the box in the half-space's frame: yawed, tipped by a few mrad, 0.1 mm deep
    double yaw[9], tip[9], rl[9], rb[9];
    rotation(yaw, 0, 0, 1, rng_uniform(&rng, 0, 6));
    rotation(tip, 1, rng_uniform(&rng, -1, 1), 0, rng_uniform(&rng, 0.001, 0.005));
    tf_mat3_mul(rl, tip, yaw);
    tf_mat3_mul(rb, rs, rl);
    // lowest corner height in the plane frame
    double low = INFINITY, corner_l[8][3];
    for (int c = 0; c < 8; c++) {
      double v[3] = {(c & 1 ? 1 : -1) * half[0], (c & 2 ? 1 : -1) * half[1],
                     (c & 4 ? 1 : -1) * half[2]};
      tf_mat3_mul_vec(corner_l[c], rl, v);
      low = fmin(low, corner_l[c][2]);
    }
    double depth = 1e-4, pl[3] = {0.01, -0.02, -low - depth}, pb[3];
    tf_mat3_mul_vec(pb, rs, pl);
    tf_vec3_add(pb, pb, ps);
    tf_shape box = make_shape(TF_GEOM_BOX, half, pb, rb);
    double margin = 2e-3, up[3] = {rs[2], rs[5], rs[8]}, down[3];
    tf_vec3_scale(down, up, -1);
    tf_contact_point out[TF_COLLIDE_MAX];
    int cand = 0;
    int n = tf_collide_n(&box, &plane, margin, TF_COLLIDE_MAX, out, &cand);
    expect_sane(out, n, TF_COLLIDE_MAX, margin);
    assert_true(cand >= n && n >= 4);
    const tf_contact_point* d = deepest(out, n);
    assert_near(d->dist, -depth, 1e-12);
    for (int i = 0; i < n; i++) assert_true(angle_between(out[i].normal, down) < 1e-12);
    // each of the four lower corners is the box-side point of some contact
    for (int c = 0; c < 8; c++) {
      double h = corner_l[c][2] - low;
      if (h > half[2]) continue;  // an upper corner
      double world[3];
      tf_mat3_mul_vec(world, rs, corner_l[c]);
      tf_vec3_add(world, world, pb);
      int found = 0;
      for (int i = 0; i < n && !found; i++) {
        double on_box[3], diff[3];
        for (int k = 0; k < 3; k++)
          on_box[k] = out[i].pos[k] - 0.5 * out[i].dist * out[i].normal[k];
        tf_vec3_sub(diff, on_box, world);
        found = tf_vec3_norm(diff) < 1e-10;
        if (found) assert_near(out[i].dist, h - depth, 1e-12);
      }
      assert_true(found);
    }
    // the same in the other order, and the same bytes twice
    tf_contact_point again[TF_COLLIDE_MAX];
    assert_int_equal(tf_collide_n(&box, &plane, margin, TF_COLLIDE_MAX, again, NULL), n);
    assert_memory_equal(out, again, sizeof(tf_contact_point) * (size_t)n);
  }
}

// ---------------------------------------------------------------------------------------------
// a sphere dropped into an SDF bowl settles at the bottom

// the exact bowl SDF (radius 0.1, rim 0.02) added to b; returns its id
static int add_bowl_sdf(tf_builder* b) {
  static const bowl_param bp = {0.1, 0.02};
  tf_sdf_def sd;
  memset(&sd, 0, sizeof(sd));
  sd.name = "bowl";
  sd.fn = bowl_fn;
  sd.params = &bp;
  sd.params_size = sizeof(bp);
  const double aabb[6] = {-0.12, -0.12, -0.02, 0.12, 0.12, 0.1};
  memcpy(sd.aabb, aabb, sizeof(sd.aabb));
  sd.error_bound = 0;
  sd.mesh = -1;
  return tf_builder_add_sdf(b, &sd);
}

static void test_bowl_settle(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = 1e-3;
  opt.solver = TF_SOLVER_AL;
  opt.gravity[0] = opt.gravity[1] = 0;
  opt.gravity[2] = -9.81;
  tf_builder_set_option(b, &opt);
  int sdf = add_bowl_sdf(b);
  assert_true(sdf >= 0);
  tf_geom_def bowl = tf_geom_def_default();
  bowl.name = "bowl";
  bowl.type = TF_GEOM_SDF;
  bowl.sdf = sdf;
  bowl.friction[0] = 0;
  bowl.condim = 1;
  assert_true(tf_builder_add_geom(b, &bowl) >= 0);
  double r = 0.01, mass = 0.05;
  tf_body_def body = tf_body_def_default();
  body.name = "ball";
  body.pos[0] = 0.012, body.pos[1] = -0.006, body.pos[2] = r + 0.006;
  body.mass = mass;
  body.inertia[0] = body.inertia[1] = body.inertia[2] = 0.4 * mass * r * r;
  int id = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "ball_free";
  joint.body = id;
  joint.type = TF_JOINT_FREE;
  joint.damping = 0.5;  // settles in well under a second once it slides
  tf_builder_add_joint(b, &joint);
  tf_geom_def ball = tf_geom_def_default();
  ball.name = "ball";
  ball.body = id;
  ball.type = TF_GEOM_SPHERE;
  ball.size[0] = r;
  ball.friction[0] = 0;
  ball.condim = 1;
  ball.margin = 0.005;
  tf_builder_add_geom(b, &ball);
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) print_error("compile: %s\n", err);
  assert_non_null(m);
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  int touched = 0;
  for (int i = 0; i < 2000; i++) {
    tf_step(m, d);
    touched |= d->ncon > 0;
  }
  assert_true(touched);
  const double* x = d->xpos + 3 * id;
  print_message("ball at rest: %.3e %.3e %.6e (bottom %.6e)\n", x[0], x[1], x[2], r);
  assert_near(x[0], 0, 1e-4);
  assert_near(x[1], 0, 1e-4);
  assert_near(x[2], r, 1e-4);
  assert_true(d->ncon_candidates >= d->ncon);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// the model tessellates a primitive that may touch an SDF once, at compile, and no other
// (a box with collisions off, the plane): the same vertices and faces tf_primitive_mesh
// makes, and a pair measured with the model's copy gives the same bytes as one tessellating
// the box itself
static void test_model_tessellation(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  tf_geom_def bowl = tf_geom_def_default();
  bowl.name = "bowl";
  bowl.type = TF_GEOM_SDF;
  bowl.sdf = add_bowl_sdf(b);
  int gbowl = tf_builder_add_geom(b, &bowl);
  tf_body_def body = tf_body_def_default();
  body.name = "block";
  body.pos[0] = 0.011, body.pos[2] = 0.0125;
  int id = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "block_free";
  joint.body = id;
  joint.type = TF_JOINT_FREE;
  tf_builder_add_joint(b, &joint);
  tf_geom_def box = tf_geom_def_default();
  box.name = "block";
  box.body = id;
  box.type = TF_GEOM_BOX;
  box.size[0] = 0.02, box.size[1] = 0.015, box.size[2] = 0.01;
  int gbox = tf_builder_add_geom(b, &box);
  box.name = "ghost";
  box.contype = box.conaffinity = 0;
  int gghost = tf_builder_add_geom(b, &box);
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) print_error("compile: %s\n", err);
  assert_non_null(m);
  assert_true(m->geom_tessadr[gbowl] < 0 && m->geom_tessadr[gghost] < 0);
  assert_true(m->geom_tessadr[gbox] >= 0);
  static double vert[3 * TF_PRIM_MESH_MAX_VERT];
  static int face[3 * TF_PRIM_MESH_MAX_FACE];
  int nface = 0;
  int nvert = tf_primitive_mesh(vert, face, &nface, TF_GEOM_BOX, box.size, TF_SDF_SAMPLE_SPACING);
  assert_int_equal(m->ntessvert, nvert);
  assert_int_equal(m->ntessface, nface);
  assert_int_equal(m->geom_tessvertnum[gbox], nvert);
  assert_int_equal(m->geom_tessfacenum[gbox], nface);
  assert_memory_equal(m->tess_vert, vert, sizeof(double) * 3 * (size_t)nvert);
  assert_memory_equal(m->tess_face, face, sizeof(int) * 3 * (size_t)nface);

  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  tf_kinematics(m, d);
  tf_shape sb, sf;
  tf_geom_shape(m, d, gbox, &sb);
  tf_geom_shape(m, d, gbowl, &sf);
  assert_int_equal(sb.tess.nvert, nvert);
  static tf_contact_point held[TF_COLLIDE_MAX], made[TF_COLLIDE_MAX];
  memset(held, 0, sizeof(held));
  memset(made, 0, sizeof(made));
  int n1 = tf_collide_n(&sb, &sf, 2e-3, TF_COLLIDE_MAX, held, NULL);
  memset(&sb.tess, 0, sizeof(sb.tess));
  int n2 = tf_collide_n(&sb, &sf, 2e-3, TF_COLLIDE_MAX, made, NULL);
  assert_true(n1 > 0);
  assert_int_equal(n1, n2);
  assert_memory_equal(held, made, sizeof(held[0]) * (size_t)n1);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// ---------------------------------------------------------------------------------------------
// meshes

// a box's own tessellation as a TF_GEOM_MESH shape (vertices and faces kept by the caller)
static tf_shape mesh_of(double* vert, int* face, int type, const double size[3],
                        const double pos[3], const double mat[9]) {
  int nface = 0;
  int nvert = tf_primitive_mesh(vert, face, &nface, type, size, 5e-3);
  tf_shape s = make_shape(TF_GEOM_MESH, NULL, pos, mat);
  s.mesh.nvert = nvert;
  s.mesh.vert = vert;
  s.mesh.nface = nface;
  s.mesh.face = face;
  for (int i = 0; i < nvert; i++) s.mesh.rbound = fmax(s.mesh.rbound, tf_vec3_norm(vert + 3 * i));
  return s;
}

// a 1 cm cube as a convex hull, faces counter-clockwise from outside
static double hull_vert[24];
static const double hull_plane[24] = {-1, 0, 0, 0.01, 1, 0, 0,  0.01, 0, -1, 0, 0.01,
                                      0,  1, 0, 0.01, 0, 0, -1, 0.01, 0, 0,  1, 0.01};
static const int hull_adr[6] = {0, 4, 8, 12, 16, 20}, hull_num[6] = {4, 4, 4, 4, 4, 4};
static const int hull_fv[24] = {0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4,
                                2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6};

static void cube_hull(tf_shape* s) {
  for (int v = 0; v < 8; v++) {
    for (int c = 0; c < 3; c++) hull_vert[3 * v + c] = (v >> c) & 1 ? 0.01 : -0.01;
  }
  tf_hull_view* h = &s->hull;
  h->nvert = 8, h->vert = hull_vert, h->nface = 6, h->face_plane = hull_plane;
  h->face_vertadr = hull_adr, h->face_vertnum = hull_num, h->face_vert = hull_fv;
  h->rbound = 0.01 * sqrt(3.0);
}

static double mesh_vert[2][3 * TF_PRIM_MESH_MAX_VERT];
static int mesh_face[2][3 * TF_PRIM_MESH_MAX_FACE];

// a box mesh against exact primitive fields and against a baked SDF: the closed-form depths
static void test_mesh_pairs(void** state) {
  (void)state;
  double half[3] = {0.02, 0.03, 0.01}, rot[9];
  rotation(rot, 0, 0, 1, 0.3);
  // resting 50 um deep on a plane, slightly tipped so one corner is deepest
  double tip[9], rm[9];
  rotation(tip, 1, 1, 0, 0.002);
  tf_mat3_mul(rm, tip, rot);
  double low = INFINITY;
  for (int c = 0; c < 8; c++) {
    double v[3] = {(c & 1 ? 1 : -1) * half[0], (c & 2 ? 1 : -1) * half[1],
                   (c & 4 ? 1 : -1) * half[2]},
           w[3];
    tf_mat3_mul_vec(w, rm, v);
    low = fmin(low, w[2]);
  }
  double pm[3] = {0.1, 0.2, -low - 5e-5};
  tf_shape mesh = mesh_of(mesh_vert[0], mesh_face[0], TF_GEOM_BOX, half, pm, rm);
  double origin[3] = {0, 0, 0};
  tf_shape plane = make_shape(TF_GEOM_PLANE, NULL, origin, identity);
  tf_contact_point out[TF_COLLIDE_MAX];
  int cand = 0;
  int n = tf_collide_n(&plane, &mesh, 1e-3, 64, out, &cand);
  expect_sane(out, n, 64, 1e-3);
  assert_true(n >= 4 && cand >= n);
  assert_near(deepest(out, n)->dist, -5e-5, 1e-12);
  for (int i = 0; i < n; i++)
    assert_true(angle_between(out[i].normal, (double[3]){0, 0, 1}) < 1e-12);
  // the mesh first: normals turned round
  tf_contact_point back[TF_COLLIDE_MAX];
  assert_int_equal(tf_collide_n(&mesh, &plane, 1e-3, 64, back, NULL), n);
  assert_near(back[0].normal[2], -1, 1e-12);

  // a sphere above the mesh's top face centre, 30 um into it: one contact from the triangle
  // minimisation (the top face's triangles hold the closest point inside)
  double top[3] = {0, 0, half[2]}, topw[3], up[3] = {rm[2], rm[5], rm[8]}, ps[3];
  tf_mat3_mul_vec(topw, rm, top);
  double rs = 0.005;
  for (int k = 0; k < 3; k++) ps[k] = pm[k] + topw[k] + (rs - 3e-5) * up[k] + 1e-3 * rm[3 * k];
  tf_shape ball = make_shape(TF_GEOM_SPHERE, (double[3]){rs, 0, 0}, ps, identity);
  n = tf_collide_n(&ball, &mesh, 1e-4, 64, out, &cand);
  expect_sane(out, n, 64, 1e-4);
  assert_true(n >= 1);
  assert_near(deepest(out, n)->dist, -3e-5, 1e-9);
  double down[3] = {-up[0], -up[1], -up[2]};  // from the sphere (a) to the mesh (b)
  assert_true(angle_between(deepest(out, n)->normal, down) < 1e-6);

  // mesh x mesh through a baked SDF: the box mesh carries its exact box SDF; a second box mesh
  // rests on its top face 20 um deep
  const double aabb[6] = {-half[0], -half[1], -half[2], half[0], half[1], half[2]};
  mesh.sdf.fn = box_fn;
  mesh.sdf.params = half;
  memcpy(mesh.sdf.aabb, aabb, sizeof(aabb));
  double small[3] = {0.005, 0.005, 0.005}, pt[3];
  for (int k = 0; k < 3; k++) pt[k] = pm[k] + (half[2] + small[2] - 2e-5) * up[k];
  tf_shape upper = mesh_of(mesh_vert[1], mesh_face[1], TF_GEOM_BOX, small, pt, rm);
  n = tf_collide_n(&upper, &mesh, 1e-4, 64, out, &cand);
  expect_sane(out, n, 64, 1e-4);
  assert_true(n >= 4);
  assert_near(deepest(out, n)->dist, -2e-5, 1e-9);
  for (int i = 0; i < n; i++) assert_true(angle_between(out[i].normal, down) < 1e-9);
  // neither carries a baked SDF: supported, but nothing to measure
  mesh.sdf.fn = NULL;
  assert_int_equal(tf_collide_n(&upper, &mesh, 1e-4, 64, out, &cand), 0);
  assert_int_equal(cand, 0);
  assert_true(tf_collide_supported(TF_GEOM_MESH, TF_GEOM_MESH));

  // a hull against a mesh without a baked SDF: the mesh's samples in the hull's face planes
  double hp[3] = {-0.3, 0.1, 0.05};
  tf_shape hull = make_shape(TF_GEOM_HULL, NULL, hp, identity);
  cube_hull(&hull);
  double on_top[3] = {hp[0] + 0.002, hp[1] - 0.001, hp[2] + 0.01 + small[2] - 2e-5};
  tf_shape resting = mesh_of(mesh_vert[1], mesh_face[1], TF_GEOM_BOX, small, on_top, identity);
  n = tf_collide_n(&hull, &resting, 1e-4, 64, out, &cand);
  expect_sane(out, n, 64, 1e-4);
  assert_true(n >= 4);
  assert_near(deepest(out, n)->dist, -2e-5, 1e-12);
  for (int i = 0; i < n; i++)
    assert_true(angle_between(out[i].normal, (double[3]){0, 0, 1}) < 1e-12);
}

// a plane against an SDF with and without a surface mesh, and a capsule and a cylinder lying
// on an SDF half-space: their curved surfaces refined to the exact depth
static void test_plane_and_curved(void** state) {
  (void)state;
  double half[3] = {0.02, 0.03, 0.01}, rot[9], ps[3] = {0, 0, 0.01 - 4e-5};
  rotation(rot, 1, 0, 0, 0.0);
  tf_shape cube =
      make_sdf(box_fn, half, (double[6]){-0.02, -0.03, -0.01, 0.02, 0.03, 0.01}, 0, ps, rot);
  double origin[3] = {0, 0, 0};
  tf_shape plane = make_shape(TF_GEOM_PLANE, NULL, origin, identity);
  tf_contact_point out[TF_COLLIDE_MAX];
  int cand = 0;
  // by descent on the two fields
  int n = tf_collide_n(&plane, &cube, 1e-4, 64, out, &cand);
  expect_sane(out, n, 64, 1e-4);
  assert_true(n >= 1);
  assert_near(deepest(out, n)->dist, -4e-5, 1e-9);
  for (int i = 0; i < n; i++)
    assert_true(angle_between(out[i].normal, (double[3]){0, 0, 1}) < 1e-6);
  // by its surface mesh
  tf_shape meshed = mesh_of(mesh_vert[0], mesh_face[0], TF_GEOM_BOX, half, ps, rot);
  cube.mesh = meshed.mesh;
  n = tf_collide_n(&plane, &cube, 1e-4, 64, out, &cand);
  expect_sane(out, n, 64, 1e-4);
  assert_true(n >= 4);
  assert_near(deepest(out, n)->dist, -4e-5, 1e-12);

  // a capsule and a cylinder lying on a half-space, axes along a random horizontal direction,
  // 20 um deep: the tessellation alone would miss the line of contact by its sagitta
  const double aabb[6] = {-1, -1, -1, 1, 1, 0};
  tf_shape ground = make_sdf(halfspace_fn, NULL, aabb, 0, origin, identity);
  for (int type = TF_GEOM_SPHERE; type <= TF_GEOM_CYLINDER; type++) {
    if (type == TF_GEOM_BOX) continue;
    double size[3] = {0.007, 0.015, 0}, lie[9], yaw[9], r3[9];
    rotation(lie, 1, 0, 0, M_PI / 2);
    rotation(yaw, 0, 0, 1, 0.37);
    tf_mat3_mul(r3, yaw, lie);
    double pos[3] = {0.03, -0.02, size[0] - 2e-5};
    tf_shape s = make_shape(type, size, pos, r3);
    n = tf_collide_n(&s, &ground, 1e-4, 64, out, &cand);
    expect_sane(out, n, 64, 1e-4);
    assert_true(n >= 1 && cand >= n);
    assert_near(deepest(out, n)->dist, -2e-5, 1e-9);
    assert_true(angle_between(deepest(out, n)->normal, (double[3]){0, 0, -1}) < 1e-6);
  }
}

// every pair with an SDF or a mesh, in both orders: no NaN, at most cap points, mirrored
static void test_all_pairs(void** state) {
  (void)state;
  sphere_param sp = {0.01};
  const double box_r[6] = {-0.01, -0.01, -0.01, 0.01, 0.01, 0.01};
  double half[3] = {0.01, 0.01, 0.01};
  for (int t1 = 0; t1 < TF_GEOM_NTYPE; t1++) {
    for (int t2 = t1; t2 < TF_GEOM_NTYPE; t2++) {
      if (t2 < TF_GEOM_MESH) continue;
      assert_true(tf_collide_supported(t1, t2) && tf_collide_supported(t2, t1));
      tf_shape s[2];
      int types[2] = {t1, t2};
      double tilt[9];
      rotation(tilt, 1, 2, 3, 0.2);
      for (int i = 0; i < 2; i++) {
        double pos[3] = {0.001 * i, 0.002 * i, 0.0185 * i};
        const double* mat = i ? tilt : identity;
        double size[3] = {0.01, 0.01, 0.01};
        if (types[i] == TF_GEOM_MESH) {
          s[i] = mesh_of(mesh_vert[i], mesh_face[i], TF_GEOM_BOX, half, pos, mat);
          s[i].sdf.fn = box_fn;  // a baked SDF of the same box
          s[i].sdf.params = half;
          memcpy(s[i].sdf.aabb, box_r, sizeof(box_r));
        } else if (types[i] == TF_GEOM_SDF) {
          s[i] = make_sdf(sphere_fn, &sp, box_r, 1e-6, pos, mat);
        } else {
          s[i] = make_shape(types[i], size, pos, mat);
          if (types[i] == TF_GEOM_HULL) cube_hull(&s[i]);
        }
      }
      tf_contact_point ab[TF_COLLIDE_MAX], ba[TF_COLLIDE_MAX];
      int c1 = -1, c2 = -1;
      int n1 = tf_collide_n(&s[0], &s[1], 2e-3, 16, ab, &c1);
      int n2 = tf_collide_n(&s[1], &s[0], 2e-3, 16, ba, &c2);
      expect_sane(ab, n1, 16, 2e-3);
      expect_sane(ba, n2, 16, 2e-3);
      assert_true(c1 >= n1 && c2 >= n2);
      if (t1 != TF_GEOM_PLANE) assert_true(n1 >= 1 && n2 >= 1);
      // different types: the swapped call is the same computation mirrored (same types play
      // different roles, e.g. whose mesh is sampled in whose SDF)
      if (t1 != t2) {
        assert_int_equal(n1, n2);
        assert_int_equal(c1, c2);
        for (int i = 0; i < n1; i++) {
          for (int k = 0; k < 3; k++) assert_near(ab[i].normal[k], -ba[i].normal[k], 0);
        }
      }
      // a shape without its data (an SDF without a function, a mesh without vertices) gives
      // nothing and does not crash
      tf_shape empty = make_shape(t2, NULL, s[1].pos, identity);
      assert_int_equal(tf_collide_n(&s[0], &empty, 2e-3, 16, ab, &c1), 0);
      assert_int_equal(c1, 0);
    }
  }
}

// a shaft (a tessellated cylinder, as a mesh) lying against one side of a bore with 10 um
// clearance: the contact line is deepest and the far side of the bore keeps its rows
static void test_bore_far_side(void** state) {
  (void)state;
  const double r = 0.004, clearance = 1e-5;
  bore_param bp = {{0.01, 0.01, 0.006}, r + clearance};
  const double aabb[6] = {-0.01, -0.01, -0.006, 0.01, 0.01, 0.006};
  double rot[9], pos[3] = {0.1, 0.2, 0.3};
  rotation(rot, 0.3, -0.2, 1, 0.4);
  tf_shape hole = make_sdf(bore_fn, &bp, aabb, 0, pos, rot);
  double off[3], local[3] = {clearance + 1e-6, 0, 0};
  tf_mat3_mul_vec(off, rot, local);
  tf_vec3_add(off, off, pos);
  tf_shape shaft =
      mesh_of(mesh_vert[0], mesh_face[0], TF_GEOM_CYLINDER, (double[3]){r, 0.008, 0}, off, rot);
  tf_contact_point out[TF_COLLIDE_MAX];
  int cand = 0;
  int n = tf_collide_n(&shaft, &hole, 1e-4, TF_COLLIDE_MAX, out, &cand);
  expect_sane(out, n, TF_COLLIDE_MAX, 1e-4);
  assert_true(cand > n && n >= 8);
  const tf_contact_point* d = deepest(out, n);
  double x[3] = {rot[0], rot[3], rot[6]}, y[3] = {rot[1], rot[4], rot[7]};
  assert_near(d->dist, -1e-6, 1e-12);
  assert_true(angle_between(d->normal, x) < 1e-12);
  // rows all around: toward -x at the far side's gap of 21 um, and toward +-y
  int far = 0, side[2] = {0, 0};
  for (int i = 0; i < n; i++) {
    double c = tf_vec3_dot(out[i].normal, x), sy = tf_vec3_dot(out[i].normal, y);
    if (c < -0.999) {
      far = 1;
      assert_near(out[i].dist, 2 * clearance + 1e-6, 1e-7);
    }
    if (sy > 0.9) side[0] = 1;
    if (sy < -0.9) side[1] = 1;
  }
  assert_true(far && side[0] && side[1]);
}

// a grid SDF of a ball (1 mm cells, trilinear) against a primitive sphere: the contact within
// the interpolation error
static void test_grid_sdf(void** state) {
  (void)state;
  enum { RES = 31 };
  static float grid[RES * RES * RES];
  const double R = 0.01, cell = 0.001, origin = -0.015;
  for (int k = 0; k < RES; k++) {
    for (int j = 0; j < RES; j++) {
      for (int i = 0; i < RES; i++) {
        double p[3] = {origin + i * cell, origin + j * cell, origin + k * cell};
        grid[(k * RES + j) * RES + i] = (float)(tf_vec3_norm(p) - R);
      }
    }
  }
  double pa[3] = {0, 0, 0};
  tf_shape ball_sdf = make_shape(TF_GEOM_SDF, NULL, pa, identity);
  ball_sdf.sdf.grid = grid;
  ball_sdf.sdf.res[0] = ball_sdf.sdf.res[1] = ball_sdf.sdf.res[2] = RES;
  for (int k = 0; k < 3; k++) {
    ball_sdf.sdf.origin[k] = origin;
    ball_sdf.sdf.aabb[k] = -R, ball_sdf.sdf.aabb[3 + k] = R;
  }
  ball_sdf.sdf.cell = cell;
  ball_sdf.sdf.error_bound = 2e-5;
  test_rng rng = {3};
  double worst_d = 0, worst_a = 0;
  for (int trial = 0; trial < 20; trial++) {
    double dir[3] = {rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1)};
    tf_vec3_normalize(dir);
    double r = 0.004, gap = rng_uniform(&rng, -3e-4, 3e-4), pb[3];
    for (int k = 0; k < 3; k++) pb[k] = (R + r + gap) * dir[k];
    tf_shape ball = make_shape(TF_GEOM_SPHERE, (double[3]){r, 0, 0}, pb, identity);
    tf_contact_point out[TF_COLLIDE_MAX];
    int n = tf_collide_n(&ball, &ball_sdf, 1e-3, TF_COLLIDE_MAX, out, NULL);
    expect_sane(out, n, TF_COLLIDE_MAX, 1e-3);
    assert_true(n >= 1);
    const tf_contact_point* d = deepest(out, n);
    double down[3] = {-dir[0], -dir[1], -dir[2]};
    worst_d = fmax(worst_d, fabs(d->dist - gap));
    worst_a = fmax(worst_a, angle_between(d->normal, down));
  }
  print_message("grid SDF: depth error %.2e m, normal error %.2e rad\n", worst_d, worst_a);
  // the trilinear interpolant's own error: up to about 3 cell^2 / (8 R) in value, and its
  // gradient (constant along cell edges) off by up to about cell / R
  assert_true(worst_d < 3 * cell * cell / (8 * R));
  assert_true(worst_a < cell / R);
}

// ---------------------------------------------------------------------------------------------
// two-way sampling: a mesh carrying its SDF against an SDF carrying its mesh

// a block with a box pocket open at the top: the block [-w, w]^2 x [-w, 0] less the pocket
// [-c[0], c[0]] x [-c[1], c[1]] x [-c[2], c[2]] (floor at z = -c[2]). Exact near the floor and
// the walls (the max of two exact distances)
typedef struct pocket_param {
  double w, c[3];
} pocket_param;

static double pocket_fn(const void* params, const double p[3], double grad[3]) {
  const pocket_param* b = params;
  double outer_half[3] = {b->w, b->w, 0.5 * b->w}, q[3] = {p[0], p[1], p[2] + 0.5 * b->w};
  double value = box_fn(outer_half, q, grad), g[3];
  double hole = -box_fn(b->c, p, g);
  if (hole > value) {
    value = hole;
    tf_vec3_scale(grad, g, -1);
  }
  return value;
}

// the pocket's floor and walls as a mesh (its part of the block's surface), faces
// counter-clockwise seen from the pocket, the block's outside
static int pocket_mesh(double vert[24], int face[30], const pocket_param* b) {
  for (int v = 0; v < 8; v++) {
    vert[3 * v] = (v & 1 ? 1 : -1) * b->c[0];
    vert[3 * v + 1] = (v & 2 ? 1 : -1) * b->c[1];
    vert[3 * v + 2] = v & 4 ? 0 : -b->c[2];
  }
  static const int f[30] = {0, 1, 3, 0, 3, 2,   // floor, normal +z
                            0, 4, 5, 0, 5, 1,   // y = -c: normal +y
                            2, 3, 7, 2, 7, 6,   // y = +c: normal -y
                            0, 2, 6, 0, 6, 4,   // x = -c: normal +x
                            1, 5, 7, 1, 7, 3};  // x = +c: normal -x
  memcpy(face, f, sizeof(f));
  return 10;
}

// a box's corners-only tessellation as a TF_GEOM_MESH carrying the box's exact SDF
static tf_shape box_mesh_with_sdf(double* vert, int* face, const double half[3],
                                  const double pos[3], const double mat[9]) {
  tf_shape s = make_shape(TF_GEOM_MESH, NULL, pos, mat);
  int nface = 0;
  s.mesh.nvert = tf_primitive_mesh(vert, face, &nface, TF_GEOM_BOX, half, 1.0);
  s.mesh.vert = vert;
  s.mesh.nface = nface;
  s.mesh.face = face;
  s.mesh.rbound = tf_vec3_norm(half);
  s.sdf.fn = box_fn;
  s.sdf.params = half;
  for (int k = 0; k < 3; k++) s.sdf.aabb[k] = -half[k], s.sdf.aabb[3 + k] = half[k];
  return s;
}

// a plate's face, tilted 30 deg, pressed 20 um onto a block's convex edge (the bore's rim
// under a peg's side): sampled one way, the plate's face inside the block takes the normal of
// the block's nearer face, 30 deg off or more; the block's edge sampled in the plate's field
// has the plate's normal and the depth along it. Both orders mirror, the same bytes twice,
// and a field with repeated features keeps one-way sampling
static void test_two_way_edge(void** state) {
  (void)state;
  static double bvert[3 * TF_PRIM_MESH_MAX_VERT], pvert[3 * TF_PRIM_MESH_MAX_VERT];
  static int bface[3 * TF_PRIM_MESH_MAX_FACE], pface[3 * TF_PRIM_MESH_MAX_FACE];
  double hb[3] = {0.01, 0.01, 0.01}, hp[3] = {0.01, 0.02, 0.002}, origin[3] = {0, 0, 0};
  // corners only: the block's edge is one mesh edge, the plate's face two triangles
  tf_shape block = box_mesh_with_sdf(bvert, bface, hb, origin, identity);
  block.type = TF_GEOM_SDF;
  assert_int_equal(block.mesh.nvert, 8);
  const double alpha = 30 * M_PI / 180, depth = 2e-5;
  double rot[9], face_n[3], local[3] = {0, 0, -hp[2] + depth}, off[3], pp[3];
  rotation(rot, 0, 1, 0, alpha);
  tf_mat3_mul_vec(face_n, rot, (double[3]){0, 0, -1});  // the plate's bottom face, outward
  tf_mat3_mul_vec(off, rot, local);
  double edge[3] = {hb[0], 0, hb[2]};
  tf_vec3_sub(pp, edge, off);  // the edge runs through the face's middle, depth inside it
  tf_shape plate = box_mesh_with_sdf(pvert, pface, hp, pp, rot);
  double margin = 1e-4;
  tf_contact_point two[TF_COLLIDE_MAX], again[TF_COLLIDE_MAX], back[TF_COLLIDE_MAX];
  int cand = 0;
  int n = tf_collide_n(&plate, &block, margin, TF_COLLIDE_MAX, two, &cand);
  expect_sane(two, n, TF_COLLIDE_MAX, margin);
  assert_true(n >= 1 && cand >= n);
  const tf_contact_point* d = deepest(two, n);
  assert_near(d->dist, -depth, 1e-12);
  assert_true(angle_between(d->normal, face_n) < 1e-9);  // from the plate (a) into the block
  assert_int_equal(d->side, 1);                          // the block's (b's) surface
  // and no overlapping row with a block face's normal: the plate's face beside the edge is
  // the block edge's business, sampled in the plate's field
  for (int i = 0; i < n; i++) {
    if (two[i].dist < 0) assert_true(angle_between(two[i].normal, face_n) < 1e-6);
  }
  assert_int_equal(tf_collide_n(&plate, &block, margin, TF_COLLIDE_MAX, again, NULL), n);
  assert_memory_equal(two, again, sizeof(tf_contact_point) * (size_t)n);
  assert_int_equal(tf_collide_n(&block, &plate, margin, TF_COLLIDE_MAX, back, NULL), n);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) assert_near(back[i].normal[k], -two[i].normal[k], 0);
    assert_int_equal(back[i].side, -two[i].side);
  }
  // one way (the plate's mesh without its SDF): the block's top and side normals only
  tf_shape bare = plate;
  memset(&bare.sdf, 0, sizeof(bare.sdf));
  tf_contact_point one[TF_COLLIDE_MAX];
  int m = tf_collide_n(&bare, &block, margin, TF_COLLIDE_MAX, one, NULL);
  expect_sane(one, m, TF_COLLIDE_MAX, margin);
  assert_true(m >= 1);
  for (int i = 0; i < m; i++) {
    assert_int_equal(one[i].side, 0);
    assert_true(angle_between(one[i].normal, face_n) > 0.5);  // 30 deg or more off
  }
  // a thread's pitch on either field: one-way sampling, as the bare mesh
  tf_shape threaded = block;
  threaded.sdf.feature_size = 2e-3;
  m = tf_collide_n(&plate, &threaded, margin, TF_COLLIDE_MAX, one, NULL);
  for (int i = 0; i < m; i++) assert_int_equal(one[i].side, 0);
}

// a plug 150 um above a pocket's floor with 100 um to every wall (a connector about to seat):
// the plug's outline vertices see the walls as nearest and its face's minima lie on that
// outline, so one-way sampling never sees the floor; the floor sampled in the plug's field is
// 150 um below its face. Two SDFs meet by descent on both fields whatever meshes they carry
static void test_two_way_floor(void** state) {
  (void)state;
  static double pvert[3 * TF_PRIM_MESH_MAX_VERT];
  static int pface[3 * TF_PRIM_MESH_MAX_FACE];
  pocket_param pk = {0.02, {0.005, 0.004, 0.01}};
  double sv[24], origin[3] = {0, 0, 0};
  int sf[30];
  const double clearance = 1e-4, gap = 1.5e-4;
  const double aabb[6] = {-0.02, -0.02, -0.02, 0.02, 0.02, 0};
  tf_shape socket = make_sdf(pocket_fn, &pk, aabb, 0, origin, identity);
  socket.mesh.nvert = 8, socket.mesh.vert = sv;
  socket.mesh.nface = pocket_mesh(sv, sf, &pk), socket.mesh.face = sf;
  socket.mesh.rbound = tf_vec3_norm(pk.c);
  double hp[3] = {pk.c[0] - clearance, pk.c[1] - clearance, 0.004};
  double pp[3] = {0, 0, -pk.c[2] + gap + hp[2]}, down[3] = {0, 0, -1};
  tf_shape plug = box_mesh_with_sdf(pvert, pface, hp, pp, identity);
  double margin = 3e-4;  // a step's speculative reach
  tf_contact_point out[TF_COLLIDE_MAX], again[TF_COLLIDE_MAX];
  // one way: walls only, 100 um off
  tf_shape bare = plug;
  memset(&bare.sdf, 0, sizeof(bare.sdf));
  int n = tf_collide_n(&bare, &socket, margin, TF_COLLIDE_MAX, out, NULL);
  expect_sane(out, n, TF_COLLIDE_MAX, margin);
  assert_true(n >= 1);
  for (int i = 0; i < n; i++) {
    assert_true(angle_between(out[i].normal, down) > 0.5);
    assert_true(out[i].dist > clearance - 1e-9);
  }
  // two ways: the floor, along the plug's face normal, 150 um away; the walls as before
  int cand = 0;
  n = tf_collide_n(&plug, &socket, margin, TF_COLLIDE_MAX, out, &cand);
  expect_sane(out, n, TF_COLLIDE_MAX, margin);
  int floor = 0, wall = 0;
  for (int i = 0; i < n; i++) {
    if (angle_between(out[i].normal, down) < 1e-9) {
      floor++;
      assert_near(out[i].dist, gap, 1e-12);
      assert_int_equal(out[i].side, 1);
    }
    if (fabs(out[i].normal[2]) < 1e-9) {
      wall++;
      assert_near(out[i].dist, clearance, 1e-12);
    }
  }
  assert_true(floor >= 1 && wall >= 4);
  assert_int_equal(tf_collide_n(&plug, &socket, margin, TF_COLLIDE_MAX, again, NULL), n);
  assert_memory_equal(out, again, sizeof(tf_contact_point) * (size_t)n);
  // the plug as an SDF carrying its mesh: SDF x SDF descent, no surface sampled
  tf_shape plug_sdf = plug;
  plug_sdf.type = TF_GEOM_SDF;
  n = tf_collide_n(&plug_sdf, &socket, margin, TF_COLLIDE_MAX, out, NULL);
  expect_sane(out, n, TF_COLLIDE_MAX, margin);
  assert_true(n >= 1);
  for (int i = 0; i < n; i++) assert_int_equal(out[i].side, 0);
}

// ---------------------------------------------------------------------------------------------
// reduction

// 16k synthetic candidates: at most cap points, the same bytes twice, counts that add up,
// every output one of the inputs
static void test_reduce_stress(void** state) {
  (void)state;
  enum { N = 16384 };
  static tf_contact_point in[N];
  test_rng rng = {99};
  for (int i = 0; i < N; i++) {
    // normals in a few clusters (thread flanks), points around a ring
    double a = rng_uniform(&rng, 0, 2 * M_PI), tilt = (i % 3 - 1) * 0.5;
    double n[3] = {cos(a) * cos(tilt), sin(a) * cos(tilt), sin(tilt)};
    tf_contact_point* c = in + i;
    tf_vec3_copy(c->normal, n);
    for (int k = 0; k < 3; k++) c->pos[k] = 0.004 * n[k] + rng_uniform(&rng, -1e-3, 1e-3);
    c->dist = rng_uniform(&rng, -2e-5, 1e-4);
  }
  static tf_contact_point out1[TF_REDUCE_MAX_KEEP], out2[TF_REDUCE_MAX_KEEP];
  tf_reduce_counts c1, c2;
  int n1 = tf_contact_reduce(out1, in, N, 128, NULL, &c1);
  int n2 = tf_contact_reduce(out2, in, N, 128, NULL, &c2);
  assert_int_equal(n1, n2);
  assert_memory_equal(out1, out2, sizeof(tf_contact_point) * (size_t)n1);
  assert_true(n1 <= 128 && n1 > 0);
  assert_int_equal(c1.candidates, N);
  assert_int_equal(c1.kept, n1);
  assert_int_equal(c1.dropped, N - n1);
  for (int i = 0; i < n1; i++) {
    int found = 0;
    for (int j = 0; j < N && !found; j++) found = !memcmp(out1 + i, in + j, sizeof(in[0]));
    assert_true(found);
  }
  // the deepest candidate overall survives the cap
  assert_memory_equal(deepest(out1, n1), deepest(in, N), sizeof(in[0]));
  // without a binding cap: at most 300 (Factory's budget for a nut on a bolt)
  int n3 = tf_contact_reduce(out1, in, N, TF_REDUCE_MAX_KEEP, NULL, &c1);
  assert_true(n3 <= 300 && n3 >= n1);
  assert_int_equal(c1.bins, n3 > 0 ? c1.bins : 0);
}

// two patches, one with 9 distinct rows and one with 3: the cap takes rows from the larger one
// first, then leaves the deepest point of each bin, then drops the shallower bin
static void test_reduce_order(void** state) {
  (void)state;
  tf_contact_point in[16];
  int n = 0;
  // +z: a regular octagon at 0.01 m (the extremes of the 8 tangent directions) and a centre
  for (int k = 0; k < 8; k++) {
    double a = k * M_PI / 4 + 0.1;
    tf_contact_point c = {{0.01 * cos(a), 0.01 * sin(a), 0}, {0, 0, 1}, 1e-5 * (k + 1)};
    in[n++] = c;
  }
  tf_contact_point centre = {{0, 0, 0}, {0, 0, 1}, -1e-4};
  in[n++] = centre;
  // +x: three points along y, the middle one deepest
  for (int k = 0; k < 3; k++) {
    tf_contact_point c = {{0.02, 0.01 * (k - 1), 0}, {1, 0, 0}, k == 1 ? -5e-5 : 0};
    in[n++] = c;
  }
  tf_contact_point out[TF_REDUCE_MAX_KEEP];
  tf_reduce_counts counts;
  assert_int_equal(tf_contact_reduce(out, in, n, 128, NULL, &counts), 12);
  assert_int_equal(counts.bins, 2);
  int cap_tests[4][3] = {{10, 7, 3}, {6, 3, 3}, {2, 1, 1}, {1, 1, 0}};
  for (int t = 0; t < 4; t++) {
    int m = tf_contact_reduce(out, in, n, cap_tests[t][0], NULL, &counts);
    assert_int_equal(m, cap_tests[t][0]);
    assert_int_equal(counts.dropped, n - m);
    int z = 0, x = 0, have_centre = 0;
    for (int i = 0; i < m; i++) {
      z += out[i].normal[2] == 1;
      x += out[i].normal[0] == 1;
      have_centre |= out[i].dist == -1e-4;
    }
    assert_int_equal(z, cap_tests[t][1]);
    assert_int_equal(x, cap_tests[t][2]);
    assert_true(have_centre);  // the deepest point of the deeper bin always stays
  }
  // a convex pair's points over a cap go through the same reduction
  double h[3] = {0.1, 0.1, 0.1}, pa[3] = {0, 0, 0}, pb[3] = {0.01, 0.02, 0.2 - 1e-4};
  tf_shape a = make_shape(TF_GEOM_BOX, h, pa, identity),
           b = make_shape(TF_GEOM_BOX, h, pb, identity);
  int cand = 0;
  assert_int_equal(tf_collide_n(&a, &b, 1e-3, 2, out, &cand), 2);
  assert_int_equal(cand, 4);
}

// over the cap, points that the step's speculative test will reject go first, farthest
// first: a gear pair's cap had kept flanks 0.3-0.8 mm apart in bins of their own and dropped
// the extremes of the one bin holding the teeth in mesh, where an entering pair 1 um apart
// then sank 30 um in
static void test_reduce_closing_first(void** state) {
  (void)state;
  tf_contact_point in[10];
  int n = 0;
  // +z: two tooth pairs 4 mm apart, each a line across the face (the bin's four extremes)
  for (int k = 0; k < 4; k++) {
    tf_contact_point c = {
        {k < 2 ? -0.002 : 0.002, k % 2 ? 0.005 : -0.005, 0}, {0, 0, 1}, k < 2 ? 0 : 1e-6};
    in[n++] = c;
  }
  // three far flanks, two points each, 0.26-0.7 mm apart
  const double far[3][2] = {{3e-4, 4e-4}, {5e-4, 7e-4}, {2.6e-4, 2.6e-4}};
  const double normal[3][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}};
  for (int f = 0; f < 3; f++) {
    for (int k = 0; k < 2; k++) {
      tf_contact_point c = {{0.01 * normal[f][0], 0.01 * normal[f][1], 0.003 * (2 * k - 1)},
                            {normal[f][0], normal[f][1], normal[f][2]},
                            far[f][k]};
      in[n++] = c;
    }
  }
  // 0: no test; 1: at rest over a 10 ms step; 2: the first shape moving at 0.1 m/s along -x
  // relative to the second, which closes the -x flank's 0.5 and 0.7 mm within the step
  const double ang[3] = {0, 0, 0}, lin[3][3] = {{0, 0, 0}, {0, 0, 0}, {-0.1, 0, 0}};
  tf_contact_point out[TF_REDUCE_MAX_KEEP];
  for (int test = 0; test < 3; test++) {
    tf_contact_reducer r;
    tf_reduce_init(&r, NULL, 0);
    if (test > 0) {
      tf_approach a = {.h = 0.01, .margin = 1e-4};
      for (int k = 0; k < 3; k++) a.lin[k] = lin[test][k], a.ang[k] = ang[k];
      tf_reduce_set_approach(&r, &a);
    }
    for (int i = 0; i < n; i++) tf_reduce_add(&r, in + i);
    int m = tf_reduce_finish(out, &r, 8, NULL);
    assert_int_equal(m, 8);
    int near = 0, minus_x = 0;
    double farthest = 0;
    for (int i = 0; i < m; i++) {
      near += out[i].dist <= 1e-4;
      minus_x += out[i].normal[0] == -1;
      if (out[i].dist > 1e-4) farthest = fmax(farthest, out[i].dist);
    }
    if (test == 0) {
      assert_int_equal(near, 2);  // the fullest bin's extremes went first: the teeth lost two
    } else if (test == 1) {
      assert_int_equal(near, 4);  // every touching point stays; the 0.7 and 0.5 mm ones go
      assert_true(farthest == 4e-4);
    } else {
      assert_int_equal(near, 4);  // the closing flank stays whole; the +x flank goes
      assert_int_equal(minus_x, 2);
      assert_true(farthest == 7e-4);
    }
  }
}

// the bin directions are 30 distinct unit vectors at least 36 degrees apart, and the
// closed-form bin is the nearest of them (a search would agree but for rounding)
static void test_reduce_bins(void** state) {
  (void)state;
  double dir[TF_REDUCE_NBIN][3];
  for (int b = 0; b < TF_REDUCE_NBIN; b++) {
    tf_reduce_bin_direction(dir[b], b);
    assert_near(tf_vec3_norm(dir[b]), 1, 1e-15);
    for (int a = 0; a < b; a++) assert_true(angle_between(dir[a], dir[b]) > 0.6283185);
  }
  test_rng rng = {21};
  double frame[9];
  rotation(frame, 1, 2, 3, 0.7);
  static tf_contact_reducer r;
  for (int trial = 0; trial < 2000; trial++) {
    const double* f = trial % 2 ? frame : identity;
    tf_reduce_init(&r, trial % 2 ? frame : NULL, 0);
    tf_contact_point c = {{0, 0, 0}, {0, 0, 0}, 0};
    for (int k = 0; k < 3; k++) c.normal[k] = rng_uniform(&rng, -1, 1);
    if (trial < 6) memset(c.normal, 0, sizeof(c.normal)), c.normal[trial / 2] = trial % 2 ? -1 : 1;
    tf_vec3_normalize(c.normal);
    tf_reduce_add(&r, &c);
    int got = -1, want = 0;
    double world[TF_REDUCE_NBIN][3];
    for (int b = 0; b < TF_REDUCE_NBIN; b++) {
      tf_mat3_mul_vec(world[b], f, dir[b]);
      if (r.bin[b].count) got = b;
      if (tf_vec3_dot(c.normal, world[b]) > tf_vec3_dot(c.normal, world[want])) want = b;
    }
    assert_true(got >= 0);
    if (got != want) {
      assert_near(tf_vec3_dot(c.normal, world[got]), tf_vec3_dot(c.normal, world[want]), 1e-12);
    }
  }
}

// a local reducer (points in a frame) writes world points: the frame's rotation and origin
// applied, and the same rows as a world reducer fed the same points in world coordinates
static void test_reduce_local_frame(void** state) {
  (void)state;
  double frame[9], origin[3] = {0.3, -0.2, 0.1};
  rotation(frame, 0.2, 1, -0.4, 0.9);
  static tf_contact_reducer local, world;
  tf_reduce_init_local(&local, frame, origin, 0);
  tf_reduce_init(&world, frame, 0);
  test_rng rng = {5};
  for (int i = 0; i < 200; i++) {
    tf_contact_point c = {{0, 0, 0}, {0, 0, 0}, rng_uniform(&rng, -1e-4, 1e-4)}, w = c;
    for (int k = 0; k < 3; k++) {
      c.pos[k] = rng_uniform(&rng, -0.01, 0.01);
      c.normal[k] = rng_uniform(&rng, -1, 1);
    }
    tf_vec3_normalize(c.normal);
    tf_mat3_mul_vec(w.pos, frame, c.pos);
    tf_vec3_add(w.pos, w.pos, origin);
    tf_mat3_mul_vec(w.normal, frame, c.normal);
    tf_reduce_add(&local, &c);
    tf_reduce_add(&world, &w);
  }
  tf_contact_point a[TF_REDUCE_MAX_KEEP], b[TF_REDUCE_MAX_KEEP];
  int na = tf_reduce_finish(a, &local, TF_REDUCE_MAX_KEEP, NULL);
  int nb = tf_reduce_finish(b, &world, TF_REDUCE_MAX_KEEP, NULL);
  assert_int_equal(na, nb);
  for (int i = 0; i < na; i++) {
    for (int k = 0; k < 3; k++) {
      assert_near(a[i].pos[k], b[i].pos[k], 1e-15);
      assert_near(a[i].normal[k], b[i].normal[k], 1e-14);
    }
    assert_true(a[i].dist == b[i].dist);
  }
}

// points equally far along a bin's tangent axis: the extreme kept is the one whose normal
// faces the bin's direction most (a ring of a coaxial shaft keeps its row facing straight
// across), whichever arrives first
static void test_reduce_extreme_tie(void** state) {
  (void)state;
  for (int order = 0; order < 2; order++) {
    static tf_contact_reducer r;
    tf_reduce_init_local(&r, identity, (double[3]){0, 0, 0}, 0);
    // bin +x; three points on the plane x = 0.01 with the same z: the middle one faces +x
    const double lean = 0.2;
    tf_contact_point side0 = {{0.01, -0.001, 0.005}, {cos(lean), -sin(lean), 0}, 1e-5};
    tf_contact_point mid = {{0.01, 0, 0.005}, {1, 0, 0}, 2e-5};
    tf_contact_point side1 = {{0.01, 0.001, 0.005}, {cos(lean), sin(lean), 0}, 1e-5};
    const tf_contact_point* seq[3] = {&side0, &mid, &side1};
    if (order) seq[0] = &mid, seq[1] = &side0;
    for (int i = 0; i < 3; i++) tf_reduce_add(&r, seq[i]);
    tf_contact_point out[TF_REDUCE_MAX_KEEP];
    int n = tf_reduce_finish(out, &r, TF_REDUCE_MAX_KEEP, NULL);
    int facing = 0;
    for (int i = 0; i < n; i++) facing |= out[i].normal[0] == 1;
    assert_true(facing);  // kept as the +-z extreme (all three tie there)
  }
}

// a sphere SDF that counts its evaluations (the test's own counter)
typedef struct counted_sphere {
  sphere_param sphere;
  long evaluations;
} counted_sphere;

static double counted_sphere_fn(const void* params, const double p[3], double grad[3]) {
  counted_sphere* c = (counted_sphere*)params;  // owned by the test below
  c->evaluations++;
  return sphere_fn(&c->sphere, p, grad);
}

// the closest point of triangle abc to p, by brute force over a fine barycentric grid and a
// polish on the best face / edge: the reference for the triangle descent
static void closest_brute(double out[3], const double p[3], const double v[9]) {
  double best = INFINITY;
  enum { N = 400 };
  for (int i = 0; i <= N; i++) {
    for (int j = 0; i + j <= N; j++) {
      double a = (double)i / N, b = (double)j / N, x[3], d[3];
      for (int k = 0; k < 3; k++) x[k] = (1 - a - b) * v[k] + a * v[3 + k] + b * v[6 + k];
      tf_vec3_sub(d, x, p);
      double dd = tf_vec3_dot(d, d);
      if (dd < best) best = dd, memcpy(out, x, sizeof(x));
    }
  }
}

// the triangle pass's search (an edge's cubic model, or the vertices' curvature and Newton
// steps inside): single triangles by an exact SDF sphere, 30 um into it or 20 um off, whose
// nearest point lies inside, on an edge or at a vertex: the deepest candidate is the
// triangle's true minimum (the brute-force grid's, which is within its spacing, and never
// below the exact one; the search stops within 1e-5 of the longest edge), in few evaluations
static void test_triangle_descent(void** state) {
  (void)state;
  static double tri_vert[9];
  static const int tri_face[3] = {0, 1, 2};
  counted_sphere ball = {{0.01}, 0};
  double origin[3] = {0, 0, 0};
  tf_shape sdf = make_shape(TF_GEOM_SDF, NULL, origin, identity);
  sdf.sdf.fn = counted_sphere_fn;
  sdf.sdf.params = &ball;
  const double aabb[6] = {-0.01, -0.01, -0.01, 0.01, 0.01, 0.01};
  memcpy(sdf.sdf.aabb, aabb, sizeof(aabb));
  test_rng rng = {77};
  long evaluations = 0;
  int descended = 0;
  double worst = 0;
  for (int trial = 0; trial < 200; trial++) {
    // a plane 30 um inside the sphere's surface or 20 um off it, along a random direction
    double n[3], t0[3], t1[3], e[3] = {1, 0, 0};
    for (int k = 0; k < 3; k++) n[k] = rng_uniform(&rng, -1, 1);
    tf_vec3_normalize(n);
    if (fabs(n[0]) > 0.9) e[0] = 0, e[1] = 1;
    tf_vec3_cross(t0, n, e);
    tf_vec3_normalize(t0);
    tf_vec3_cross(t1, n, t0);
    double h = 0.01 + (trial % 2 ? -3e-5 : 2e-5), size = 2e-3;
    // the triangle's corners around the foot point, shifted so that the foot lies inside,
    // near an edge or outside it
    double shift[2] = {rng_uniform(&rng, -1, 1) * size, rng_uniform(&rng, -1, 1) * size};
    for (int v = 0; v < 3; v++) {
      double a = 2.0943951023931953 * v + rng_uniform(&rng, -0.4, 0.4);
      double rr = size * rng_uniform(&rng, 0.7, 1.3);
      for (int k = 0; k < 3; k++)
        tri_vert[3 * v + k] =
            h * n[k] + (rr * cos(a) + shift[0]) * t0[k] + (rr * sin(a) + shift[1]) * t1[k];
    }
    tf_shape tri = make_shape(TF_GEOM_MESH, NULL, origin, identity);
    tri.mesh.nvert = 3, tri.mesh.vert = tri_vert, tri.mesh.nface = 1, tri.mesh.face = tri_face;
    tri.mesh.rbound = 0.02;
    double q[3];
    closest_brute(q, origin, tri_vert);
    double reference = tf_vec3_norm(q) - 0.01;  // an upper bound of the true minimum, tight
    tf_contact_point out[TF_COLLIDE_MAX];
    int cand = 0;
    ball.evaluations = 0;
    int got = tf_collide_n(&tri, &sdf, 1e-3, 16, out, &cand);
    assert_true(got >= 1);
    // 3 vertices, then the descent
    if (cand > 3) descended++, evaluations += ball.evaluations - 3;
    double d = deepest(out, got)->dist;
    // the grid's spacing (size / 400 at most ~1e-5 m) leaves the reference above the true
    // minimum by at most its square over the sphere's radius (the tangent plane is flat)
    // the search ends once a step would gain under 1e-5 of the longest edge (TRI_TOL)
    double L = 0;
    for (int v = 0; v < 3; v++) {
      double ed[3];
      tf_vec3_sub(ed, tri_vert + 3 * ((v + 1) % 3), tri_vert + 3 * v);
      L = fmax(L, tf_vec3_norm(ed));
    }
    assert_true(d <= reference + 1e-5 * L);
    assert_true(d >= reference - 2e-8);
    worst = fmax(worst, reference - d);
  }
  print_message(
      "triangle descent: %d of 200 triangles descended, %.2f evaluations each, "
      "deepest below brute force by at most %.3g m\n",
      descended, descended ? (double)evaluations / descended : 0.0, worst);
  assert_true(descended > 50);
  // ~1.25 each (the models' first step mostly holds; Newton steps alone took ~2, gradient
  // steps ~2.7)
  assert_true(evaluations <= 1.75 * descended);
}

// an edge's minimum is sought once and written once: a diamond of two triangles (sharing the
// edge along x) 20 um above an SDF sphere whose nearest point is the middle of that edge.
// Both triangles pick the edge; its minimum is evaluated once (the cubic model of the
// symmetric edge holds at once) and is the one candidate beside the four vertices, at the
// sphere's exact gap
static void test_shared_edge_once(void** state) {
  (void)state;
  const double r = 0.01, gap = 2e-5, a = 1e-3;
  const double vert[12] = {-a, 0, 0, a, 0, 0, 0, a, 0, 0, -a, 0};
  static const int face[6] = {0, 1, 2, 1, 0, 3};
  counted_sphere ball = {{r}, 0};
  double centre[3] = {0, 0, -(r + gap)}, origin[3] = {0, 0, 0};
  tf_shape sdf = make_shape(TF_GEOM_SDF, NULL, centre, identity);
  sdf.sdf.fn = counted_sphere_fn;
  sdf.sdf.params = &ball;
  const double aabb[6] = {-r, -r, -r, r, r, r};
  memcpy(sdf.sdf.aabb, aabb, sizeof(aabb));
  tf_shape diamond = make_shape(TF_GEOM_MESH, NULL, origin, identity);
  diamond.mesh.nvert = 4, diamond.mesh.vert = vert, diamond.mesh.nface = 2;
  diamond.mesh.face = face, diamond.mesh.rbound = a;
  tf_contact_point out[TF_COLLIDE_MAX];
  int cand = 0;
  int got = tf_collide_n(&diamond, &sdf, 1e-3, 16, out, &cand);
  assert_int_equal(cand, 5);
  assert_int_equal(ball.evaluations, 5);
  assert_true(got >= 1);
  const tf_contact_point* d = deepest(out, got);
  assert_near(d->dist, gap, 1e-12);
  assert_near(d->pos[0], 0, 1e-9);
  assert_near(d->pos[1], 0, 1e-9);
}

// a sphere SDF whose gradient is scaled by params' factor (1: the true unit gradient; 2: a
// function that breaks the unit_gradient promise)
typedef struct scaled_sphere {
  double r, scale;
} scaled_sphere;

static double scaled_sphere_fn(const void* params, const double p[3], double grad[3]) {
  const scaled_sphere* s = params;
  double n = tf_vec3_norm(p);
  tf_vec3_scale(grad, p, s->scale / n);
  return n - s->r;
}

// tf_sdf_view.unit_gradient: a unit gradient is used as it comes (the same contacts as the
// normalised path, to rounding), and one that is not unit after all is still normalised
static void test_unit_gradient_checked(void** state) {
  (void)state;
  const double r = 0.01, half[3] = {0.004, 0.004, 0.004};
  double centre[3] = {0, 0, 0}, above[3] = {0.001, -0.0007, r + half[2] + 2e-5}, mat[9];
  rotation(mat, 0.3, 0.5, 0.8, 0.2);
  const double aabb[6] = {-r, -r, -r, r, r, r};
  tf_shape box = make_shape(TF_GEOM_BOX, half, above, mat);
  tf_contact_point plain[TF_COLLIDE_MAX], promised[TF_COLLIDE_MAX];
  for (int k = 0; k < 2; k++) {
    scaled_sphere ball = {r, k == 0 ? 1.0 : 2.0};
    tf_shape sdf = make_sdf(scaled_sphere_fn, &ball, aabb, 1e-9, centre, identity);
    int n = tf_collide_n(&box, &sdf, 1e-3, 64, plain, NULL);
    sdf.sdf.unit_gradient = 1;
    int m = tf_collide_n(&box, &sdf, 1e-3, 64, promised, NULL);
    assert_true(n >= 1);
    assert_int_equal(m, n);
    for (int i = 0; i < n; i++) {
      assert_near(tf_vec3_norm(promised[i].normal), 1, 1e-12);
      assert_near(promised[i].dist, plain[i].dist, 1e-15);
      for (int j = 0; j < 3; j++) {
        assert_near(promised[i].normal[j], plain[i].normal[j], 1e-12);
        assert_near(promised[i].pos[j], plain[i].pos[j], 1e-15);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sphere_vs_sdf_sphere), cmocka_unit_test(test_sdf_sdf_spheres),
      cmocka_unit_test(test_box_on_halfspace),     cmocka_unit_test(test_mesh_pairs),
      cmocka_unit_test(test_plane_and_curved),     cmocka_unit_test(test_all_pairs),
      cmocka_unit_test(test_bore_far_side),        cmocka_unit_test(test_grid_sdf),
      cmocka_unit_test(test_reduce_bins),          cmocka_unit_test(test_reduce_stress),
      cmocka_unit_test(test_reduce_order),         cmocka_unit_test(test_bowl_settle),
      cmocka_unit_test(test_model_tessellation),   cmocka_unit_test(test_two_way_edge),
      cmocka_unit_test(test_two_way_floor),        cmocka_unit_test(test_triangle_descent),
      cmocka_unit_test(test_shared_edge_once),     cmocka_unit_test(test_unit_gradient_checked),
      cmocka_unit_test(test_reduce_local_frame),   cmocka_unit_test(test_reduce_extreme_tie),
      cmocka_unit_test(test_reduce_closing_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
