// The builder and its compile step: every bad definition is rejected with a one-line message
// that names the body / joint / actuator at fault and says what is wrong, never a crash; good
// models compile with the right sizes, names and initial state, and their data step
// independently and bit-identically.
//
// Most cases start from one valid model (spec_default: a free base, a ball, a hinge and a
// slide in a chain, two actuators), change one field, and expect the compile to fail.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tightfit.h"

#define MAX_BODY 4
#define MAX_JOINT 4
#define MAX_ACT 2

// a model as plain definitions, so a test can break one field before building it
typedef struct spec {
  tf_option opt;
  tf_body_def body[MAX_BODY];
  int nbody;
  tf_joint_def joint[MAX_JOINT];
  int njnt;
  tf_actuator_def act[MAX_ACT];
  int nu;
} spec;

// the valid reference model: base (free) -> torso (ball) -> arm (hinge) -> slider (slide),
// a motor on the hinge and a position servo on the slide
static spec spec_default(void) {
  spec s;
  memset(&s, 0, sizeof(s));
  s.opt = tf_option_default();

  static const char* const body_names[MAX_BODY] = {"base", "torso", "arm", "slider"};
  static const double body_z[MAX_BODY] = {2.0, -0.3, -0.4, -0.5};
  for (int i = 0; i < MAX_BODY; i++) {
    s.body[i] = tf_body_def_default();
    s.body[i].name = body_names[i];
    s.body[i].parent = i;  // the previous body; the world for the base
    s.body[i].pos[2] = body_z[i];
    s.body[i].com[0] = 0.05 * (i + 1);
    s.body[i].com[2] = -0.1;
    s.body[i].inertia[0] = 0.02;
    s.body[i].inertia[1] = 0.03;
    s.body[i].inertia[2] = 0.04;
  }
  s.nbody = MAX_BODY;

  static const char* const joint_names[MAX_JOINT] = {"root", "shoulder", "elbow", "piston"};
  static const tf_joint_type joint_types[MAX_JOINT] = {TF_JOINT_FREE, TF_JOINT_BALL, TF_JOINT_HINGE,
                                                       TF_JOINT_SLIDE};
  for (int j = 0; j < MAX_JOINT; j++) {
    s.joint[j] = tf_joint_def_default();
    s.joint[j].name = joint_names[j];
    s.joint[j].body = j + 1;
    s.joint[j].type = joint_types[j];
  }
  s.joint[1].qpos0[0] = 1;  // identity quaternion for the ball
  s.joint[1].damping = 0.1;
  s.joint[2].axis[0] = 0;
  s.joint[2].axis[1] = 1;
  s.joint[2].axis[2] = 0;
  s.joint[2].damping = 0.05;
  s.joint[2].stiffness = 2.0;
  s.joint[2].armature = 0.01;
  s.joint[3].axis[0] = 1;
  s.joint[3].axis[2] = 1;
  s.njnt = MAX_JOINT;

  s.act[0] = tf_actuator_def_default();
  s.act[0].name = "motor";
  s.act[0].joint = 2;
  s.act[0].gear = 2;
  s.act[0].forcerange[0] = -5;
  s.act[0].forcerange[1] = 5;
  s.act[1] = tf_actuator_def_default();
  s.act[1].name = "pusher";
  s.act[1].type = TF_ACT_POSITION;
  s.act[1].joint = 3;
  s.act[1].kp = 50;
  s.act[1].kv = 2;
  s.nu = MAX_ACT;
  return s;
}

// a builder holding every definition of s, in order
static tf_builder* spec_build(const spec* s) {
  tf_builder* b = tf_builder_create();
  assert_non_null(b);
  tf_builder_set_option(b, &s->opt);
  for (int i = 0; i < s->nbody; i++) assert_int_equal(tf_builder_add_body(b, &s->body[i]), i + 1);
  for (int j = 0; j < s->njnt; j++) assert_int_equal(tf_builder_add_joint(b, &s->joint[j]), j);
  for (int a = 0; a < s->nu; a++) assert_int_equal(tf_builder_add_actuator(b, &s->act[a]), a);
  return b;
}

// compiles s and expects success, printing the message if not
static tf_model* spec_compile(const spec* s) {
  tf_builder* b = spec_build(s);
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) fail_msg("compile failed: %s", err);
  return m;
}

