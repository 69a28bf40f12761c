// The gears task in robot mode, private: its schema's entries, its per-environment state and
// the scene builder gears_robot.c calls. The rig's frames hold (gears_scene.h): the base
// plate's top face is z = 0, the input's shaft axis is x = y = 0, the train runs along +x, a
// seated gear's frame is on its shaft axis, face / 2 above its shoulder, its axis +z. The
// plate lies on the table (the table's top is z = -TF_GEARS_PLATE_THICKNESS). The last gear of
// the train starts off its shaft, lying flat on a stand beside the plate; the others are the
// rig's, on their shafts at their centred mesh.
#ifndef TF_TASK_GEARS_ROBOT_H
#define TF_TASK_GEARS_ROBOT_H

#include "gears_scene.h"
#include "task_robot.h"

// the robot schema's entries, in order (gears_robot.c holds the table)
enum {
  GRR_MOUNT,
  GRR_INPUT_SPEED,
  GRR_MODULE,
  GRR_TEETH,
  GRR_BACKLASH,
  GRR_MU,
  GRR_COLLIDER,
  GRR_FACE,
  GRR_BORE,
  GRR_CLEARANCE,
  GRR_CHORD,
  GRR_CONTROLLER,
  GRR_GRASP,
  GRR_PERTURB_MM,
  GRR_PERTURB_DEG,
  GRR_ROBOT_URDF,
  GRR_NPARAM
};

typedef struct gears_robot_state {
  tf_gears_config config;  // the rig's configuration, the placed gear loose
  tf_gears_scene scene;    // the rig's scene pieces (ids, centres, samples); model handed over
  tf_robot robot;
  tf_robot_script script;
  tf_robot_controller controller;
  int grasp;           // TF_ROBOT_GRASP_*
  int placed;          // the gear the robot places (the train's last)
  double stand[2];     // m: the stand's centre (x, y)
  double stand_top;    // m: z of the stand's top face
  double stand_half;   // m: half the stand's side: under the gear's web, clear of the pads
  double start[3];     // m: the placed gear's start (x, y on the stand) and yaw (rad), drawn
  double mass;         // kg of the placed gear
  double tip_radius;   // m: the placed gear's tip circle (the pads meet it)
  double grip_above;   // m: the TCP above the placed gear's frame in the grasp
  double drive_start;  // s: the input's servo starts (the script's end: the arm is clear)
  double seat_time;    // s: first time the placed gear was seated (NaN: never)
} gears_robot_state;

// seconds of the whole run for a controller and grasp: the script, then (friction) the drive
// the probe's ratio window measures
double gears_robot_run_length(tf_robot_controller controller, int grasp);

// the model of one environment (arm, table, stand, the rig's plate, shafts and gears with the
// placed one on the stand or, grasp=weld, welded in the hand) into env, with s's ids filled and
// env->probe set as the rig's; the arm's start drawn from rng; 0, or -1 with a message
int gears_robot_scene_build(tf_env* env, gears_robot_state* s, const tf_physics* physics,
                            const tf_robot_cell* cell, tf_rng* rng, char* err, size_t errlen);

// the placed gear's seat yaw now: its neighbour's angle carried through the mesh (rad)
double gears_robot_seat_yaw(const gears_robot_state* s, const tf_data* d);
// the input's servo command at d's time: at rest until the drive starts, then ramped up
void gears_robot_drive(const gears_robot_state* s, tf_data* d);
// the placed gear seated now: within 0.5 mm of its seat, its axis within 1 deg of vertical
int gears_robot_seated(const gears_robot_state* s, const tf_data* d);

#endif  // TF_TASK_GEARS_ROBOT_H
