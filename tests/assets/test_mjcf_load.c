// Tests of the MJCF loader (mjcf.h): small models written to a scratch folder and run with
// known answers (pendulum period, rest height, incline acceleration, a stack that stays, a
// lever's breakaway torque and limit, a 7-joint arm holding its servo targets), the size
// conversions and default classes, the list of ignored features, and every class of bad
// file refused with one line naming the file, the element and the problem.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mjcf.h"
#include "test_folder.h"
#include "tightfit.h"

// writes text to dir/name and returns the path in path
static void write_file(char path[256], const char* dir, const char* name, const char* text) {
  snprintf(path, 256, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  assert_int_equal(fputs(text, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
}

// loads xml written to a fresh folder; the model must compile
static tf_model* load_text(const char* xml, char* ignored, size_t len) {
  char dir[64], path[256], err[512];
  test_make_folder(dir, "tf_mjcf");
  write_file(path, dir, "model.xml", xml);
  tf_model* m = tf_mjcf_load(path, NULL, err, sizeof(err), ignored, len);
  if (!m) fail_msg("%s", err);
  test_remove_tree(dir);
  return m;
}

// steps n times; every step must succeed
static void step_n(const tf_model* m, tf_data* d, long n) {
  for (long i = 0; i < n; i++) assert_int_equal(tf_step(m, d), 0);
}

static void test_pendulum_period(void** state) {
  (void)state;
  // a 1 kg sphere of 5 mm radius 1 m below a hinge about y, from 0.05 rad
  const char* xml =
      "<mujoco model='pendulum'>\n"
      "  <compiler angle='radian'/>\n"
      "  <option timestep='0.0005' gravity='0 0 -9.81'/>\n"
      "  <worldbody>\n"
      "    <body name='arm' pos='0 0 2'>\n"
      "      <joint name='pivot' type='hinge' axis='0 1 0' ref='0.05'/>\n"
      "      <geom type='sphere' size='0.005' pos='0 0 -1' mass='1' contype='0'/>\n"
      "    </body>\n"
      "  </worldbody>\n"
      "</mujoco>\n";
  tf_model* m = load_text(xml, NULL, 0);
  assert_int_equal(m->nbody, 2);
  assert_int_equal(m->nv, 1);
  assert_true(fabs(m->body_mass[1] - 1) < 1e-12);
  tf_data* d = tf_data_create(m);
  assert_true(fabs(d->qpos[0] - 0.05) < 1e-12);
  double first = NAN, last = NAN, prev = d->qpos[0], tprev = 0;
  int crossings = 0;
  while (d->time < 6) {
    assert_int_equal(tf_step(m, d), 0);
    double q = d->qpos[0];
    if ((prev > 0 && q <= 0) || (prev < 0 && q >= 0)) {
      double t = tprev + (d->time - tprev) * prev / (prev - q);
      if (crossings == 0) first = t;
      last = t;
      crossings++;
    }
    prev = q;
    tprev = d->time;
  }
  assert_true(crossings >= 5);
  double period = 2 * (last - first) / (crossings - 1);
  double expected = 2 * M_PI * sqrt(1.0 / 9.81);
  assert_true(fabs(period - expected) / expected < 5e-3);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_box_rests_on_plane(void** state) {
  (void)state;
  const char* xml =
      "<mujoco>\n"
      "  <worldbody>\n"
      "    <geom type='plane' size='2 2 0.1'/>\n"
      "    <body name='box' pos='0 0 0.13'>\n"
      "      <freejoint/>\n"
      "      <geom type='box' size='0.1 0.1 0.1'/>\n"
      "    </body>\n"
      "  </worldbody>\n"
      "</mujoco>\n";
  tf_model* m = load_text(xml, NULL, 0);
  // density 1000 times the 0.2 m cube
  assert_true(fabs(m->body_mass[1] - 8.0) < 1e-9);
  assert_true(fabs(m->geom_size[3 * 1 + 0] - 0.1) < 1e-15);
  tf_data* d = tf_data_create(m);
  step_n(m, d, (long)llround(1.0 / m->opt.timestep));
  assert_true(fabs(d->qpos[2] - 0.1) < 1e-5);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_box_slides_down_incline(void** state) {
  (void)state;
  // a plane tilted 30 deg about y; the box sits on it, tilted the same, 0.5 m up the slope.
  // Downhill is +x of the plane's frame: (cos 30, 0, -sin 30)
  double s = 0.5, c30 = cos(M_PI / 6), s30 = 0.5, h = 0.05;
  double pos[3] = {-s * c30 + h * s30, 0, s * s30 + h * c30};
  char xml[1024];
  snprintf(xml, sizeof(xml),
           "<mujoco>\n"
           "  <option timestep='0.001'/>\n"
           "  <default><geom friction='0.3'/></default>\n"
           "  <worldbody>\n"
           "    <geom type='plane' size='3 3 0.1' euler='0 30 0'/>\n"
           "    <body name='box' pos='%.17g %.17g %.17g' euler='0 30 0'>\n"
           "      <freejoint/>\n"
           "      <geom type='box' size='0.05 0.05 0.05'/>\n"
           "    </body>\n"
           "  </worldbody>\n"
           "</mujoco>\n",
           pos[0], pos[1], pos[2]);
  tf_model* m = load_text(xml, NULL, 0);
  tf_data* d = tf_data_create(m);
  const double down[3] = {c30, 0, -s30};
  double v1 = 0, t1 = 0;
  while (d->time < 0.6) {
    assert_int_equal(tf_step(m, d), 0);
    if (fabs(d->time - 0.1) < 1e-9) {
      v1 = d->qvel[0] * down[0] + d->qvel[2] * down[2];
      t1 = d->time;
    }
  }
  double v2 = d->qvel[0] * down[0] + d->qvel[2] * down[2];
  double a = (v2 - v1) / (d->time - t1);
  double expected = 9.81 * (s30 - 0.3 * c30);
  assert_true(fabs(a - expected) / expected < 0.02);
  // and it stayed on the slope
  double n[3] = {s30, 0, c30};
  double height = d->qpos[0] * n[0] + d->qpos[2] * n[2];
  assert_true(fabs(height - h) < 1e-3);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_stack_of_three_stays(void** state) {
  (void)state;
  const char* xml =
      "<mujoco>\n"
      "  <option timestep='0.002'/>\n"
      "  <default><default class='crate'><geom type='box' size='0.05 0.05 0.05'/></default>"
      "</default>\n"
      "  <worldbody>\n"
      "    <geom type='plane' size='1 1 0.1'/>\n"
      "    <body name='b1' pos='0 0 0.05' childclass='crate'><freejoint/><geom/></body>\n"
      "    <body name='b2' pos='0 0 0.15' childclass='crate'><freejoint/><geom/></body>\n"
      "    <body name='b3' pos='0 0 0.25' childclass='crate'><freejoint/><geom/></body>\n"
      "  </worldbody>\n"
      "</mujoco>\n";
  tf_model* m = load_text(xml, NULL, 0);
  assert_int_equal(m->nbody, 4);
  assert_int_equal(m->geom_type[1], TF_GEOM_BOX);
  tf_data* d = tf_data_create(m);
  step_n(m, d, 1000);
  for (int i = 0; i < 3; i++) {
    const double* q = d->qpos + 7 * i;
    assert_true(fabs(q[0]) < 1e-3 && fabs(q[1]) < 1e-3);
    assert_true(fabs(q[2] - (0.05 + 0.1 * i)) < 1e-3);
  }
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_lever_breakaway_and_limit(void** state) {
  (void)state;
  // no gravity; a motor pushes a lever whose hinge has 1 N m of dry friction and a 30 deg
  // limit (degrees: MuJoCo's default angle unit)
  const char* xml =
      "<mujoco>\n"
      "  <option gravity='0 0 0' timestep='0.001'/>\n"
      "  <worldbody>\n"
      "    <body name='lever'>\n"
      "      <joint name='hinge' axis='0 1 0' range='-30 30' frictionloss='1' damping='0.5'/>\n"
      "      <geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.02' mass='1'/>\n"
      "    </body>\n"
      "  </worldbody>\n"
      "  <actuator><motor name='push' joint='hinge' gear='2'/></actuator>\n"
      "</mujoco>\n";
  tf_model* m = load_text(xml, NULL, 0);
  assert_int_equal(m->nu, 1);
  assert_int_equal(m->jnt_limited[0], 1);
  assert_true(fabs(m->jnt_range[1] - M_PI / 6) < 1e-12);
  assert_true(fabs(m->dof_frictionloss[0] - 1) < 1e-12);
  // fromto: a 0.25 m half-length capsule centred 0.25 m down
  assert_true(fabs(m->geom_size[1] - 0.25) < 1e-12);
  assert_true(fabs(m->geom_pos[2] + 0.25) < 1e-12);
  tf_data* d = tf_data_create(m);
  d->ctrl[0] = 0.45;  // 0.9 N m through the gear: below breakaway
  step_n(m, d, 500);
  assert_true(fabs(d->qpos[0]) < 1e-6);
  d->ctrl[0] = 1.0;  // 2 N m: moves, and stops at the limit
  double qmax = 0;
  for (int i = 0; i < 3000; i++) {
    assert_int_equal(tf_step(m, d), 0);
    qmax = fmax(qmax, d->qpos[0]);
  }
  assert_true(qmax < M_PI / 6 + 2e-3);
  assert_true(fabs(d->qpos[0] - M_PI / 6) < 2e-3);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_arm_holds_servo_targets(void** state) {
  (void)state;
  // seven capsule links with alternating z / y hinges under position servos, and a free box
  // on the floor; classes give the arm its joint and geom settings
  char xml[8192];
  int at = snprintf(xml, sizeof(xml),
                    "<mujoco model='arm7'>\n"
                    "  <compiler angle='radian'/>\n"
                    "  <option timestep='0.002'/>\n"
                    "  <default>\n"
                    "    <default class='arm'>\n"
                    "      <joint armature='0.05' damping='1' range='-2 2'/>\n"
                    "      <geom type='capsule' size='0.03' contype='0' conaffinity='0'/>\n"
                    "      <position kp='3000' kv='50'/>\n"
                    "      <default class='roll'><joint axis='0 0 1'/></default>\n"
                    "      <default class='pitch'><joint axis='0 1 0'/></default>\n"
                    "    </default>\n"
                    "  </default>\n"
                    "  <worldbody>\n"
                    "    <geom type='plane' size='2 2 0.1'/>\n"
                    "    <body name='cube' pos='0.6 0 0.05'><freejoint/>"
                    "<geom type='box' size='0.05 0.05 0.05'/></body>\n"
                    "    <body name='base' pos='0 0 0.1' childclass='arm'>\n");
  for (int i = 0; i < 7; i++) {
    at += snprintf(xml + at, sizeof(xml) - at,
                   "<body name='l%d' pos='0 0 %g'><joint name='j%d' class='%s'/>"
                   "<geom fromto='0 0 0 0 0 0.2'/>\n",
                   i, i ? 0.2 : 0.0, i, i % 2 ? "pitch" : "roll");
  }
  for (int i = 0; i < 7; i++) at += snprintf(xml + at, sizeof(xml) - at, "</body>");
  at += snprintf(xml + at, sizeof(xml) - at, "\n    </body>\n  </worldbody>\n  <actuator>\n");
  for (int i = 0; i < 7; i++) {
    at += snprintf(xml + at, sizeof(xml) - at, "    <position class='arm' joint='j%d'/>\n", i);
  }
  snprintf(xml + at, sizeof(xml) - at, "  </actuator>\n</mujoco>\n");
  tf_model* m = load_text(xml, NULL, 0);
  assert_int_equal(m->nu, 7);
  assert_int_equal(m->njnt, 8);
  assert_int_equal(m->nv, 13);
  assert_true(fabs(m->actuator_kp[0] - 3000) < 1e-12 && fabs(m->actuator_kv[0] - 50) < 1e-12);
  int j1 = tf_name_to_joint(m, "j1");
  assert_true(fabs(m->jnt_axis[3 * j1 + 1] - 1) < 1e-12);
  assert_true(fabs(m->dof_armature[m->jnt_dofadr[j1]] - 0.05) < 1e-12);
  assert_int_equal(m->geom_contype[m->ngeom - 1], 0);
  tf_data* d = tf_data_create(m);
  const double target[7] = {0.3, 0.4, -0.2, -0.5, 0.1, 0.3, -0.4};
  for (int i = 0; i < 7; i++) d->ctrl[i] = target[i];
  step_n(m, d, 1500);
  for (int i = 0; i < 7; i++) {
    int j = tf_name_to_joint(m, (char[8]){'j', (char)('0' + i), 0});
    double q = d->qpos[m->jnt_qposadr[j]];
    assert_true(fabs(q - target[i]) < 0.02);
    assert_true(fabs(d->qvel[m->jnt_dofadr[j]]) < 1e-2);
  }
  // the cube rests where it was
  assert_true(fabs(d->qpos[2] - 0.05) < 1e-4);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_mesh_geom_and_ignored_list(void** state) {
  (void)state;
  char dir[64], path[256], err[512], ignored[512];
  test_make_folder(dir, "tf_mjcf");
  // a closed 0.05 m cube around (0.5, 0.5, 0.5), scaled to 0.1 m around (1, 1, 1), mass from
  // the default density
  write_file(path, dir, "cube.obj",
             "v 0.475 0.475 0.475\nv 0.525 0.475 0.475\nv 0.525 0.525 0.475\n"
             "v 0.475 0.525 0.475\nv 0.475 0.475 0.525\nv 0.525 0.475 0.525\n"
             "v 0.525 0.525 0.525\nv 0.475 0.525 0.525\n"
             "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\n"
             "f 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n");
  write_file(path, dir, "model.xml",
             "<mujoco>\n"
             "  <compiler meshdir='.'/>\n"
             "  <asset><mesh file='cube.obj' scale='2 2 2'/><texture name='t'/></asset>\n"
             "  <worldbody>\n"
             "    <geom type='plane' size='1 1 0.1'/>\n"
             "    <body pos='0 0 0.2'><freejoint/><geom type='mesh' mesh='cube'/>"
             "<geom type='ellipsoid' size='0.1 0.1 0.1'/><site/></body>\n"
             "    <body pos='1 0 0.2'><freejoint/><geom type='ellipsoid' size='1 1 1'/>"
             "<geom type='sphere' size='0.05' group='2'/></body>\n"
             "  </worldbody>\n"
             "  <tendon/><sensor/><sensor/>\n"
             "</mujoco>\n");
  tf_model* m = tf_mjcf_load(path, NULL, err, sizeof(err), ignored, sizeof(ignored));
  if (!m) fail_msg("%s", err);
  assert_int_equal(m->nmesh, 1);
  assert_true(fabs(m->body_mass[1] - 1.0) < 1e-9);
  // the vertices move to the centroid and the geom frame with them: the cube stays put
  for (int i = 0; i < 3; i++) {
    assert_true(fabs(m->body_ipos[3 + i] - 1) < 1e-9);
    assert_true(fabs(m->geom_pos[3 + i] - 1) < 1e-9);
  }
  // a cube's inertia about its centre: m a^2 / 6
  assert_true(fabs(m->body_inertia[3] - 1.0 * 0.01 / 6) < 1e-9);
  // each ignored feature once, in order of appearance
  assert_string_equal(ignored,
                      "<asset> <texture>, geom type 'ellipsoid', <site>, geom attribute 'group', "
                      "<tendon>, <sensor>");
  tf_model_destroy(m);
  test_remove_tree(dir);
}

// a bad file: NULL, and one line naming the file and containing each of the fragments
static void expect_error(const char* name, const char* xml, const char* frag1, const char* frag2) {
  char dir[64], path[256], err[512];
  test_make_folder(dir, "tf_mjcf");
  write_file(path, dir, name, xml);
  tf_model* m = tf_mjcf_load(path, NULL, err, sizeof(err), NULL, 0);
  if (m) fail_msg("%s loaded", name);
  if (!strstr(err, path) || !strstr(err, frag1) || (frag2 && !strstr(err, frag2)) ||
      strchr(err, '\n')) {
    fail_msg("%s: unexpected message '%s'", name, err);
  }
  test_remove_tree(dir);
}

static void test_bad_files(void** state) {
  (void)state;
  expect_error("malformed.xml", "<mujoco><worldbody><body></worldbody></mujoco>", "malformed XML",
               ":1:");
  expect_error("missing_mesh.xml",
               "<mujoco><asset><mesh name='m' file='nowhere.stl'/></asset>\n"
               "<worldbody><body><freejoint/><geom type='mesh' mesh='m'/></body></worldbody>"
               "</mujoco>",
               "<mesh>", "nowhere.stl");
  expect_error("zero_mass.xml",
               "<mujoco><worldbody>\n<body name='ghost'><freejoint/></body>\n</worldbody>"
               "</mujoco>",
               ":2: <body>", "zero mass and a free joint");
  expect_error("zero_mass_geom.xml",
               "<mujoco><worldbody>\n<body name='ghost'><freejoint/>"
               "<geom size='0.1' mass='0'/></body>\n</worldbody></mujoco>",
               "<body>", "zero mass");
  expect_error("no_axis.xml",
               "<mujoco><worldbody><body>\n  <joint name='j' axis='0 0 0'/>"
               "<geom size='0.1'/></body></worldbody></mujoco>",
               ":2: <joint>", "axis is zero");
  expect_error("no_axis_slide.xml",
               "<mujoco><default><joint axis='0 0 0'/></default><worldbody><body>\n"
               "<joint type='slide'/><geom size='0.1'/></body></worldbody></mujoco>",
               "<joint>", "slide joint needs one");
  expect_error("actuator.xml",
               "<mujoco><worldbody><body><joint name='j'/><geom size='0.1'/></body></worldbody>\n"
               "<actuator><rocket joint='j'/></actuator></mujoco>",
               ":2: <rocket>", "unknown actuator type");
  expect_error("general.xml",
               "<mujoco><worldbody><body><joint name='j'/><geom size='0.1'/></body></worldbody>\n"
               "<actuator><general joint='j'/></actuator></mujoco>",
               "<general>", "not supported");
  expect_error("nan.xml",
               "<mujoco><worldbody>\n<body pos='0 nan 0'><geom size='0.1'/></body>"
               "</worldbody></mujoco>",
               ":2: <body>", "non-finite");
  expect_error("garbage.xml",
               "<mujoco><worldbody><body pos='0 x 0'><geom size='0.1'/></body>"
               "</worldbody></mujoco>",
               "<body>", "not a number");
  // a newline kept by a character reference still gives one line
  expect_error("newline.xml",
               "<mujoco><worldbody><body pos='0&#10;x 0'><geom size='0.1'/></body>"
               "</worldbody></mujoco>",
               "<body>", "not a number");
  expect_error("utf8.xml", "<mujoco model='\xff\xfe'><worldbody/></mujoco>", "malformed XML", NULL);
  expect_error("root.xml", "<robot/>", "<robot>", "<mujoco>");
  expect_error("empty.xml", "", "malformed XML", NULL);
  expect_error("no_joint.xml",
               "<mujoco><worldbody><body><joint name='j'/><geom size='0.1'/></body></worldbody>\n"
               "<actuator><motor joint='k'/></actuator></mujoco>",
               "<motor>", "no joint named 'k'");
  expect_error("class.xml",
               "<mujoco><worldbody><body><geom class='nope' size='0.1'/></body></worldbody>"
               "</mujoco>",
               "<geom>", "unknown default class 'nope'");

  char err[512];
  assert_null(tf_mjcf_load("/nonexistent/model.xml", NULL, err, sizeof(err), NULL, 0));
  assert_non_null(strstr(err, "/nonexistent/model.xml: cannot open"));

  // a file over the cap is refused from its size, before any read (a sparse file: no disk)
  char dir[64], path[256];
  test_make_folder(dir, "tf_mjcf");
  snprintf(path, sizeof(path), "%s/huge.xml", dir);
  int fd = open(path, O_CREAT | O_WRONLY, 0600);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (off_t)TF_MJCF_MAX_FILE_BYTES + 1), 0);
  close(fd);
  assert_null(tf_mjcf_load(path, NULL, err, sizeof(err), NULL, 0));
  assert_non_null(strstr(err, "larger than 64 MB"));
  test_remove_tree(dir);

  // an entity expansion bomb and an external entity: refused by the parser, nothing printed,
  // no file read
  const char* bomb =
      "<?xml version='1.0'?><!DOCTYPE m [<!ENTITY a 'aaaaaaaaaa'>"
      "<!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'><!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'>"
      "<!ENTITY d '&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;'><!ENTITY e '&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;'>"
      "<!ENTITY f '&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;'><!ENTITY g '&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;'>"
      "<!ENTITY h '&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;'><!ENTITY i '&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;'>"
      "]><mujoco model='&i;'><worldbody><body pos='&i;'/></worldbody></mujoco>";
  assert_null(tf_mjcf_parse(bomb, strlen(bomb), "bomb.xml", NULL, NULL, err, sizeof(err), NULL, 0));
  assert_non_null(strstr(err, "bomb.xml:1: malformed XML"));
  const char* xxe =
      "<?xml version='1.0'?><!DOCTYPE m [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
      "<mujoco><worldbody><body pos='&x;'><geom size='1'/></body></worldbody></mujoco>";
  assert_null(tf_mjcf_parse(xxe, strlen(xxe), "xxe.xml", NULL, NULL, err, sizeof(err), NULL, 0));
  assert_non_null(strstr(err, "external entity"));
}

static void test_options_override(void** state) {
  (void)state;
  const char* xml =
      "<mujoco><option timestep='0.004' gravity='0 0 -1.62' integrator='RK4'/>"
      "<worldbody><body><joint/><geom size='0.1'/></body></worldbody></mujoco>";
  char err[256];
  tf_model* m = tf_mjcf_parse(xml, strlen(xml), "opt.xml", NULL, NULL, err, sizeof(err), NULL, 0);
  assert_non_null(m);
  assert_true(m->opt.timestep == 0.004 && m->opt.gravity[2] == -1.62);
  assert_int_equal(m->opt.integrator, TF_INTEGRATOR_RK4);
  tf_model_destroy(m);
  tf_mjcf_options opt = tf_mjcf_options_default();
  opt.timestep = 1e-3;
  opt.solver = TF_SOLVER_PGS;
  opt.integrator = TF_INTEGRATOR_EULER;
  m = tf_mjcf_parse(xml, strlen(xml), "opt.xml", NULL, &opt, err, sizeof(err), NULL, 0);
  assert_non_null(m);
  assert_true(m->opt.timestep == 1e-3);
  assert_int_equal(m->opt.solver, TF_SOLVER_PGS);
  assert_int_equal(m->opt.integrator, TF_INTEGRATOR_EULER);
  tf_model_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pendulum_period),
      cmocka_unit_test(test_box_rests_on_plane),
      cmocka_unit_test(test_box_slides_down_incline),
      cmocka_unit_test(test_stack_of_three_stays),
      cmocka_unit_test(test_lever_breakaway_and_limit),
      cmocka_unit_test(test_arm_holds_servo_targets),
      cmocka_unit_test(test_mesh_geom_and_ignored_list),
      cmocka_unit_test(test_bad_files),
      cmocka_unit_test(test_options_override),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
