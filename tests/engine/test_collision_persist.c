// Tests of contacts that persist across steps (collision_persist.c): a pair apart recalls
// "nothing" only where a search finds nothing (the same bits as searching every step); a
// resting pair recalls its rows; a recalled pair never hides a new contact (a block resting
// on a floor and pushed into a wall gets the wall's rows on the same step as with a search
// every step); the memory is forgotten on reset and on a copied state; persist_tol 0 keeps
// none.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "collision_persist.h"
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

// exact box distance, half-sizes in params
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

static const double floor_half[3] = {0.1, 0.1, 0.01};  // top face at z = 0
static const double wall_half[3] = {0.01, 0.1, 0.05};
#define BLOCK_HALF 0.01    // m: the block's half side
#define WALL_GAP 0.5e-3    // m: the wall's face this far beyond the block's resting side
#define CAPSULE_HALF 5e-3  // m: the capsule's half-length

// a static SDF box of half-sizes half at pos
static int add_static_box(tf_builder* b, const char* name, const double half[3],
                          const double pos[3]) {
  tf_sdf_def sd;
  memset(&sd, 0, sizeof(sd));
  sd.name = name;
  sd.fn = box_fn;
  sd.params = half;
  sd.params_size = 3 * sizeof(double);
  for (int k = 0; k < 3; k++) sd.aabb[k] = -half[k], sd.aabb[3 + k] = half[k];
  sd.mesh = -1;
  tf_geom_def g = tf_geom_def_default();
  g.name = name;
  g.type = TF_GEOM_SDF;
  g.sdf = tf_builder_add_sdf(b, &sd);
  memcpy(g.pos, pos, sizeof(g.pos));
  g.friction[0] = 0.3;
  g.condim = 3;
  return tf_builder_add_geom(b, &g);
}

// a 2 cm block (a box, or a sphere or capsule of that radius) on a floor, its +x side
// WALL_GAP from a wall (or dropped from height above the floor), at timestep 2 ms, contacts
// kept while it moves less than persist_tol
static tf_model* shape_scene(double persist_tol, double height, int type, int* block) {
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = 2e-3;
  opt.persist_tol = persist_tol;
  tf_builder_set_option(b, &opt);
  const double floor_pos[3] = {0, 0, -floor_half[2]};
  const double wall_pos[3] = {BLOCK_HALF + WALL_GAP + wall_half[0], 0, wall_half[2]};
  assert_true(add_static_box(b, "floor", floor_half, floor_pos) >= 0);
  assert_true(add_static_box(b, "wall", wall_half, wall_pos) >= 0);
  tf_body_def body = tf_body_def_default();
  body.name = "block";
  // a capsule stands on its end, half its segment higher
  body.pos[2] = BLOCK_HALF + height + (type == TF_GEOM_CAPSULE ? CAPSULE_HALF : 0);
  body.mass = 0.05;
  body.inertia[0] = body.inertia[1] = body.inertia[2] = 0.05 * 4 * BLOCK_HALF * BLOCK_HALF / 6;
  *block = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "block_free";
  joint.body = *block;
  joint.type = TF_JOINT_FREE;
  tf_builder_add_joint(b, &joint);
  tf_geom_def g = tf_geom_def_default();
  g.name = "block";
  g.body = *block;
  g.type = type;
  g.size[0] = g.size[1] = g.size[2] = BLOCK_HALF;
  if (type == TF_GEOM_CAPSULE) g.size[1] = CAPSULE_HALF;
  g.friction[0] = 0.3;
  g.condim = 3;
  tf_builder_add_geom(b, &g);
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) print_error("compile: %s\n", err);
  assert_non_null(m);
  return m;
}

static tf_model* block_scene(double persist_tol, double height, int* block) {
  return shape_scene(persist_tol, height, TF_GEOM_BOX, block);
}

// contacts of the last step between geom g and any other
static int contacts_with(const tf_data* d, int g) {
  int n = 0;
  for (int i = 0; i < d->ncon; i++) n += d->contact[i].geom[0] == g || d->contact[i].geom[1] == g;
  return n;
}

// the block dropped 5 mm onto the floor: while apart, recalling "nothing" is what a search
// finds, so the state is the same bits as with a search every step until the first contact;
// likewise a sphere and a capsule, whose tessellation the true surface lies outside of
static void check_apart_is_exact(int type) {
  int block;
  tf_model* on = shape_scene(1e-9, 5e-3, type, &block);
  tf_model* off = shape_scene(0, 5e-3, type, &block);
  assert_true(on->npersist == 2);  // block-floor, block-wall
  assert_int_equal(off->npersist, 0);
  tf_data* a = tf_data_create(on);
  tf_data* b = tf_data_create(off);
  int recalled = 0, steps = 0;
  for (; steps < 200; steps++) {
    assert_int_equal(tf_step(on, a), 0);
    assert_int_equal(tf_step(off, b), 0);
    assert_int_equal(b->npair_recalled, 0);
    if (a->ncon > 0 || b->ncon > 0) break;
    recalled += a->npair_recalled;
    assert_memory_equal(a->qpos, b->qpos, sizeof(double) * (size_t)on->nq);
    assert_memory_equal(a->qvel, b->qvel, sizeof(double) * (size_t)on->nv);
  }
  print_message("apart (%s): %d steps, %d pair searches recalled\n", tf_geom_type_name(type), steps,
                recalled);
  assert_true(steps > 10 && steps < 200);
  assert_true(recalled > 0);  // the test can fail: the block spent steps far from both
  assert_int_equal(a->ncon, b->ncon);
  tf_data_destroy(a);
  tf_data_destroy(b);
  tf_model_destroy(on);
  tf_model_destroy(off);
}

