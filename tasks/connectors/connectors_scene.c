// The connectors rig's model (see connectors_scene.h).
//
// Degrees of freedom. The plug hangs on x, y, z slides and a ball joint anchored at its centre
// of mass: six free dofs like a free joint, but the insertion axis is a slide of its own, so
// the push is an engine actuator whose gains enter the implicit velocity solve (a stiff
// velocity servo stays stable at any dt). Nothing holds the plug laterally or in tilt: only
// the socket's walls centre and straighten it, as a compliant gripper would let them.
//
// The push. speed: a velocity servo on the z slide at -impact_speed with kv = push_force /
// impact_speed, i.e. its stall force is push_force (and the force stays clamped to it when the
// plug is thrown back); force: a constant push_force; gravity: none. In every mode the plug
// starts with impact_speed down the axis.
//
// The plug's inertia is that of a uniform box the size of its shell (the pins' share is small
// and the cable a real plug carries is not modelled), with the mass as given.
//
// Geoms. The colliders are what the `collider` option says: sdf, both analytic SDFs; mesh_sdf,
// the plug's mesh carrying the plug's SDF against the socket's SDF carrying its mesh, which
// the pair table samples both ways (engine/collision_sdf.c: the plug's face in the socket's
// field, and the socket's floor in the plug's, which the plug's outline, nearer the walls,
// never sees); hull, the hulls, carrying no SDF. Each body also carries a geom that never
// collides, holding the part's analytic SDF: the overlap probe measures in those, so the
// measurement is the same whichever collider ran. Its samples come from meshes of both parts
// built 16 times finer than the colliders' (connectors_samples.c).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connectors_scene.h"

// a slide or ball joint of the plug
static int add_joint(tf_builder* b, const char* name, int body, tf_joint_type type, int axis,
                     const double anchor[3], double q0) {
  tf_joint_def j = tf_joint_def_default();
  j.name = name;
  j.body = body;
  j.type = type;
  if (type == TF_JOINT_SLIDE) {
    j.axis[0] = j.axis[1] = j.axis[2] = 0;
    j.axis[axis] = 1;
    j.qpos0[0] = q0;
  } else {
    memcpy(j.pos, anchor, sizeof(j.pos));
  }
  return tf_builder_add_joint(b, &j);
}

// the plug's body, its four joints and its push; 0 or -1
static int add_plug(tf_connectors_scene* s, tf_builder* b, const tf_connectors_config* c,
                    const tf_part_geometry* plug, int joint[4]) {
  // a uniform box over the shell: from the mating face z = 0 to the top
  const double* box = plug->aabb;
  double half[3] = {0.5 * (box[3] - box[0]), 0.5 * (box[4] - box[1]), 0.5 * box[5]};
  double com[3] = {0.5 * (box[0] + box[3]), 0.5 * (box[1] + box[4]), 0.5 * box[5]};
  tf_body_def body = tf_body_def_default();
  body.name = "plug";
  body.parent = 0;
  body.mass = c->plug_mass;
  memcpy(body.com, com, sizeof(com));
  body.inertia[0] = c->plug_mass / 3 * (half[1] * half[1] + half[2] * half[2]);
  body.inertia[1] = c->plug_mass / 3 * (half[0] * half[0] + half[2] * half[2]);
  body.inertia[2] = c->plug_mass / 3 * (half[0] * half[0] + half[1] * half[1]);
  s->plug_body = tf_builder_add_body(b, &body);
  if (s->plug_body < 0) return -1;
  joint[0] = add_joint(b, "plug_x", s->plug_body, TF_JOINT_SLIDE, 0, NULL, c->offset[0]);
  joint[1] = add_joint(b, "plug_y", s->plug_body, TF_JOINT_SLIDE, 1, NULL, c->offset[1]);
  joint[2] = add_joint(b, "plug_z", s->plug_body, TF_JOINT_SLIDE, 2, NULL, s->start_height);
  joint[3] = add_joint(b, "plug_tilt", s->plug_body, TF_JOINT_BALL, 0, com, 0);
  if (joint[0] < 0 || joint[1] < 0 || joint[2] < 0 || joint[3] < 0) return -1;
  s->actuator = -1;
  if (c->push == TF_CONNECTORS_PUSH_GRAVITY) return 0;
  tf_actuator_def act = tf_actuator_def_default();
  act.name = "push";
  act.joint = joint[2];
  act.gear = 1;
  if (c->push == TF_CONNECTORS_PUSH_SPEED) {
    act.type = TF_ACT_VELOCITY;
    act.kv = c->push_force / c->impact_speed;
    act.forcerange[0] = -c->push_force;
    act.forcerange[1] = c->push_force;
  } else {
    act.type = TF_ACT_MOTOR;
  }
  s->actuator = tf_builder_add_actuator(b, &act);
  return s->actuator < 0 ? -1 : 0;
}