// compiles s and expects a rejection whose message is one line containing both the name of
// the object at fault and a word about the problem; frees everything before any assertion
static void expect_reject(const spec* s, const char* name, const char* word) {
  tf_builder* b = spec_build(s);
  char err[256];
  memset(err, 'x', sizeof(err));
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  int compiled = m != NULL;
  tf_model_destroy(m);
  tf_builder_destroy(b);
  if (compiled) fail_msg("compiled; expected a message naming '%s' (%s)", name, word);
  if (memchr(err, 0, sizeof(err)) == NULL) fail_msg("message is not NUL terminated");
  print_message("rejected: %s\n", err);
  if (err[0] == 0) fail_msg("empty message");
  if (strchr(err, '\n')) fail_msg("message is more than one line: '%s'", err);
  if (!strstr(err, name)) fail_msg("message '%s' does not name '%s'", err, name);
  if (!strstr(err, word)) fail_msg("message '%s' does not say '%s'", err, word);
}

// a one-body model: a point mass of 1 kg at com, moving on a single joint
static spec spec_one_body(tf_joint_type type, const double com[3], const double axis[3]) {
  spec s = spec_default();
  s.nbody = 1;
  s.njnt = 1;
  s.nu = 0;
  s.body[0].name = "bead";
  s.body[0].pos[2] = 0;
  memcpy(s.body[0].com, com, 3 * sizeof(double));
  memset(s.body[0].inertia, 0, sizeof(s.body[0].inertia));
  s.joint[0] = tf_joint_def_default();
  s.joint[0].name = "pin";
  s.joint[0].body = 1;
  s.joint[0].type = type;
  memcpy(s.joint[0].axis, axis, 3 * sizeof(double));
  return s;
}

// ---------------------------------------------------------------- bodies

// the reference model itself must compile, or every rejection below proves nothing
static void test_reference_model_compiles(void** state) {
  (void)state;
  spec s = spec_default();
  tf_model* m = spec_compile(&s);
  tf_model_destroy(m);
}

// a massless body has no dynamics
static void test_reject_mass_zero(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[2].mass = 0;
  expect_reject(&s, "arm", "mass");
}

// negative mass is meaningless
static void test_reject_mass_negative(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[2].mass = -1;
  expect_reject(&s, "arm", "mass");
}

// NaN fails every comparison, so "mass <= 0" alone would let it through
static void test_reject_mass_nan(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[1].mass = NAN;
  expect_reject(&s, "torso", "mass");
}

// a zero principal moment (diag(1, 0, 1)) makes the inertia singular
static void test_reject_inertia_singular(void** state) {
  (void)state;
  spec s = spec_default();
  double in[6] = {1, 0, 1, 0, 0, 0};
  memcpy(s.body[3].inertia, in, sizeof(in));
  expect_reject(&s, "slider", "positive definite");
}

// a negative principal moment (diag(1, -1, 1))
static void test_reject_inertia_negative(void** state) {
  (void)state;
  spec s = spec_default();
  double in[6] = {1, -1, 1, 0, 0, 0};
  memcpy(s.body[3].inertia, in, sizeof(in));
  expect_reject(&s, "slider", "positive definite");
}

// diag(1, 1, 3): positive definite but no rigid body has it (3 > 1 + 1)
static void test_reject_inertia_triangle(void** state) {
  (void)state;
  spec s = spec_default();
  double in[6] = {1, 1, 3, 0, 0, 0};
  memcpy(s.body[0].inertia, in, sizeof(in));
  expect_reject(&s, "base", "triangle");
}

// NaN in an off-diagonal term of the inertia
static void test_reject_inertia_nan(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[2].inertia[4] = NAN;
  expect_reject(&s, "arm", "inertia");
}

// NaN in the body's position
static void test_reject_pos_nan(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[2].pos[1] = NAN;
  expect_reject(&s, "arm", "finite");
}

// NaN in the body's orientation
static void test_reject_quat_nan(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[2].quat[2] = NAN;
  expect_reject(&s, "arm", "finite");
}

// a zero quaternion cannot be normalised
static void test_reject_quat_zero(void** state) {
  (void)state;
  spec s = spec_default();
  memset(s.body[1].quat, 0, sizeof(s.body[1].quat));
  expect_reject(&s, "torso", "quaternion");
}

// two bodies with one name would make tf_name_to_body ambiguous
static void test_reject_duplicate_body_name(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[3].name = "torso";
  expect_reject(&s, "torso", "twice");
}

// an empty name: the message can only point at the body by its id (2, as add_body returned)
static void test_reject_empty_body_name(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[1].name = "";
  expect_reject(&s, "body 2", "name");
}

