// The connectors task's robot-mode model: the rig's socket and plug (the same parts, colliders
// and overlap-probe geoms and samples as connectors_scene.c builds) set in a work cell: a
// table under the socket block, a rack beside it, and the Panda on the table. The plug is a
// free body here (the rig holds it on slides and a ball joint so that its push can be an
// actuator; here the fingers hold it) and carries an overmold: a box on top of its shell,
// what a real plug's fingers grip (its cable is not modelled). The rack is two rails under the
// overmold's rim with the shell and pins hanging between them. With grasp=weld the plug
// starts welded in the closed hand (build time: the engine's equalities cannot be switched).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connectors_robot.h"
#include "tf_math.h"

#define OVERMOLD_RIM 2.5e-3   // m: the overmold overhangs the shell by this on every side
#define OVERMOLD_HEIGHT 0.03  // m
#define OVERMOLD_MASS 0.02    // kg
#define RAIL_GAP 0.7e-3       // m: from the shell's side to a rail
#define RAIL_OUT 3e-3         // m: a rail reaches this far past the overmold's side
#define RAIL_END 2e-3         // m: and this far past its ends
#define RACK_X 0.0            // m: the rack's centre, beside the socket (at the origin)
#define RACK_Y 0.15
#define RACK_TOP 0.03         // m: the rails' top, above the socket's opening
#define START_LIFT 1e-4       // m: the plug starts this far above the rails and settles
#define NCONMAX 512           // contacts: fingers, rack, socket and arm at once
#define GRIP_MARGIN 2e-4      // m: the overmold's rows reach this far (a pad on a face)
#define GRIP_BELOW_TOP 0.012  // m: the TCP this far under the overmold's top in the grasp

// collision bits, as the peg's robot scene: the plug's collider meets the socket and the
// table (and the rails), the overmold the arm and the rails
#define BIT_ENV TF_PANDA_CONTYPE_ENV
#define BIT_ARM TF_PANDA_CONTYPE_ARM
#define BIT_PLUG 4u
#define BIT_RACK 8u

// adds box (mass m, half sizes h, centre c) to the running mass, first moment and inertia
// about the origin (ixx iyy izz ixy ixz iyz)
static void add_box(double* mass, double moment[3], double inertia[6], double m, const double h[3],
                    const double c[3]) {
  *mass += m;
  for (int k = 0; k < 3; k++) moment[k] += m * c[k];
  inertia[0] += m / 3 * (h[1] * h[1] + h[2] * h[2]) + m * (c[1] * c[1] + c[2] * c[2]);
  inertia[1] += m / 3 * (h[0] * h[0] + h[2] * h[2]) + m * (c[0] * c[0] + c[2] * c[2]);
  inertia[2] += m / 3 * (h[0] * h[0] + h[1] * h[1]) + m * (c[0] * c[0] + c[1] * c[1]);
  inertia[3] -= m * c[0] * c[1];
  inertia[4] -= m * c[0] * c[2];
  inertia[5] -= m * c[1] * c[2];
}

// the plug's body: shell (a uniform box over it, as the rig's) and overmold
static void plug_inertial(tf_body_def* body, const connectors_robot_state* s,
                          const tf_part_geometry* plug) {
  const double* box = plug->aabb;
  double shell_half[3] = {0.5 * (box[3] - box[0]), 0.5 * (box[4] - box[1]), 0.5 * box[5]};
  double shell_c[3] = {0.5 * (box[0] + box[3]), 0.5 * (box[1] + box[4]), 0.5 * box[5]};
  double over_c[3] = {shell_c[0], shell_c[1], s->shell_top + s->overmold_half[2]};
  double mass = 0, moment[3] = {0, 0, 0}, inertia[6] = {0, 0, 0, 0, 0, 0};
  add_box(&mass, moment, inertia, s->config.plug_mass, shell_half, shell_c);
  add_box(&mass, moment, inertia, s->overmold_mass, s->overmold_half, over_c);
  body->mass = mass;
  double c[3];
  for (int k = 0; k < 3; k++) c[k] = body->com[k] = moment[k] / mass;
  // back to the centre of mass (parallel axes)
  body->inertia[0] = inertia[0] - mass * (c[1] * c[1] + c[2] * c[2]);
  body->inertia[1] = inertia[1] - mass * (c[0] * c[0] + c[2] * c[2]);
  body->inertia[2] = inertia[2] - mass * (c[0] * c[0] + c[1] * c[1]);
  body->inertia[3] = inertia[3] + mass * c[0] * c[1];
  body->inertia[4] = inertia[4] + mass * c[0] * c[2];
  body->inertia[5] = inertia[5] + mass * c[1] * c[2];
}

