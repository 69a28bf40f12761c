// The boltnut task in robot mode, private: its schema's entries, its per-environment state
// and the scene builder boltnut_robot.c calls. The rig's frames hold (boltnut_scene.c): the
// base plate's top face is z = 0 with the bolt standing on the axis through the origin, its
// threaded length from z = 0 up; the nut's body frame is on its axis at its bottom face. The
// table top is the plate's underside; the nut starts on a stand beside the plate whose top is
// level with the plate's (z = 0).
//
// One difference from the rig: the nut body's frame is the part's frame turned by a quarter
// turn about the axis, so that a pair of hex flats faces the body's +-y. The pick script
// (task_robot.h) closes the pads across its part's y; the part's own flats face +-x.
#ifndef TF_TASK_BOLTNUT_ROBOT_H
#define TF_TASK_BOLTNUT_ROBOT_H

#include "boltnut.h"
#include "task_robot.h"
#include "task_robot_screw.h"

// the robot schema's entries, in order (boltnut_robot.c holds the table)
enum {
  BNR_SIZE,
  BNR_FIT,
  BNR_CLEARANCE,
  BNR_MU,
  BNR_COLLIDER,
  BNR_TRAVEL_TURNS,
  BNR_MESH_CHORD,
  BNR_SCREW_SPEED,
  BNR_CONTROLLER,
  BNR_GRASP,
  BNR_PERTURB_MM,
  BNR_PERTURB_DEG,
  BNR_ROBOT_URDF,
  BNR_NPARAM
};

typedef struct boltnut_robot_state {
  tf_boltnut_state rig;  // the rig's ids, pitch, allowance, nut mass, probe samples, tracking
  tf_robot robot;
  tf_robot_script script;  // pick, carry, align, lower onto the thread; release, retreat
  tf_robot_screw screw;    // the wrist turn between the lowering and the release
  tf_robot_controller controller;
  int grasp;            // TF_ROBOT_GRASP_*
  double stand[2];      // m: the stand's centre (x, y)
  double start[2];      // m: the nut's start (x, y) on the stand, drawn per environment
  double start_yaw;     // rad: the nut's start turn about its axis, drawn per environment
  double nut_height;    // m
  double width;         // m: the nut across its flats (between the pads)
  double bolt_length;   // m: the bolt's threaded length (its tip's height above the plate)
  double grip_height;   // m: the TCP above the nut's bottom face in the grasp
  double rest_height;   // m: the nut's bottom face resting on the bolt's thread start
  double screw_length;  // s: the longest the turning may last
  double screw_speed;   // rev / s: the wrist's turning speed (tightening)
  double insert_end;    // s: the script's lowering ends (the turn begins)
  double phase_length[TF_ROBOT_NPHASE];  // s: the script's planned phase lengths
  int screw_state;       // 0 before the turn, 1 turning, 2 done (the release is scheduled)
  double screw_t0;       // s: when the turn began (NaN: never)
  double screw_end;      // s: when it stopped (NaN: never)
  double seat_time;      // s: first control step with the nut screwed down (NaN: never)
  double turns_at_seat;  // the tracked turns when it got there
  int track_turning;     // policy mode: the tracked nut has begun to turn
} boltnut_robot_state;

// the model of one environment (arm, table, plate, bolt, stand, nut, and a weld when grasp is
// weld) into env, with s's ids filled, env->probe set as the rig's and the nut's mass, height
// and the bolt's length in s; the arm's start drawn from rng (after the nut's start, which s
// holds); 0, or -1 with a one-line message
int boltnut_robot_scene_build(tf_env* env, boltnut_robot_state* s, const double* values,
                              const tf_physics* physics, const tf_robot_cell* cell, tf_rng* rng,
                              char* err, size_t errlen);
// frees what the scene allocated in s (probe samples, the robot's controller)
void boltnut_robot_scene_free(boltnut_robot_state* s);

// the task's control without moving the arm: the turn's start and stop, the wrist's command,
// the script's phases (tf_robot_script_plan); the task's control is this and tf_robot_step
void boltnut_robot_plan(tf_env* env);
// policy mode: the nut's tracking (turns, advance) starts the first control step its bottom
// face is below the bolt's tip within 1 mm of the axis (it rests on the thread's start), its
// advance counted from where it rests when it has turned 0.02 turn, as a run counts from
// where the wrist starts turning
void boltnut_robot_track_on_bolt(tf_env* env);
// the task's success rule now: screwed down to the base, upright, coaxial, the turns since the
// tracking began consistent with the advance
int boltnut_robot_success(const boltnut_robot_state* s, const tf_data* d);

#endif  // TF_TASK_BOLTNUT_ROBOT_H
