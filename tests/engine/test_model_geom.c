// Geoms, hulls, limits, joint friction and equality constraints in the builder: bad input
// is rejected with a message naming the object; the collision filter follows its rules.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "collision_stage.h"
#include "tightfit.h"

// a builder with a floor plane, a free box "box", and a hinged "arm" child of the box
static tf_builder* base_builder(void) {
  tf_builder* b = tf_builder_create();
  tf_geom_def floor = tf_geom_def_default();
  floor.name = "floor";
  floor.type = TF_GEOM_PLANE;
  tf_builder_add_geom(b, &floor);
  tf_body_def body = tf_body_def_default();
  body.name = "box";
  body.pos[2] = 0.5;
  int box = tf_builder_add_body(b, &body);
  body.name = "arm";
  body.parent = box;
  body.pos[2] = 0.2;
  int arm = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "box_free";
  joint.body = box;
  joint.type = TF_JOINT_FREE;
  tf_builder_add_joint(b, &joint);
  joint = tf_joint_def_default();
  joint.name = "arm_hinge";
  joint.body = arm;
  tf_builder_add_joint(b, &joint);
  tf_geom_def g = tf_geom_def_default();
  g.name = "box_geom";
  g.body = box;
  g.type = TF_GEOM_BOX;
  g.size[0] = g.size[1] = g.size[2] = 0.05;
  tf_builder_add_geom(b, &g);
  g.name = "arm_geom";
  g.body = arm;
  g.type = TF_GEOM_CAPSULE;
  g.size[0] = 0.01, g.size[1] = 0.1;
  tf_builder_add_geom(b, &g);
  return b;
}

// compiles and expects failure with every needle in the message
static void expect_reject(tf_builder* b, const char* needle1, const char* needle2) {
  char err[256];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (m) tf_model_destroy(m);
  assert_null(m);
  if (!strstr(err, needle1) || (needle2 && !strstr(err, needle2))) {
    print_message("message: %s\n", err);
    fail();
  }
  assert_null(strchr(err, '\n'));
}

static tf_geom_def extra_geom(const char* name, tf_geom_type type) {
  tf_geom_def g = tf_geom_def_default();
  g.name = name;
  g.body = 1;
  g.type = type;
  g.size[0] = g.size[1] = g.size[2] = 0.02;
  return g;
}

static void test_valid_model(void** state) {
  (void)state;
  tf_builder* b = base_builder();
  double pts[8 * 3];
  for (int k = 0; k < 8; k++) {
    pts[3 * k] = k & 1 ? 0.03 : -0.03;
    pts[3 * k + 1] = k & 2 ? 0.03 : -0.03;
    pts[3 * k + 2] = k & 4 ? 0.03 : -0.03;
  }
  int hull = tf_builder_add_hull(b, "cube_mesh", pts, 8);
  tf_geom_def g = extra_geom("hull_geom", TF_GEOM_HULL);
  g.hull = hull;
  g.pos[0] = 0.1;
  tf_builder_add_geom(b, &g);
  g = extra_geom("cyl", TF_GEOM_CYLINDER);
  tf_builder_add_geom(b, &g);
  char err[256];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) print_message("%s\n", err);
  assert_non_null(m);
  assert_int_equal(m->ngeom, 5);
  assert_int_equal(m->nhull, 1);
  assert_int_equal(m->hull_vertnum[0], 8);
  assert_int_equal(m->hull_facenum[0], 6);
  assert_true(fabs(m->geom_rbound[3] - sqrt(3) * 0.03) < 1e-12);
  // geom poses follow their body: the hull sits 0.1 m along the box's x axis
  tf_data* d = tf_data_create(m);
  d->qpos[3] = cos(M_PI / 4), d->qpos[6] = sin(M_PI / 4);  // box turned 90 deg about z
  tf_kinematics(m, d);
  assert_true(fabs(d->geom_xpos[3 * 3 + 0]) < 1e-12);
  assert_true(fabs(d->geom_xpos[3 * 3 + 1] - 0.1) < 1e-12);
  assert_true(fabs(d->geom_xpos[3 * 3 + 2] - 0.5) < 1e-12);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_reject_geom_size(void** state) {
  (void)state;
  tf_builder* b = base_builder();
  tf_geom_def g = extra_geom("thin", TF_GEOM_BOX);
  g.size[2] = 0;
  tf_builder_add_geom(b, &g);
  expect_reject(b, "thin", "size[2]");
}