static void test_apart_is_exact(void** state) {
  (void)state;
  check_apart_is_exact(TF_GEOM_BOX);
  check_apart_is_exact(TF_GEOM_SPHERE);
  check_apart_is_exact(TF_GEOM_CAPSULE);
}

// The block settles on the floor (its rows recalled), then a push drives it into the wall
// 0.5 mm away: the wall's rows appear on the same step as with a search every step, and the
// two runs stay within the tolerance's reach of each other
static void test_rest_then_push(void** state) {
  (void)state;
  int block;
  tf_model* m[2] = {block_scene(1e-9, 0, &block), block_scene(0, 0, &block)};
  tf_data* d[2] = {tf_data_create(m[0]), tf_data_create(m[1])};
  int wall = 1, rest_recalled = 0, first_wall[2] = {-1, -1};
  double deepest[2] = {0, 0};
  for (int step = 0; step < 400; step++) {
    for (int k = 0; k < 2; k++) {
      // from step 200 a 2 N push along +x: the block slides (mu 0.3, weight 0.49 N)
      d[k]->xfrc_applied[6 * block] = step >= 200 ? 2 : 0;
      assert_int_equal(tf_step(m[k], d[k]), 0);
      if (first_wall[k] < 0 && contacts_with(d[k], wall) > 0) first_wall[k] = step;
      for (int i = 0; i < d[k]->ncon; i++) {
        if (d[k]->contact[i].geom[0] == wall) deepest[k] = fmin(deepest[k], d[k]->contact[i].dist);
      }
    }
    if (step >= 100 && step < 200) rest_recalled += d[0]->npair_recalled;
  }
  double x0 = d[0]->xpos[3 * block], x1 = d[1]->xpos[3 * block];
  print_message(
      "rest: %d of 200 pair searches recalled; wall rows from step %d / %d (search "
      "every step); against the wall at x %.12f / %.12f, deepest row %.3e / %.3e\n",
      rest_recalled, first_wall[0], first_wall[1], x0, x1, deepest[0], deepest[1]);
  assert_true(rest_recalled > 150);  // at rest the floor's rows are recalled
  assert_true(first_wall[0] >= 200);
  assert_int_equal(first_wall[0], first_wall[1]);
  // held against the wall: the same place to the tolerance, and no deeper into it
  assert_near(x0, x1, 1e-8);
  assert_near(x0, WALL_GAP, 1e-6);
  assert_true(deepest[0] > -1e-6);
  for (int k = 0; k < 2; k++) {
    tf_data_destroy(d[k]);
    tf_model_destroy(m[k]);
  }
}

// every memory is forgotten on reset and in a state copied in
static void test_forgotten(void** state) {
  (void)state;
  int block;
  tf_model* m = block_scene(1e-9, 0, &block);
  tf_data* d = tf_data_create(m);
  tf_data* e = tf_data_create(m);
  for (int i = 0; i < 50; i++) assert_int_equal(tf_step(m, d), 0);
  int remembered = 0;
  for (int i = 0; i < m->npersist; i++) remembered += d->pair_memory[i].npoint >= 0;
  assert_true(remembered > 0);
  tf_data_copy_state(m, e, d);
  for (int i = 0; i < m->npersist; i++) assert_int_equal(e->pair_memory[i].npoint, -1);
  assert_int_equal(tf_step(m, e), 0);
  assert_int_equal(e->npair_recalled, 0);
  tf_data_reset(m, d);
  for (int i = 0; i < m->npersist; i++) assert_int_equal(d->pair_memory[i].npoint, -1);
  // the pairs listed are the meshes' and SDFs', found by their geoms
  assert_int_equal(tf_persist_slot(m, 0, 2), 0);
  assert_int_equal(tf_persist_slot(m, 1, 2), 1);
  assert_int_equal(tf_persist_slot(m, 0, 1), -1);  // two static geoms never meet
  tf_data_destroy(d);
  tf_data_destroy(e);
  tf_model_destroy(m);
}

// a bad tolerance is refused with a message naming it
static void test_bad_tolerance(void** state) {
  (void)state;
  const double bad[3] = {-1e-9, NAN, 1};
  for (int i = 0; i < 3; i++) {
    tf_builder* b = tf_builder_create();
    tf_option opt = tf_option_default();
    opt.persist_tol = bad[i];
    tf_builder_set_option(b, &opt);
    char err[256] = "";
    tf_model* m = tf_builder_compile(b, err, sizeof(err));
    assert_null(m);
    assert_non_null(strstr(err, "persist_tol"));
    tf_builder_destroy(b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_apart_is_exact),
      cmocka_unit_test(test_rest_then_push),
      cmocka_unit_test(test_forgotten),
      cmocka_unit_test(test_bad_tolerance),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
