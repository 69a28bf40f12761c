// The boltnut task's robot-mode model: the rig's parts, plate and colliders (boltnut_scene.c,
// through its shared functions) in a work cell: the table under the plate, a stand beside it
// carrying the nut, and the Panda with a continuous joint 7 (the wrist turns the nut down
// without regrasping, as Factory's cell did). The bolt's threaded length is the run's travel
// alone: the nut starts off the bolt, and its whole run down the thread is the screwing.
// With grasp=weld the nut starts in the closed hand, held by a weld equality made at build
// time (the engine has no switchable equalities), and the script skips the pick.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boltnut_robot.h"
#include "tf_math.h"

#define STAND_HALF 0.01       // m: half the stand's side (under the nut's 24 mm flats)
#define START_LIFT 1e-4       // m: the nut starts this far above the stand and settles
#define NCONMAX_ARM 256       // contacts for the fingers, the stand and the arm
#define GRIP_MARGIN 2e-4      // m: the grip geom's rows reach this far (see fill_builder)
#define WELD_FINGER_GAP 5e-4  // m: grasp=weld leaves each pad this far off the flats

// Collision bits. The run's collider is the nut against the bolt, the plate and the table;
// the fingers and the stand touch a second geom of the nut, its exact analytic SDF, which a
// pad or the stand (boxes) samples at their ~1 mm spacing where the collider mesh would bring
// thousands of triangles (the peg's reasoning, peg_robot_scene.c).
#define BIT_ENV TF_PANDA_CONTYPE_ENV  // the engine's default: plate, bolt, table
#define BIT_ARM TF_PANDA_CONTYPE_ARM  // the Panda's geoms
#define BIT_NUT 4u                    // the nut's collider
#define BIT_STAND 8u                  // the stand

// the quarter turn from the part's frame (flats facing +-x) to the body's (flats facing +-y)
static const double part_in_body[4] = {0.70710678118654752, 0, 0, 0.70710678118654752};

// the rig's values for the parts: the threaded length is the travel alone (no engagement)
static void rig_values(double rig[BN_NPARAM], const double* v) {
  for (int i = 0; i < BN_NPARAM; i++) rig[i] = tf_boltnut_params[i].value;
  rig[BN_SIZE] = v[BNR_SIZE];
  rig[BN_FIT] = v[BNR_FIT];
  rig[BN_CLEARANCE] = v[BNR_CLEARANCE];
  rig[BN_MU] = v[BNR_MU];
  rig[BN_COLLIDER] = v[BNR_COLLIDER];
  rig[BN_TRAVEL_TURNS] = v[BNR_TRAVEL_TURNS];
  rig[BN_ENGAGED_TURNS] = 0;
  rig[BN_MESH_CHORD] = v[BNR_MESH_CHORD];
}

// the mass properties of the nut's part frame turned into the body's (a quarter turn about z)
static void body_inertial(tf_body_def* body, const tf_boltnut_mass* mass) {
  body->mass = mass->mass;
  body->com[0] = -mass->com[1], body->com[1] = mass->com[0], body->com[2] = mass->com[2];
  const double* i = mass->inertia;  // ixx iyy izz ixy ixz iyz
  body->inertia[0] = i[1], body->inertia[1] = i[0], body->inertia[2] = i[2];
  body->inertia[3] = -i[3], body->inertia[4] = -i[5], body->inertia[5] = i[4];
}

// half the nut's across-flats: the hex prism's exact distance along a flat's normal (the part's
// x) from a point beyond the flat
static double nut_apothem(const tf_part_geometry* nut) {
  double far = 2 * nut->aabb[3], mid = 0.5 * nut->aabb[5];
  double p[3] = {far, 0, mid};
  return far - nut->fn(nut->params, p, NULL);
}