// a NULL name must be reported, not dereferenced
static void test_reject_null_body_name(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[1].name = NULL;
  expect_reject(&s, "body 2", "name");
}

// the same for joints (ids from 0) and actuators
static void test_reject_empty_joint_and_null_actuator_name(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[2].name = "";
  expect_reject(&s, "joint 2", "name");
  s = spec_default();
  s.act[1].name = NULL;
  expect_reject(&s, "actuator 1", "name");
}

// "world" is body 0's name
static void test_reject_body_named_world(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[2].name = "world";
  expect_reject(&s, "world", "reserved");
}

// parents must be the world or an earlier body: later, self and negative ids are all bad
static void test_reject_bad_parent(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[1].parent = 9;
  expect_reject(&s, "torso", "parent");
  s = spec_default();
  s.body[2].parent = 3;  // itself
  expect_reject(&s, "arm", "parent");
  s = spec_default();
  s.body[0].parent = -1;
  expect_reject(&s, "base", "parent");
}

// ---------------------------------------------------------------- joints

// a zero hinge axis cannot be normalised
static void test_reject_hinge_axis_zero(void** state) {
  (void)state;
  spec s = spec_default();
  memset(s.joint[2].axis, 0, sizeof(s.joint[2].axis));
  expect_reject(&s, "elbow", "axis");
}

// nor a zero slide axis
static void test_reject_slide_axis_zero(void** state) {
  (void)state;
  spec s = spec_default();
  memset(s.joint[3].axis, 0, sizeof(s.joint[3].axis));
  expect_reject(&s, "piston", "axis");
}

// NaN in an axis
static void test_reject_axis_nan(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[2].axis[0] = NAN;
  expect_reject(&s, "elbow", "axis");
}

// negative damping pumps energy in
static void test_reject_damping_negative(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[1].damping = -0.1;
  expect_reject(&s, "shoulder", "damping");
}

// negative armature can make M indefinite
static void test_reject_armature_negative(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[3].armature = -1e-3;
  expect_reject(&s, "piston", "armature");
}

// a negative spring pushes away from its rest position
static void test_reject_stiffness_negative(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[2].stiffness = -2;
  expect_reject(&s, "elbow", "stiffness");
}

// a free joint's coordinates are world coordinates, so its body must hang from the world
static void test_reject_free_joint_not_on_root(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[1].type = TF_JOINT_FREE;  // torso's parent is base
  s.nu = 0;
  expect_reject(&s, "shoulder", "free");
}

// a free joint already takes all six dofs of its body
static void test_reject_free_joint_with_second_joint(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[1].body = 1;  // shoulder also on base
  s.joint[1].type = TF_JOINT_HINGE;
  s.joint[2].body = 3;  // keep the elbow valid (torso now has no joint)
  expect_reject(&s, "root", "only");
}

// a free joint has no rest position for a spring
static void test_reject_free_joint_stiffness(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[0].stiffness = 1;
  expect_reject(&s, "root", "stiffness");
}

// a joint must move an existing body (not the world, not beyond the last)
static void test_reject_joint_on_nonexistent_body(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[3].body = 7;
  expect_reject(&s, "piston", "exist");
  s = spec_default();
  s.joint[0].body = 0;
  expect_reject(&s, "root", "exist");
}

// dofs are laid out body by body, so joints must come in body order
static void test_reject_joints_out_of_order(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[2].body = 4;
  s.joint[3].body = 3;
  expect_reject(&s, "piston", "order");
}

// a free joint on a point mass has no rotational inertia: M is singular at its angular dofs
static void test_reject_free_joint_on_point_mass(void** state) {
  (void)state;
  const double com[3] = {0, 0, 0}, axis[3] = {0, 0, 1};
  spec s = spec_one_body(TF_JOINT_FREE, com, axis);
  expect_reject(&s, "pin", "singular");
}

// a hinge whose axis passes through a point mass cannot turn it: M = 0
static void test_reject_hinge_through_point_mass(void** state) {
  (void)state;
  const double com[3] = {0, 0, 1}, axis[3] = {0, 0, 1};
  spec s = spec_one_body(TF_JOINT_HINGE, com, axis);
  expect_reject(&s, "pin", "singular");
}

// ---------------------------------------------------------------- actuators

