// The rigs' policy interface (see task_rig_policy.h): the drive's command from the action,
// the part against its target, the keypoint reward.
#include <math.h>
#include <string.h>

#include "task_rig_policy.h"

static const tf_rig_policy_task* task_of(const tf_task_policy* p) { return p->task; }

int tf_rig_policy_begin(const tf_task_policy* p, void* ps, tf_env* env, const tf_probe_set* probes,
                        const tf_policy_settings* set, char* err, size_t errlen) {
  (void)err;
  (void)errlen;
  tf_rig_policy_state* st = ps;
  st->set = *set;
  st->base = task_of(p)->base(env);
  // until the first action: the rig's own run
  st->command = task_of(p)->scripted * st->base;
  st->overlap_ncontact = probes->overlap.ncontact;
  st->overlap_sum = probes->overlap.sum;
  return 0;
}

void tf_rig_policy_act(const tf_task_policy* p, void* ps, tf_env* env, const double* action) {
  (void)p;
  (void)env;
  tf_rig_policy_state* st = ps;
  st->command = action[0] * st->base;
  st->overlap_step = 0;
}

void tf_rig_policy_control(const tf_task_policy* p, void* ps, tf_env* env) {
  const tf_rig_policy_state* st = ps;
  task_of(p)->drive(env, st->command);
}

void tf_rig_policy_observe(const tf_task_policy* p, void* ps, tf_env* env,
                           const tf_probe_set* probes) {
  (void)p;
  (void)env;
  tf_rig_policy_state* st = ps;
  double depth = tf_policy_overlap_step(probes, st->overlap_ncontact, st->overlap_sum);
  st->overlap_step = fmax(st->overlap_step, depth);
  st->overlap_ncontact = probes->overlap.ncontact;
  st->overlap_sum = probes->overlap.sum;
}

void tf_rig_policy_observation(const tf_task_policy* p, const void* ps, const tf_env* env,
                               double* obs) {
  const tf_rig_policy_task* task = task_of(p);
  const tf_rig_policy_state* st = ps;
  const tf_data* d = env->data;
  int body = task->part(env);
  double target[3], target_quat[4];
  task->target(env, target, target_quat);
  tf_policy_relative_pose(obs, d->xpos + 3 * body, d->xquat + 4 * body, target, target_quat);
  tf_body_velocity(env->model, d, body, obs + 7);
  obs[13] = st->command;
  obs[14] = d->time;
}

double tf_rig_policy_reward(const tf_task_policy* p, void* ps, const tf_env* env,
                            const tf_probe_set* probes, int* success) {
  const tf_rig_policy_task* task = task_of(p);
  const tf_rig_policy_state* st = ps;
  const tf_data* d = env->data;
  int body = task->part(env);
  double target[3], target_quat[4];
  task->target(env, target, target_quat);
  double r = tf_policy_keypoint_reward(d->xpos + 3 * body, d->xquat + 4 * body, target, target_quat,
                                       task->span(env), NULL);
  *success = task->success ? task->success(env, probes) : 0;
  if (*success) r += st->set.success_bonus;
  double allowed = task->overlap_allowed(env);
  if (st->overlap_step > 0 && allowed > 0) r -= st->set.overlap_weight * st->overlap_step / allowed;
  return r;
}

void tf_rig_policy_scripted(const tf_task_policy* p, void* ps, tf_env* env, double* action) {
  (void)ps;
  (void)env;
  action[0] = task_of(p)->scripted;
}
