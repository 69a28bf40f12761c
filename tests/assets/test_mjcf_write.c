// Tests of the MJCF writer (assets/mjcf_write.c): every task scene (each rig, and the peg's robot
// mode with the Panda) written out and read back with the MJCF loader is the same model: the
// same bodies in the same tree with the same masses and principal inertias, the same joints
// (types, axes, limits, damping, armature, frictionloss), the same geoms (those written), the
// same actuators and options; names with XML's special characters survive.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf.h"
#include "task.h"
#include "test_folder.h"

// |a - b| within rel of scale (an absolute floor of rel * scale for values near zero)
static void assert_close(double a, double b, double rel, double scale, const char* what) {
  double tol = rel * fmax(fmax(fabs(a), fabs(b)), scale);
  if (!(fabs(a - b) <= tol)) fail_msg("%s: %.17g vs %.17g", what, a, b);
}

static int find_geom(const tf_model* m, const char* name) {
  for (int g = 0; g < m->ngeom; g++) {
    if (strcmp(m->names + m->geom_nameadr[g], name) == 0) return g;
  }
  return -1;
}

static void sort3(double v[3]) {
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2 - i; j++) {
      if (v[j] > v[j + 1]) {
        double t = v[j];
        v[j] = v[j + 1];
        v[j + 1] = t;
      }
    }
  }
}

// a's written content equals b (b read back from a's MJCF)
static void assert_same_model(const tf_model* a, const tf_model* b) {
  assert_int_equal(a->nbody, b->nbody);
  assert_int_equal(a->njnt, b->njnt);
  assert_int_equal(a->nu, b->nu);
  int ngeom = 0;
  for (int g = 0; g < a->ngeom; g++) ngeom += tf_mjcf_geom_exportable(a, g);
  assert_int_equal(ngeom, b->ngeom);
  assert_true(a->opt.timestep == b->opt.timestep);
  for (int i = 0; i < 3; i++) assert_true(a->opt.gravity[i] == b->opt.gravity[i]);

  for (int i = 1; i < a->nbody; i++) {
    const char* name = tf_body_name(a, i);
    int k = tf_name_to_body(b, name);
    if (k < 0) fail_msg("body '%s' missing", name);
    int pa = a->body_parentid[i], pb = b->body_parentid[k];
    assert_true((pa == 0) == (pb == 0));
    if (pa) assert_string_equal(tf_body_name(a, pa), tf_body_name(b, pb));
    assert_close(a->body_mass[i], b->body_mass[k], 1e-9, 0, name);
    double ia[3], ib[3];
    memcpy(ia, a->body_inertia + 3 * i, sizeof(ia));
    memcpy(ib, b->body_inertia + 3 * k, sizeof(ib));
    sort3(ia);
    sort3(ib);
    for (int c = 0; c < 3; c++) assert_close(ia[c], ib[c], 1e-9, ia[2], name);
    for (int c = 0; c < 3; c++) {
      assert_close(a->body_pos[3 * i + c], b->body_pos[3 * k + c], 1e-12, 1, name);
    }
  }
  for (int j = 0; j < a->njnt; j++) {
    const char* name = tf_joint_name(a, j);
    int k = tf_name_to_joint(b, name);
    if (k < 0) fail_msg("joint '%s' missing", name);
    assert_int_equal(a->jnt_type[j], b->jnt_type[k]);
    assert_string_equal(tf_body_name(a, a->jnt_bodyid[j]), tf_body_name(b, b->jnt_bodyid[k]));
    if (a->jnt_type[j] != TF_JOINT_FREE) {
      for (int c = 0; c < 3; c++) {
        assert_close(a->jnt_axis[3 * j + c], b->jnt_axis[3 * k + c], 1e-12, 1, name);
        assert_close(a->jnt_pos[3 * j + c], b->jnt_pos[3 * k + c], 1e-12, 1, name);
      }
    }
    assert_int_equal(a->jnt_limited[j], b->jnt_limited[k]);
    if (a->jnt_limited[j]) {
      for (int c = 0; c < 2; c++) {
        assert_close(a->jnt_range[2 * j + c], b->jnt_range[2 * k + c], 1e-12, 1, name);
      }
    }
    int da = a->jnt_dofadr[j], db = b->jnt_dofadr[k];
    assert_true(a->dof_damping[da] == b->dof_damping[db]);
    assert_true(a->dof_armature[da] == b->dof_armature[db]);
    assert_true(a->dof_frictionloss[da] == b->dof_frictionloss[db]);
  }
  for (int g = 0; g < a->ngeom; g++) {
    if (!tf_mjcf_geom_exportable(a, g)) continue;
    const char* name = a->names + a->geom_nameadr[g];
    int k = find_geom(b, name);
    if (k < 0) fail_msg("geom '%s' missing", name);
    int type = a->geom_type[g];
    // hulls and SDF parts are written as their meshes, one-primitive SDFs as the primitive
    assert_int_equal(tf_mjcf_geom_export_type(a, g), b->geom_type[k]);
    if (type != TF_GEOM_PLANE && type <= TF_GEOM_CYLINDER) {
      // the sizes the shape has (a sphere's radius, a capsule's radius and half-length ...)
      int nsize = type == TF_GEOM_SPHERE ? 1 : type == TF_GEOM_BOX ? 3 : 2;
      for (int c = 0; c < nsize; c++) {
        assert_true(a->geom_size[3 * g + c] == b->geom_size[3 * k + c]);
      }
      for (int c = 0; c < 3; c++) assert_true(a->geom_pos[3 * g + c] == b->geom_pos[3 * k + c]);
    }
    assert_true(a->geom_friction[2 * g] == b->geom_friction[2 * k]);
    assert_true(a->geom_friction[2 * g + 1] == b->geom_friction[2 * k + 1]);
    assert_int_equal(a->geom_contype[g], b->geom_contype[k]);
    assert_int_equal(a->geom_conaffinity[g], b->geom_conaffinity[k]);
    assert_int_equal(a->geom_condim[g], b->geom_condim[k]);
    assert_string_equal(tf_body_name(a, a->geom_bodyid[g]), tf_body_name(b, b->geom_bodyid[k]));
  }
  for (int u = 0; u < a->nu; u++) {
    const char* name = a->names + a->actuator_nameadr[u];
    int k = tf_name_to_actuator(b, name);
    if (k < 0) fail_msg("actuator '%s' missing", name);
    assert_int_equal(a->actuator_type[u], b->actuator_type[k]);
    assert_string_equal(tf_joint_name(a, a->actuator_jntid[u]),
                        tf_joint_name(b, b->actuator_jntid[k]));
    assert_true(a->actuator_gear[u] == b->actuator_gear[k]);
    assert_true(a->actuator_kp[u] == b->actuator_kp[k]);
    assert_true(a->actuator_kv[u] == b->actuator_kv[k]);
    assert_true(a->actuator_forcerange[2 * u] == b->actuator_forcerange[2 * k]);
    assert_true(a->actuator_forcerange[2 * u + 1] == b->actuator_forcerange[2 * k + 1]);
  }
}

