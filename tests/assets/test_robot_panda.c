// The Panda model: the engine's kinematics of the built arm against the analytic DH forward
// kinematics (20 random configurations, 1e-9 m), the published limits in the model, the
// continuous joint 7 and no-gripper options, the gripper's force-limited servos, the
// self-collision option, and bad definitions refused with a message.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "robot_panda.h"
#include "test_rng.h"
#include "tightfit.h"

// the arm alone; gravity 0 switches gravity off
static tf_model* build_g(const tf_panda_def* def, tf_panda* panda, int gravity) {
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  if (!gravity) opt.gravity[2] = 0;
  tf_builder_set_option(b, &opt);
  char err[256] = "";
  int rc = tf_panda_add(b, def, panda, err, sizeof(err));
  if (rc) print_message("panda: %s\n", err);
  assert_int_equal(rc, 0);
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  if (!m) print_message("compile: %s\n", err);
  tf_builder_destroy(b);
  assert_non_null(m);
  return m;
}

static tf_model* build(const tf_panda_def* def, tf_panda* panda) { return build_g(def, panda, 1); }

// a configuration drawn uniformly within the joint limits
static void random_q(test_rng* rng, double q[TF_PANDA_NJOINT]) {
  const tf_panda_params* p = tf_panda_params_get();
  for (int i = 0; i < TF_PANDA_NJOINT; i++) q[i] = rng_uniform(rng, p->q_min[i], p->q_max[i]);
}

// world pose of a DH frame given the base pose: R_base * T
static void to_world(double pos[3], double mat[9], const tf_panda_def* def, const double t[16]) {
  double rb[9];
  const double* q = def->base_quat;
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(rb, r, sizeof(r));
  for (int i = 0; i < 3; i++) {
    pos[i] = def->base_pos[i];
    for (int k = 0; k < 3; k++) pos[i] += rb[3 * i + k] * t[4 * k + 3];
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += rb[3 * i + k] * t[4 * k + j];
      mat[3 * i + j] = s;
    }
  }
}

static void check_fk(const tf_panda_def* def, uint64_t seed) {
  tf_panda panda;
  tf_model* m = build(def, &panda);
  tf_data* d = tf_data_create(m);
  test_rng rng = {seed};
  double worst_pos = 0, worst_rot = 0;
  for (int trial = 0; trial < 20; trial++) {
    double q[TF_PANDA_NJOINT], frames[TF_PANDA_NFRAME][16];
    random_q(&rng, q);
    for (int i = 0; i < TF_PANDA_NJOINT; i++) d->qpos[m->jnt_qposadr[panda.joint[i]]] = q[i];
    tf_kinematics(m, d);
    tf_panda_dh_fk(frames, q);
    // links 1..7 are DH frames 1..7; the hand's origin is the flange (frame 8), its axes the
    // flange's turned by the hand's yaw, so compare its position and z axis
    for (int f = 1; f < TF_PANDA_NFRAME; f++) {
      int body = f <= TF_PANDA_NJOINT ? panda.link[f - 1] : panda.hand;
      double pos[3], mat[9];
      to_world(pos, mat, def, frames[f]);
      for (int k = 0; k < 3; k++) {
        worst_pos = fmax(worst_pos, fabs(pos[k] - d->xpos[3 * body + k]));
      }
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
          if (f == TF_PANDA_NFRAME - 1 && c < 2) continue;
          worst_rot = fmax(worst_rot, fabs(mat[3 * r + c] - d->xmat[9 * body + 3 * r + c]));
        }
      }
    }
  }
  print_message("fk: worst position error %.3g m, rotation entry %.3g over 20 configurations\n",
                worst_pos, worst_rot);
  assert_true(worst_pos < 1e-9);
  assert_true(worst_rot < 1e-9);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_fk_matches_dh(void** state) {
  (void)state;
  tf_panda_def def = tf_panda_def_default();
  check_fk(&def, 7);
}

static void test_fk_matches_dh_moved_base(void** state) {
  (void)state;
  tf_panda_def def = tf_panda_def_default();
  def.base_pos[0] = 0.3, def.base_pos[1] = -0.2, def.base_pos[2] = 0.75;
  double half = 0.5 * 0.7;  // 0.7 rad about z
  def.base_quat[0] = cos(half), def.base_quat[3] = sin(half);
  check_fk(&def, 11);
}

