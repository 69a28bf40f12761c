// The door-handle gate (CRISP appendix D5): joint dry friction and a joint limit under a
// torque ramp, no gravity, 6 s at dt = 10 ms (or a chosen dt).
#include <math.h>
#include <string.h>

#include "gate_util.h"
#include "gates_internal.h"

void tf_gate_door_handle_at(tf_solver_type solver, const tf_gate_step* step, tf_gate_result* r) {
  const double limit = 40 * M_PI / 180, friction = 0.06, ramp = 0.02;
  double dt = step->dt;
  tf_builder* b = tf_gate_builder_step(step, solver, 0);
  tf_body_def lever = tf_body_def_default();
  lever.name = "lever";
  lever.mass = 0.2;
  lever.inertia[0] = 1e-3, lever.inertia[1] = 1e-3, lever.inertia[2] = 1.45e-3;
  int body = tf_builder_add_body(b, &lever);
  tf_joint_def hinge = tf_joint_def_default();
  hinge.name = "handle";
  hinge.body = body;
  hinge.limited = 1;
  hinge.range[0] = -limit;
  hinge.range[1] = limit;
  hinge.frictionloss = friction;
  tf_builder_add_joint(b, &hinge);
  tf_actuator_def motor = tf_actuator_def_default();
  motor.name = "push";
  motor.joint = 0;
  tf_builder_add_actuator(b, &motor);
  tf_model* m = tf_gate_compile(b, r);
  if (!m) return;
  tf_data* d = tf_data_create(m);
  double breakaway = NAN, qmax = 0;
  int nsteps = (int)llround(6.0 / dt);
  for (int s = 0; s < nsteps; s++) {
    d->ctrl[0] = ramp * d->time;
    if (tf_step(m, d)) {
      r->diverged = 1;
      break;
    }
    if (isnan(breakaway) && fabs(d->qvel[0]) > 1e-9) breakaway = d->ctrl[0];
    qmax = fmax(qmax, fabs(d->qpos[0]));
  }
  tf_gate_metric_add(r, "breakaway_rel_error", fabs(breakaway - friction) / friction, 0.01, 1);
  tf_gate_metric_add(r, "limit_overshoot_deg", (qmax - limit) * 180 / M_PI, 0.01, 1);
  // the handle must reach its stop for the overshoot to mean anything
  tf_gate_metric_add(r, "reached_deg", qmax * 180 / M_PI, 39.9, 0);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

void tf_gate_door_handle(tf_solver_type solver, tf_gate_result* r) {
  tf_gate_step step = {0.01, 0};
  tf_gate_door_handle_at(solver, &step, r);
}
