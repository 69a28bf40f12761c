// The built-in Panda against examples/robots/panda.urdf, a URDF written from the same
// published numbers (robot_panda_params.c): the shipped file is exactly what this file's
// writer makes of the params (TF_UPDATE_URDF=1 rewrites it; run from the repository root),
// and the arm built from it has the built-in arm's frames at 20 random configurations (and the
// DH table's, 1e-9 m), its masses, inertias, limits, torque limits and TCP.
//
// The writer: each joint's origin is Craig's fixed part of link i, RotX(alpha_{i-1})
// TransX(a_{i-1}) TransZ(d_i), i.e. xyz (a, -sin(alpha) d, cos(alpha) d), rpy (alpha, 0, 0);
// the flange is a fixed link 0.107 m along link 7's z (the URDF's tcp link, where the hand
// goes). The collision shapes are the built-in capsules (robot_panda.c, copied below), each
// as a cylinder and two spheres: URDF has no capsule.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot_panda.h"
#include "test_rng.h"
#include "tf_math.h"
#include "tightfit.h"
#include "urdf.h"

#define PANDA_URDF "examples/robots/panda.urdf"

// robot_panda.c's link capsules (a, b, radius), links 0..7; radius 0 ends a link's list
static const double capsules[TF_PANDA_NJOINT + 1][2][7] = {
    {{0, 0, 0.06, 0, 0, 0.16, 0.075}, {-0.12, 0, 0.05, 0, 0, 0.05, 0.055}},
    {{0, 0, -0.19, 0, 0, 0, 0.06}},
    {{0, 0, -0.06, 0, 0, 0.06, 0.06}, {0, 0, 0, 0, -0.15, 0, 0.06}},
    {{0, 0, -0.16, 0, 0, -0.02, 0.06}, {0.0825, 0.04, 0, 0.0825, -0.04, 0, 0.055}},
    {{0, 0, -0.04, 0, 0, 0.04, 0.055}, {0, 0, 0, -0.0825, 0.12, 0, 0.055}},
    {{0, 0, -0.27, 0, 0, -0.02, 0.055}},
    {{0, 0, -0.05, 0, 0, 0.05, 0.05}, {0, 0, 0, 0.088, 0, 0, 0.045}},
    {{0, 0, -0.03, 0, 0, 0.07, 0.045}},
};

// fprintf for the URDF's numbers: each '@' in fmt takes the next double argument, written with
// the fewest digits that read back as the same double (@ would round-trip too, unreadably)
static void put(FILE* f, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  for (const char* c = fmt; *c; c++) {
    if (c[0] == '%' && c[1] == 'd') {
      fprintf(f, "%d", va_arg(ap, int));
      c++;
      continue;
    }
    if (*c != '@') {
      fputc(*c, f);
      continue;
    }
    double x = va_arg(ap, double);
    char buf[40];
    for (int digits = 1; digits <= 17; digits++) {
      snprintf(buf, sizeof(buf), "%.*g", digits, x);
      if (strtod(buf, NULL) == x) break;
    }
    fputs(buf, f);
  }
  va_end(ap);
}

static void write_sphere(FILE* f, const double* c, double r) {
  put(f,
      "    <collision>\n      <origin xyz=\"@ @ @\"/>\n"
      "      <geometry><sphere radius=\"@\"/></geometry>\n    </collision>\n",
      c[0], c[1], c[2], r);
}

static void write_capsule(FILE* f, const double* cap) {
  const double *a = cap, *b = cap + 3;
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  // rpy turning z onto u: roll 0, pitch acos(u_z), yaw atan2(u_y, u_x)
  double pitch = acos(u[2] / len), yaw = atan2(u[1], u[0]);
  put(f,
      "    <collision>\n      <origin xyz=\"@ @ @\" rpy=\"0 @ @\"/>\n"
      "      <geometry><cylinder radius=\"@\" length=\"@\"/></geometry>\n"
      "    </collision>\n",
      0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2]), pitch, yaw, cap[6], len);
  write_sphere(f, a, cap[6]);
  write_sphere(f, b, cap[6]);
}

