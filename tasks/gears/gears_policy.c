// The gear-train rig as a policy (task_rig_policy.h, docs/train.md): the action scales the
// input's velocity servo target (action 1: input_speed, ramped up over the rig's first 0.1 s
// as the rig ramps it); the drop scene (impact_speed > 0) has no drive and ignores it. The
// reward follows the train's last gear (the dropped one in the drop scene) against its seat;
// the rig's rule (followers at the tooth-count ratio over the run's last second) is judged at
// the run's end, in the metrics, so the episode only truncates. The overlap penalty's unit is
// the teeth's allowance.
#include "gears.h"
#include "task_rig_policy.h"

static int part(const tf_env* env) {
  const tf_gears_state* s = env->state;
  return s->scene.gear_body[s->config.ngear - 1];
}

static void target(const tf_env* env, double pos[3], double quat[4]) {
  const tf_gears_state* s = env->state;
  const double* seat = s->scene.center[s->config.ngear - 1];
  for (int k = 0; k < 3; k++) pos[k] = seat[k];
  quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
}

static double span(const tf_env* env) { return ((const tf_gears_state*)env->state)->config.face; }

static double overlap_allowed(const tf_env* env) {
  return tf_gears_teeth_overlap_allowed(&((const tf_gears_state*)env->state)->config);
}

static double base(const tf_env* env) {
  return ((const tf_gears_state*)env->state)->config.input_speed;
}

static void drive(tf_env* env, double command) {
  const tf_gears_state* s = env->state;
  if (s->scene.actuator < 0) return;
  // the rig's ramp (gears.c): the free gears settle while the train takes up its backlash
  double t = env->data->time;
  double ramp = t < TF_GEARS_RAMP ? t / TF_GEARS_RAMP : 1;
  env->data->ctrl[s->scene.actuator] = command * ramp;
}

static const tf_rig_policy_task gears_rig_task = {
    .part = part,
    .target = target,
    .span = span,
    .overlap_allowed = overlap_allowed,
    .success = NULL,
    .base = base,
    .drive = drive,
    .scripted = 1,
};

const tf_task_policy tf_gears_policy = TF_RIG_POLICY(&gears_rig_task, "input_speed");