static void test_reject_plane_on_body(void** state) {
  (void)state;
  tf_builder* b = base_builder();
  tf_geom_def g = extra_geom("moving_plane", TF_GEOM_PLANE);
  tf_builder_add_geom(b, &g);
  expect_reject(b, "moving_plane", "world");
}

static void test_reject_unknown_hull(void** state) {
  (void)state;
  tf_builder* b = base_builder();
  tf_geom_def g = extra_geom("ghost_hull", TF_GEOM_HULL);
  g.hull = 3;
  tf_builder_add_geom(b, &g);
  expect_reject(b, "ghost_hull", "hull");
}

static void test_reject_geom_properties(void** state) {
  (void)state;
  tf_builder* b = base_builder();
  tf_geom_def g = extra_geom("bad_condim", TF_GEOM_SPHERE);
  g.condim = 2;
  tf_builder_add_geom(b, &g);
  expect_reject(b, "bad_condim", "condim");
  b = base_builder();
  g = extra_geom("bad_friction", TF_GEOM_SPHERE);
  g.friction[0] = -0.1;
  tf_builder_add_geom(b, &g);
  expect_reject(b, "bad_friction", "friction");
  b = base_builder();
  g = extra_geom("bad_margin", TF_GEOM_SPHERE);
  g.margin = NAN;
  tf_builder_add_geom(b, &g);
  expect_reject(b, "bad_margin", "margin");
  b = base_builder();
  g = extra_geom("bad_solimp", TF_GEOM_SPHERE);
  g.solimp[0] = 1.5;
  tf_builder_add_geom(b, &g);
  expect_reject(b, "bad_solimp", "solimp");
  b = base_builder();
  g = extra_geom("no_body", TF_GEOM_SPHERE);
  g.body = 9;
  tf_builder_add_geom(b, &g);
  expect_reject(b, "no_body", "body");
}

// qhull's degenerate inputs name the mesh
static void test_reject_degenerate_hull(void** state) {
  (void)state;
  double flat[6 * 3];
  for (int k = 0; k < 6; k++) {
    flat[3 * k] = cos(k), flat[3 * k + 1] = sin(k), flat[3 * k + 2] = 0;
  }
  tf_builder* b = base_builder();
  int hull = tf_builder_add_hull(b, "flat_mesh", flat, 6);
  tf_geom_def g = extra_geom("flat", TF_GEOM_HULL);
  g.hull = hull;
  tf_builder_add_geom(b, &g);
  expect_reject(b, "flat_mesh", "coplanar");
  b = base_builder();
  hull = tf_builder_add_hull(b, "tiny_mesh", flat, 3);
  g.hull = hull;
  tf_builder_add_geom(b, &g);
  expect_reject(b, "tiny_mesh", NULL);
}

static void test_reject_limits_and_friction(void** state) {
  (void)state;
  tf_builder* b = base_builder();
  tf_body_def body = tf_body_def_default();
  body.name = "extra";
  body.parent = 2;
  int id = tf_builder_add_body(b, &body);
  tf_joint_def j = tf_joint_def_default();
  j.name = "reversed";
  j.body = id;
  j.limited = 1;
  j.range[0] = 1, j.range[1] = -1;
  tf_builder_add_joint(b, &j);
  expect_reject(b, "reversed", "range");
  b = base_builder();
  id = tf_builder_add_body(b, &body);
  j = tf_joint_def_default();
  j.name = "limited_ball";
  j.body = id;
  j.type = TF_JOINT_BALL;
  j.limited = 1;
  tf_builder_add_joint(b, &j);
  expect_reject(b, "limited_ball", "hinge");
  b = base_builder();
  id = tf_builder_add_body(b, &body);
  j = tf_joint_def_default();
  j.name = "sticky";
  j.body = id;
  j.frictionloss = -1;
  tf_builder_add_joint(b, &j);
  expect_reject(b, "sticky", "frictionloss");
}

