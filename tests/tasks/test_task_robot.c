// Robot mode's shared pieces (tasks/task_robot.c): the DH pose of the cell's TCP matches the
// engine's, the pose algebra inverts itself, the mover brings the TCP to a target with each of
// the four controllers (pd through its IK), the payload compensation carries a held weight,
// and a cell's start is drawn from the seed.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "task_robot.h"
#include "tf_math.h"

#define PAYLOAD_MASS 1.0  // kg

typedef struct cell_fixture {
  tf_model* m;
  tf_data* d;
  tf_robot r;
  tf_robot_cell cell;
  int box;  // a body welded to the hand (payload test), -1 if none
} cell_fixture;

// the cell at timestep 2 ms (al), start drawn from (seed, stream 0) when perturb > 0; with a
// payload, a 1 kg box welded to the hand 8 cm past the TCP
static void cell_init(cell_fixture* f, uint64_t seed, double perturb, int payload) {
  memset(f, 0, sizeof(*f));
  f->box = -1;
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = 0.002;
  tf_builder_set_option(b, &opt);
  f->cell = tf_robot_cell_default();
  f->cell.q_perturb = perturb;
  tf_rng rng;
  tf_rng_seed(&rng, seed, 0);
  char err[256] = "";
  int rc = tf_robot_cell_build(b, &f->cell, &rng, &f->r, err, sizeof(err));
  if (rc) print_message("cell: %s\n", err);
  assert_int_equal(rc, 0);
  if (payload) {
    double pos[3], quat[4], z[3];
    tf_robot_cell_tcp(&f->cell, f->r.q_start, pos, quat);
    tf_quat_rotate(z, quat, (const double[3]){0, 0, 1});
    tf_body_def box = tf_body_def_default();
    box.name = "payload";
    for (int k = 0; k < 3; k++) box.pos[k] = pos[k] + 0.08 * z[k];
    box.mass = PAYLOAD_MASS;
    box.inertia[0] = box.inertia[1] = box.inertia[2] = 1e-3;
    f->box = tf_builder_add_body(b, &box);
    tf_joint_def free_joint = tf_joint_def_default();
    free_joint.name = "payload_free";
    free_joint.body = f->box;
    free_joint.type = TF_JOINT_FREE;
    assert_true(tf_builder_add_joint(b, &free_joint) >= 0);
    tf_equality_def weld = tf_equality_def_default();
    weld.name = "payload_weld";
    weld.type = TF_EQ_WELD;
    weld.body1 = f->r.panda.hand;
    weld.body2 = f->box;
    assert_true(tf_builder_add_equality(b, &weld) >= 0);
  }
  f->m = tf_builder_compile(b, err, sizeof(err));
  if (!f->m) print_message("compile: %s\n", err);
  tf_builder_destroy(b);
  assert_non_null(f->m);
  f->d = tf_data_create(f->m);
  assert_non_null(f->d);
}

static void cell_start(cell_fixture* f, tf_robot_controller kind) {
  char err[256] = "";
  int rc = tf_robot_start(&f->r, f->m, f->d, kind, err, sizeof(err));
  if (rc) print_message("start: %s\n", err);
  assert_int_equal(rc, 0);
}

static void cell_free(cell_fixture* f) {
  tf_robot_free(&f->r);
  tf_data_destroy(f->d);
  tf_model_destroy(f->m);
}

static void cell_run(cell_fixture* f, double seconds) {
  long n = lround(seconds / f->m->opt.timestep);
  for (long i = 0; i < n; i++) {
    assert_int_equal(tf_robot_step(&f->r, f->m, f->d), 0);
    assert_int_equal(tf_step(f->m, f->d), 0);
  }
  tf_kinematics(f->m, f->d);
}

static double quat_angle(const double a[4], const double b[4]) {
  double dot = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  return 2 * acos(fmin(1.0, dot));
}

static double dist3(const double a[3], const double b[3]) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
              (a[2] - b[2]) * (a[2] - b[2]));
}

// the DH pose of the TCP at the drawn start is the engine's, and the start is within its bound
static void test_cell_tcp_matches_engine(void** state) {
  (void)state;
  for (uint64_t seed = 0; seed < 5; seed++) {
    cell_fixture f;
    cell_init(&f, seed, 0.05, 0);
    cell_start(&f, TF_ROBOT_OSC);
    double dh_pos[3], dh_quat[4], pos[3], quat[4];
    tf_robot_cell_tcp(&f.cell, f.r.q_start, dh_pos, dh_quat);
    tf_robot_tcp(&f.r, f.m, f.d, pos, quat);
    assert_true(dist3(pos, dh_pos) < 1e-9);
    assert_true(quat_angle(quat, dh_quat) < 1e-7);
    double moved = 0;
    for (int i = 0; i < TF_PANDA_NJOINT; i++) {
      double dq = f.r.q_start[i] - f.cell.q_start[i];
      assert_true(fabs(dq) <= 0.05);
      moved += fabs(dq);
    }
    assert_true(moved > 0);  // the seed moved the start
    cell_free(&f);
  }
}

