// The URDF loader (urdf.h) on small files written here into a scratch folder: the forward
// kinematics of a known 7-joint stick arm (by hand: 0.1 m links, a quarter turn of joint 2
// swings the rest onto +x), the same pose from the engine's model, a fixed link's mass merged
// into its parent body about their joint centre of mass, an inertial's rpy turning the
// tensor, continuous and prismatic joints, effort as the motors' clamp, a mesh collision
// found relative to the file and through package://; and bad files, each refused with one
// line naming the file, the element and the problem: malformed XML, a missing mesh, zero and
// negative mass, a zero-length axis, an unknown joint type, a joint whose parent link does not
// exist, a chain of 6 joints, a moving link without mass, a number that is not one.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tf_math.h"
#include "tightfit.h"
#include "urdf.h"
#include "test_folder.h"

#include <sys/stat.h>

// a 7-joint arm: base, links 1..7 each 0.1 m up its parent's z, joints about z, y, z, y, z,
// y, z; a massive "tool" fixed 0.05 m above link 7 (the tcp: the only leaf). Each @NAME@ is
// replaced by the variant's text for it (see write_arm), else by its default.
static const char* const arm_template =
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"stick\">\n"
    "  <link name=\"base\"><inertial><mass value=\"2\"/>"
    "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
    "    <collision><geometry><box size=\"0.2 0.2 0.1\"/></geometry></collision></link>\n"
    "  <link name=\"l1\"><inertial>@L1_INERTIAL@</inertial></link>\n"
    "  <link name=\"l2\"><inertial><mass value=\"1\"/>"
    "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
    "    <collision><origin xyz=\"0 0 0.05\"/>"
    "<geometry><cylinder radius=\"0.03\" length=\"0.1\"/></geometry></collision></link>\n"
    "  @L3@\n"
    "  <link name=\"l4\"><inertial><mass value=\"1\"/>"
    "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>"
    "@L4_COLLISION@</link>\n"
    "  <link name=\"l5\"><inertial><mass value=\"1\"/>"
    "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" "
    "iyz=\"0\"/></inertial></link>\n"
    "  <link name=\"l6\"><inertial><mass value=\"1\"/>"
    "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" "
    "iyz=\"0\"/></inertial></link>\n"
    "  <link name=\"l7\"><inertial><mass value=\"1\"/>"
    "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" "
    "iyz=\"0\"/></inertial></link>\n"
    "  <link name=\"tool\"><inertial><origin xyz=\"0 0 0.15\"/><mass value=\"1\"/>"
    "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" "
    "iyz=\"0\"/></inertial></link>\n"
    "  <joint name=\"j1\" type=\"@J1_TYPE@\"><parent link=\"base\"/><child link=\"l1\"/>"
    "<origin xyz=\"0 0 0.1\"/><axis xyz=\"0 0 1\"/>"
    "<limit lower=\"-2\" upper=\"2\" effort=\"50\" velocity=\"2\"/></joint>\n"
    "  <joint name=\"j2\" type=\"revolute\"><parent link=\"l1\"/><child link=\"l2\"/>"
    "<origin xyz=\"0 0 0.1\"/><axis xyz=\"0 1 0\"/>"
    "<limit lower=\"-2\" upper=\"2\" effort=\"50\" velocity=\"2\"/>"
    "<dynamics damping=\"0.5\" friction=\"0.25\"/></joint>\n"
    "  <joint name=\"j3\" type=\"@J3_TYPE@\"><parent link=\"@J3_PARENT@\"/><child link=\"l3\"/>"
    "<origin xyz=\"0 0 0.1\"/><axis xyz=\"@J3_AXIS@\"/>"
    "<limit lower=\"-2\" upper=\"2\" effort=\"50\" velocity=\"2\"/></joint>\n"
    "  <joint name=\"j4\" type=\"revolute\"><parent link=\"l3\"/><child link=\"l4\"/>"
    "<origin xyz=\"0 0 0.1\"/><axis xyz=\"0 1 0\"/>"
    "<limit lower=\"-2\" upper=\"2\" effort=\"50\" velocity=\"2\"/></joint>\n"
    "  <joint name=\"j5\" type=\"revolute\"><parent link=\"l4\"/><child link=\"l5\"/>"
    "<origin xyz=\"0 0 0.1\"/><axis xyz=\"0 0 1\"/>"
    "<limit lower=\"-2\" upper=\"2\" effort=\"10\" velocity=\"2\"/></joint>\n"
    "  <joint name=\"j6\" type=\"revolute\"><parent link=\"l5\"/><child link=\"l6\"/>"
    "<origin xyz=\"0 0 @J6_Z@\"/><axis xyz=\"0 1 0\"/>"
    "<limit lower=\"-2\" upper=\"2\" effort=\"10\" velocity=\"2\"/></joint>\n"
    "  <joint name=\"j7\" type=\"@J7_TYPE@\"><parent link=\"l6\"/><child link=\"l7\"/>"
    "<origin xyz=\"0 0 0.1\"/><axis xyz=\"0 0 1\"/>"
    "<limit lower=\"-0.05\" upper=\"0.05\" effort=\"10\" velocity=\"2\"/></joint>\n"
    "  <joint name=\"tool_mount\" type=\"fixed\"><parent link=\"l7\"/><child link=\"tool\"/>"
    "<origin xyz=\"0 0 0.05\"/></joint>\n"
    "@EXTRA@"
    "</robot>\n";