static void write_link(FILE* f, const tf_panda_params* p, int i) {
  put(f, "  <link name=\"panda_link%d\">\n", i);
  const double* c = p->link_com[i];
  const double* in = p->link_inertia[i];  // ixx iyy izz ixy ixz iyz
  put(f,
      "    <inertial>\n      <origin xyz=\"@ @ @\"/>\n"
      "      <mass value=\"@\"/>\n"
      "      <inertia ixx=\"@\" ixy=\"@\" ixz=\"@\" iyy=\"@\" iyz=\"@\" "
      "izz=\"@\"/>\n    </inertial>\n",
      c[0], c[1], c[2], p->link_mass[i], in[0], in[3], in[4], in[1], in[5], in[2]);
  for (int k = 0; k < 2 && capsules[i][k][6] > 0; k++) write_capsule(f, capsules[i][k]);
  put(f, "  </link>\n");
}

// the URDF of the params into f
static void write_panda_urdf(FILE* f) {
  const tf_panda_params* p = tf_panda_params_get();
  put(f,
      "<?xml version=\"1.0\"?>\n"
      "<!-- The Franka Emika Panda from tightfit's built-in numbers (robot_panda_params.c):\n"
      "     Franka's modified-DH table, Gaz et al. 2019 inertials. Written by\n"
      "     tests/assets/test_urdf_panda.c (TF_UPDATE_URDF=1); do not edit by hand. -->\n"
      "<robot name=\"panda\">\n");
  for (int i = 0; i <= TF_PANDA_NJOINT; i++) write_link(f, p, i);
  put(f, "  <link name=\"panda_link8\"/>\n");
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    double ca = cos(p->dh_alpha[i]), sa = sin(p->dh_alpha[i]);
    put(f,
        "  <joint name=\"panda_joint%d\" type=\"revolute\">\n"
        "    <parent link=\"panda_link%d\"/>\n    <child link=\"panda_link%d\"/>\n"
        "    <origin xyz=\"@ @ @\" rpy=\"@ 0 0\"/>\n"
        "    <axis xyz=\"0 0 1\"/>\n"
        "    <limit lower=\"@\" upper=\"@\" effort=\"@\" velocity=\"@\"/>\n"
        "  </joint>\n",
        i + 1, i, i + 1, p->dh_a[i], -sa * p->dh_d[i], ca * p->dh_d[i], p->dh_alpha[i], p->q_min[i],
        p->q_max[i], p->tau_max[i], p->qd_max[i]);
  }
  put(f,
      "  <joint name=\"panda_joint8\" type=\"fixed\">\n"
      "    <parent link=\"panda_link7\"/>\n    <child link=\"panda_link8\"/>\n"
      "    <origin xyz=\"0 0 @\"/>\n  </joint>\n</robot>\n",
      p->flange_d);
}

static char* read_all(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)n + 1);
  size_t got = s ? fread(s, 1, (size_t)n, f) : 0;
  fclose(f);
  if (!s) return NULL;
  s[got] = 0;
  return s;
}

static void test_shipped_file_is_the_params(void** state) {
  (void)state;
  char* text = NULL;
  size_t len = 0;
  FILE* mem = open_memstream(&text, &len);
  assert_non_null(mem);
  write_panda_urdf(mem);
  fclose(mem);
  const char* update = getenv("TF_UPDATE_URDF");
  if (update && strcmp(update, "1") == 0) {
    FILE* f = fopen(PANDA_URDF, "wb");
    assert_non_null(f);
    fwrite(text, 1, len, f);
    fclose(f);
    printf("wrote %s\n", PANDA_URDF);
  }
  char* shipped = read_all(PANDA_URDF);
  if (!shipped) fail_msg("cannot read %s (run from the repository root)", PANDA_URDF);
  if (strcmp(shipped, text) != 0) {
    fail_msg("%s differs from the params (TF_UPDATE_URDF=1 rewrites it)", PANDA_URDF);
  }
  free(shipped);
  free(text);
}