// the actuators drive scalar joints only: not a free joint
static void test_reject_actuator_on_free_joint(void** state) {
  (void)state;
  spec s = spec_default();
  s.act[0].joint = 0;
  expect_reject(&s, "motor", "hinge or a slide");
}

// nor a ball joint
static void test_reject_actuator_on_ball_joint(void** state) {
  (void)state;
  spec s = spec_default();
  s.act[1].joint = 1;
  expect_reject(&s, "pusher", "hinge or a slide");
}

// a zero gear transmits nothing
static void test_reject_actuator_zero_gear(void** state) {
  (void)state;
  spec s = spec_default();
  s.act[0].gear = 0;
  expect_reject(&s, "motor", "gear");
}

// the joint id must exist, on both sides of the range
static void test_reject_actuator_on_nonexistent_joint(void** state) {
  (void)state;
  spec s = spec_default();
  s.act[0].joint = 4;
  expect_reject(&s, "motor", "exist");
  s = spec_default();
  s.act[1].joint = -1;
  expect_reject(&s, "pusher", "exist");
}

// a clamp with lo > hi has no valid value
static void test_reject_forcerange_reversed(void** state) {
  (void)state;
  spec s = spec_default();
  s.act[0].forcerange[0] = 1;
  s.act[0].forcerange[1] = -1;
  expect_reject(&s, "motor", "forcerange");
}

// ---------------------------------------------------------------- option

// a zero or negative timestep never advances
static void test_reject_timestep_nonpositive(void** state) {
  (void)state;
  spec s = spec_default();
  s.opt.timestep = 0;
  expect_reject(&s, "timestep", "> 0");
  s.opt.timestep = -1e-3;
  expect_reject(&s, "timestep", "> 0");
}

// NaN timestep
static void test_reject_timestep_nan(void** state) {
  (void)state;
  spec s = spec_default();
  s.opt.timestep = NAN;
  expect_reject(&s, "timestep", "> 0");
}

// NaN gravity would poison every step
static void test_reject_gravity_nan(void** state) {
  (void)state;
  spec s = spec_default();
  s.opt.gravity[1] = NAN;
  expect_reject(&s, "gravity", "finite");
}

// the message goes nowhere or is truncated when the caller gives little room, without a crash
static void test_reject_with_small_or_no_buffer(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[2].mass = 0;
  tf_builder* b = spec_build(&s);
  tf_model* m1 = tf_builder_compile(b, NULL, 0);
  char tiny[8];
  memset(tiny, 'x', sizeof(tiny));
  tf_model* m2 = tf_builder_compile(b, tiny, sizeof(tiny));
  int m1_null = m1 == NULL, m2_null = m2 == NULL;
  tf_model_destroy(m1);
  tf_model_destroy(m2);
  tf_builder_destroy(b);
  assert_true(m1_null);
  assert_true(m2_null);
  assert_non_null(memchr(tiny, 0, sizeof(tiny)));
}

// ---------------------------------------------------------------- valid models

// a 1 kg point mass on a 1 m massless rod: M = m l^2 = 1, not singular
static void test_point_mass_pendulum_compiles(void** state) {
  (void)state;
  const double com[3] = {0, 0, -1}, axis[3] = {0, 1, 0};
  spec s = spec_one_body(TF_JOINT_HINGE, com, axis);
  tf_model* m = spec_compile(&s);
  assert_int_equal(m->nbody, 2);
  assert_int_equal(m->njnt, 1);
  assert_int_equal(m->nq, 1);
  assert_int_equal(m->nv, 1);
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  tf_crba(m, d);
  assert_true(fabs(d->qM[0] - 1.0) < 1e-12);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// a model without a free joint: ball, slide and an actuator, built by hand
static void test_ball_slide_actuator_compiles(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  tf_body_def body = tf_body_def_default();
  body.name = "upper";
  body.com[2] = -0.2;
  int upper = tf_builder_add_body(b, &body);
  body.name = "lower";
  body.parent = upper;
  body.pos[2] = -0.5;
  int lower = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "ball";
  joint.body = upper;
  joint.type = TF_JOINT_BALL;
  joint.qpos0[0] = 1;
  tf_builder_add_joint(b, &joint);
  joint = tf_joint_def_default();
  joint.name = "slide";
  joint.body = lower;
  joint.type = TF_JOINT_SLIDE;
  int slide = tf_builder_add_joint(b, &joint);
  tf_actuator_def act = tf_actuator_def_default();
  act.name = "act";
  act.joint = slide;
  tf_builder_add_actuator(b, &act);
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) fail_msg("compile failed: %s", err);
  assert_string_equal(err, "");
  assert_int_equal(m->nq, 5);
  assert_int_equal(m->nv, 4);
  assert_int_equal(m->nu, 1);
  assert_int_equal(m->actuator_jntid[0], 1);
  tf_model_destroy(m);
}

