// Shared fixture of the controller suites: the Panda with its gripper alone (no contacts
// needed), gravity on, the al solver, and helpers to run a controller for a while.
#ifndef TF_TEST_ARM_FIXTURE_H
#define TF_TEST_ARM_FIXTURE_H

#include <math.h>
#include <string.h>

#include "controller.h"
#include "robot_panda.h"
#include "test_rng.h"
#include "tightfit.h"

typedef struct arm_fixture {
  tf_model* m;
  tf_data* d;
  tf_panda panda;
  tf_arm arm;
} arm_fixture;

// builds the arm at timestep dt; extra (may be NULL) adds more to the builder before compile
static inline void arm_fixture_init(arm_fixture* f, double dt,
                                    void (*extra)(tf_builder* b, const tf_panda* panda)) {
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = dt;
  opt.solver = TF_SOLVER_AL;
  tf_builder_set_option(b, &opt);
  tf_panda_def def = tf_panda_def_default();
  char err[256] = "";
  int rc = tf_panda_add(b, &def, &f->panda, err, sizeof(err));
  if (rc) print_message("panda: %s\n", err);
  assert_int_equal(rc, 0);
  if (extra) extra(b, &f->panda);
  f->m = tf_builder_compile(b, err, sizeof(err));
  if (!f->m) print_message("compile: %s\n", err);
  tf_builder_destroy(b);
  assert_non_null(f->m);
  f->d = tf_data_create(f->m);
  assert_non_null(f->d);
  f->arm = tf_arm_from_panda(&f->panda);
}

static inline void arm_fixture_free(arm_fixture* f) {
  tf_data_destroy(f->d);
  tf_model_destroy(f->m);
}

static inline tf_controller* arm_controller(arm_fixture* f, const tf_controller_config* cfg) {
  char err[256] = "";
  tf_controller* c = tf_controller_create(f->m, &f->arm, cfg, err, sizeof(err));
  if (!c) print_message("controller: %s\n", err);
  assert_non_null(c);
  return c;
}

// sets the arm's joints to q (fingers untouched), zero velocity
static inline void arm_set_q(arm_fixture* f, const double* q) {
  tf_data_reset(f->m, f->d);
  for (int i = 0; i < TF_PANDA_NJOINT; i++) f->d->qpos[f->m->jnt_qposadr[f->panda.joint[i]]] = q[i];
}

static inline void arm_get_q(const arm_fixture* f, double* q) {
  for (int i = 0; i < TF_PANDA_NJOINT; i++) q[i] = f->d->qpos[f->m->jnt_qposadr[f->panda.joint[i]]];
}

// steps n times with the controller updating before each step; fails the test on an error
static inline void arm_run(arm_fixture* f, tf_controller* c, int n) {
  for (int s = 0; s < n; s++) {
    assert_int_equal(tf_controller_update(c, f->m, f->d), 0);
    assert_int_equal(tf_step(f->m, f->d), 0);
  }
}

// the TCP pose of the current state
static inline void arm_tcp(arm_fixture* f, double pos[3], double quat[4]) {
  tf_kinematics(f->m, f->d);
  tf_arm_tcp_pose(f->m, f->d, &f->arm, pos, quat);
}

// angle (rad) between two orientations
static inline double quat_angle(const double a[4], const double b[4]) {
  double dot = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  return 2 * acos(fmin(1.0, dot));
}

static inline double dist3(const double a[3], const double b[3]) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
              (a[2] - b[2]) * (a[2] - b[2]));
}

#endif  // TF_TEST_ARM_FIXTURE_H
