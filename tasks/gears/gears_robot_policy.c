// The gears' robot mode as a policy (task_robot_policy.h, docs/train.md): the placed gear's
// target is its seat on its shaft at the meshing yaw its neighbour's angle gives now (the
// script's seat yaw); keypoints across its face width; success is it seated (within 0.5 mm,
// its axis within 1 deg), which meshes it (the teeth of a seated gear lie in its neighbour's
// spaces). The input's drive starts where the script's would, after the script's end, whatever
// the policy does; the run's own rule (the train turning at its ratio) is in the metrics. The
// overlap penalty's unit is the rig's teeth allowance.
#include <math.h>

#include "gears.h"
#include "gears_robot.h"
#include "task_robot_policy.h"

static tf_robot* robot(void* state) { return &((gears_robot_state*)state)->robot; }

static tf_robot_script* script(void* state) { return &((gears_robot_state*)state)->script; }

static void target(const tf_env* env, double pos[3], double quat[4]) {
  const gears_robot_state* s = env->state;
  const double* seat = s->scene.center[s->placed];
  for (int k = 0; k < 3; k++) pos[k] = seat[k];
  double yaw = gears_robot_seat_yaw(s, env->data);
  quat[0] = cos(0.5 * yaw), quat[1] = quat[2] = 0, quat[3] = sin(0.5 * yaw);
}

static double span(const tf_env* env) {
  const gears_robot_state* s = env->state;
  return s->config.face;
}

static double overlap_allowed(const tf_env* env) {
  const gears_robot_state* s = env->state;
  return tf_gears_teeth_overlap_allowed(&s->config);
}

static int success(const tf_env* env, const tf_probe_set* probes) {
  (void)probes;
  return gears_robot_seated(env->state, env->data);
}

static void control(tf_env* env) { gears_robot_drive(env->state, env->data); }

static void plan(tf_env* env) {
  gears_robot_state* s = env->state;
  s->script.part.seat_yaw = gears_robot_seat_yaw(s, env->data);
  tf_robot_script_plan(&s->script, &s->robot, env->model, env->data);
}

static const tf_robot_policy_task gears_robot_task = {
    .state_size = sizeof(gears_robot_state),
    .robot = robot,
    .script = script,
    .target = target,
    .span = span,
    .overlap_allowed = overlap_allowed,
    .success = success,
    .control = control,
    .plan = plan,
};

const tf_task_policy tf_gears_robot_policy = TF_ROBOT_POLICY(&gears_robot_task, gears_robot_state);