// the built-in arm and the URDF's, same def, each alone in a model
static tf_model* build(const tf_panda_def* def, const tf_urdf* u, tf_panda* ids) {
  tf_builder* b = tf_builder_create();
  char err[512] = "";
  int rc = u ? tf_urdf_add(b, u, def, ids, err, sizeof(err))
             : tf_panda_add(b, def, ids, err, sizeof(err));
  if (rc) fail_msg("%s", err);
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) fail_msg("compile: %s", err);
  return m;
}

static tf_urdf* load_panda(void) {
  tf_urdf* u = NULL;
  char err[512] = "";
  if (tf_urdf_load(PANDA_URDF, NULL, &u, err, sizeof(err))) fail_msg("%s", err);
  return u;
}

static void set_q(const tf_model* m, tf_data* d, const tf_panda* ids, const double* q) {
  for (int i = 0; i < TF_PANDA_NJOINT; i++) d->qpos[m->jnt_qposadr[ids->joint[i]]] = q[i];
  tf_kinematics(m, d);
}

static double gap(const double* a, const double* b, int n) {
  double worst = 0;
  for (int k = 0; k < n; k++) worst = fmax(worst, fabs(a[k] - b[k]));
  return worst;
}

static void test_frames_match_the_dh_table(void** state) {
  (void)state;
  tf_urdf* u = load_panda();
  assert_string_equal(u->link[u->tcp].name, "panda_link8");
  tf_panda_def def = tf_panda_def_default();
  def.base_pos[0] = -0.5, def.base_pos[1] = 0.1, def.base_pos[2] = 0.2;
  def.base_quat[0] = cos(0.3), def.base_quat[3] = sin(0.3);
  tf_panda a, b;
  tf_model* ma = build(&def, NULL, &a);
  tf_model* mb = build(&def, u, &b);
  tf_data* da = tf_data_create(ma);
  tf_data* db = tf_data_create(mb);
  const tf_panda_params* p = tf_panda_params_get();
  test_rng rng = {20261207};
  double worst = 0, worst_dh = 0;
  for (int trial = 0; trial < 20; trial++) {
    double q[TF_PANDA_NJOINT], frames[TF_PANDA_NFRAME][16];
    for (int i = 0; i < TF_PANDA_NJOINT; i++) q[i] = rng_uniform(&rng, p->q_min[i], p->q_max[i]);
    set_q(ma, da, &a, q);
    set_q(mb, db, &b, q);
    for (int i = 0; i < TF_PANDA_NJOINT; i++) {
      worst = fmax(worst, gap(da->xpos + 3 * a.link[i], db->xpos + 3 * b.link[i], 3));
      worst = fmax(worst, gap(da->xmat + 9 * a.link[i], db->xmat + 9 * b.link[i], 9));
    }
    for (int f = 0; f < 2; f++) {
      worst = fmax(worst, gap(da->xpos + 3 * a.finger[f], db->xpos + 3 * b.finger[f], 3));
    }
    worst = fmax(worst, gap(da->xpos + 3 * a.hand, db->xpos + 3 * b.hand, 3));
    worst = fmax(worst, gap(da->xmat + 9 * a.hand, db->xmat + 9 * b.hand, 9));
    // the file's own kinematics (no engine) against the DH table's flange, base frame
    tf_panda_dh_fk(frames, q);
    double pos[3], quat[4], r[9];
    tf_urdf_fk(u, q, pos, quat);
    tf_quat_to_mat(r, quat);
    const double* t = frames[TF_PANDA_NFRAME - 1];
    for (int i = 0; i < 3; i++) {
      worst_dh = fmax(worst_dh, fabs(pos[i] - t[4 * i + 3]));
      for (int j = 0; j < 3; j++) worst_dh = fmax(worst_dh, fabs(r[3 * i + j] - t[4 * i + j]));
    }
  }
  printf("built-in vs URDF frames: %.3g; URDF fk vs DH flange: %.3g\n", worst, worst_dh);
  assert_true(worst <= 1e-9);
  assert_true(worst_dh <= 1e-9);
  assert_int_equal(a.tcp_body == a.hand, b.tcp_body == b.hand);
  assert_true(gap(a.tcp_pos, b.tcp_pos, 3) == 0 && gap(a.tcp_quat, b.tcp_quat, 4) == 0);
  tf_data_destroy(da);
  tf_data_destroy(db);
  tf_model_destroy(ma);
  tf_model_destroy(mb);
  tf_urdf_free(u);
}