// the plug's start: on the rack, or (weld) in the hand of the start configuration, its axis
// along the TCP's -z, its x along the TCP's x, its mating face grip_height past the TCP
static void plug_start_pose(const connectors_robot_state* s, const tf_robot_cell* cell,
                            double pos[3], double quat[4]) {
  if (s->grasp != TF_ROBOT_GRASP_WELD) {
    pos[0] = s->start[0], pos[1] = s->start[1];
    pos[2] = s->rack_top - s->shell_top + START_LIFT;
    quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
    return;
  }
  double tcp[3], tq[4], z[3];
  static const double flip[4] = {0, 1, 0, 0};
  tf_robot_start_tcp(&s->robot, cell, tcp, tq);
  tf_quat_rotate(z, tq, (const double[3]){0, 0, 1});
  for (int k = 0; k < 3; k++) pos[k] = tcp[k] + s->grip_height * z[k];
  tf_quat_mul(quat, tq, flip);
}

// the two rails of the rack, from the table to RACK_TOP
static int add_rack(tf_builder* b, const connectors_robot_state* s, const double shell_half[2],
                    double table_top) {
  int ok = 1;
  for (int side = 0; side < 2; side++) {
    double sign = side ? -1 : 1;
    double inner = shell_half[1] + RAIL_GAP, outer = s->overmold_half[1] + RAIL_OUT;
    tf_geom_def rail = tf_geom_def_default();
    rail.name = side ? "rack_rail_right" : "rack_rail_left";
    rail.type = TF_GEOM_BOX;
    rail.size[0] = s->overmold_half[0] + RAIL_END;
    rail.size[1] = 0.5 * (outer - inner);
    rail.size[2] = 0.5 * (RACK_TOP - table_top);
    rail.pos[0] = s->rack[0];
    rail.pos[1] = s->rack[1] + sign * 0.5 * (outer + inner);
    rail.pos[2] = 0.5 * (RACK_TOP + table_top);
    rail.contype = BIT_RACK;  // touches the overmold, the plug's collider and the arm
    rail.conaffinity = BIT_ARM | BIT_PLUG;
    rail.rgba[0] = 0.4f, rail.rgba[1] = 0.4f, rail.rgba[2] = 0.45f, rail.rgba[3] = 1;
    ok &= tf_builder_add_geom(b, &rail) >= 0;
  }
  return ok ? 0 : -1;
}

static int fill_builder(tf_builder* b, connectors_robot_state* s, const tf_robot_cell* cell,
                        tf_rng* rng, const tf_part_geometry* plug, const tf_part_geometry* socket,
                        char* err, size_t errlen) {
  const tf_connectors_config* c = &s->config;
  if (tf_connectors_add_parts(b, plug, socket, &s->ids)) {
    snprintf(err, errlen, "task 'connectors': out of memory building the parts");
    return -1;
  }
  if (tf_robot_cell_build(b, cell, rng, &s->robot, err, errlen)) return -1;
  const double* box = plug->aabb;
  double shell_half[2] = {0.5 * (box[3] - box[0]), 0.5 * (box[4] - box[1])};
  int ok = add_rack(b, s, shell_half, cell->table_top) == 0;

  tf_body_def body = tf_body_def_default();
  body.name = "plug";
  body.parent = 0;
  plug_start_pose(s, cell, body.pos, body.quat);
  plug_inertial(&body, s, plug);
  s->mass = body.mass;
  s->plug_body = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "plug_free";
  joint.body = s->plug_body;
  joint.type = TF_JOINT_FREE;
  if (s->plug_body < 0 || tf_builder_add_joint(b, &joint) < 0) ok = 0;

  // the plug's collider meets the socket, the table and the rails, not the arm (the
  // overmold does)
  const tf_connectors_bits plug_bits = {BIT_PLUG, BIT_ENV};
  ok &= tf_connectors_add_colliders(b, c, s->plug_body, plug, socket, &plug_bits, &s->ids) == 0;
  tf_geom_def over = tf_geom_def_default();
  over.name = "plug_overmold";
  over.body = s->plug_body;
  over.type = TF_GEOM_BOX;
  memcpy(over.size, s->overmold_half, sizeof(over.size));
  over.pos[0] = 0.5 * (box[0] + box[3]);
  over.pos[1] = 0.5 * (box[1] + box[4]);
  over.pos[2] = s->shell_top + s->overmold_half[2];
  over.friction[0] = c->mu;
  over.contype = 0;
  over.conaffinity = BIT_ARM | BIT_RACK;
  // a pad on the overmold's face: the whole face in the rows, not a corner at min_margin
  over.margin = GRIP_MARGIN;
  over.rgba[0] = 0.15f, over.rgba[1] = 0.15f, over.rgba[2] = 0.15f, over.rgba[3] = 1;
  ok &= tf_builder_add_geom(b, &over) >= 0;
  ok &= tf_connectors_add_measures(b, s->plug_body, &s->ids) == 0;
  if (ok && s->grasp == TF_ROBOT_GRASP_WELD) {
    tf_equality_def weld = tf_equality_def_default();
    weld.name = "grasp_weld";
    weld.type = TF_EQ_WELD;
    weld.body1 = s->robot.panda.hand;
    weld.body2 = s->plug_body;
    ok &= tf_builder_add_equality(b, &weld) >= 0;
  }
  if (!ok) {
    snprintf(err, errlen, "task 'connectors': out of memory building the model");
    return -1;
  }
  return 0;
}

