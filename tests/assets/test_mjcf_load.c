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
#include <sys/stat.h>
#include <unistd.h>

#include "mjcf.h"
#include "test_folder.h"
#include "tf_math.h"
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
  // a 1 kg sphere of 5 mm radius 1 m below a hinge about y, drawn turned 0.05 rad at
  // q = ref = 0.05 (MuJoCo's meaning of ref): it hangs straight at q = 0 and starts 0.05 out
  const char* xml =
      "<mujoco model='pendulum'>\n"
      "  <compiler angle='radian'/>\n"
      "  <option timestep='0.0005' gravity='0 0 -9.81'/>\n"
      "  <worldbody>\n"
      "    <body name='arm' pos='0 0 2' euler='0 0.05 0'>\n"
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

// ---------------------------------------------------------------- joint ref (MuJoCo's qpos0)

typedef struct mj_joint {
  int slide;
  double pos[3], axis[3];  // body frame; axis normalised here
  double ref;
} mj_joint;

// MuJoCo's forward kinematics of one body (mj_kinematics): the XML frame (pos, quat) in the
// world, then each joint moving it by q - ref about / along its anchor and axis
static void mujoco_pose(const double xml_pos[3], const double xml_quat[4], const mj_joint* jn,
                        int n, const double* q, double pos[3], double quat[4]) {
  tf_vec3_copy(pos, xml_pos);
  memcpy(quat, xml_quat, 4 * sizeof(double));
  tf_quat_normalize(quat);
  for (int k = 0; k < n; k++) {
    double a[3], xaxis[3], xanchor[3];
    tf_vec3_copy(a, jn[k].axis);
    tf_vec3_normalize(a);
    tf_quat_rotate(xaxis, quat, a);
    tf_quat_rotate(xanchor, quat, jn[k].pos);
    tf_vec3_add(xanchor, xanchor, pos);
    if (jn[k].slide) {
      double step[3];
      tf_vec3_scale(step, xaxis, q[k] - jn[k].ref);
      tf_vec3_add(pos, pos, step);
    } else {
      double r[4], nq[4], v[3];
      tf_quat_from_axis_angle(r, a, q[k] - jn[k].ref);
      tf_quat_mul(nq, quat, r);
      tf_quat_normalize(nq);
      memcpy(quat, nq, sizeof(nq));
      tf_quat_rotate(v, quat, jn[k].pos);
      tf_vec3_sub(pos, xanchor, v);
    }
  }
}

// body b's world pose equals (pos, quat) within tol (a quaternion up to its sign)
static void assert_pose(const tf_data* d, int b, const double pos[3], const double quat[4],
                        double tol) {
  const double* xp = d->xpos + 3 * b;
  const double* xq = d->xquat + 4 * b;
  double dot = 0;
  for (int i = 0; i < 4; i++) dot += xq[i] * quat[i];
  for (int i = 0; i < 3; i++) {
    if (!(fabs(xp[i] - pos[i]) < tol)) {
      fail_msg("body %d pos[%d] %.17g, expected %.17g", b, i, xp[i], pos[i]);
    }
  }
  if (!(1 - fabs(dot) < tol)) {
    fail_msg("body %d quat %g %g %g %g, expected %g %g %g %g", b, xq[0], xq[1], xq[2], xq[3],
             quat[0], quat[1], quat[2], quat[3]);
  }
}