// task in mode written out and read back
static void round_trip(const char* task, tf_task_mode mode) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = task;
  o.mode = mode;
  char err[1024];
  tf_env_run* run = tf_env_run_begin(&o, 0, err, sizeof(err));
  if (!run) fail_msg("%s: %s", task, err);
  const tf_env* env = tf_env_run_env(run);
  char dir[64], skipped[1024], path[256];
  test_make_folder(dir, "tf_mjcf_write");
  tf_mjcf_write_options wo = tf_mjcf_write_options_default();
  wo.qpos = env->data->qpos;
  wo.qvel = env->data->qvel;
  if (tf_mjcf_write(env->model, dir, &wo, skipped, sizeof(skipped), err, sizeof(err))) {
    fail_msg("%s: %s", task, err);
  }
  snprintf(path, sizeof(path), "%s/model.xml", dir);
  char unsup[512];
  tf_model* back = tf_mjcf_load(path, NULL, err, sizeof(err), unsup, sizeof(unsup));
  if (!back) fail_msg("%s: %s", task, err);
  // what the loader does not read is only what the engine has beyond MuJoCo's core
  assert_null(strstr(unsup, "attribute"));
  assert_null(strstr(unsup, "<body>"));
  assert_same_model(env->model, back);
  tf_model_destroy(back);
  tf_env_run_end(run);
  test_remove_tree(dir);
}

static void test_peg(void** state) {
  (void)state;
  round_trip("peg", TF_MODE_RIG);
}

static void test_boltnut(void** state) {
  (void)state;
  round_trip("boltnut", TF_MODE_RIG);
}

static void test_gears(void** state) {
  (void)state;
  round_trip("gears", TF_MODE_RIG);
}

static void test_connectors(void** state) {
  (void)state;
  round_trip("connectors", TF_MODE_RIG);
}

static void test_peg_robot(void** state) {
  (void)state;
  round_trip("peg", TF_MODE_ROBOT);
}

