// Actuators: implicit servo stability at large timesteps (with the explicit contrast),
// motor torque against the analytic motion, and the force clamp.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "compile_model.h"
#include "tightfit.h"

// a 0.1 kg point mass on a 0.1 m link about a horizontal hinge, one actuator on it
static tf_model* build_link(tf_actuator_type type, double kp, double kv, double dt, int implicit,
                            double force_limit) {
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = dt;
  opt.implicit_servo = implicit;
  tf_builder_set_option(b, &opt);
  tf_body_def body = tf_body_def_default();
  body.name = "link";
  body.mass = 0.1;
  body.com[0] = 0.1;
  memset(body.inertia, 0, sizeof(body.inertia));
  int id = tf_builder_add_body(b, &body);
  tf_joint_def hinge = tf_joint_def_default();
  hinge.name = "hinge";
  hinge.body = id;
  hinge.axis[0] = 0, hinge.axis[1] = 1, hinge.axis[2] = 0;
  tf_builder_add_joint(b, &hinge);
  tf_actuator_def act = tf_actuator_def_default();
  act.name = "servo";
  act.type = type;
  act.joint = 0;
  act.kp = kp;
  act.kv = kv;
  act.forcerange[0] = -force_limit;
  act.forcerange[1] = force_limit;
  tf_builder_add_actuator(b, &act);
  return compile_model(b);
}

// steps until a failure or n steps; returns the number of steps taken
static int run_steps(const tf_model* m, tf_data* d, int n, double* max_abs_q) {
  *max_abs_q = 0;
  for (int i = 0; i < n; i++) {
    if (tf_step(m, d)) return i;
    *max_abs_q = fmax(*max_abs_q, fabs(d->qpos[0]));
  }
  return n;
}

// kp = 1e5 N m / rad on I = 1e-3 kg m^2 at dt = 10 ms: h^2 kp / I = 1e4, far past the
// explicit stability limit (4); implicit integration settles on the target, explicit
// integration of the same gains blows up
static void test_stiff_position_servo(void** state) {
  (void)state;
  const double target = 0.5;
  tf_model* m = build_link(TF_ACT_POSITION, 1e5, 0, 10e-3, 1, 0);
  tf_data* d = tf_data_create(m);
  d->ctrl[0] = target;
  double max_q;
  assert_int_equal(run_steps(m, d, 200, &max_q), 200);
  double error = fabs(d->qpos[0] - target);
  print_message("implicit: |q - target| after 2 s = %.3e rad, max |q| %.4f, qdot %.3e\n", error,
                max_q, d->qvel[0]);
  // static error of gravity against kp: m g L cos(q) / kp ~ 9e-6 rad
  assert_true(error < 2e-5);
  assert_true(fabs(d->qvel[0]) < 1e-6);
  assert_true(max_q < target * 1.01);  // no overshoot worth the name
  tf_data_destroy(d);
  tf_model_destroy(m);

  m = build_link(TF_ACT_POSITION, 1e5, 0, 10e-3, 0, 0);
  d = tf_data_create(m);
  d->ctrl[0] = target;
  int steps = run_steps(m, d, 200, &max_q);
  print_message("explicit: %d steps before failure, max |q| %.3e rad\n", steps, max_q);
  assert_true(steps < 200 || max_q > 1e3);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// a velocity servo with h kv / I = 100 holds its speed implicitly, diverges explicitly
static void test_stiff_velocity_servo(void** state) {
  (void)state;
  tf_model* m = build_link(TF_ACT_VELOCITY, 0, 10.0, 10e-3, 1, 0);
  tf_data* d = tf_data_create(m);
  d->ctrl[0] = 2.0;
  double max_q;
  assert_int_equal(run_steps(m, d, 100, &max_q), 100);
  // gravity torque / kv is the remaining speed error: at most m g L / kv ~ 1e-2 rad/s
  print_message("implicit velocity servo: qdot %.5f rad/s (target 2)\n", d->qvel[0]);
  assert_true(fabs(d->qvel[0] - 2.0) < 0.011);
  tf_data_destroy(d);
  tf_model_destroy(m);

  m = build_link(TF_ACT_VELOCITY, 0, 10.0, 10e-3, 0, 0);
  d = tf_data_create(m);
  d->ctrl[0] = 2.0;
  int steps = run_steps(m, d, 100, &max_q);
  print_message("explicit velocity servo: %d steps, |qdot| %.3e\n", steps, fabs(d->qvel[0]));
  assert_true(steps < 100 || fabs(d->qvel[0]) > 1e3);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// the clamp caps the actuator force, and a saturated servo is a constant torque
static void test_force_clamp(void** state) {
  (void)state;
  tf_model* m = build_link(TF_ACT_POSITION, 1e5, 0, 1e-3, 1, 2.0);
  tf_data* d = tf_data_create(m);
  d->ctrl[0] = 1.0;
  assert_int_equal(tf_step(m, d), 0);
  assert_true(fabs(d->actuator_force[0] - 2.0) < 1e-12);
  // saturated at +2 N m on I = 1e-3; turning about +y lowers the com at +x, so gravity adds
  // m g L: qacc = (2 + m g L) / I
  double expected = (2.0 + 0.1 * 9.81 * 0.1) / 1e-3;
  print_message("saturated qacc %.6f, expected %.6f\n", d->qacc[0], expected);
  assert_true(fabs(d->qacc[0] - expected) < 1e-9 * expected);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// a motor torque on a free hinge without gravity: q = tau t^2 / (2 I) exactly under rk4
static void test_motor_torque(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = 1e-3;
  opt.integrator = TF_INTEGRATOR_RK4;
  opt.gravity[2] = 0;
  tf_builder_set_option(b, &opt);
  tf_body_def body = tf_body_def_default();
  body.name = "wheel";
  body.inertia[0] = 0.02, body.inertia[1] = 0.02, body.inertia[2] = 0.03;
  int id = tf_builder_add_body(b, &body);
  tf_joint_def hinge = tf_joint_def_default();
  hinge.name = "axle";
  hinge.body = id;
  hinge.armature = 0.01;
  tf_builder_add_joint(b, &hinge);
  tf_actuator_def act = tf_actuator_def_default();
  act.name = "motor";
  act.joint = 0;
  act.gear = 2.0;
  tf_builder_add_actuator(b, &act);
  char err[256];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  assert_non_null(m);
  tf_data* d = tf_data_create(m);
  d->ctrl[0] = 0.3;
  for (int i = 0; i < 1000; i++) assert_int_equal(tf_step(m, d), 0);
  double inertia = 0.03 + 0.01, torque = 2.0 * 0.3;
  double expected = torque * d->time * d->time / (2 * inertia);
  print_message("motor: q %.12f, expected %.12f\n", d->qpos[0], expected);
  assert_true(fabs(d->qpos[0] - expected) < 1e-10 * expected);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stiff_position_servo),
      cmocka_unit_test(test_stiff_velocity_servo),
      cmocka_unit_test(test_force_clamp),
      cmocka_unit_test(test_motor_torque),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
