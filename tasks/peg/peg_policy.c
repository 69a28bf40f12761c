// The peg rig as a policy (task_rig_policy.h, docs/train.md): the rig has no drive (the peg is
// dropped or fired), so the action pushes the peg down its axis with up to its own weight
// (action 1: a force m g along -z at its centre of mass; -1 pulls it up as hard); action 0 is
// the rig's own run. The peg's target is its seat on the hole's floor, upright; success is the
// rig's (seated, upright, the overlap peak within half the radial clearance).
#include <math.h>

#include "peg.h"
#include "task_rig_policy.h"

static int part(const tf_env* env) { return ((const peg_state*)env->state)->body; }

static void target(const tf_env* env, double pos[3], double quat[4]) {
  const peg_state* s = env->state;
  pos[0] = pos[1] = 0;
  pos[2] = -s->cfg.depth;
  quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
}

static double span(const tf_env* env) { return ((const peg_state*)env->state)->cfg.length; }

static double overlap_allowed(const tf_env* env) {
  return peg_overlap_allowed(&((const peg_state*)env->state)->cfg);
}

static int success(const tf_env* env, const tf_probe_set* probes) {
  const peg_state* s = env->state;
  double allowed = peg_overlap_allowed(&s->cfg);
  return peg_seated(peg_seat_error(s, env->data), peg_tilt(s, env->data)) &&
         probes->overlap.peak <= allowed;
}

// the peg's weight (N)
static double base(const tf_env* env) {
  const peg_state* s = env->state;
  return env->model->body_mass[s->body] * fabs(env->model->opt.gravity[2]);
}

static void drive(tf_env* env, double command) {
  const peg_state* s = env->state;
  // 0 - f: no push leaves +0, as the rig's untouched xfrc_applied
  env->data->xfrc_applied[6 * s->body + 2] = 0.0 - command;
}

static const tf_rig_policy_task peg_rig_task = {
    .part = part,
    .target = target,
    .span = span,
    .overlap_allowed = overlap_allowed,
    .success = success,
    .base = base,
    .drive = drive,
    .scripted = 0,
};

const tf_task_policy tf_peg_policy = TF_RIG_POLICY(&peg_rig_task, "push");