static void test_reject_equality(void** state) {
  (void)state;
  tf_builder* b = base_builder();
  tf_equality_def e = tf_equality_def_default();
  e.name = "self_weld";
  e.type = TF_EQ_WELD;
  e.body1 = e.body2 = 1;
  tf_builder_add_equality(b, &e);
  expect_reject(b, "self_weld", "same body");
}

static void test_reject_rk4_with_contacts(void** state) {
  (void)state;
  tf_builder* b = base_builder();
  tf_option opt = tf_option_default();
  opt.integrator = TF_INTEGRATOR_RK4;
  tf_builder_set_option(b, &opt);
  expect_reject(b, "rk4", "euler");
  b = base_builder();
  opt = tf_option_default();
  opt.nconmax = 0;
  tf_builder_set_option(b, &opt);
  expect_reject(b, "nconmax", NULL);
  b = base_builder();
  opt = tf_option_default();
  opt.solver = (tf_solver_type)9;
  tf_builder_set_option(b, &opt);
  expect_reject(b, "solver", NULL);
}

// the filter: same body never; parent-child never (unless the parent is the world);
// static-static never; bits; exclusions; explicit inclusions win
static void test_collision_filter(void** state) {
  (void)state;
  tf_builder* b = base_builder();
  tf_geom_def g = extra_geom("box_extra", TF_GEOM_SPHERE);  // on the box, like box_geom
  tf_builder_add_geom(b, &g);
  g = tf_geom_def_default();
  g.name = "static_block";
  g.type = TF_GEOM_BOX;
  g.size[0] = g.size[1] = g.size[2] = 0.1;
  tf_builder_add_geom(b, &g);
  g = extra_geom("ghost", TF_GEOM_SPHERE);
  g.contype = 0, g.conaffinity = 0;
  tf_builder_add_geom(b, &g);
  char err[256];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  assert_non_null(m);
  int floor = 0, box = 1, arm = 2, box_extra = 3, block = 4, ghost = 5;
  assert_true(tf_collision_filter(m, floor, box));       // child of the world: collides
  assert_false(tf_collision_filter(m, box, arm));        // parent-child
  assert_false(tf_collision_filter(m, box, box_extra));  // same body
  assert_false(tf_collision_filter(m, floor, block));    // both static
  assert_true(tf_collision_filter(m, arm, block));
  assert_false(tf_collision_filter(m, ghost, floor));  // no bits
  tf_model_destroy(m);

  b = base_builder();
  tf_builder_exclude_pair(b, 0, 1);
  tf_builder_include_pair(b, 1, 2);
  m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  assert_non_null(m);
  assert_false(tf_collision_filter(m, floor, box));  // excluded
  assert_true(tf_collision_filter(m, box, arm));     // included despite parent-child
  tf_model_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_model),
      cmocka_unit_test(test_reject_geom_size),
      cmocka_unit_test(test_reject_plane_on_body),
      cmocka_unit_test(test_reject_unknown_hull),
      cmocka_unit_test(test_reject_geom_properties),
      cmocka_unit_test(test_reject_degenerate_hull),
      cmocka_unit_test(test_reject_limits_and_friction),
      cmocka_unit_test(test_reject_equality),
      cmocka_unit_test(test_reject_rk4_with_contacts),
      cmocka_unit_test(test_collision_filter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