// a hand-built model: every primitive, a hull, a tree below a free body, limits, servos,
// names with XML's special characters, a weld, an exclude
static void test_primitives_and_names(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  tf_body_def bd = tf_body_def_default();
  bd.name = "base <&\"'>";
  bd.pos[2] = 0.5;
  bd.mass = 2;
  bd.inertia[0] = 0.02, bd.inertia[1] = 0.03, bd.inertia[2] = 0.04, bd.inertia[3] = 0.001;
  int base = tf_builder_add_body(b, &bd);
  // the slider before the arm: body and joint ids are then not MuJoCo's depth-first order
  bd.name = "slider";
  bd.parent = 0;
  bd.pos[0] = 1;
  int slider = tf_builder_add_body(b, &bd);
  bd.name = "arm";
  bd.parent = base;
  bd.pos[0] = 0.1, bd.pos[2] = 0.2;
  bd.quat[0] = cos(0.3), bd.quat[1] = sin(0.3), bd.quat[2] = 0, bd.quat[3] = 0;
  bd.com[0] = 0.01;
  int arm = tf_builder_add_body(b, &bd);
  tf_joint_def jd = tf_joint_def_default();
  jd.name = "free";
  jd.body = base;
  jd.type = TF_JOINT_FREE;
  assert_true(tf_builder_add_joint(b, &jd) >= 0);
  jd = tf_joint_def_default();
  jd.name = "rail";
  jd.body = slider;
  jd.type = TF_JOINT_SLIDE;
  jd.axis[0] = 1;
  jd.qpos0[0] = 0.125;
  int rail = tf_builder_add_joint(b, &jd);
  jd = tf_joint_def_default();
  jd.name = "elbow";
  jd.body = arm;
  jd.type = TF_JOINT_HINGE;
  jd.axis[0] = 0.6, jd.axis[1] = 0, jd.axis[2] = 0.8;
  jd.pos[1] = 0.05;
  jd.limited = 1, jd.range[0] = -1.2, jd.range[1] = 0.7;
  jd.qpos0[0] = 0.25;
  jd.damping = 0.3, jd.armature = 0.01, jd.frictionloss = 0.2;
  int elbow = tf_builder_add_joint(b, &jd);
  tf_geom_def gd = tf_geom_def_default();
  gd.name = "floor";
  gd.type = TF_GEOM_PLANE;
  assert_true(tf_builder_add_geom(b, &gd) >= 0);
  const tf_geom_type types[] = {TF_GEOM_SPHERE, TF_GEOM_CAPSULE, TF_GEOM_BOX, TF_GEOM_CYLINDER};
  const char* names[] = {"sphere", "capsule", "box", "cylinder"};
  for (int i = 0; i < 4; i++) {
    gd = tf_geom_def_default();
    gd.name = names[i];
    gd.body = i < 2 ? base : arm;
    gd.type = types[i];
    gd.size[0] = 0.05 + 0.01 * i, gd.size[1] = 0.07, gd.size[2] = 0.09;
    gd.pos[0] = 0.1 * i;
    gd.friction[0] = 0.3 + 0.1 * i;
    gd.contype = 2, gd.conaffinity = 3;
    assert_true(tf_builder_add_geom(b, &gd) >= 0);
  }
  const double cube[] = {-0.1, -0.1, -0.1, 0.1, -0.1, -0.1, -0.1, 0.1, -0.1, 0.1, 0.1, -0.1,
                         -0.1, -0.1, 0.1,  0.1, -0.1, 0.1,  -0.1, 0.1, 0.1,  0.1, 0.1, 0.1};
  gd = tf_geom_def_default();
  gd.name = "hull";
  gd.body = slider;
  gd.type = TF_GEOM_HULL;
  gd.hull = tf_builder_add_hull(b, "cube", cube, 8);
  assert_true(tf_builder_add_geom(b, &gd) >= 0);
  tf_actuator_def ad = tf_actuator_def_default();
  ad.name = "servo";
  ad.type = TF_ACT_POSITION;
  ad.joint = elbow;
  ad.kp = 40, ad.kv = 2;
  ad.forcerange[0] = -5, ad.forcerange[1] = 5;
  assert_true(tf_builder_add_actuator(b, &ad) >= 0);
  ad = tf_actuator_def_default();
  ad.name = "push";
  ad.type = TF_ACT_MOTOR;
  ad.joint = rail;
  ad.gear = 2;
  assert_true(tf_builder_add_actuator(b, &ad) >= 0);
  tf_equality_def ed = tf_equality_def_default();
  ed.name = "hold";
  ed.type = TF_EQ_WELD;
  ed.body1 = slider;
  ed.body2 = 0;
  assert_true(tf_builder_add_equality(b, &ed) >= 0);
  assert_true(tf_builder_exclude_pair(b, base, slider) >= 0);
  char err[512];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) fail_msg("%s", err);

  char dir[64], path[256], skipped[256], unsup[512];
  test_make_folder(dir, "tf_mjcf_write");
  tf_mjcf_write_options wo = tf_mjcf_write_options_default();
  wo.qpos = m->qpos0;
  assert_int_equal(tf_mjcf_write(m, dir, &wo, skipped, sizeof(skipped), err, sizeof(err)), 0);
  assert_string_equal(skipped, "");
  snprintf(path, sizeof(path), "%s/model.xml", dir);
  // the keyframe lists the joints as MuJoCo numbers them: depth first (base, arm, slider)
  char xml[16384];
  FILE* f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(xml, 1, sizeof(xml) - 1, f);
  fclose(f);
  xml[n] = 0;
  assert_non_null(strstr(xml, "<key name=\"initial\" qpos=\"0 0 0.5 1 0 0 0 0.25 0.125\"/>"));
  assert_non_null(strstr(xml, "name=\"base &lt;&amp;&quot;&apos;&gt;\""));
  tf_model* back = tf_mjcf_load(path, NULL, err, sizeof(err), unsup, sizeof(unsup));
  if (!back) fail_msg("%s", err);
  assert_same_model(m, back);
  tf_model_destroy(back);
  tf_model_destroy(m);
  test_remove_tree(dir);
}