// the zero pose's flange is where Franka's documentation puts it: (0.088, 0, 0.926)
static void test_zero_pose_flange(void** state) {
  (void)state;
  double q[TF_PANDA_NJOINT] = {0}, frames[TF_PANDA_NFRAME][16];
  tf_panda_dh_fk(frames, q);
  assert_true(fabs(frames[8][3] - 0.088) < 1e-12);
  assert_true(fabs(frames[8][7]) < 1e-12);
  assert_true(fabs(frames[8][11] - 0.926) < 1e-12);
  // the flange points down
  assert_true(fabs(frames[8][10] + 1) < 1e-12);
}

static void test_model_limits(void** state) {
  (void)state;
  const tf_panda_params* p = tf_panda_params_get();
  tf_panda_def def = tf_panda_def_default();
  tf_panda panda;
  tf_model* m = build(&def, &panda);
  assert_int_equal(m->nq, 9);
  assert_int_equal(m->nu, 9);
  double mass = 0;
  for (int b = 1; b < m->nbody; b++) mass += m->body_mass[b];
  double expected = p->hand_mass + 2 * p->finger_mass;
  for (int i = 0; i <= TF_PANDA_NJOINT; i++) expected += p->link_mass[i];
  assert_true(fabs(mass - expected) < 1e-12);
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    int j = panda.joint[i], a = panda.actuator[i];
    assert_int_equal(m->jnt_limited[j], 1);
    assert_true(m->jnt_range[2 * j] == p->q_min[i] && m->jnt_range[2 * j + 1] == p->q_max[i]);
    assert_int_equal(m->actuator_type[a], TF_ACT_MOTOR);
    assert_true(m->actuator_forcerange[2 * a + 1] == p->tau_max[i]);
    assert_true(m->actuator_forcerange[2 * a] == -p->tau_max[i]);
    assert_true(m->dof_armature[m->jnt_dofadr[j]] == 0.1);
  }
  for (int f = 0; f < 2; f++) {
    int a = panda.finger_actuator[f];
    assert_int_equal(m->actuator_type[a], TF_ACT_POSITION);
    assert_true(m->actuator_forcerange[2 * a + 1] == 70);
  }
  assert_int_equal(panda.tcp_body, panda.hand);
  assert_true(panda.tcp_pos[2] == 0.1034);
  assert_int_equal(tf_name_to_body(m, "panda_link7"), panda.link[6]);
  assert_int_equal(m->geom_bodyid[panda.geom_first], panda.base);
  assert_int_equal(panda.geom_first + panda.geom_count, m->ngeom);
  tf_model_destroy(m);
}

static void test_options(void** state) {
  (void)state;
  tf_panda_def def = tf_panda_def_default();
  def.continuous_joint7 = 1;
  def.gripper = 0;
  def.qpos0[6] = 7.0;  // beyond the limit: fine once the joint is continuous
  tf_panda panda;
  tf_model* m = build(&def, &panda);
  assert_int_equal(m->nq, 7);
  assert_int_equal(m->jnt_limited[panda.joint[6]], 0);
  assert_int_equal(m->jnt_limited[panda.joint[5]], 1);
  assert_int_equal(panda.hand, -1);
  assert_int_equal(panda.tcp_body, panda.link[6]);
  assert_true(panda.tcp_pos[2] == 0.107);
  // two arms side by side need their own prefixes
  tf_builder* b = tf_builder_create();
  tf_panda left, right;
  char err[256];
  tf_panda_def a = tf_panda_def_default(), c = tf_panda_def_default();
  a.prefix = "left_";
  c.prefix = "right_";
  c.base_pos[1] = 1;
  assert_int_equal(tf_panda_add(b, &a, &left, err, sizeof(err)), 0);
  assert_int_equal(tf_panda_add(b, &c, &right, err, sizeof(err)), 0);
  tf_model* two = tf_builder_compile(b, err, sizeof(err));
  assert_non_null(two);
  assert_int_equal(two->nq, 18);
  tf_model_destroy(two);
  tf_builder_destroy(b);
  tf_model_destroy(m);
}

