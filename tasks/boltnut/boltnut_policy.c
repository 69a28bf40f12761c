// The bolt-nut rig as a policy (task_rig_policy.h, docs/train.md): the action scales the
// rig's drive, the servo's target spin (drive=servo, action 1: drive_speed) or the torque
// (drive=torque, action 1: drive_torque); with drive=gravity there is none and the action is
// ignored. The nut's target is down on the base; success is the rig's (reached the base,
// advancing one pitch per turn within 1 %, the overlap peak within its allowance).
#include <math.h>

#include "boltnut.h"
#include "task_list.h"
#include "task_rig_policy.h"

#define SPAN_PITCHES 4  // the keypoints' spread up the nut's axis

static int part(const tf_env* env) { return ((const tf_boltnut_state*)env->state)->nut_body; }

static void target(const tf_env* env, double pos[3], double quat[4]) {
  (void)env;
  pos[0] = pos[1] = pos[2] = 0;
  quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
}

static double span(const tf_env* env) {
  return SPAN_PITCHES * ((const tf_boltnut_state*)env->state)->pitch;
}

static double overlap_allowed(const tf_env* env) {
  return TF_BOLTNUT_OVERLAP_FRACTION * ((const tf_boltnut_state*)env->state)->delta;
}

static int success(const tf_env* env, const tf_probe_set* probes) {
  const tf_boltnut_state* s = env->state;
  const tf_boltnut_track* t = &s->track;
  double apt = tf_boltnut_track_advance_per_turn(t);
  int reached = t->height <= s->pitch && t->height >= -0.25 * s->pitch;
  int advances = isfinite(apt) && fabs(apt / s->pitch - 1) <= TF_BOLTNUT_PITCH_TOL;
  return reached && advances && probes->overlap.peak <= overlap_allowed(env);
}

static double base(const tf_env* env) {
  const tf_boltnut_state* s = env->state;
  return s->drive == BN_DRIVE_SERVO         ? s->drive_speed
         : s->drive == BN_DRIVE_TORQUE_ONLY ? s->drive_torque
                                            : 0;
}

static void drive(tf_env* env, double command) {
  tf_boltnut_state* s = env->state;
  if (s->drive == BN_DRIVE_SERVO) s->drive_speed = command;
  if (s->drive == BN_DRIVE_TORQUE_ONLY) s->drive_torque = command;
  tf_task_boltnut.control(env);
}

static const tf_rig_policy_task boltnut_rig_task = {
    .part = part,
    .target = target,
    .span = span,
    .overlap_allowed = overlap_allowed,
    .success = success,
    .base = base,
    .drive = drive,
    .scripted = 1,
};

const tf_task_policy tf_boltnut_policy = TF_RIG_POLICY(&boltnut_rig_task, "drive");
