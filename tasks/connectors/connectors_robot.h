// The connectors task in robot mode, private: its schema's entries, its per-environment state
// and the scene builder connectors_robot.c calls. The rig's frames hold (connectors_scene.h):
// the socket's opening is z = 0 at the world's origin, facing +z; the plug's frame is its
// mating face's centre, z along the insertion axis; seated, the plug's frame sits at
// (0, 0, -mating depth). Robot mode adds what a robot handles: an overmold (a plain box) on
// the plug above its shell, which the fingers hold, and a rack beside the socket whose two
// rails carry the plug by the overmold's underside with the shell and pins hanging between
// them. The table top is the socket block's underside.
#ifndef TF_TASK_CONNECTORS_ROBOT_H
#define TF_TASK_CONNECTORS_ROBOT_H

#include "connectors_scene.h"
#include "task_robot.h"

#define CONNECTORS_ROBOT_SEAT_TOL 0.2e-3    // m: the rig's (connectors.c) seat tolerance
#define CONNECTORS_ROBOT_OVERLAP_MAX 50e-6  // m: the rig's overlap bound

// the robot schema's entries, in order (connectors_robot.c holds the table)
enum {
  CNR_TYPE,
  CNR_CLEARANCE,
  CNR_MU,
  CNR_COLLIDER,
  CNR_PLUG_MASS,
  CNR_MESH_CHORD,
  CNR_CONTROLLER,
  CNR_GRASP,
  CNR_PERTURB_MM,
  CNR_PERTURB_DEG,
  CNR_ROBOT_URDF,
  CNR_NPARAM
};

typedef struct connectors_robot_state {
  tf_connectors_config config;  // the rig's configuration (type, clearance, mu, collider, ...)
  tf_robot robot;
  tf_robot_script script;
  tf_robot_controller controller;
  int grasp;  // TF_ROBOT_GRASP_*
  // the model's pieces
  int plug_body;
  tf_connectors_ids ids;          // the pair's ids (connectors_scene.h)
  double mating_depth;            // m
  double shell_top;               // m: the shell's top in the plug's frame
  double centre[2];               // m: the shell's centre (x, y) in the plug's frame
  double pin_len;                 // m: the pins' reach below the mating face
  double overmold_half[3];        // m: the overmold box's half sizes
  double overmold_mass;           // kg
  double mass;                    // kg: plug and overmold
  double rack[2];                 // m: the rack's centre (x, y)
  double rack_top;                // m: z of the rails' top
  double start_offset[2];         // m: the plug's start from the rack's centre (drawn)
  double start[2];                // m: the plug's start (x, y) on the rack
  double grip_height;             // m: the TCP's height above the mating face in the grasp
  tf_connectors_samples samples;  // the overlap probe's (the rig's)
  // what the task tracks
  double depth_max;  // m: the deepest the mating face went below the opening
  double seat_time;  // s: first control step within the seat tolerance (NaN: never)
} connectors_robot_state;

// the model of one environment (arm, table, rack, socket, plug with its overmold, a weld with
// grasp=weld) into env: s's sizes (from the parts), ids and samples filled, env->probe set as
// the rig's, the table under the socket block (cell's table_top is not used), the plug at
// start_offset on the rack, the arm's start drawn from rng; 0, or -1 with a message
int connectors_robot_scene_build(tf_env* env, connectors_robot_state* s, const tf_physics* physics,
                                 const tf_robot_cell* cell, tf_rng* rng, char* err, size_t errlen);

// seconds from the start to the end of the script's last phase for a controller and grasp
double connectors_robot_script_length(tf_robot_controller controller, int grasp);

#endif  // TF_TASK_CONNECTORS_ROBOT_H