// an unwritable destination is one message, and nothing is left behind
static void test_unwritable(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  tf_geom_def gd = tf_geom_def_default();
  gd.name = "floor";
  gd.type = TF_GEOM_PLANE;
  assert_true(tf_builder_add_geom(b, &gd) >= 0);
  char err[512];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  assert_non_null(m);
  char dir[64], path[256];
  test_make_folder(dir, "tf_mjcf_write");
  snprintf(path, sizeof(path), "%s/file", dir);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
  snprintf(path, sizeof(path), "%s/file/sub", dir);
  assert_int_equal(tf_mjcf_write(m, path, NULL, NULL, 0, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "file"));
  assert_int_equal(test_folder_entries(dir), 1);
  tf_model_destroy(m);
  test_remove_tree(dir);
}

// an MJCF model whose joints have a ref (MuJoCo's qpos0: the body is at its XML frame at
// q = ref) read, written and read again: the same engine model, and the keyframe holds the
// refs, so that MuJoCo loading the key starts where the first file did
static void test_ref_round_trip(void** state) {
  (void)state;
  const char* xml =
      "<mujoco>\n"
      "  <worldbody>\n"
      "    <body name='a' pos='0.1 0.2 0.3' euler='10 20 30'>\n"
      "      <joint name='h' axis='0 1 1' pos='0.1 0 0' ref='30' range='0 45'/>\n"
      "      <joint name='s' type='slide' axis='1 0 0' ref='0.25' range='0 0.5'/>\n"
      "      <geom type='box' size='0.1 0.05 0.02'/>\n"
      "      <body name='b' pos='0 0 0.2'>\n"
      "        <joint name='k' axis='1 0 0' ref='-0.5' springref='0.5' stiffness='3'/>\n"
      "        <geom type='sphere' size='0.05'/>\n"
      "      </body>\n"
      "    </body>\n"
      "  </worldbody>\n"
      "  <actuator><position name='p' joint='h' kp='5'/></actuator>\n"
      "</mujoco>\n";
  char err[512], dir[64], path[256], skipped[256];
  tf_model* m = tf_mjcf_parse(xml, strlen(xml), "ref.xml", NULL, NULL, err, sizeof(err), NULL, 0);
  if (!m) fail_msg("%s", err);
  test_make_folder(dir, "tf_mjcf_write");
  tf_mjcf_write_options wo = tf_mjcf_write_options_default();
  wo.qpos = m->qpos0;
  assert_int_equal(tf_mjcf_write(m, dir, &wo, skipped, sizeof(skipped), err, sizeof(err)), 0);
  snprintf(path, sizeof(path), "%s/model.xml", dir);
  tf_model* back = tf_mjcf_load(path, NULL, err, sizeof(err), NULL, 0);
  if (!back) fail_msg("%s", err);
  assert_same_model(m, back);
  for (int i = 0; i < 3; i++) assert_true(m->jnt_springref[i] == back->jnt_springref[i]);
  char text[8192];
  FILE* f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[n] = 0;
  // 30 deg, 0.25 m, -0.5 deg
  const char* key = strstr(text, "<key name=\"initial\" qpos=\"");
  assert_non_null(key);
  char* end;
  double q0 = strtod(key + strlen("<key name=\"initial\" qpos=\""), &end);
  assert_true(fabs(q0 - M_PI / 6) < 1e-15);
  if (strncmp(end, " 0.25 ", 6) != 0) fail_msg("key: %.80s", key);
  double q2 = strtod(end + 6, &end);
  assert_true(fabs(q2 + 0.5 * M_PI / 180) < 1e-15 && *end == '"');
  tf_model_destroy(back);
  tf_model_destroy(m);
  test_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_primitives_and_names),
      cmocka_unit_test(test_unwritable),
      cmocka_unit_test(test_ref_round_trip),
      cmocka_unit_test(test_peg),
      cmocka_unit_test(test_boltnut),
      cmocka_unit_test(test_gears),
      cmocka_unit_test(test_connectors),
      cmocka_unit_test(test_peg_robot),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