void tf_connectors_scene_reset(const tf_connectors_scene* s, const tf_connectors_config* c,
                               tf_data* d) {
  const tf_model* m = s->model;
  tf_data_reset(m, d);
  double* q = d->qpos + s->ball_qposadr;
  double half = 0.5 * c->tilt;
  q[0] = cos(half);
  q[1] = sin(half) * cos(c->tilt_azimuth);
  q[2] = sin(half) * sin(c->tilt_azimuth);
  q[3] = 0;
  d->qvel[s->slide_dof[2]] = -c->impact_speed;
  if (s->actuator >= 0) {
    d->ctrl[s->actuator] = c->push == TF_CONNECTORS_PUSH_SPEED ? -c->impact_speed : -c->push_force;
  }
}

int tf_connectors_scene_build(tf_connectors_scene* s, const tf_connectors_config* c,
                              const tf_physics* physics, char* err, size_t errlen) {
  memset(s, 0, sizeof(*s));
  s->actuator = -1;
  s->mating_depth = tf_connector_mating_depth(tf_connectors_type_name(c->type));
  tf_part_geometry plug, socket;
  if (tf_connectors_parts_build(&plug, &socket, c, err, errlen)) return -1;
  // seated, the plug frame sits at the socket's floor; at the start its pin tips (the plug's
  // lowest points, aabb[2] < 0) are start_gap above the opening
  s->seat[0] = s->seat[1] = 0;
  s->seat[2] = -s->mating_depth;
  s->start_height = c->start_gap - plug.aabb[2];

  tf_builder* b = tf_builder_create();
  tf_option opt = tf_physics_option(physics);
  int joint[4] = {-1, -1, -1, -1};
  int status = -1;
  if (!b) goto done;
  tf_builder_set_option(b, &opt);
  if (tf_connectors_add_parts(b, &plug, &socket, &s->ids) || add_plug(s, b, c, &plug, joint) ||
      tf_connectors_add_colliders(b, c, s->plug_body, &plug, &socket, NULL, &s->ids) ||
      tf_connectors_add_measures(b, s->plug_body, &s->ids)) {
    goto done;
  }
  s->model = tf_builder_compile(b, err, errlen);
  if (!s->model) goto done_with_message;
  for (int k = 0; k < 3; k++) s->slide_dof[k] = s->model->jnt_dofadr[joint[k]];
  s->ball_qposadr = s->model->jnt_qposadr[joint[3]];
  status = 0;
done:
  if (status) snprintf(err, errlen, "task 'connectors': out of memory building the model");
done_with_message:
  tf_builder_destroy(b);
  tf_part_geometry_free(&plug);
  tf_part_geometry_free(&socket);
  if (status) return -1;
  if (tf_connectors_probe_samples(c, &s->samples, err, errlen)) {
    tf_model_destroy(s->model);
    tf_connectors_scene_free(s);
    return -1;
  }
  return 0;
}

void tf_connectors_scene_free(tf_connectors_scene* s) {
  free(s->samples.plug);
  free(s->samples.socket);
  memset(s, 0, sizeof(*s));
}