#define UNIT_INERTIAL                                                             \
  "<mass value=\"1\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" " \
  "ixz=\"0\" iyz=\"0\"/>"

static const char* const defaults[][2] = {
    {"@L1_INERTIAL@", UNIT_INERTIAL},
    {"@L3@", "<link name=\"l3\"><inertial>" UNIT_INERTIAL "</inertial></link>"},
    {"@L4_COLLISION@", ""},
    {"@J1_TYPE@", "revolute"},
    {"@J3_TYPE@", "revolute"},
    {"@J3_PARENT@", "l2"},
    {"@J3_AXIS@", "0 0 1"},
    {"@J6_Z@", "0.1"},
    {"@J7_TYPE@", "revolute"},
    {"@EXTRA@", ""},
};
#define NDEFAULT (int)(sizeof(defaults) / sizeof(defaults[0]))

// writes the template into dir/name with the given overrides ("@KEY@", "text", ..., NULL);
// the path into path
static void write_arm(char path[256], const char* dir, const char* name, ...) {
  const char* value[NDEFAULT];
  for (int k = 0; k < NDEFAULT; k++) value[k] = defaults[k][1];
  va_list ap;
  va_start(ap, name);
  for (const char* key; (key = va_arg(ap, const char*));) {
    const char* text = va_arg(ap, const char*);
    int found = 0;
    for (int k = 0; k < NDEFAULT; k++) {
      if (strcmp(defaults[k][0], key) == 0) value[k] = text, found = 1;
    }
    if (!found) fail_msg("the template has no key %s", key);
  }
  va_end(ap);
  snprintf(path, 256, "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  for (const char* c = arm_template; *c;) {
    int done = 0;
    for (int k = 0; k < NDEFAULT && !done; k++) {
      size_t n = strlen(defaults[k][0]);
      if (strncmp(c, defaults[k][0], n) == 0) {
        fputs(value[k], f);
        c += n;
        done = 1;
      }
    }
    if (!done) fputc(*c++, f);
  }
  fclose(f);
}

static void write_text(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int setup(void** state) {
  char* dir = malloc(64);
  test_make_folder(dir, "tf_urdf");
  *state = dir;
  return 0;
}

static int teardown(void** state) {
  test_remove_tree(*state);
  free(*state);
  return 0;
}

static tf_urdf* load_ok(const char* path) {
  tf_urdf* u = NULL;
  char err[512] = "";
  if (tf_urdf_load(path, NULL, &u, err, sizeof(err))) fail_msg("%s", err);
  return u;
}

// the arm alone (def's gripper as asked) compiled
static tf_model* build(const tf_urdf* u, int gripper, tf_panda* ids) {
  tf_panda_def def = tf_panda_def_default();
  def.gripper = gripper;
  for (int i = 0; i < TF_PANDA_NJOINT; i++) def.qpos0[i] = 0;
  tf_builder* b = tf_builder_create();
  char err[512] = "";
  if (tf_urdf_add(b, u, &def, ids, err, sizeof(err))) fail_msg("%s", err);
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) fail_msg("compile: %s", err);
  return m;
}

