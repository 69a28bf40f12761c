// Passive forces and applied wrenches against closed-form answers: spring periods (slide,
// hinge with armature, ball), implicit damping's exact per-step decay, and body wrenches.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "compile_model.h"
#include "tightfit.h"

// one body of mass m and inertia diag(i, i, i) on a joint of the given type about / along z
static tf_model* build_one_joint(tf_joint_type type, double mass, double inertia, double stiffness,
                                 double damping, double armature, tf_integrator integrator,
                                 double dt) {
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = dt;
  opt.integrator = integrator;
  opt.gravity[2] = 0;
  tf_builder_set_option(b, &opt);
  tf_body_def body = tf_body_def_default();
  body.name = "body";
  body.mass = mass;
  body.inertia[0] = body.inertia[1] = body.inertia[2] = inertia;
  int id = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "joint";
  joint.body = id;
  joint.type = type;
  joint.stiffness = stiffness;
  joint.damping = damping;
  joint.armature = armature;
  if (type == TF_JOINT_BALL) joint.qpos0[0] = 1;
  tf_builder_add_joint(b, &joint);
  return compile_model(b);
}

// time between the first and the eleventh upward zero crossing of x(t), over 10
static double measure_period(const tf_model* m, tf_data* d, const double* x, double duration) {
  double prev = *x, first = NAN, last = NAN;
  int crossings = 0;
  while (d->time < duration) {
    double t_prev = d->time;
    assert_int_equal(tf_step(m, d), 0);
    if (prev < 0 && *x >= 0) {
      double t = t_prev + (d->time - t_prev) * prev / (prev - *x);
      if (crossings == 0) first = t;
      last = t;
      crossings++;
    }
    prev = *x;
  }
  assert_true(crossings >= 11);
  return (last - first) / (crossings - 1);
}

// a 2 kg slider on a 50 N/m spring: T = 2 pi sqrt(m / k)
static void test_slide_spring_period(void** state) {
  (void)state;
  tf_model* m = build_one_joint(TF_JOINT_SLIDE, 2.0, 0.01, 50.0, 0, 0, TF_INTEGRATOR_RK4, 1e-3);
  tf_data* d = tf_data_create(m);
  d->qpos[0] = 0.1;
  double expected = 2 * M_PI * sqrt(2.0 / 50.0);
  double period = measure_period(m, d, &d->qpos[0], 12 * expected);
  print_message("slide spring: T %.10f s, analytic %.10f s\n", period, expected);
  assert_true(fabs(period - expected) < 1e-7 * expected);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// armature adds to the hinge inertia: T = 2 pi sqrt((I + a) / k)
static void test_hinge_armature_period(void** state) {
  (void)state;
  tf_model* m = build_one_joint(TF_JOINT_HINGE, 1.0, 0.02, 3.0, 0, 0.01, TF_INTEGRATOR_RK4, 1e-3);
  tf_data* d = tf_data_create(m);
  d->qpos[0] = 0.2;
  double expected = 2 * M_PI * sqrt((0.02 + 0.01) / 3.0);
  double period = measure_period(m, d, &d->qpos[0], 12 * expected);
  print_message("hinge + armature: T %.10f s, analytic %.10f s\n", period, expected);
  assert_true(fabs(period - expected) < 1e-7 * expected);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// a ball joint's spring about a single axis behaves like a torsion spring on that axis
static void test_ball_spring_period(void** state) {
  (void)state;
  tf_model* m = build_one_joint(TF_JOINT_BALL, 1.0, 0.05, 2.0, 0, 0, TF_INTEGRATOR_RK4, 1e-3);
  tf_data* d = tf_data_create(m);
  d->qvel[2] = 0.5;  // spin up about z from the rest orientation
  double expected = 2 * M_PI * sqrt(0.05 / 2.0);
  double period = measure_period(m, d, &d->qvel[2], 12 * expected);
  print_message("ball spring: T %.10f s, analytic %.10f s\n", period, expected);
  assert_true(fabs(period - expected) < 1e-6 * expected);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// implicit damping decays the velocity by exactly 1 / (1 + h d / m) per step, stable even
// at h d / m = 1e4 where explicit damping would flip sign and grow
static void test_implicit_damping(void** state) {
  (void)state;
  const double h = 1e-2, mass = 1e-2, damping = 1e4;
  tf_model* m = build_one_joint(TF_JOINT_SLIDE, mass, 1e-4, 0, damping, 0, TF_INTEGRATOR_EULER, h);
  tf_data* d = tf_data_create(m);
  d->qvel[0] = 1.0;
  double factor = 1.0 / (1.0 + h * damping / mass);
  double v = 1.0;
  for (int i = 0; i < 5; i++) {
    assert_int_equal(tf_step(m, d), 0);
    v *= factor;
    // v+ = v + h qacc cancels four digits each step (v+ ~ 1e-4 v), hence 1e-10
    if (fabs(d->qvel[0] - v) > 1e-10 * fabs(v)) {
      print_message("step %d: v %.17g expected %.17g\n", i, d->qvel[0], v);
      fail();
    }
  }
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// a force and a torque at the com of a free body: a = F / m, and from rest dw/dt = I^-1 tau
static void test_body_wrench(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.gravity[2] = 0;
  tf_builder_set_option(b, &opt);
  tf_body_def body = tf_body_def_default();
  body.name = "box";
  body.pos[0] = 0.3, body.pos[1] = -0.2, body.pos[2] = 0.5;
  body.com[0] = 0.05;  // off the frame origin: the wrench acts at the com
  body.mass = 2.0;
  body.inertia[0] = 0.1, body.inertia[1] = 0.2, body.inertia[2] = 0.25;
  int id = tf_builder_add_body(b, &body);
  tf_joint_def free_joint = tf_joint_def_default();
  free_joint.name = "free";
  free_joint.body = id;
  free_joint.type = TF_JOINT_FREE;
  tf_builder_add_joint(b, &free_joint);
  char err[256];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  assert_non_null(m);
  tf_data* d = tf_data_create(m);
  double* w = d->xfrc_applied + 6 * id;
  w[0] = 1.0, w[1] = -2.0, w[2] = 4.0;  // force
  w[3] = 0.3, w[4] = 0.4, w[5] = -0.5;  // torque
  assert_int_equal(tf_forward(m, d), 0);
  // body axes are world axes here: dw/dt = tau / I per axis
  const double inertia[3] = {0.1, 0.2, 0.25};
  double alpha[3];
  for (int k = 0; k < 3; k++) alpha[k] = w[3 + k] / inertia[k];
  for (int k = 0; k < 3; k++) assert_true(fabs(d->qacc[3 + k] - alpha[k]) < 1e-12);
  // the com accelerates at F / m; the frame origin, 5 cm behind it along x, at F / m - alpha x r
  const double r[3] = {0.05, 0, 0};
  double alpha_x_r[3] = {alpha[1] * r[2] - alpha[2] * r[1], alpha[2] * r[0] - alpha[0] * r[2],
                         alpha[0] * r[1] - alpha[1] * r[0]};
  for (int k = 0; k < 3; k++) {
    assert_true(fabs(d->qacc[k] - (w[k] / 2.0 - alpha_x_r[k])) < 1e-12);
  }
  tf_data_destroy(d);
  tf_model_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slide_spring_period), cmocka_unit_test(test_hinge_armature_period),
      cmocka_unit_test(test_ball_spring_period),  cmocka_unit_test(test_implicit_damping),
      cmocka_unit_test(test_body_wrench),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