// the nut's start: on the stand turned by start_yaw, or (weld) in the hand of the start
// configuration, its axis along the TCP's -z and its bottom face grip_height past the TCP
static void nut_start_pose(const boltnut_robot_state* s, const tf_robot_cell* cell, double pos[3],
                           double quat[4]) {
  if (s->grasp != TF_ROBOT_GRASP_WELD) {
    pos[0] = s->start[0], pos[1] = s->start[1], pos[2] = START_LIFT;
    quat[0] = cos(0.5 * s->start_yaw), quat[1] = quat[2] = 0, quat[3] = sin(0.5 * s->start_yaw);
    return;
  }
  double tcp[3], tq[4], z[3];
  static const double flip[4] = {0, 1, 0, 0};  // half a turn about x: z -> -z, y -> -y
  tf_robot_start_tcp(&s->robot, cell, tcp, tq);
  tf_quat_rotate(z, tq, (const double[3]){0, 0, 1});
  for (int k = 0; k < 3; k++) pos[k] = tcp[k] + s->grip_height * z[k];
  tf_quat_mul(quat, tq, flip);
}

static int fill_builder(tf_builder* b, boltnut_robot_state* s, const double* v,
                        const tf_boltnut_parts* parts, const tf_boltnut_mass* mass,
                        const tf_robot_cell* cell, tf_rng* rng, char* err, size_t errlen) {
  tf_boltnut_state* rs = &s->rig;
  int collider = (int)v[BNR_COLLIDER];
  double mu = v[BNR_MU];
  if (tf_robot_cell_build(b, cell, rng, &s->robot, err, errlen)) return -1;

  tf_geom_def bolt = tf_geom_def_default();
  bolt.name = "bolt";
  bolt.friction[0] = mu;
  bolt.condim = 3;
  rs->bolt_geom = tf_boltnut_add_collider(b, &bolt, collider, 0, &parts->bolt, NULL);
  rs->plate_geom = tf_boltnut_add_plate(b, parts, mu);
  int ok = rs->bolt_geom >= 0 && rs->plate_geom >= 0;

  // the stand from the table up to the plate's top (z = 0): it touches the nut's grip geom
  // and the arm
  ok &= tf_robot_add_stand(b, s->stand, STAND_HALF, cell->table_top, 0, BIT_STAND) >= 0;

  tf_body_def body = tf_body_def_default();
  body.name = "nut";
  body.parent = 0;
  nut_start_pose(s, cell, body.pos, body.quat);
  body_inertial(&body, mass);
  rs->nut_body = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "nut_free";
  joint.body = rs->nut_body;
  joint.type = TF_JOINT_FREE;
  if (rs->nut_body < 0 || tf_builder_add_joint(b, &joint) < 0) {
    snprintf(err, errlen, "task 'boltnut': out of memory building the model");
    return -1;
  }
  // the collider meets the bolt, the plate and the table, not the arm (the grip geom does)
  tf_geom_def nut = tf_geom_def_default();
  nut.name = "nut";
  nut.body = rs->nut_body;
  memcpy(nut.quat, part_in_body, sizeof(nut.quat));
  nut.friction[0] = mu;
  nut.condim = 3;
  nut.contype = BIT_NUT;
  nut.conaffinity = BIT_ENV;
  int nut_sdf = -1;
  rs->nut_geom = tf_boltnut_add_collider(b, &nut, collider, 1, &parts->nut, &nut_sdf);
  ok &= rs->nut_geom >= 0;
  // the grip geom: the nut's analytic SDF (the collider's own) for the fingers, the hand and
  // the stand. A pad lies flat on a flat; at the engine's min_margin a tilt of a few urad
  // leaves one edge of the face out of the rows and the nut pivots in the grasp about it. The
  // grip's own margin keeps the whole face in.
  tf_geom_def grip = tf_geom_def_default();
  grip.name = "nut_grip";
  grip.body = rs->nut_body;
  grip.type = TF_GEOM_SDF;
  grip.sdf = nut_sdf;
  memcpy(grip.quat, part_in_body, sizeof(grip.quat));
  grip.friction[0] = mu;
  grip.condim = 3;
  grip.contype = 0;
  grip.conaffinity = BIT_ARM | BIT_STAND;
  grip.margin = GRIP_MARGIN;
  ok &= grip.sdf >= 0 && tf_builder_add_geom(b, &grip) >= 0;
  if (ok && s->grasp == TF_ROBOT_GRASP_WELD) {
    tf_equality_def weld = tf_equality_def_default();
    weld.name = "grasp_weld";
    weld.type = TF_EQ_WELD;
    weld.body1 = s->robot.panda.hand;
    weld.body2 = rs->nut_body;
    ok &= tf_builder_add_equality(b, &weld) >= 0;
  }
  if (!ok) {
    snprintf(err, errlen, "task 'boltnut': out of memory building the model");
    return -1;
  }
  return 0;
}

