// A task's policy interface (issue 20; the batched environments of vec_env.h drive it,
// docs/train.md documents every task's): an action of action_dim numbers in [-1, 1] taken
// every `decimation` control steps, an observation of obs_dim numbers, a reward with the
// task's success rule, and, where the task has a script, the action the script would take,
// so that the scripted run is one policy among others.
//
// An environment in policy mode is built exactly as a run builds it (the task's build, the
// probes started on its first state); the vec env then steps it as the runner does (physics
// steps, the task's observe, the probes, the divergence check), with the policy's control in
// place of the task's own. Nothing here is read by tf_task_run, so runs keep their results.
//
// The hooks get the policy itself (p: its `task` pointer carries a shared implementation's
// per-task description, as robot mode's task_robot_policy.h does), the environment's policy
// state (ps: state_size bytes the vec env allocates once and zeroes before each begin) and
// the environment.
#ifndef TF_TASK_POLICY_H
#define TF_TASK_POLICY_H

#include "task.h"

#define TF_POLICY_MAX_ACTION 8
#define TF_POLICY_MAX_OBS 64

// the settings every policy reads (vec_env.h lists their keys and defaults)
typedef struct tf_policy_settings {
  int decimation;         // control steps per policy step (>= 1)
  double control_dt;      // s: one control step (the run's dt)
  double max_speed;       // m/s: robot mode: the TCP target's speed at action 1 on an axis
  double max_rot_speed;   // rad/s: the same for each component of its rotation vector
  double success_bonus;   // reward of a policy step that ends with the task's success rule met
  double overlap_weight;  // reward: minus this x the step's deepest overlap / the task's allowance
} tf_policy_settings;

typedef struct tf_task_policy {
  int action_dim;            // <= TF_POLICY_MAX_ACTION
  int obs_dim;               // <= TF_POLICY_MAX_OBS
  const char* action_names;  // comma-separated, one per action component
  const char* obs_names;     // comma-separated "name:count" groups in layout order
  size_t state_size;         // bytes of the per-environment policy state
  const void* task;          // the task's description for a shared implementation (or NULL)
  // after each build (the probes started on the first state): the state from the built
  // environment; 0, or -1 with a one-line message
  int (*begin)(const struct tf_task_policy* p, void* ps, tf_env* env, const tf_probe_set* probes,
               const tf_policy_settings* set, char* err, size_t errlen);
  // a policy step's action, each component already clipped to [-1, 1]
  void (*act)(const struct tf_task_policy* p, void* ps, tf_env* env, const double* action);
  // before each control step of the policy step, in place of the task's control
  void (*control)(const struct tf_task_policy* p, void* ps, tf_env* env);
  // after each control step (after the task's observe and the probes)
  void (*observe)(const struct tf_task_policy* p, void* ps, tf_env* env,
                  const tf_probe_set* probes);
  // the observation now (obs_dim numbers)
  void (*observation)(const struct tf_task_policy* p, const void* ps, const tf_env* env,
                      double* obs);
  // the reward of the policy step just taken; *success: the task's success rule holds now
  double (*reward)(const struct tf_task_policy* p, void* ps, const tf_env* env,
                   const tf_probe_set* probes, int* success);
  // the action the task's script would take now (action_dim numbers in [-1, 1]); NULL: the
  // task has no script
  void (*scripted)(const struct tf_task_policy* p, void* ps, tf_env* env, double* action);
} tf_task_policy;

// Factory's keypoint reward (Narang et al. 2022, Isaac Lab's factory tasks): the mean distance
// d (m) between npoint keypoints spread over `span` along the part's z axis and the same
// keypoints on its target pose, squashed three ways and summed, 1 / (e^(a d) + b + e^(-a d))
// for (a, b) = (5, 4), (50, 2), (100, 0): 0.917 on target, falling off over decimetres,
// centimetres and millimetres. Returns the sum; *distance gets d.
#define TF_POLICY_KEYPOINTS 4
double tf_policy_keypoint_reward(const double pos[3], const double quat[4],
                                 const double target_pos[3], const double target_quat[4],
                                 double span, double* distance);
// the part's pose in its target's frame (target^-1 part): position (3) and quaternion (4)
void tf_policy_relative_pose(double out[7], const double pos[3], const double quat[4],
                             const double target_pos[3], const double target_quat[4]);
// a control step's deepest overlap (m, >= 0; 0 when the overlap probe saw no contact), from
// the overlap probe's running sums before (ncontact, sum) and after the step
double tf_policy_overlap_step(const tf_probe_set* probes, long ncontact_before, double sum_before);

#endif  // TF_TASK_POLICY_H