// names resolve to ids in the order added; the world is body 0; unknown names are -1
static void test_name_lookup(void** state) {
  (void)state;
  spec s = spec_default();
  tf_model* m = spec_compile(&s);
  assert_int_equal(tf_name_to_body(m, "world"), 0);
  assert_int_equal(tf_name_to_body(m, "base"), 1);
  assert_int_equal(tf_name_to_body(m, "torso"), 2);
  assert_int_equal(tf_name_to_body(m, "arm"), 3);
  assert_int_equal(tf_name_to_body(m, "slider"), 4);
  assert_int_equal(tf_name_to_body(m, "nosuch"), -1);
  assert_int_equal(tf_name_to_body(m, "elbow"), -1);  // a joint, not a body
  assert_int_equal(tf_name_to_body(m, ""), -1);
  assert_int_equal(tf_name_to_body(m, NULL), -1);
  assert_int_equal(tf_name_to_joint(m, "root"), 0);
  assert_int_equal(tf_name_to_joint(m, "shoulder"), 1);
  assert_int_equal(tf_name_to_joint(m, "elbow"), 2);
  assert_int_equal(tf_name_to_joint(m, "piston"), 3);
  assert_int_equal(tf_name_to_joint(m, "arm"), -1);
  assert_int_equal(tf_name_to_joint(m, NULL), -1);
  assert_int_equal(tf_name_to_actuator(m, "motor"), 0);
  assert_int_equal(tf_name_to_actuator(m, "pusher"), 1);
  assert_int_equal(tf_name_to_actuator(m, "mot"), -1);
  assert_int_equal(tf_name_to_actuator(m, NULL), -1);
  assert_string_equal(tf_body_name(m, 0), "world");
  assert_string_equal(tf_body_name(m, 3), "arm");
  assert_string_equal(tf_joint_name(m, 3), "piston");
  tf_model_destroy(m);
}

// the builder copies names, so a caller's temporary buffer may change after add
static void test_names_are_copied(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  char name[16] = "first";
  tf_body_def body = tf_body_def_default();
  body.name = name;
  tf_builder_add_body(b, &body);
  strcpy(name, "second");
  body.parent = 1;
  tf_builder_add_body(b, &body);
  strcpy(name, "garbage");
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) fail_msg("compile failed: %s", err);
  assert_int_equal(tf_name_to_body(m, "first"), 1);
  assert_int_equal(tf_name_to_body(m, "second"), 2);
  assert_int_equal(tf_name_to_body(m, "garbage"), -1);
  tf_model_destroy(m);
}

// free 7/6 + ball 4/3 + hinge 1/1 + slide 1/1, with addresses and the dof tree
static void test_sizes_and_addresses(void** state) {
  (void)state;
  spec s = spec_default();
  tf_model* m = spec_compile(&s);
  assert_int_equal(m->nq, 13);
  assert_int_equal(m->nv, 11);
  assert_int_equal(m->nbody, 5);
  assert_int_equal(m->njnt, 4);
  assert_int_equal(m->nu, 2);
  static const int qposadr[4] = {0, 7, 11, 12}, dofadr[4] = {0, 6, 9, 10};
  static const int dofnum[5] = {0, 6, 3, 1, 1};
  for (int j = 0; j < 4; j++) {
    assert_int_equal(m->jnt_type[j], s.joint[j].type);
    assert_int_equal(m->jnt_bodyid[j], j + 1);
    assert_int_equal(m->jnt_qposadr[j], qposadr[j]);
    assert_int_equal(m->jnt_dofadr[j], dofadr[j]);
  }
  for (int b = 0; b < 5; b++) {
    assert_int_equal(m->body_dofnum[b], dofnum[b]);
    assert_int_equal(m->body_jntnum[b], b > 0);
    assert_int_equal(m->body_parentid[b], b - 1);
  }
  assert_int_equal(m->body_jntadr[0], -1);
  assert_int_equal(m->body_dofadr[0], -1);
  // a chain: every dof's parent is the one before it
  for (int i = 0; i < m->nv; i++) assert_int_equal(m->dof_parentid[i], i - 1);
  tf_model_destroy(m);
}