static void test_stick_arm_kinematics(void** state) {
  char path[256];
  write_arm(path, *state, "stick.urdf", NULL);
  tf_urdf* u = load_ok(path);
  assert_string_equal(u->name, "stick");
  assert_string_equal(u->link[u->root].name, "base");
  assert_string_equal(u->link[u->tcp].name, "tool");
  double q[TF_PANDA_NJOINT] = {0}, pos[3], quat[4];
  tf_urdf_fk(u, q, pos, quat);
  assert_true(fabs(pos[0]) < 1e-15 && fabs(pos[1]) < 1e-15 && fabs(pos[2] - 0.75) < 1e-15);
  // joint 2 (at 0.2 m) a quarter turn about y: the 0.55 m above it lies along +x
  q[1] = M_PI / 2;
  q[0] = 0.7;  // and joint 1 turns all of it about z
  tf_urdf_fk(u, q, pos, quat);
  double expect[3] = {0.55 * cos(0.7), 0.55 * sin(0.7), 0.2};
  for (int k = 0; k < 3; k++) assert_true(fabs(pos[k] - expect[k]) < 1e-12);
  // the engine's model of it (no gripper: the TCP is the tool's frame) agrees
  tf_panda ids;
  tf_model* m = build(u, 0, &ids);
  tf_data* d = tf_data_create(m);
  for (int i = 0; i < TF_PANDA_NJOINT; i++) d->qpos[m->jnt_qposadr[ids.joint[i]]] = q[i];
  tf_kinematics(m, d);
  double tcp[3], r[3];
  tf_quat_rotate(r, d->xquat + 4 * ids.tcp_body, ids.tcp_pos);
  for (int k = 0; k < 3; k++) tcp[k] = d->xpos[3 * ids.tcp_body + k] + r[k];
  for (int k = 0; k < 3; k++) assert_true(fabs(tcp[k] - expect[k]) < 1e-12);
  // damping, friction and effort from the file, armature from the def
  int j2 = ids.joint[1];
  assert_true(m->dof_damping[m->jnt_dofadr[j2]] == 0.5);
  assert_true(m->dof_frictionloss[m->jnt_dofadr[j2]] == 0.25);
  assert_true(m->dof_armature[m->jnt_dofadr[j2]] == 0.1);
  assert_true(m->actuator_forcerange[2 * ids.actuator[0] + 1] == 50);
  assert_true(m->actuator_forcerange[2 * ids.actuator[6]] == -10);
  assert_int_equal(ids.geom_count, 2);  // base box, l2 cylinder
  assert_int_equal(m->geom_type[ids.geom_first], TF_GEOM_BOX);
  assert_true(m->geom_size[3 * ids.geom_first + 2] == 0.05);  // half of size z
  assert_int_equal(m->geom_type[ids.geom_first + 1], TF_GEOM_CYLINDER);
  assert_true(m->geom_size[3 * (ids.geom_first + 1) + 1] == 0.05);  // half the length
  tf_data_destroy(d);
  tf_model_destroy(m);
  // with the gripper, the hand sits on the tool's frame
  m = build(u, 1, &ids);
  assert_int_equal(m->body_parentid[ids.hand], ids.link[6]);
  assert_true(fabs(m->body_pos[3 * ids.hand + 2] - 0.05) < 1e-15);
  assert_int_equal(ids.tcp_body, ids.hand);
  tf_model_destroy(m);
  tf_urdf_free(u);
}

static void test_fixed_link_merges_its_mass(void** state) {
  char path[256];
  write_arm(path, *state, "merge.urdf", NULL);
  tf_urdf* u = load_ok(path);
  tf_panda ids;
  tf_model* m = build(u, 0, &ids);
  // link 7 (1 kg at its origin) and the tool (1 kg at 0.05 + 0.15 m above it): 2 kg at 0.1 m,
  // each 0.01 kg m^2 plus 1 kg x (0.1 m)^2 about x and y
  int b7 = ids.link[6];
  assert_true(fabs(m->body_mass[b7] - 2) < 1e-15);
  assert_true(fabs(m->body_ipos[3 * b7 + 2] - 0.1) < 1e-15);
  double moments[3] = {m->body_inertia[3 * b7], m->body_inertia[3 * b7 + 1],
                       m->body_inertia[3 * b7 + 2]};
  int big = 0;
  for (int k = 0; k < 3; k++) {
    if (fabs(moments[k] - 0.04) < 1e-12)
      big++;
    else
      assert_true(fabs(moments[k] - 0.02) < 1e-12);
  }
  assert_int_equal(big, 2);
  tf_model_destroy(m);
  tf_urdf_free(u);
}

