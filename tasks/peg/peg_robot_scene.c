// The peg task's robot-mode model: the rig's hole block and peg (the same parts, colliders
// and overlap-probe geoms as peg_scene.c builds, the block's floor the same 20 mm), set in a
// work cell: a table under the block, a stand beside it carrying the upright peg, and the
// Panda on the table. With grasp=weld the peg starts in the closed hand, held by a weld
// equality made at build time (the engine has no switchable equalities, so the weld cannot
// wait for a grasp), and the script skips the pick.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peg_robot.h"
#include "tf_math.h"

#define STAND_HALF 0.035  // m: half the stand's side (the peg's foot is 50 mm across)
#define START_LIFT 1e-4   // m: the peg starts this far above the stand and settles
#define NCONMAX 512       // contacts: fingers, stand, block and arm at once
#define GRIP_MARGIN 2e-4  // m: the grip geom's rows reach this far (see fill_builder)

// Collision bits. The run's collider is the peg's shape against the hole (and the table);
// the fingers and the stand touch a second geom of the peg, its exact analytic SDF, which a
// pad or the stand (boxes) samples at a few dozen points where the collider mesh would bring
// thousands of triangles: the grasp is as exact and the pick costs little.
#define BIT_ENV TF_PANDA_CONTYPE_ENV  // the engine's default: the block, the table
#define BIT_ARM TF_PANDA_CONTYPE_ARM  // the Panda's geoms
#define BIT_PEG 4u                    // the peg's collider
#define BIT_STAND 8u                  // the stand

// the peg's start: upright on the stand, or (weld) in the hand of the start configuration,
// its axis along the TCP's -z and its tip grip_height below the TCP
static void peg_start_pose(const peg_robot_state* s, const tf_robot_cell* cell, double pos[3],
                           double quat[4]) {
  if (s->grasp != TF_ROBOT_GRASP_WELD) {
    pos[0] = s->start[0], pos[1] = s->start[1], pos[2] = START_LIFT;
    quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
    return;
  }
  double tcp[3], tq[4], z[3];
  static const double flip[4] = {0, 1, 0, 0};  // half a turn about x: z -> -z
  tf_robot_start_tcp(&s->robot, cell, tcp, tq);
  tf_quat_rotate(z, tq, (const double[3]){0, 0, 1});
  for (int k = 0; k < 3; k++) pos[k] = tcp[k] + s->grip_height * z[k];
  tf_quat_mul(quat, tq, flip);
}

static int fill_builder(tf_builder* b, peg_robot_state* s, const tf_robot_cell* cell, tf_rng* rng,
                        const tf_part_geometry* peg, const tf_part_geometry* hole, char* err,
                        size_t errlen) {
  peg_state* ps = &s->peg;
  const peg_config* c = &ps->cfg;
  int sdf_hole = tf_part_add_to_builder(b, "hole", hole);
  int sdf_peg = tf_part_add_to_builder(b, "peg", peg);
  if (sdf_hole < 0 || sdf_peg < 0) {
    snprintf(err, errlen, "task 'peg': out of memory building the parts");
    return -1;
  }
  if (tf_robot_cell_build(b, cell, rng, &s->robot, err, errlen)) return -1;

  // the stand from the table (the block's depth and floor below z = 0) to z = 0: it touches
  // the peg's grip geom and the arm
  double height = c->depth + PEG_ROBOT_BLOCK_FLOOR;
  int ok = tf_robot_add_stand(b, s->stand, STAND_HALF, -height, 0, BIT_STAND) >= 0;

  tf_body_def body = tf_body_def_default();
  body.name = "peg";
  body.parent = 0;
  peg_start_pose(s, cell, body.pos, body.quat);
  body.com[2] = 0.5 * c->length;
  peg_inertia(c, &body.mass, body.inertia);
  s->mass = body.mass;
  ps->body = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "peg_free";
  joint.body = ps->body;
  joint.type = TF_JOINT_FREE;
  if (ps->body < 0 || tf_builder_add_joint(b, &joint) < 0) ok = 0;

  // the peg's collider meets the block and the table, not the arm (the grip geom does)
  const peg_collision_bits peg_bits = {BIT_PEG, BIT_ENV};
  ok &= peg_add_colliders(b, c, ps->body, peg, hole, sdf_peg, sdf_hole, &peg_bits) == 0;
  // the grip geom: the peg's analytic SDF for the fingers, the hand and the stand
  tf_geom_def grip = tf_geom_def_default();
  grip.name = "peg_grip";
  grip.body = ps->body;
  grip.type = TF_GEOM_SDF;
  grip.sdf = sdf_peg;
  grip.friction[0] = c->mu;
  grip.condim = 3;
  grip.contype = 0;
  grip.conaffinity = BIT_ARM | BIT_STAND;
  // a pad meets the round peg along a line; at the run's min_margin (a tenth of the
  // clearance) a tilt of a few urad leaves one end of it out of the rows and the peg pivots
  // in the grasp about that one point. The grip's own margin keeps the whole line in.
  grip.margin = GRIP_MARGIN;
  ok &= tf_builder_add_geom(b, &grip) >= 0;
  ok &= peg_add_measures(b, ps, sdf_peg, sdf_hole) == 0;
  if (ok && s->grasp == TF_ROBOT_GRASP_WELD) {
    tf_equality_def weld = tf_equality_def_default();
    weld.name = "grasp_weld";
    weld.type = TF_EQ_WELD;
    weld.body1 = s->robot.panda.hand;
    weld.body2 = ps->body;
    ok &= tf_builder_add_equality(b, &weld) >= 0;
  }
  if (!ok) {
    snprintf(err, errlen, "task 'peg': out of memory building the model");
    return -1;
  }
  return 0;
}

int peg_robot_scene_build(tf_env* env, peg_robot_state* s, const tf_physics* physics,
                          const tf_robot_cell* cell, tf_rng* rng, char* err, size_t errlen) {
  peg_state* ps = &s->peg;
  const peg_config* c = &ps->cfg;
  tf_part_geometry peg, hole;
  if (peg_parts_build(&peg, &hole, c, err, errlen)) return -1;
  if (peg_samples_build(ps)) {
    tf_part_geometry_free(&peg);
    tf_part_geometry_free(&hole);
    snprintf(err, errlen, "task 'peg': out of memory building the probe samples");
    return -1;
  }
  tf_builder* b = tf_builder_create();
  if (!b) {
    tf_part_geometry_free(&peg);
    tf_part_geometry_free(&hole);
    snprintf(err, errlen, "task 'peg': out of memory");
    return -1;
  }
  tf_option opt = peg_scene_option(physics, c);  // the rig's
  opt.nconmax = NCONMAX;
  tf_builder_set_option(b, &opt);
  int rc = fill_builder(b, s, cell, rng, &peg, &hole, err, errlen);
  tf_part_geometry_free(&peg);
  tf_part_geometry_free(&hole);
  if (rc == 0) rc = tf_env_compile(env, b, "peg", err, errlen);
  tf_builder_destroy(b);
  if (rc) return -1;
  tf_kinematics(env->model, env->data);

  peg_probe_spec(&env->probe, ps);
  return 0;
}
