// Builders shared by the gates: planes, free bodies with one geom, metric bookkeeping.
#include "gate_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

tf_builder* tf_gate_builder(double dt, tf_solver_type solver, double g) {
  tf_gate_step step = {dt, 0};
  return tf_gate_builder_step(&step, solver, g);
}

tf_builder* tf_gate_builder_step(const tf_gate_step* step, tf_solver_type solver, double g) {
  tf_builder* b = tf_builder_create();
  if (!b) return NULL;
  tf_option opt = tf_option_default();
  opt.timestep = step->dt;
  opt.solver_opt.relinearize = step->relinearize;
  opt.solver = solver;
  opt.gravity[2] = -g;
  tf_builder_set_option(b, &opt);
  return b;
}

int tf_gate_plane(tf_builder* b, const char* name, double tilt, double mu) {
  tf_geom_def plane = tf_geom_def_default();
  plane.name = name;
  plane.type = TF_GEOM_PLANE;
  plane.quat[0] = cos(0.5 * tilt);
  plane.quat[2] = sin(0.5 * tilt);
  plane.friction[0] = mu;
  return tf_builder_add_geom(b, &plane);
}

// uniform-density principal inertia of a shape about its centre, axes of the geom frame
static void shape_inertia(tf_geom_type type, const double s[3], double mass, double out[3]) {
  switch (type) {
    case TF_GEOM_SPHERE:
      out[0] = out[1] = out[2] = 0.4 * mass * s[0] * s[0];
      break;
    case TF_GEOM_CYLINDER: {
      double r2 = s[0] * s[0], h2 = 4 * s[1] * s[1];
      out[0] = out[1] = mass * (3 * r2 + h2) / 12;
      out[2] = 0.5 * mass * r2;
      break;
    }
    default: {  // boxes; hulls pass their bounding box half-sizes
      double x2 = 4 * s[0] * s[0], y2 = 4 * s[1] * s[1], z2 = 4 * s[2] * s[2];
      out[0] = mass * (y2 + z2) / 12;
      out[1] = mass * (x2 + z2) / 12;
      out[2] = mass * (x2 + y2) / 12;
      break;
    }
  }
}

int tf_gate_free_geom(tf_builder* b, const char* name, tf_geom_type type, const double size[3],
                      double mass, const double pos[3], const double quat[4], double mu, int hull) {
  tf_body_def body = tf_body_def_default();
  body.name = name;
  memcpy(body.pos, pos, sizeof(body.pos));
  memcpy(body.quat, quat, sizeof(body.quat));
  body.mass = mass;
  double inertia[3];
  shape_inertia(type, size, mass, inertia);
  body.inertia[0] = inertia[0], body.inertia[1] = inertia[1], body.inertia[2] = inertia[2];
  int id = tf_builder_add_body(b, &body);
  char joint_name[64];
  snprintf(joint_name, sizeof(joint_name), "%s_free", name);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = joint_name;
  joint.body = id;
  joint.type = TF_JOINT_FREE;
  tf_builder_add_joint(b, &joint);
  tf_geom_def geom = tf_geom_def_default();
  geom.name = name;
  geom.body = id;
  geom.type = type;
  memcpy(geom.size, size, sizeof(geom.size));
  geom.friction[0] = mu;
  geom.hull = hull;
  tf_builder_add_geom(b, &geom);
  return id;
}

tf_model* tf_gate_compile(tf_builder* b, tf_gate_result* result) {
  if (!b) {
    snprintf(result->error, sizeof(result->error), "out of memory");
    return NULL;
  }
  tf_model* m = tf_builder_compile(b, result->error, sizeof(result->error));
  tf_builder_destroy(b);
  return m;
}

void tf_gate_metric_add(tf_gate_result* r, const char* name, double value, double limit,
                        int at_most) {
  if (r->nmetric >= TF_GATE_MAX_METRICS) return;
  tf_gate_metric* g = &r->metric[r->nmetric++];
  g->name = name;
  g->value = value;
  g->limit = limit;
  g->at_most = at_most;
  g->pass = !r->diverged && isfinite(value) && (at_most ? value <= limit : value >= limit);
}
