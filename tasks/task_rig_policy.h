// The rigs' policy interface (task_policy.h), one implementation for every rig (docs/train.md
// has each task's drive). A rig has one drive, and the action is that drive's command: one
// number in [-1, 1] times the rig's own command (the velocity servo's speed, the push force,
// the input's speed, the nut's turn rate; the peg, which has no drive, is pushed by up to its
// weight), applied before every control step. The rig's own run is the constant action
// `scripted` (1, or 0 for the peg): stepping with it gives the run's numbers.
//
// Observation (15): the part's position (3) and quaternion w x y z (4) in its target's frame,
// its frame origin's velocity and its angular velocity (3 + 3, world), the drive's command now
// (1, the rig's units), the time since the episode began (1, s).
//
// Reward per policy step: tf_policy_keypoint_reward of the part against its target, plus
// success_bonus when the rig's success rule holds after the step, minus overlap_weight x the
// step's deepest overlap over the rig's allowance. A rig whose rule is judged over the whole
// run (the gears' speed ratio) has no success until the run's end: it only truncates.
#ifndef TF_TASK_RIG_POLICY_H
#define TF_TASK_RIG_POLICY_H

#include "task_policy.h"

#define TF_RIG_POLICY_NACTION 1
#define TF_RIG_POLICY_NOBS 15

typedef struct tf_rig_policy_task {
  int (*part)(const tf_env* env);                                    // the part the reward follows
  void (*target)(const tf_env* env, double pos[3], double quat[4]);  // its target pose
  double (*span)(const tf_env* env);                                 // m: the keypoints' spread
  double (*overlap_allowed)(const tf_env* env);                      // m: the penalty's unit
  // the rig's success rule now; NULL: judged at the run's end only
  int (*success)(const tf_env* env, const tf_probe_set* probes);
  // the command action 1 gives (read once the environment is built)
  double (*base)(const tf_env* env);
  // before each control step, in place of the rig's control: the drive at this command
  void (*drive)(tf_env* env, double command);
  double scripted;  // the action of the rig's own run
} tf_rig_policy_task;

typedef struct tf_rig_policy_state {
  tf_policy_settings set;
  double base;     // the command at action 1
  double command;  // the command of this policy step
  double overlap_step;
  long overlap_ncontact;
  double overlap_sum;
} tf_rig_policy_state;

int tf_rig_policy_begin(const tf_task_policy* p, void* ps, tf_env* env, const tf_probe_set* probes,
                        const tf_policy_settings* set, char* err, size_t errlen);
void tf_rig_policy_act(const tf_task_policy* p, void* ps, tf_env* env, const double* action);
void tf_rig_policy_control(const tf_task_policy* p, void* ps, tf_env* env);
void tf_rig_policy_observe(const tf_task_policy* p, void* ps, tf_env* env,
                           const tf_probe_set* probes);
void tf_rig_policy_observation(const tf_task_policy* p, const void* ps, const tf_env* env,
                               double* obs);
double tf_rig_policy_reward(const tf_task_policy* p, void* ps, const tf_env* env,
                            const tf_probe_set* probes, int* success);
void tf_rig_policy_scripted(const tf_task_policy* p, void* ps, tf_env* env, double* action);

#define TF_RIG_POLICY_OBS "part_pos:3,part_quat:4,part_linvel:3,part_angvel:3,command:1,time:1"

// a rig's policy from its description (a tf_rig_policy_task) and its action's name
#define TF_RIG_POLICY(desc, action)                                                               \
  {                                                                                               \
    .action_dim = TF_RIG_POLICY_NACTION, .obs_dim = TF_RIG_POLICY_NOBS, .action_names = (action), \
    .obs_names = TF_RIG_POLICY_OBS, .state_size = sizeof(tf_rig_policy_state), .task = (desc),    \
    .begin = tf_rig_policy_begin, .act = tf_rig_policy_act, .control = tf_rig_policy_control,     \
    .observe = tf_rig_policy_observe, .observation = tf_rig_policy_observation,                   \
    .reward = tf_rig_policy_reward, .scripted = tf_rig_policy_scripted                            \
  }

#endif  // TF_TASK_RIG_POLICY_H