static void test_inertial_rpy_and_joint_types(void** state) {
  char path[256];
  write_arm(path, *state, "types.urdf", "@L1_INERTIAL@",
            "<origin rpy=\"0 0 1.5707963267948966\"/><mass value=\"1\"/>"
            "<inertia ixx=\"0.01\" iyy=\"0.03\" izz=\"0.02\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>",
            "@J1_TYPE@", "continuous", "@J7_TYPE@", "prismatic", NULL);
  tf_urdf* u = load_ok(path);
  // a quarter turn about z swaps ixx and iyy
  const tf_urdf_link* l1 = &u->link[u->joint[u->chain[0]].child];
  assert_true(fabs(l1->inertia[0] - 0.03) < 1e-15 && fabs(l1->inertia[1] - 0.01) < 1e-15);
  tf_panda ids;
  tf_model* m = build(u, 0, &ids);
  assert_int_equal(m->jnt_limited[ids.joint[0]], 0);
  assert_int_equal(m->jnt_type[ids.joint[6]], TF_JOINT_SLIDE);
  assert_true(m->jnt_range[2 * ids.joint[6] + 1] == 0.05);
  double lo[TF_PANDA_NJOINT], hi[TF_PANDA_NJOINT];
  tf_urdf_limits(u, lo, hi);
  assert_true(isinf(lo[0]) && lo[1] == -2 && hi[6] == 0.05);
  // a prismatic joint moves the tool along its axis
  double q[TF_PANDA_NJOINT] = {0, 0, 0, 0, 0, 0, 0.04}, pos[3], quat[4];
  tf_urdf_fk(u, q, pos, quat);
  assert_true(fabs(pos[2] - 0.79) < 1e-15);
  tf_model_destroy(m);
  tf_urdf_free(u);
}

// a unit cube, outward faces
static const char* const cube_obj =
    "v -0.02 -0.02 -0.02\nv 0.02 -0.02 -0.02\nv 0.02 0.02 -0.02\nv -0.02 0.02 -0.02\n"
    "v -0.02 -0.02 0.02\nv 0.02 -0.02 0.02\nv 0.02 0.02 0.02\nv -0.02 0.02 0.02\n"
    "f 1 4 3\nf 1 3 2\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\n"
    "f 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n";

static void test_mesh_collision(void** state) {
  const char* dir = *state;
  char obj[256], sub[256], path[256];
  snprintf(sub, sizeof(sub), "%s/meshes", dir);
  assert_int_equal(mkdir(sub, 0755), 0);
  snprintf(obj, sizeof(obj), "%s/meshes/cube.obj", dir);
  write_text(obj, cube_obj);
  write_arm(path, dir, "mesh.urdf", "@L4_COLLISION@",
            "<collision><geometry><mesh filename=\"meshes/cube.obj\" scale=\"2 2 2\"/></geometry>"
            "</collision><collision><geometry><mesh filename=\"package://stick/meshes/cube.obj\"/>"
            "</geometry></collision>",
            NULL);
  tf_urdf* u = load_ok(path);
  const tf_urdf_link* l4 = &u->link[u->joint[u->chain[3]].child];
  assert_int_equal(l4->ngeom, 2);
  assert_true(l4->geom[0].mesh.vert[0] == -0.04);  // scaled
  tf_panda ids;
  tf_model* m = build(u, 0, &ids);
  int meshes = 0;
  for (int g = ids.geom_first; g < ids.geom_first + ids.geom_count; g++) {
    meshes += m->geom_type[g] == TF_GEOM_MESH;
  }
  assert_int_equal(meshes, 2);
  tf_model_destroy(m);
  tf_urdf_free(u);
  char err[512] = "";
  assert_int_equal(tf_urdf_check(path, err, sizeof(err)), 0);
}

// the file is refused with one line naming it, the element and the problem
// a file's own gripper past the tcp: two prismatic fingers on the tool. Without a tcp the
// tree has two leaves and the loader asks for one; with FILE#l7 the arm ends at link 7 and the
// tool and its fingers are left out (the Franka Hand replaces them): no mass of theirs in link
// 7's body, and the arm builds with the hand
static void test_gripper_past_tcp(void** state) {
  char path[256], spec[300];
  write_arm(path, *state, "fingers.urdf", "@EXTRA@",
            "  <link name=\"finger_l\"><inertial>" UNIT_INERTIAL
            "</inertial></link>\n"
            "  <link name=\"finger_r\"><inertial>" UNIT_INERTIAL
            "</inertial></link>\n"
            "  <joint name=\"fl\" type=\"prismatic\"><parent link=\"tool\"/>"
            "<child link=\"finger_l\"/><axis xyz=\"0 1 0\"/>"
            "<limit lower=\"0\" upper=\"0.04\" effort=\"20\" velocity=\"0.2\"/></joint>\n"
            "  <joint name=\"fr\" type=\"prismatic\"><parent link=\"tool\"/>"
            "<child link=\"finger_r\"/><axis xyz=\"0 -1 0\"/>"
            "<limit lower=\"0\" upper=\"0.04\" effort=\"20\" velocity=\"0.2\"/></joint>\n",
            NULL);
  tf_urdf* u = NULL;
  char err[512] = "";
  assert_int_equal(tf_urdf_load_spec(path, &u, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "name the tcp link (FILE.urdf#LINK)"));
  snprintf(spec, sizeof(spec), "%s#nope", path);
  assert_int_equal(tf_urdf_load_spec(spec, &u, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "no link named 'nope'"));
  snprintf(spec, sizeof(spec), "%s#l7", path);
  if (tf_urdf_load_spec(spec, &u, err, sizeof(err))) fail_msg("%s", err);
  assert_string_equal(u->link[u->tcp].name, "l7");
  assert_int_equal(tf_urdf_check(spec, err, sizeof(err)), 0);
  tf_panda ids;
  tf_model* m = build(u, 1, &ids);
  // link 7's body holds link 7's own unit mass only: the 1 kg tool and the fingers are gone
  if (fabs(m->body_mass[ids.link[6]] - 1.0) > 1e-12)
    fail_msg("link 7 mass %g", m->body_mass[ids.link[6]]);
  assert_true(ids.hand >= 0);
  tf_model_destroy(m);
  tf_urdf_free(u);
}

