// Robot mode's policy interface (task_policy.h), one implementation for every robot-mode task
// (docs/train.md has the layout). Each task describes itself with a tf_robot_policy_task (its
// arm and script in its state, the part's target pose, its success rule) and declares its
// policy with TF_ROBOT_POLICY.
//
// Episode. It starts where a run starts: the task's build (the arm at its drawn start pose,
// the part on its stand, or welded in the hand with grasp=weld). The policy picks the part
// itself, so the gripper is part of the action; the scripted policy (the script's pick,
// place and release as actions) starts from the same state as `tightfit run`.
//
// Action (7, each in [-1, 1]): a delta of the TCP pose target, dx dy dz (world axes) in units
// of max_speed x the policy step's length, and a rotation vector rx ry rz (world axes,
// applied before the target's orientation) in units of max_rot_speed x the same; then the
// gripper's opening, -1 closed (squeezing at the fingers' force limit) to 1 open (80 mm),
// linear between, ignored with grasp=weld. The target integrates the deltas from the TCP's
// pose at the episode's start (target += delta); it stays within REACH of the shoulder and no
// lower than FLOOR under the part's seat. Over the policy step's control steps the command
// moves linearly (rotation: along the geodesic) from the last target to the new one, and the
// run's controller tracks it (tf_robot_hold; pd solves each step's joints by the mover's IK).
//
// Payload: the arm carries the part's weight (J^T m g, as the script does, libfranka's
// setLoad) while the hand holds it: the gripper commanded below the part's width with both
// fingers pressing on the part (with grasp=weld: always, as the build set it).
//
// Observation (49): q (7), qd (7), TCP position (3) and quaternion w x y z (4), TCP linear and
// angular velocity (3 + 3, world), the part's position (3) and quaternion (4) in its target's
// frame, the estimated TCP wrench (force 3, torque 3; world axes, about the TCP), the gripper's
// measured opening (1, m), the target's position (3) and quaternion (4), the time since the
// episode began (1, s). The wrench is estimated as the Panda estimates its external wrench
// (libfranka's O_F_ext_hat_K): the constraint torques of the last physics step on the arm's
// seven joints (contacts on any link, the hand or a finger, and a weld's forces) mapped to the
// TCP by the damped pseudo-inverse of J^T: the wrench the world applies to the hand.
//
// Reward per policy step: tf_policy_keypoint_reward of the part against its target pose, plus
// success_bonus when the task's success rule holds after the step, minus overlap_weight x the
// deepest overlap of the step's control steps over the task's allowance.
#ifndef TF_TASK_ROBOT_POLICY_H
#define TF_TASK_ROBOT_POLICY_H

#include <stdalign.h>
#include <stddef.h>

#include "task_policy.h"
#include "task_robot.h"

#define TF_ROBOT_POLICY_NACTION 7
#define TF_ROBOT_POLICY_NOBS 49
#define TF_ROBOT_POLICY_MAX_CTRL 32  // actuators a robot-mode model may have (the shadow's save)

// what a robot-mode task tells the shared implementation; env->state is the task's state
typedef struct tf_robot_policy_task {
  size_t state_size;  // bytes of the task's state (the scripted policy copies it)
  // the task's arm and script inside its state
  tf_robot* (*robot)(void* state);
  tf_robot_script* (*script)(void* state);
  // the part's target pose now (its frame where the task's success puts it)
  void (*target)(const tf_env* env, double pos[3], double quat[4]);
  // m: the keypoints' spread along the part's axis (the part's length, its face width ...)
  double (*span)(const tf_env* env);
  // m: the overlap the task's success allows (the penalty's unit)
  double (*overlap_allowed)(const tf_env* env);
  // the task's success rule now (probes: the run's so far)
  int (*success)(const tf_env* env, const tf_probe_set* probes);
  // before each control step in policy mode: the task's own control besides the arm (gears:
  // the drive; boltnut: the nut's tracking); NULL: none
  void (*control)(tf_env* env);
  // one control step of the task's script without moving the arm (tf_robot_script_plan and
  // what the task adds to it), on a copy of the state: the scripted policy
  void (*plan)(tf_env* env);
} tf_robot_policy_task;

// the per-environment state: the target, the gripper, the reward's bookkeeping, then a copy of
// the task's state the scripted policy runs the script on
typedef struct tf_robot_policy_state {
  tf_policy_settings set;
  double pos_limit, rot_limit;           // m, rad per policy step at action 1
  double target_pos[3], target_quat[4];  // the target the actions integrate
  double from_pos[3], from_quat[4];      // the target when the policy step began
  double rotation[3];                    // rad: from_quat to target_quat (world rotation vector)
  double gripper;                        // m: the commanded opening
  int step;                              // control steps taken in this policy step
  double shoulder[3];                    // m: the reach's centre
  double floor;                          // m: the lowest target height
  double overlap_step;                   // m: the policy step's deepest overlap so far
  long overlap_ncontact;                 // the overlap probe's sums before the control step
  double overlap_sum;
  double ctrl_save[TF_ROBOT_POLICY_MAX_CTRL];   // d->ctrl while the shadow plans
  alignas(max_align_t) unsigned char shadow[];  // the task's state, copied at begin
} tf_robot_policy_state;

int tf_robot_policy_begin(const tf_task_policy* p, void* ps, tf_env* env,
                          const tf_probe_set* probes, const tf_policy_settings* set, char* err,
                          size_t errlen);
void tf_robot_policy_act(const tf_task_policy* p, void* ps, tf_env* env, const double* action);
void tf_robot_policy_control(const tf_task_policy* p, void* ps, tf_env* env);
void tf_robot_policy_observe(const tf_task_policy* p, void* ps, tf_env* env,
                             const tf_probe_set* probes);
void tf_robot_policy_observation(const tf_task_policy* p, const void* ps, const tf_env* env,
                                 double* obs);
double tf_robot_policy_reward(const tf_task_policy* p, void* ps, const tf_env* env,
                              const tf_probe_set* probes, int* success);
void tf_robot_policy_scripted(const tf_task_policy* p, void* ps, tf_env* env, double* action);

#define TF_ROBOT_POLICY_ACTIONS "dx,dy,dz,rx,ry,rz,gripper"
#define TF_ROBOT_POLICY_OBS                                                                 \
  "q:7,qd:7,tcp_pos:3,tcp_quat:4,tcp_linvel:3,tcp_angvel:3,part_pos:3,part_quat:4,force:3," \
  "torque:3,gripper:1,target_pos:3,target_quat:4,time:1"

// a robot-mode task's policy from its description (a tf_robot_policy_task) and the type of
// its state
#define TF_ROBOT_POLICY(desc, state_type)                                             \
  {                                                                                   \
    .action_dim = TF_ROBOT_POLICY_NACTION, .obs_dim = TF_ROBOT_POLICY_NOBS,           \
    .action_names = TF_ROBOT_POLICY_ACTIONS, .obs_names = TF_ROBOT_POLICY_OBS,        \
    .state_size = sizeof(tf_robot_policy_state) + sizeof(state_type), .task = (desc), \
    .begin = tf_robot_policy_begin, .act = tf_robot_policy_act,                       \
    .control = tf_robot_policy_control, .observe = tf_robot_policy_observe,           \
    .observation = tf_robot_policy_observation, .reward = tf_robot_policy_reward,     \
    .scripted = tf_robot_policy_scripted                                              \
  }

#endif  // TF_TASK_ROBOT_POLICY_H