// the sizes that follow from the parts: the overmold over the shell, the grasp, the rack, the
// plug's start on it, the table under the socket block
static void layout(connectors_robot_state* s, tf_robot_cell* cell, const tf_part_geometry* plug,
                   const tf_part_geometry* socket) {
  const double* box = plug->aabb;
  s->mating_depth = tf_connector_mating_depth(tf_connectors_type_name(s->config.type));
  s->shell_top = box[5];
  s->centre[0] = 0.5 * (box[0] + box[3]);
  s->centre[1] = 0.5 * (box[1] + box[4]);
  s->pin_len = -box[2];
  s->overmold_half[0] = 0.5 * (box[3] - box[0]) + OVERMOLD_RIM;
  s->overmold_half[1] = 0.5 * (box[4] - box[1]) + OVERMOLD_RIM;
  s->overmold_half[2] = 0.5 * OVERMOLD_HEIGHT;
  s->overmold_mass = OVERMOLD_MASS;
  s->grip_height = s->shell_top + OVERMOLD_HEIGHT - GRIP_BELOW_TOP;
  s->rack[0] = RACK_X, s->rack[1] = RACK_Y;
  s->rack_top = RACK_TOP;
  s->start[0] = s->rack[0] + s->start_offset[0];
  s->start[1] = s->rack[1] + s->start_offset[1];
  cell->table_top = socket->aabb[2];
}

int connectors_robot_scene_build(tf_env* env, connectors_robot_state* s, const tf_physics* physics,
                                 const tf_robot_cell* cell_in, tf_rng* rng, char* err,
                                 size_t errlen) {
  const tf_connectors_config* c = &s->config;
  tf_part_geometry plug, socket;
  if (tf_connectors_parts_build(&plug, &socket, c, err, errlen)) return -1;
  tf_robot_cell cell_copy = *cell_in, *cell = &cell_copy;
  layout(s, cell, &plug, &socket);
  tf_builder* b = tf_builder_create();
  if (!b) {
    tf_part_geometry_free(&plug);
    tf_part_geometry_free(&socket);
    snprintf(err, errlen, "task 'connectors': out of memory");
    return -1;
  }
  tf_option opt = tf_physics_option(physics);
  opt.nconmax = NCONMAX;
  tf_builder_set_option(b, &opt);
  int rc = fill_builder(b, s, cell, rng, &plug, &socket, err, errlen);
  tf_part_geometry_free(&plug);
  tf_part_geometry_free(&socket);
  if (rc == 0) rc = tf_env_compile(env, b, "connectors", err, errlen);
  tf_builder_destroy(b);
  if (rc || tf_connectors_probe_samples(c, &s->samples, err, errlen)) return -1;
  tf_kinematics(env->model, env->data);

  tf_probe_spec* p = &env->probe;
  p->tunnel_body = s->plug_body;
  p->axis[0] = 0, p->axis[1] = 0, p->axis[2] = -1;
  p->seat[0] = p->seat[1] = 0;
  p->seat[2] = -s->mating_depth;
  p->noverlap = 1;
  const tf_connectors_samples* samples = &s->samples;
  p->overlap[0][0] =
      (tf_probe_surface){s->ids.plug_measure, samples->plug, samples->nplug, samples->floor};
  p->overlap[0][1] =
      (tf_probe_surface){s->ids.socket_measure, samples->socket, samples->nsocket, samples->floor};
  return 0;
}