// the fingers close onto each other and open again under their servos; the force clamp holds
static void test_gripper(void** state) {
  (void)state;
  tf_panda_def def = tf_panda_def_default();
  tf_panda panda;
  tf_model* m = build_g(&def, &panda, 0);  // no gravity: the arm stays put without torques
  tf_data* d = tf_data_create(m);
  tf_panda_set_gripper(&panda, d, -0.08);
  double peak = 0;
  for (int s = 0; s < 300; s++) {
    assert_int_equal(tf_step(m, d), 0);
    for (int f = 0; f < 2; f++)
      peak = fmax(peak, fabs(d->actuator_force[panda.finger_actuator[f]]));
  }
  for (int f = 0; f < 2; f++) assert_true(d->qpos[m->jnt_qposadr[panda.finger_joint[f]]] < 1e-4);
  assert_true(peak <= 70 + 1e-9);
  tf_panda_set_gripper(&panda, d, 0.06);
  for (int s = 0; s < 500; s++) assert_int_equal(tf_step(m, d), 0);
  for (int f = 0; f < 2; f++) {
    assert_true(fabs(d->qpos[m->jnt_qposadr[panda.finger_joint[f]]] - 0.03) < 1e-3);
  }
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// with self-collision on, the ready pose touches nothing; a table under the arm is touched by
// the fingers, not ignored
static void test_collision_bits(void** state) {
  (void)state;
  tf_panda_def def = tf_panda_def_default();
  def.self_collision = 1;
  tf_panda panda;
  tf_model* m = build_g(&def, &panda, 0);
  tf_data* d = tf_data_create(m);
  assert_int_equal(tf_step(m, d), 0);
  assert_int_equal(d->ncon, 0);
  tf_data_destroy(d);
  tf_model_destroy(m);

  // the TCP of the ready pose is at about z = 0.48; a box whose top is at 0.45 meets the pads
  def = tf_panda_def_default();
  tf_builder* b = tf_builder_create();
  char err[256];
  assert_int_equal(tf_panda_add(b, &def, &panda, err, sizeof(err)), 0);
  tf_geom_def table = tf_geom_def_default();
  table.name = "table";
  table.type = TF_GEOM_BOX;
  table.size[0] = table.size[1] = 0.2, table.size[2] = 0.05;
  table.pos[0] = 0.3, table.pos[2] = 0.40;
  tf_builder_add_geom(b, &table);
  m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  assert_non_null(m);
  d = tf_data_create(m);
  int touched = 0;
  for (int s = 0; s < 400 && !touched; s++) {
    assert_int_equal(tf_step(m, d), 0);  // gravity on, no torques: the arm falls onto it
    for (int c = 0; c < d->ncon; c++) {
      int g0 = d->contact[c].geom[0], g1 = d->contact[c].geom[1];
      int arm0 = g0 >= panda.geom_first && g0 < panda.geom_first + panda.geom_count;
      int arm1 = g1 >= panda.geom_first && g1 < panda.geom_first + panda.geom_count;
      assert_true(arm0 != arm1);  // never arm against arm
      touched = 1;
    }
  }
  assert_true(touched);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void expect_refused(const tf_panda_def* def, const char* needle) {
  tf_builder* b = tf_builder_create();
  tf_panda panda;
  char err[256] = "";
  assert_int_equal(tf_panda_add(b, def, &panda, err, sizeof(err)), -1);
  if (!strstr(err, needle)) print_message("message '%s' lacks '%s'\n", err, needle);
  assert_non_null(strstr(err, needle));
  tf_builder_destroy(b);
}

static void test_bad_def(void** state) {
  (void)state;
  tf_panda_def def = tf_panda_def_default();
  def.prefix = NULL;
  expect_refused(&def, "prefix");
  def = tf_panda_def_default();
  def.qpos0[3] = 0.5;  // joint 4 must stay negative
  expect_refused(&def, "qpos0[3]");
  def = tf_panda_def_default();
  def.finger_force = 0;
  expect_refused(&def, "finger_force");
  def = tf_panda_def_default();
  def.finger_opening = 0.05;
  expect_refused(&def, "finger_opening");
  def = tf_panda_def_default();
  def.armature[2] = -1;
  expect_refused(&def, "armature[2]");
  def = tf_panda_def_default();
  def.base_quat[0] = 0;
  expect_refused(&def, "base_quat");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fk_matches_dh),    cmocka_unit_test(test_fk_matches_dh_moved_base),
      cmocka_unit_test(test_zero_pose_flange), cmocka_unit_test(test_model_limits),
      cmocka_unit_test(test_options),          cmocka_unit_test(test_gripper),
      cmocka_unit_test(test_collision_bits),   cmocka_unit_test(test_bad_def),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