static void test_masses_inertias_limits(void** state) {
  (void)state;
  tf_urdf* u = load_panda();
  tf_panda_def def = tf_panda_def_default();
  tf_panda a, b;
  tf_model* ma = build(&def, NULL, &a);
  tf_model* mb = build(&def, u, &b);
  for (int i = -1; i < TF_PANDA_NJOINT; i++) {
    int ba = i < 0 ? a.base : a.link[i], bb = i < 0 ? b.base : b.link[i];
    assert_true(ma->body_mass[ba] == mb->body_mass[bb]);
    assert_true(gap(ma->body_ipos + 3 * ba, mb->body_ipos + 3 * bb, 3) == 0);
    assert_true(gap(ma->body_inertia + 3 * ba, mb->body_inertia + 3 * bb, 3) == 0);
    assert_true(gap(ma->body_iquat + 4 * ba, mb->body_iquat + 4 * bb, 4) == 0);
    assert_true(gap(ma->body_pos + 3 * ba, mb->body_pos + 3 * bb, 3) == 0);
    assert_true(gap(ma->body_quat + 4 * ba, mb->body_quat + 4 * bb, 4) == 0);
    if (i < 0) continue;
    int ja = a.joint[i], jb = b.joint[i];
    assert_int_equal(ma->jnt_limited[ja], mb->jnt_limited[jb]);
    assert_true(gap(ma->jnt_range + 2 * ja, mb->jnt_range + 2 * jb, 2) == 0);
    assert_true(gap(ma->jnt_axis + 3 * ja, mb->jnt_axis + 3 * jb, 3) == 0);
    assert_true(ma->dof_armature[ma->jnt_dofadr[ja]] == mb->dof_armature[mb->jnt_dofadr[jb]]);
    assert_true(ma->dof_damping[ma->jnt_dofadr[ja]] == mb->dof_damping[mb->jnt_dofadr[jb]]);
    assert_true(gap(ma->actuator_forcerange + 2 * a.actuator[i],
                    mb->actuator_forcerange + 2 * b.actuator[i], 2) == 0);
  }
  // the hand and fingers are the same code's
  assert_true(ma->body_mass[a.hand] == mb->body_mass[b.hand]);
  assert_true(gap(ma->body_pos + 3 * a.hand, mb->body_pos + 3 * b.hand, 3) == 0);
  assert_true(gap(ma->body_quat + 4 * a.hand, mb->body_quat + 4 * b.hand, 4) == 0);
  // every geom of the URDF's arm carries the arm's collision bits
  for (int g = b.geom_first; g < b.geom_first + b.geom_count; g++) {
    assert_int_equal(mb->geom_contype[g], TF_PANDA_CONTYPE_ARM);
  }
  tf_model_destroy(ma);
  tf_model_destroy(mb);
  tf_urdf_free(u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shipped_file_is_the_params),
      cmocka_unit_test(test_frames_match_the_dh_table),
      cmocka_unit_test(test_masses_inertias_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