// qpos0: free joints take the body's pos and normalised quat, ball quats are normalised,
// hinge / slide values are copied
static void test_qpos0(void** state) {
  (void)state;
  spec s = spec_default();
  s.body[0].pos[0] = 0.5;
  double q_body[4] = {0, 0, 0, 3};
  memcpy(s.body[0].quat, q_body, sizeof(q_body));
  double q_ball[4] = {1, 1, 0, 0};
  memcpy(s.joint[1].qpos0, q_ball, sizeof(q_ball));
  s.joint[2].qpos0[0] = 0.3;
  s.joint[3].qpos0[0] = -0.1;
  tf_model* m = spec_compile(&s);
  const double expect[13] = {0.5, 0, 2, 0, 0, 0, 1, M_SQRT1_2, M_SQRT1_2, 0, 0, 0.3, -0.1};
  for (int i = 0; i < 13; i++) {
    if (fabs(m->qpos0[i] - expect[i]) > 1e-15) {
      double got = m->qpos0[i];
      tf_model_destroy(m);
      fail_msg("qpos0[%d] = %.17g, expected %.17g", i, got, expect[i]);
    }
  }
  tf_model_destroy(m);
}

// the compile keeps the three principal moments of a full inertia (eigenvalues 1.5, 2.5, 3)
static void test_off_diagonal_inertia(void** state) {
  (void)state;
  spec s = spec_default();
  double in[6] = {2, 2, 3, 0.5, 0, 0};
  memcpy(s.body[2].inertia, in, sizeof(in));
  tf_model* m = spec_compile(&s);
  double w[3];
  memcpy(w, m->body_inertia + 3 * 3, sizeof(w));
  tf_model_destroy(m);
  // order of the moments is the compile's choice: compare them sorted
  for (int i = 0; i < 2; i++) {
    for (int j = i + 1; j < 3; j++) {
      if (w[j] < w[i]) {
        double t = w[i];
        w[i] = w[j];
        w[j] = t;
      }
    }
  }
  assert_true(fabs(w[0] - 1.5) < 1e-12);
  assert_true(fabs(w[1] - 2.5) < 1e-12);
  assert_true(fabs(w[2] - 3.0) < 1e-12);
}

// ---------------------------------------------------------------- data

// sets the same non-trivial inputs on any data of the reference model
static void set_inputs(tf_data* d, double ctrl0) {
  d->ctrl[0] = ctrl0;
  d->ctrl[1] = 0.05;
  d->qvel[3] = 0.7;  // spin the free base
  d->qvel[7] = -0.4;
  d->qfrc_applied[9] = 0.2;
}