// relative then compose_inverse gives back the first pose; quat_between turns a onto b
static void test_pose_algebra(void** state) {
  (void)state;
  double a_pos[3] = {0.3, -0.2, 0.5}, b_pos[3] = {-0.1, 0.4, 0.05};
  double a_quat[4] = {0.9, 0.1, -0.3, 0.2}, b_quat[4] = {0.2, 0.7, 0.1, -0.4};
  for (int q = 0; q < 2; q++) {
    double* v = q ? b_quat : a_quat;
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    for (int k = 0; k < 4; k++) v[k] /= n;
  }
  double rel_pos[3], rel_quat[4], pos[3], quat[4];
  tf_robot_relative(rel_pos, rel_quat, a_pos, a_quat, b_pos, b_quat);
  tf_robot_compose_inverse(pos, quat, b_pos, b_quat, rel_pos, rel_quat);
  assert_true(dist3(pos, a_pos) < 1e-12);
  assert_true(quat_angle(quat, a_quat) < 1e-7);
  const double vecs[4][3] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0.6, 0, 0.8}};
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      double turn[4], out[3];
      tf_quat_between(turn, vecs[i], vecs[j]);
      tf_quat_rotate(out, turn, vecs[i]);
      assert_true(dist3(out, vecs[j]) < 1e-12);
    }
  }
}

// a 5 cm, 10 deg move in 0.6 s: each controller's TCP is within 1 mm and 1 deg of the target
// 1 s after the segment ends
static void test_mover_reaches_target(void** state) {
  (void)state;
  static const char* const names[TF_ROBOT_NCONTROLLER] = {"osc", "impedance", "ik", "pd"};
  for (int kind = 0; kind < TF_ROBOT_NCONTROLLER; kind++) {
    cell_fixture f;
    cell_init(&f, 0, 0, 0);
    cell_start(&f, (tf_robot_controller)kind);
    double pos[3], quat[4],
        turn[4] = {cos(0.5 * 10 * M_PI / 180), 0, 0, sin(0.5 * 10 * M_PI / 180)};
    tf_robot_tcp(&f.r, f.m, f.d, pos, quat);
    pos[0] += 0.04, pos[1] -= 0.03, pos[2] -= 0.01;
    tf_quat_mul(quat, turn, quat);
    tf_robot_move(&f.r, f.m, f.d, pos, quat, 0.6);
    cell_run(&f, 1.6);
    double now[3], now_quat[4];
    tf_robot_tcp(&f.r, f.m, f.d, now, now_quat);
    double e = dist3(now, pos), a = quat_angle(now_quat, quat) * 180 / M_PI;
    print_message("%-9s TCP error %.3f mm, %.3f deg, IK failures %d\n", names[kind], e * 1e3, a,
                  f.r.ik_failed);
    assert_true(e < 1e-3);
    assert_true(a < 1);
    assert_int_equal(f.r.ik_failed, 0);
    cell_free(&f);
  }
}

// a 1 kg weld-held box: impedance (1000 N/m) sags about m g / K without the payload's weight
// in the torques, and holds its pose within 0.5 mm with it
static void test_payload_compensation(void** state) {
  (void)state;
  double sag[2];
  for (int with = 0; with < 2; with++) {
    cell_fixture f;
    cell_init(&f, 0, 0, 1);
    cell_start(&f, TF_ROBOT_IMPEDANCE);
    if (with) tf_robot_payload(&f.r, f.box, PAYLOAD_MASS);
    double start[3], quat[4], now[3], now_quat[4];
    tf_robot_tcp(&f.r, f.m, f.d, start, quat);
    cell_run(&f, 2.0);
    tf_robot_tcp(&f.r, f.m, f.d, now, now_quat);
    sag[with] = start[2] - now[2];
    cell_free(&f);
  }
  print_message("TCP sag under a 1 kg payload: %.2f mm uncompensated, %.3f mm compensated\n",
                sag[0] * 1e3, sag[1] * 1e3);
  assert_true(sag[0] > 5e-3);
  assert_true(fabs(sag[1]) < 5e-4);
}

// the gripper command reaches both finger servos
static void test_grip(void** state) {
  (void)state;
  cell_fixture f;
  cell_init(&f, 0, 0, 0);
  cell_start(&f, TF_ROBOT_OSC);
  tf_robot_grip(&f.r, f.d, 0.03);
  for (int k = 0; k < 2; k++) assert_true(f.d->ctrl[f.r.panda.finger_actuator[k]] == 0.015);
  cell_run(&f, 0.5);
  for (int k = 0; k < 2; k++) {
    double q = f.d->qpos[f.m->jnt_qposadr[f.r.panda.finger_joint[k]]];
    assert_true(fabs(q - 0.015) < 1e-3);
  }
  cell_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cell_tcp_matches_engine),
      cmocka_unit_test(test_pose_algebra),
      cmocka_unit_test(test_mover_reaches_target),
      cmocka_unit_test(test_payload_compensation),
      cmocka_unit_test(test_grip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