// copies a mesh's vertices as probe samples
static double* copy_points(const tf_part_geometry* g) {
  double* p = malloc(sizeof(double) * 3 * (size_t)g->nvert);
  if (p) memcpy(p, g->vert, sizeof(double) * 3 * (size_t)g->nvert);
  return p;
}

void boltnut_robot_scene_free(boltnut_robot_state* s) {
  tf_robot_free(&s->robot);
  free(s->rig.nut_samples);
  free(s->rig.bolt_samples);
  s->rig.nut_samples = s->rig.bolt_samples = NULL;
}

int boltnut_robot_scene_build(tf_env* env, boltnut_robot_state* s, const double* values,
                              const tf_physics* physics, const tf_robot_cell* cell_in, tf_rng* rng,
                              char* err, size_t errlen) {
  double rig[BN_NPARAM];
  rig_values(rig, values);
  tf_boltnut_parts parts;
  if (tf_boltnut_parts_build(&parts, rig, err, errlen)) {
    // the threaded length is the travel's: say which key made the bolt too short
    if (strstr(err, "part 'bolt': length")) {
      char why[160];
      snprintf(why, sizeof(why), "%s", err);
      snprintf(err, errlen, "task 'boltnut': travel_turns %g is too few (%s)",
               values[BNR_TRAVEL_TURNS], why);
    }
    return -1;
  }
  tf_boltnut_state* rs = &s->rig;
  rs->pitch = parts.pitch;
  rs->delta = parts.delta;
  rs->collider_chord = parts.nut.chord_error;
  rs->collider_vertices[0] = parts.nut.nvert;
  rs->collider_vertices[1] = parts.bolt.nvert;
  s->nut_height = parts.nut_height;
  s->bolt_length = parts.length;
  s->width = 2 * nut_apothem(&parts.nut);
  tf_boltnut_mass mass;
  if (tf_boltnut_mesh_mass(&mass, parts.nut_fine.vert, parts.nut_fine.nvert, parts.nut_fine.face,
                           parts.nut_fine.nface, TF_BOLTNUT_DENSITY)) {
    snprintf(err, errlen, "task 'boltnut': the nut mesh encloses no volume");
    tf_boltnut_parts_free(&parts);
    return -1;
  }
  rs->nut_mass = mass.mass;
  rs->axis_inertia =
      mass.inertia[2] + mass.mass * (mass.com[0] * mass.com[0] + mass.com[1] * mass.com[1]);

  // the table under the plate: the plate holds the bolt's head, 2 x its height deep
  tf_robot_cell cell = *cell_in;
  cell.table_top = 2 * parts.bolt.aabb[2];
  if (s->grasp == TF_ROBOT_GRASP_WELD) cell.finger_opening = 0.5 * s->width + WELD_FINGER_GAP;

  tf_builder* b = tf_builder_create();
  if (!b) {
    tf_boltnut_parts_free(&parts);
    snprintf(err, errlen, "task 'boltnut': out of memory");
    return -1;
  }
  tf_option opt = tf_physics_option(physics);
  // the rig's room for the thread pair and the plate (boltnut_scene.c), and the arm's own
  opt.nconmax = 2 * opt.max_pair_contacts + 32 + NCONMAX_ARM;
  tf_builder_set_option(b, &opt);
  int rc = fill_builder(b, s, values, &parts, &mass, &cell, rng, err, errlen);
  if (rc == 0) rc = tf_env_compile(env, b, "boltnut", err, errlen);
  tf_builder_destroy(b);
  if (rc == 0) {
    rs->nut_samples = copy_points(&parts.nut_fine);
    rs->bolt_samples = copy_points(&parts.bolt_fine);
    if (!rs->nut_samples || !rs->bolt_samples) {
      snprintf(err, errlen, "task 'boltnut': out of memory");
      rc = -1;
    }
  }
  if (rc == 0) {
    rs->n_nut_samples = parts.nut_fine.nvert;
    rs->n_bolt_samples = parts.bolt_fine.nvert;
    tf_boltnut_fill_probe(&env->probe, rs, &parts);
    tf_kinematics(env->model, env->data);
  }
  tf_boltnut_parts_free(&parts);
  return rc;
}
