// The gears task's robot-mode model: the rig's train (plate, shafts, shoulders, gears, the
// input's servo, the overlap samples: tf_gears_scene_add, the rig's own builder) on a table in
// the work cell, its last gear off its shaft: lying flat on a stand beside the plate, or with
// grasp=weld held in the closed hand by a weld equality made at build time (the engine has no
// switchable equalities, so the weld cannot wait for a grasp) and the script skips the pick.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gears_robot.h"
#include "tf_math.h"

#define START_LIFT 1e-4  // m: the gear starts this far above the stand and settles
#define NCONMAX 512      // contacts: the train's pairs, the fingers, the stand and the arm

// Collision bits beyond the rig's (gears_scene.c: 1 the fixture, 2 the teeth, which are also
// the Panda's ENV and ARM bits: the arm meets the plate, the shafts and every gear): the stand
// meets the placed gear (whose geoms take it as an extra affinity) and the arm.
#define BIT_STAND 8u

// the placed gear's start: flat on the stand at its drawn place and yaw, or (weld) in the hand
// of the start configuration, its axis along the TCP's -z and its frame grip_above past the TCP
static void placed_start_pose(const gears_robot_state* s, const tf_robot_cell* cell, double pos[3],
                              double quat[4]) {
  if (s->grasp != TF_ROBOT_GRASP_WELD) {
    pos[0] = s->start[0], pos[1] = s->start[1];
    pos[2] = s->stand_top + 0.5 * s->config.face + START_LIFT;
    quat[0] = cos(0.5 * s->start[2]), quat[1] = quat[2] = 0, quat[3] = sin(0.5 * s->start[2]);
    return;
  }
  double tcp[3], tq[4], z[3];
  static const double flip[4] = {0, 1, 0, 0};  // half a turn about x: z -> -z
  tf_robot_start_tcp(&s->robot, cell, tcp, tq);
  tf_quat_rotate(z, tq, (const double[3]){0, 0, 1});
  for (int k = 0; k < 3; k++) pos[k] = tcp[k] + s->grip_above * z[k];
  tf_quat_mul(quat, tq, flip);
}

static int fill_builder(tf_builder* b, gears_robot_state* s, const tf_robot_cell* cell, tf_rng* rng,
                        char* err, size_t errlen) {
  if (tf_robot_cell_build(b, cell, rng, &s->robot, err, errlen)) return -1;
  // the stand from the table up to stand_top
  if (tf_robot_add_stand(b, s->stand, s->stand_half, cell->table_top, s->stand_top, BIT_STAND) <
      0) {
    snprintf(err, errlen, "task 'gears': out of memory building the model");
    return -1;
  }
  tf_gears_config* c = &s->config;
  c->loose[s->placed] = 1;
  c->loose_conaffinity = BIT_STAND;
  placed_start_pose(s, cell, c->loose_pos[s->placed], c->loose_quat[s->placed]);
  if (tf_gears_scene_add(b, &s->scene, c, err, errlen)) return -1;
  if (s->grasp == TF_ROBOT_GRASP_WELD) {
    tf_equality_def weld = tf_equality_def_default();
    weld.name = "grasp_weld";
    weld.type = TF_EQ_WELD;
    weld.body1 = s->robot.panda.hand;
    weld.body2 = s->scene.gear_body[s->placed];
    if (tf_builder_add_equality(b, &weld) < 0) {
      snprintf(err, errlen, "task 'gears': out of memory building the model");
      return -1;
    }
  }
  return 0;
}

int gears_robot_scene_build(tf_env* env, gears_robot_state* s, const tf_physics* physics,
                            const tf_robot_cell* cell, tf_rng* rng, char* err, size_t errlen) {
  tf_builder* b = tf_builder_create();
  if (!b) {
    snprintf(err, errlen, "task 'gears': out of memory");
    return -1;
  }
  tf_option opt = tf_physics_option(physics);
  opt.max_pair_contacts = TF_GEARS_PAIR_CONTACTS;  // the rig's reasoning (gears_scene.c)
  opt.nconmax = NCONMAX;
  tf_builder_set_option(b, &opt);
  int rc = fill_builder(b, s, cell, rng, err, errlen);
  if (rc == 0) rc = tf_env_compile(env, b, "gears", err, errlen);
  tf_builder_destroy(b);
  if (rc) return -1;
  s->scene.model = env->model;
  tf_gears_scene_reset(&s->scene, &s->config, env->data);
  s->scene.model = NULL;  // the runner owns and frees the model
  tf_kinematics(env->model, env->data);
  tf_gears_scene_probe(&s->scene, &s->config, &env->probe);
  return 0;
}