static void test_hinge_ref(void** state) {
  (void)state;
  // no gravity; a lever drawn at its XML pose (turned, offset, its hinge anchor off the body
  // origin) at q = ref = 30 deg, limited to 0 .. 45 deg; a position servo and a motor on it
  const char* xml =
      "<mujoco>\n"
      "  <option gravity='0 0 0' timestep='0.001'/>\n"
      "  <worldbody>\n"
      "    <body name='lever' pos='0.3 -0.2 1' euler='10 20 30'>\n"
      "      <joint name='h' axis='0 1 0' pos='0.1 0 0.05' ref='30' range='0 45'"
      " damping='2'/>\n"
      "      <geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.02' mass='1'/>\n"
      "    </body>\n"
      "  </worldbody>\n"
      "  <actuator><position name='servo' joint='h' kp='50' kv='5'/>"
      "<motor name='push' joint='h'/></actuator>\n"
      "</mujoco>\n";
  tf_model* m = load_text(xml, NULL, 0);
  double ref = M_PI / 6;
  // the joint's own numbers are MuJoCo's: q starts at ref, the range is 0 .. 45 deg
  assert_true(fabs(m->qpos0[0] - ref) < 1e-15);
  assert_true(fabs(m->jnt_range[0]) < 1e-15 && fabs(m->jnt_range[1] - M_PI / 4) < 1e-15);
  const double xml_pos[3] = {0.3, -0.2, 1};
  double xml_quat[4];
  {
    double rx[4], ry[4], rz[4], t[4];
    tf_quat_from_axis_angle(rx, (double[3]){1, 0, 0}, 10 * M_PI / 180);
    tf_quat_from_axis_angle(ry, (double[3]){0, 1, 0}, 20 * M_PI / 180);
    tf_quat_from_axis_angle(rz, (double[3]){0, 0, 1}, 30 * M_PI / 180);
    tf_quat_mul(t, rx, ry);
    tf_quat_mul(xml_quat, t, rz);
  }
  const mj_joint jn = {0, {0.1, 0, 0.05}, {0, 1, 0}, ref};
  tf_data* d = tf_data_create(m);
  assert_true(fabs(d->qpos[0] - ref) < 1e-15);
  tf_kinematics(m, d);
  // at the start (q = ref) the body is at its XML pose
  assert_pose(d, 1, xml_pos, xml_quat, 1e-12);
  // any q: MuJoCo's pose; the upper limit 45 deg is 15 deg past the XML pose, the lower one 30
  // deg before it
  const double qs[4] = {0, M_PI / 4, -0.3, 1.1};
  for (int i = 0; i < 4; i++) {
    double pos[3], quat[4];
    d->qpos[0] = qs[i];
    tf_kinematics(m, d);
    mujoco_pose(xml_pos, xml_quat, &jn, 1, &qs[i], pos, quat);
    assert_pose(d, 1, pos, quat, 1e-12);
  }
  tf_data_reset(m, d);
  // a servo told to hold ref holds the XML pose
  d->ctrl[0] = ref;
  step_n(m, d, 500);
  assert_true(fabs(d->qpos[0] - ref) < 1e-9);
  tf_kinematics(m, d);
  assert_pose(d, 1, xml_pos, xml_quat, 1e-9);
  // servo off, the motor pushes up: it stops at q = 45 deg, MuJoCo's limit
  m->actuator_kp[0] = 0;
  m->actuator_kv[0] = 0;
  d->ctrl[1] = 2;
  step_n(m, d, 2000);
  assert_true(fabs(d->qpos[0] - M_PI / 4) < 2e-3);
  {
    double pos[3], quat[4], q = M_PI / 4;
    mujoco_pose(xml_pos, xml_quat, &jn, 1, &q, pos, quat);
    tf_kinematics(m, d);
    assert_pose(d, 1, pos, quat, 5e-3);
  }
  // and down: it stops at q = 0, 30 deg before the XML pose
  d->ctrl[1] = -2;
  step_n(m, d, 3000);
  assert_true(fabs(d->qpos[0]) < 2e-3);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_slide_ref_and_springref(void** state) {
  (void)state;
  // a slide along an unnormalised axis with ref 0.2 m, range 0 .. 0.3 m: the body is at its XML
  // pose at q = 0.2, the upper limit 0.1 m further along the axis; a second body's hinge has a
  // spring whose rest position springref (deg) is q, as in MuJoCo
  const char* xml =
      "<mujoco>\n"
      "  <option gravity='0 0 0' timestep='0.001'/>\n"
      "  <worldbody>\n"
      "    <body name='slider' pos='1 2 3' euler='0 0 90'>\n"
      "      <joint name='s' type='slide' axis='3 4 0' ref='0.2' range='0 0.3' damping='20'/>\n"
      "      <geom type='box' size='0.05 0.05 0.05' mass='1'/>\n"
      "    </body>\n"
      "    <body name='spring' pos='0 0 1'>\n"
      "      <joint name='k' axis='1 0 0' ref='40' springref='10' stiffness='2' damping='1'/>\n"
      "      <geom type='sphere' size='0.02' pos='0 0.2 0' mass='1'/>\n"
      "    </body>\n"
      "  </worldbody>\n"
      "  <actuator><position joint='s' kp='200' kv='30'/><motor joint='s'/></actuator>\n"
      "</mujoco>\n";
  tf_model* m = load_text(xml, NULL, 0);
  assert_true(fabs(m->qpos0[0] - 0.2) < 1e-15);
  assert_true(fabs(m->jnt_range[1] - 0.3) < 1e-15);
  assert_true(fabs(m->qpos0[1] - 40 * M_PI / 180) < 1e-15);
  assert_true(fabs(m->jnt_springref[1] - 10 * M_PI / 180) < 1e-15);
  const double xml_pos[3] = {1, 2, 3};
  const double xml_quat[4] = {cos(M_PI / 4), 0, 0, sin(M_PI / 4)};
  const mj_joint jn = {1, {0, 0, 0}, {3, 4, 0}, 0.2};
  tf_data* d = tf_data_create(m);
  tf_kinematics(m, d);
  assert_pose(d, 1, xml_pos, xml_quat, 1e-12);
  const double qs[3] = {0, 0.3, -1};
  for (int i = 0; i < 3; i++) {
    double pos[3], quat[4];
    d->qpos[0] = qs[i];
    tf_kinematics(m, d);
    mujoco_pose(xml_pos, xml_quat, &jn, 1, &qs[i], pos, quat);
    assert_pose(d, 1, pos, quat, 1e-12);
  }
  // at q = 0.3 the body is 0.1 m along the axis (0.6, 0.8, 0) turned by the body's 90 deg
  d->qpos[0] = 0.3;
  tf_kinematics(m, d);
  assert_true(fabs(d->xpos[3] - (1 - 0.08)) < 1e-12 && fabs(d->xpos[4] - (2 + 0.06)) < 1e-12);
  tf_data_reset(m, d);
  d->ctrl[0] = 0.2;
  step_n(m, d, 300);
  assert_true(fabs(d->qpos[0] - 0.2) < 1e-9);
  m->actuator_kp[0] = 0;
  m->actuator_kv[0] = 0;
  d->ctrl[1] = 5;
  step_n(m, d, 2000);
  assert_true(fabs(d->qpos[0] - 0.3) < 2e-3);
  // the spring has pulled q from its start at ref (40 deg) to springref (10 deg)
  step_n(m, d, 6000);
  assert_true(fabs(d->qpos[1] - 10 * M_PI / 180) < 1e-3);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_several_joints_with_ref(void** state) {
  (void)state;
  // one body with two hinges and a slide, each with a ref and its own anchor, and a child
  // body: the engine's pose is MuJoCo's at every q, and the XML pose at q = ref
  const char* xml =
      "<mujoco>\n"
      "  <compiler angle='radian'/>\n"
      "  <worldbody>\n"
      "    <body name='a' pos='0.1 0.2 0.3' quat='0.9 0.1 -0.3 0.2'>\n"
      "      <joint name='h1' axis='0 0 1' pos='0.2 0 0' ref='0.4'/>\n"
      "      <joint name='s' type='slide' axis='1 0 1' ref='-0.15'/>\n"
      "      <joint name='h2' axis='1 1 0' pos='0 0.1 -0.2' ref='-0.7'/>\n"
      "      <geom type='sphere' size='0.05' pos='0.3 0 0'/>\n"
      "      <body name='b' pos='0 0.4 0' euler='0.3 0 0'>\n"
      "        <joint name='h3' axis='0 1 0' ref='1'/>\n"
      "        <geom type='sphere' size='0.05' pos='0 0 0.2'/>\n"
      "      </body>\n"
      "    </body>\n"
      "  </worldbody>\n"
      "</mujoco>\n";
  tf_model* m = load_text(xml, NULL, 0);
  assert_int_equal(m->nq, 4);
  const double xml_pos[3] = {0.1, 0.2, 0.3};
  double xml_quat[4] = {0.9, 0.1, -0.3, 0.2};
  tf_quat_normalize(xml_quat);
  const mj_joint jn[3] = {{0, {0.2, 0, 0}, {0, 0, 1}, 0.4},
                          {1, {0, 0, 0}, {1, 0, 1}, -0.15},
                          {0, {0, 0.1, -0.2}, {1, 1, 0}, -0.7}};
  const mj_joint jb = {0, {0, 0, 0}, {0, 1, 0}, 1};
  tf_data* d = tf_data_create(m);
  const double qs[3][4] = {{0.4, -0.15, -0.7, 1}, {0, 0, 0, 0}, {1.3, 0.25, 0.6, -0.5}};
  for (int i = 0; i < 3; i++) {
    memcpy(d->qpos, qs[i], sizeof(qs[i]));
    tf_kinematics(m, d);
    double pos[3], quat[4];
    mujoco_pose(xml_pos, xml_quat, jn, 3, qs[i], pos, quat);
    assert_pose(d, 1, pos, quat, 1e-12);
    // the child: its XML frame in a's frame, then its own joint
    double cpos[3], cquat[4], off[3], rx[4];
    tf_quat_rotate(off, quat, (double[3]){0, 0.4, 0});
    tf_vec3_add(off, off, pos);
    tf_quat_from_axis_angle(rx, (double[3]){1, 0, 0}, 0.3);
    double q0[4];
    tf_quat_mul(q0, quat, rx);
    mujoco_pose(off, q0, &jb, 1, &qs[i][3], cpos, cquat);
    assert_pose(d, 2, cpos, cquat, 1e-12);
  }
  // the initial state is the XML pose
  tf_data_reset(m, d);
  for (int i = 0; i < 4; i++) assert_true(fabs(d->qpos[i] - qs[0][i]) < 1e-15);
  tf_kinematics(m, d);
  assert_pose(d, 1, xml_pos, xml_quat, 1e-12);
  tf_data_destroy(d);
  tf_model_destroy(m);
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
  expect_error("ball_ref.xml",
               "<mujoco><worldbody><body>\n<joint name='b' type='ball'/>"
               "<joint name='h' ref='10'/><geom size='0.1'/></body></worldbody></mujoco>",
               ":2: <joint>", "joint 'b': a ball joint before a hinge with ref");
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

// ---------------------------------------------------------------- <include>

// the same model, to the bit: bodies, joints, geoms, actuators, options
static void assert_same(const tf_model* a, const tf_model* b) {
  assert_int_equal(a->nbody, b->nbody);
  assert_int_equal(a->njnt, b->njnt);
  assert_int_equal(a->ngeom, b->ngeom);
  assert_int_equal(a->nu, b->nu);
  assert_int_equal(a->nq, b->nq);
  assert_true(a->opt.timestep == b->opt.timestep);
  assert_memory_equal(a->opt.gravity, b->opt.gravity, sizeof(a->opt.gravity));
  assert_memory_equal(a->body_pos, b->body_pos, 3 * sizeof(double) * (size_t)a->nbody);
  assert_memory_equal(a->body_quat, b->body_quat, 4 * sizeof(double) * (size_t)a->nbody);
  assert_memory_equal(a->body_mass, b->body_mass, sizeof(double) * (size_t)a->nbody);
  assert_memory_equal(a->body_parentid, b->body_parentid, sizeof(int) * (size_t)a->nbody);
  assert_memory_equal(a->jnt_type, b->jnt_type, sizeof(a->jnt_type[0]) * (size_t)a->njnt);
  assert_memory_equal(a->jnt_axis, b->jnt_axis, 3 * sizeof(double) * (size_t)a->njnt);
  assert_memory_equal(a->jnt_range, b->jnt_range, 2 * sizeof(double) * (size_t)a->njnt);
  assert_memory_equal(a->qpos0, b->qpos0, sizeof(double) * (size_t)a->nq);
  assert_memory_equal(a->geom_size, b->geom_size, 3 * sizeof(double) * (size_t)a->ngeom);
  assert_memory_equal(a->geom_pos, b->geom_pos, 3 * sizeof(double) * (size_t)a->ngeom);
  assert_memory_equal(a->actuator_kp, b->actuator_kp, sizeof(double) * (size_t)a->nu);
  for (int i = 1; i < a->nbody; i++) assert_string_equal(tf_body_name(a, i), tf_body_name(b, i));
  for (int j = 0; j < a->njnt; j++) assert_string_equal(tf_joint_name(a, j), tf_joint_name(b, j));
}

static void test_include_same_model(void** state) {
  (void)state;
  const char* whole =
      "<mujoco model='split'>\n"
      "  <option timestep='0.001' gravity='0 0 -9'/>\n"
      "  <default><joint damping='0.5'/><default class='link'><geom type='capsule'"
      " size='0.03'/></default></default>\n"
      "  <worldbody>\n"
      "    <geom type='plane' size='1 1 0.1'/>\n"
      "    <body name='base' pos='0 0 0.1' childclass='link'>\n"
      "      <joint name='j0' axis='0 0 1' ref='20'/>\n"
      "      <geom fromto='0 0 0 0 0 0.2'/>\n"
      "      <body name='l1' pos='0 0 0.2'>\n"
      "        <joint name='j1' axis='0 1 0' range='-90 90'/>\n"
      "        <geom fromto='0 0 0 0.3 0 0'/>\n"
      "      </body>\n"
      "    </body>\n"
      "    <body name='box' pos='0.5 0 0.05'><freejoint/><geom type='box' size='0.05 0.05 0.05'/>"
      "</body>\n"
      "  </worldbody>\n"
      "  <actuator><position joint='j0' kp='10'/><position joint='j1' kp='20'/></actuator>\n"
      "</mujoco>\n";
  tf_model* a = load_text(whole, NULL, 0);
  // the same split over four files: top-level elements, a body subtree, and an include nested
  // in an included file (its path, too, is relative to the main model's folder)
  char dir[64], path[256], sub[128], err[512], ignored[256];
  test_make_folder(dir, "tf_mjcf");
  snprintf(sub, sizeof(sub), "%s/parts", dir);
  assert_int_equal(mkdir(sub, 0700), 0);
  write_file(path, dir, "parts/settings.xml",
             "<mujoco>\n  <option timestep='0.001' gravity='0 0 -9'/>\n"
             "  <default><joint damping='0.5'/><default class='link'><geom type='capsule'"
             " size='0.03'/></default></default>\n</mujoco>\n");
  write_file(path, dir, "parts/arm.xml",
             "<mujoco>\n"
             "    <body name='base' pos='0 0 0.1' childclass='link'>\n"
             "      <joint name='j0' axis='0 0 1' ref='20'/>\n"
             "      <geom fromto='0 0 0 0 0 0.2'/>\n"
             "      <include file='parts/link.xml'/>\n"
             "    </body>\n"
             "</mujoco>\n");
  write_file(path, dir, "parts/link.xml",
             "<?xml version='1.0'?>\n<!-- the second link -->\n<mujoco model='ignored'>\n"
             "      <body name='l1' pos='0 0 0.2'>\n"
             "        <joint name='j1' axis='0 1 0' range='-90 90'/>\n"
             "        <geom fromto='0 0 0 0.3 0 0'/>\n"
             "      </body>\n"
             "</mujoco>\n");
  write_file(path, dir, "main.xml",
             "<mujoco model='split'>\n"
             "  <include file='parts/settings.xml'/>\n"
             "  <worldbody>\n"
             "    <geom type='plane' size='1 1 0.1'/>\n"
             "    <include file='parts/arm.xml'/>\n"
             "    <body name='box' pos='0.5 0 0.05'><freejoint/>"
             "<geom type='box' size='0.05 0.05 0.05'/></body>\n"
             "  </worldbody>\n"
             "  <actuator><position joint='j0' kp='10'/><position joint='j1' kp='20'/>"
             "</actuator>\n"
             "</mujoco>\n");
  tf_model* b = tf_mjcf_load(path, NULL, err, sizeof(err), ignored, sizeof(ignored));
  if (!b) fail_msg("%s", err);
  assert_string_equal(ignored, "");
  assert_same(a, b);
  tf_model_destroy(b);
  // an error inside an included file names that file and its line
  write_file(path, dir, "parts/link.xml",
             "<mujoco>\n"
             "      <body name='l1' pos='0 0 0.2'>\n"
             "        <joint name='j1' axis='0 0 0'/>\n"
             "      </body>\n"
             "</mujoco>\n");
  snprintf(path, sizeof(path), "%s/main.xml", dir);
  assert_null(tf_mjcf_load(path, NULL, err, sizeof(err), NULL, 0));
  char expect[256];
  snprintf(expect, sizeof(expect), "%s/parts/link.xml:3: <joint>: joint 'j1': axis is zero", dir);
  if (!strstr(err, expect)) fail_msg("unexpected message '%s'", err);
  tf_model_destroy(a);
  test_remove_tree(sub);
  test_remove_tree(dir);
}

// main.xml and the other files (name, text pairs; NULL ends) in a fresh folder: refused, with
// one line holding every fragment (DIR in one stands for the folder)
static void expect_include_error(const char* const* files, const char* const* frags) {
  char dir[64], path[256], err[1024];
  test_make_folder(dir, "tf_mjcf");
  for (int i = 0; files[i]; i += 2) write_file(path, dir, files[i], files[i + 1]);
  snprintf(path, sizeof(path), "%s/main.xml", dir);
  tf_model* m = tf_mjcf_load(path, NULL, err, sizeof(err), NULL, 0);
  if (m) fail_msg("%s loaded", files[1]);
  if (strchr(err, '\n')) fail_msg("two lines: '%s'", err);
  for (int i = 0; frags[i]; i++) {
    char frag[512];
    size_t n = 0;
    for (const char* p = frags[i]; *p && n < sizeof(frag) - 70; p++) {
      if (strncmp(p, "DIR", 3) == 0) {
        n += (size_t)snprintf(frag + n, sizeof(frag) - n, "%s", dir);
        p += 2;
      } else {
        frag[n++] = *p;
      }
    }
    frag[n] = 0;
    if (!strstr(err, frag)) fail_msg("'%s' not in '%s'", frag, err);
  }
  test_remove_tree(dir);
}

static void test_include_errors(void** state) {
  (void)state;
  const char* body = "<mujoco><body><geom size='0.1'/></body></mujoco>";
  // a missing file
  expect_include_error(
      (const char* const[]){"main.xml",
                            "<mujoco>\n<worldbody>\n<include file='gone.xml'/>"
                            "</worldbody></mujoco>",
                            NULL},
      (const char* const[]){"DIR/main.xml:3: <include>: included file 'DIR/gone.xml': cannot open",
                            NULL});
  // no file=
  expect_include_error((const char* const[]){"main.xml", "<mujoco><include/></mujoco>", NULL},
                       (const char* const[]){"DIR/main.xml:1: <include>: needs file=", NULL});
  // malformed XML in the included file: both files and the included file's line
  expect_include_error(
      (const char* const[]){"main.xml", "<mujoco>\n<include file='bad.xml'/></mujoco>", "bad.xml",
                            "<mujoco>\n<body>\n</mujoco>", NULL},
      (const char* const[]){"DIR/main.xml:2: <include>: included file DIR/bad.xml:3: malformed XML",
                            NULL});
  // not a <mujoco> root
  expect_include_error(
      (const char* const[]){"main.xml",
                            "<mujoco><worldbody><include file='r.xml'/></worldbody>"
                            "</mujoco>",
                            "r.xml", "<robot><body/></robot>", NULL},
      (const char* const[]){"DIR/main.xml:1: <include>: included file 'DIR/r.xml'",
                            "root element is <robot>, not <mujoco>", NULL});
  // a file including itself; the main file included by its include; a cycle of two
  expect_include_error(
      (const char* const[]){"main.xml", "<mujoco><include file='a.xml'/></mujoco>", "a.xml",
                            "<mujoco>\n\n<include file='a.xml'/></mujoco>", NULL},
      (const char* const[]){"DIR/a.xml:3: <include>: 'DIR/a.xml' includes 'DIR/a.xml' again",
                            "cycle", NULL});
  expect_include_error(
      (const char* const[]){"main.xml", "<mujoco><include file='a.xml'/></mujoco>", "a.xml",
                            "<mujoco><include file='main.xml'/></mujoco>", NULL},
      (const char* const[]){"DIR/a.xml:1: <include>: 'DIR/a.xml' includes 'DIR/main.xml' again",
                            "cycle", NULL});
  expect_include_error(
      (const char* const[]){"main.xml", "<mujoco><include file='a.xml'/></mujoco>", "a.xml",
                            "<mujoco><include file='b.xml'/></mujoco>", "b.xml",
                            "<mujoco><include file='a.xml'/></mujoco>", NULL},
      (const char* const[]){"DIR/b.xml:1: <include>: 'DIR/b.xml' includes 'DIR/a.xml' again",
                            NULL});
  // the same file twice (MuJoCo includes a file at most once)
  expect_include_error(
      (const char* const[]){"main.xml",
                            "<mujoco><worldbody><include file='b.xml'/>\n<include file='b.xml'/>"
                            "</worldbody></mujoco>",
                            "b.xml", body, NULL},
      (const char* const[]){"DIR/main.xml:2: <include>: 'DIR/b.xml' is already included", NULL});
  // nested too deep: main -> f0 -> f1 -> ... -> f17
  const char* files[64];
  char names[20][24], texts[20][96];
  int k = 0;
  files[k++] = "main.xml";
  files[k++] = "<mujoco><worldbody><include file='f0.xml'/></worldbody></mujoco>";
  for (int i = 0; i < 18; i++) {
    snprintf(names[i], sizeof(names[i]), "f%d.xml", i);
    snprintf(texts[i], sizeof(texts[i]), "<mujoco><include file='f%d.xml'/></mujoco>", i + 1);
    files[k++] = names[i];
    files[k++] = i == 17 ? body : texts[i];
  }
  files[k] = NULL;
  expect_include_error(files, (const char* const[]){"DIR/f15.xml:1: <include>: 'DIR/f16.xml'",
                                                    "nested more than 16 deep", NULL});
  // 16 levels are fine
  snprintf(texts[15], sizeof(texts[15]), "%s", body);
  {
    char dir[64], path[256], err[512];
    test_make_folder(dir, "tf_mjcf");
    for (int i = 0; files[i]; i += 2) write_file(path, dir, files[i], files[i + 1]);
    snprintf(path, sizeof(path), "%s/main.xml", dir);
    tf_model* m = tf_mjcf_load(path, NULL, err, sizeof(err), NULL, 0);
    if (!m) fail_msg("%s", err);
    assert_int_equal(m->nbody, 2);
    tf_model_destroy(m);
    test_remove_tree(dir);
  }
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
      cmocka_unit_test(test_hinge_ref),
      cmocka_unit_test(test_slide_ref_and_springref),
      cmocka_unit_test(test_several_joints_with_ref),
      cmocka_unit_test(test_include_same_model),
      cmocka_unit_test(test_include_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
