// The connectors' robot mode as a policy (task_robot_policy.h, docs/train.md): the plug's
// target is its seat (mating face on the socket's floor, straight); keypoints from its mating
// face to its shell's top; success is the task's (seated within 0.2 mm, the overlap peak so
// far under 50 um), whose bound is also the overlap penalty's unit.
#include <math.h>

#include "connectors_robot.h"
#include "task_robot_policy.h"

static tf_robot* robot(void* state) { return &((connectors_robot_state*)state)->robot; }

static tf_robot_script* script(void* state) { return &((connectors_robot_state*)state)->script; }

static void target(const tf_env* env, double pos[3], double quat[4]) {
  const connectors_robot_state* s = env->state;
  pos[0] = pos[1] = 0;
  pos[2] = -s->mating_depth;
  quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
}

static double span(const tf_env* env) {
  const connectors_robot_state* s = env->state;
  return s->shell_top;
}

static double overlap_allowed(const tf_env* env) {
  (void)env;
  return CONNECTORS_ROBOT_OVERLAP_MAX;
}

static int success(const tf_env* env, const tf_probe_set* probes) {
  const connectors_robot_state* s = env->state;
  double depth = -env->data->xpos[3 * s->plug_body + 2];
  return fabs(depth - s->mating_depth) <= CONNECTORS_ROBOT_SEAT_TOL &&
         probes->overlap.peak <= CONNECTORS_ROBOT_OVERLAP_MAX;
}

static void plan(tf_env* env) {
  connectors_robot_state* s = env->state;
  tf_robot_script_plan(&s->script, &s->robot, env->model, env->data);
}

static const tf_robot_policy_task connectors_robot_task = {
    .state_size = sizeof(connectors_robot_state),
    .robot = robot,
    .script = script,
    .target = target,
    .span = span,
    .overlap_allowed = overlap_allowed,
    .success = success,
    .plan = plan,
};

const tf_task_policy tf_connectors_robot_policy =
    TF_ROBOT_POLICY(&connectors_robot_task, connectors_robot_state);