static void expect_refused(const char* path, const char* element, const char* problem) {
  tf_urdf* u = NULL;
  char err[512] = "";
  int rc = tf_urdf_load(path, NULL, &u, err, sizeof(err));
  if (rc == 0) {
    // what only building finds (a moving link without mass)
    rc = tf_urdf_check(path, err, sizeof(err));
    tf_urdf_free(u);
  }
  assert_int_equal(rc, -1);
  print_message("%s\n", err);
  assert_non_null(strstr(err, path));
  assert_true(strncmp(err, path, strlen(path)) == 0);
  if (element) assert_non_null(strstr(err, element));
  assert_non_null(strstr(err, problem));
  assert_null(strchr(err, '\n'));
  // tf_urdf_check says the same
  char again[512] = "";
  assert_int_equal(tf_urdf_check(path, again, sizeof(again)), -1);
  assert_string_equal(err, again);
}

static void test_bad_files(void** state) {
  const char* dir = *state;
  char path[256];
  snprintf(path, sizeof(path), "%s/malformed.urdf", dir);
  write_text(path, "<robot name=\"x\"><link name=\"a\"></robot>");
  expect_refused(path, NULL, "malformed XML");

  write_arm(path, dir, "missing_mesh.urdf", "@L4_COLLISION@",
            "<collision><geometry><mesh filename=\"nowhere.stl\"/></geometry></collision>", NULL);
  expect_refused(path, "<mesh>", "does not exist");

  write_arm(
      path, dir, "zero_mass.urdf", "@L1_INERTIAL@",
      "<mass value=\"0\"/><inertia ixx=\"0\" iyy=\"0\" izz=\"0\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>",
      NULL);
  expect_refused(path, "<link name='l1'> <mass>", "mass must be > 0");

  write_arm(
      path, dir, "negative_mass.urdf", "@L1_INERTIAL@",
      "<mass value=\"-1\"/><inertia ixx=\"0\" iyy=\"0\" izz=\"0\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>",
      NULL);
  expect_refused(path, "<mass>", "mass must be > 0");

  write_arm(path, dir, "zero_axis.urdf", "@J3_AXIS@", "0 0 0", NULL);
  expect_refused(path, "<joint name='j3'> <axis>", "zero length");

  write_arm(path, dir, "ball.urdf", "@J3_TYPE@", "ball", NULL);
  expect_refused(path, "<joint name='j3'>", "joint type 'ball'");

  write_arm(path, dir, "no_parent.urdf", "@J3_PARENT@", "l2b", NULL);
  expect_refused(path, "<parent>", "no link named 'l2b'");

  write_arm(path, dir, "six.urdf", "@J7_TYPE@", "fixed", NULL);
  expect_refused(path, "<robot name='stick'>", "has 6 moving joints");

  write_arm(path, dir, "massless.urdf", "@L3@", "<link name=\"l3\"/>", NULL);
  expect_refused(path, "<link name='l3'>", "has no mass");

  write_arm(path, dir, "not_a_number.urdf", "@J6_Z@", "zero", NULL);
  expect_refused(path, "<joint name='j6'> <origin>", "xyz='0 0 zero' must be 3 finite numbers");

  snprintf(path, sizeof(path), "%s/absent.urdf", dir);
  expect_refused(path, NULL, "cannot open");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_stick_arm_kinematics, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fixed_link_merges_its_mass, setup, teardown),
      cmocka_unit_test_setup_teardown(test_inertial_rpy_and_joint_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mesh_collision, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gripper_past_tcp, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
