// The peg task in robot mode, private: its schema's entries, its per-environment state and the
// scene builder peg_robot.c calls. The rig's frames hold (peg.h): the hole's top face is
// z = 0, its bore runs down to z = -depth, the peg's frame is its tip centre with z along
// its axis. The table top is the block's underside (z = -depth - PEG_ROBOT_BLOCK_FLOOR); the
// peg starts upright on a stand whose top is level with the block's (z = 0), so the tunnel
// probe never sees it below its seat before it goes in.
#ifndef TF_TASK_PEG_ROBOT_H
#define TF_TASK_PEG_ROBOT_H

#include "peg.h"
#include "task_robot.h"

#define PEG_ROBOT_BLOCK_FLOOR PEG_BLOCK_FLOOR  // m of block below the bore (the rig's)

// the robot schema's entries, in order (peg_robot.c holds the table)
enum {
  PEGR_SHAPE,
  PEGR_COLLIDER,
  PEGR_CLEARANCE_UM,
  PEGR_MU,
  PEGR_DEPTH_MM,
  PEGR_DIAMETER_MM,
  PEGR_LENGTH_MM,
  PEGR_CHAMFER_MM,
  PEGR_DENSITY,
  PEGR_CHORD_UM,
  PEGR_CONTROLLER,
  PEGR_GRASP,
  PEGR_PERTURB_MM,
  PEGR_PERTURB_DEG,
  PEGR_ROBOT_URDF,
  PEGR_NPARAM
};

typedef struct peg_robot_state {
  peg_state peg;  // the rig's state (config, peg body, probe samples): the rig's helpers apply
  tf_robot robot;
  tf_robot_script script;
  tf_robot_controller controller;
  int grasp;           // TF_ROBOT_GRASP_*
  double stand[2];     // m: the stand's centre (x, y)
  double start[2];     // m: the peg's start (x, y) on the stand, drawn per environment
  double mass;         // kg of the peg
  double grip_height;  // m: the TCP's height above the peg's tip in the grasp
  double seat_time;    // s: first time the tip was seated (NaN: never)
} peg_robot_state;

// the model of one environment (arm, table, stand, block, peg, and a weld when grasp is weld)
// into env, with s's ids filled and env->probe set as the rig's; the arm's start drawn from
// rng (after the peg's start, which s holds); 0, or -1 with a message
int peg_robot_scene_build(tf_env* env, peg_robot_state* s, const tf_physics* physics,
                          const tf_robot_cell* cell, tf_rng* rng, char* err, size_t errlen);

#endif  // TF_TASK_PEG_ROBOT_H