// a fresh data starts at qpos0; reset brings a stepped one back there, with everything zero
static void test_data_create_and_reset(void** state) {
  (void)state;
  spec s = spec_default();
  s.joint[2].qpos0[0] = 0.3;
  s.joint[3].qpos0[0] = 0.1;
  tf_model* m = spec_compile(&s);
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  size_t qbytes = sizeof(double) * (size_t)m->nq;
  assert_memory_equal(d->qpos, m->qpos0, qbytes);
  for (int i = 0; i < m->nv; i++) assert_true(d->qvel[i] == 0);
  assert_true(d->time == 0);

  set_inputs(d, 1.0);
  for (int k = 0; k < 50; k++) assert_int_equal(tf_step(m, d), 0);
  assert_true(memcmp(d->qpos, m->qpos0, qbytes) != 0);
  assert_true(d->time > 0);
  assert_int_equal(d->nstep, 50);

  tf_data_reset(m, d);
  assert_memory_equal(d->qpos, m->qpos0, qbytes);
  for (int i = 0; i < m->nv; i++) {
    assert_true(d->qvel[i] == 0);
    assert_true(d->qfrc_applied[i] == 0);
  }
  for (int a = 0; a < m->nu; a++) assert_true(d->ctrl[a] == 0);
  assert_true(d->time == 0);
  assert_int_equal(d->nstep, 0);
  for (int w = 0; w < TF_WARN_N; w++) assert_int_equal(d->warning[w], 0);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// two data of one model, stepped in turn with the same inputs, stay bit-identical; a third
// with other inputs goes its own way, so nothing is shared between them (both integrators)
static void test_two_data_independent(void** state) {
  (void)state;
  for (int integrator = 0; integrator < TF_INTEGRATOR_N; integrator++) {
    spec s = spec_default();
    s.opt.integrator = (tf_integrator)integrator;
    tf_model* m = spec_compile(&s);
    tf_data* a = tf_data_create(m);
    tf_data* b = tf_data_create(m);
    tf_data* c = tf_data_create(m);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    set_inputs(a, 1.0);
    set_inputs(b, 1.0);
    set_inputs(c, -3.0);
    int ok = 1;
    for (int k = 0; k < 100; k++) {
      ok &= tf_step(m, a) == 0;
      ok &= tf_step(m, c) == 0;
      ok &= tf_step(m, b) == 0;
    }
    size_t qbytes = sizeof(double) * (size_t)m->nq, vbytes = sizeof(double) * (size_t)m->nv;
    int same_q = memcmp(a->qpos, b->qpos, qbytes) == 0;
    int same_v = memcmp(a->qvel, b->qvel, vbytes) == 0;
    int differ = memcmp(a->qpos, c->qpos, qbytes) != 0;
    int same_time = a->time == b->time && a->nstep == 100 && b->nstep == 100;
    tf_data_destroy(a);
    tf_data_destroy(b);
    tf_data_destroy(c);
    tf_model_destroy(m);
    if (!ok) fail_msg("%s: a step failed", tf_integrator_name(integrator));
    if (!same_q || !same_v)
      fail_msg("%s: same inputs, different state", tf_integrator_name(integrator));
    if (!differ) fail_msg("%s: different inputs, same state", tf_integrator_name(integrator));
    assert_true(same_time);
  }
}

// one step from a saved state, repeated on the same data, gives the same bits (both
// integrators): nothing left over in the data (scratch, qacc, timers) changes the result
static void test_step_deterministic(void** state) {
  (void)state;
  for (int integrator = 0; integrator < TF_INTEGRATOR_N; integrator++) {
    spec s = spec_default();
    s.opt.integrator = (tf_integrator)integrator;
    tf_model* m = spec_compile(&s);
    tf_data* d = tf_data_create(m);
    assert_non_null(d);
    set_inputs(d, 0.5);
    for (int k = 0; k < 20; k++) assert_int_equal(tf_step(m, d), 0);
    size_t qbytes = sizeof(double) * (size_t)m->nq, vbytes = sizeof(double) * (size_t)m->nv;
    double* q0 = malloc(qbytes);
    double* v0 = malloc(vbytes);
    double* q1 = malloc(qbytes);
    double* v1 = malloc(vbytes);
    assert_non_null(q0);
    assert_non_null(v0);
    assert_non_null(q1);
    assert_non_null(v1);
    memcpy(q0, d->qpos, qbytes);
    memcpy(v0, d->qvel, vbytes);
    double t0 = d->time;
    int rc1 = tf_step(m, d);
    memcpy(q1, d->qpos, qbytes);
    memcpy(v1, d->qvel, vbytes);
    memcpy(d->qpos, q0, qbytes);
    memcpy(d->qvel, v0, vbytes);
    d->time = t0;
    int rc2 = tf_step(m, d);
    int same = memcmp(q1, d->qpos, qbytes) == 0 && memcmp(v1, d->qvel, vbytes) == 0;
    int moved = memcmp(q0, q1, qbytes) != 0;
    free(q0);
    free(v0);
    free(q1);
    free(v1);
    tf_data_destroy(d);
    tf_model_destroy(m);
    assert_int_equal(rc1, 0);
    assert_int_equal(rc2, 0);
    assert_true(moved);
    if (!same) fail_msg("%s: repeated step differs", tf_integrator_name(integrator));
  }
}

// a NaN velocity is refused: -1, qpos untouched, one BADQACC warning, no step counted
static void test_nan_qvel_refused(void** state) {
  (void)state;
  for (int integrator = 0; integrator < TF_INTEGRATOR_N; integrator++) {
    spec s = spec_default();
    s.opt.integrator = (tf_integrator)integrator;
    tf_model* m = spec_compile(&s);
    tf_data* d = tf_data_create(m);
    assert_non_null(d);
    set_inputs(d, 1.0);
    for (int k = 0; k < 5; k++) assert_int_equal(tf_step(m, d), 0);
    size_t qbytes = sizeof(double) * (size_t)m->nq;
    double* q = malloc(qbytes);
    assert_non_null(q);
    memcpy(q, d->qpos, qbytes);
    double t = d->time;
    d->qvel[9] = NAN;
    int rc = tf_step(m, d);
    int unchanged = memcmp(q, d->qpos, qbytes) == 0;
    int warned = d->warning[TF_WARN_BADQACC];
    long nstep = d->nstep;
    double time = d->time;
    // a second refused step counts again
    int rc2 = tf_step(m, d);
    int warned2 = d->warning[TF_WARN_BADQACC];
    int first_step = d->warning_step[TF_WARN_BADQACC];
    free(q);
    tf_data_destroy(d);
    tf_model_destroy(m);
    assert_int_equal(rc, -1);
    assert_true(unchanged);
    assert_int_equal(warned, 1);
    assert_int_equal(nstep, 5);
    assert_true(time == t);
    assert_int_equal(rc2, -1);
    assert_int_equal(warned2, 2);
    assert_int_equal(first_step, 5);
  }
}

// a model with bodies but no joints (nv = 0) compiles, creates data and steps
static void test_no_joints_model_steps(void** state) {
  (void)state;
  spec s = spec_default();
  s.njnt = 0;
  s.nu = 0;
  tf_model* m = spec_compile(&s);
  assert_int_equal(m->nq, 0);
  assert_int_equal(m->nv, 0);
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  int rc = tf_step(m, d);
  tf_data_destroy(d);
  tf_model_destroy(m);
  assert_int_equal(rc, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_model_compiles),
      cmocka_unit_test(test_reject_mass_zero),
      cmocka_unit_test(test_reject_mass_negative),
      cmocka_unit_test(test_reject_mass_nan),
      cmocka_unit_test(test_reject_inertia_singular),
      cmocka_unit_test(test_reject_inertia_negative),
      cmocka_unit_test(test_reject_inertia_triangle),
      cmocka_unit_test(test_reject_inertia_nan),
      cmocka_unit_test(test_reject_pos_nan),
      cmocka_unit_test(test_reject_quat_nan),
      cmocka_unit_test(test_reject_quat_zero),
      cmocka_unit_test(test_reject_duplicate_body_name),
      cmocka_unit_test(test_reject_empty_body_name),
      cmocka_unit_test(test_reject_null_body_name),
      cmocka_unit_test(test_reject_empty_joint_and_null_actuator_name),
      cmocka_unit_test(test_reject_body_named_world),
      cmocka_unit_test(test_reject_bad_parent),
      cmocka_unit_test(test_reject_hinge_axis_zero),
      cmocka_unit_test(test_reject_slide_axis_zero),
      cmocka_unit_test(test_reject_axis_nan),
      cmocka_unit_test(test_reject_damping_negative),
      cmocka_unit_test(test_reject_armature_negative),
      cmocka_unit_test(test_reject_stiffness_negative),
      cmocka_unit_test(test_reject_free_joint_not_on_root),
      cmocka_unit_test(test_reject_free_joint_with_second_joint),
      cmocka_unit_test(test_reject_free_joint_stiffness),
      cmocka_unit_test(test_reject_joint_on_nonexistent_body),
      cmocka_unit_test(test_reject_joints_out_of_order),
      cmocka_unit_test(test_reject_free_joint_on_point_mass),
      cmocka_unit_test(test_reject_hinge_through_point_mass),
      cmocka_unit_test(test_reject_actuator_on_free_joint),
      cmocka_unit_test(test_reject_actuator_on_ball_joint),
      cmocka_unit_test(test_reject_actuator_zero_gear),
      cmocka_unit_test(test_reject_actuator_on_nonexistent_joint),
      cmocka_unit_test(test_reject_forcerange_reversed),
      cmocka_unit_test(test_reject_timestep_nonpositive),
      cmocka_unit_test(test_reject_timestep_nan),
      cmocka_unit_test(test_reject_gravity_nan),
      cmocka_unit_test(test_reject_with_small_or_no_buffer),
      cmocka_unit_test(test_point_mass_pendulum_compiles),
      cmocka_unit_test(test_ball_slide_actuator_compiles),
      cmocka_unit_test(test_name_lookup),
      cmocka_unit_test(test_names_are_copied),
      cmocka_unit_test(test_sizes_and_addresses),
      cmocka_unit_test(test_qpos0),
      cmocka_unit_test(test_off_diagonal_inertia),
      cmocka_unit_test(test_data_create_and_reset),
      cmocka_unit_test(test_two_data_independent),
      cmocka_unit_test(test_step_deterministic),
      cmocka_unit_test(test_nan_qvel_refused),
      cmocka_unit_test(test_no_joints_model_steps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
