// The bolt-nut's robot mode as a policy (task_robot_policy.h, docs/train.md): the nut's target
// is screwed down, its bottom face on the base plate around the bolt; keypoints up its height.
// The policy screws it with the wrist (the action's rotation about -z). The nut's turns are
// tracked from the first control step it rests on the bolt's thread start
// (boltnut_robot_track_on_bolt), and success is the task's: down on the base, upright,
// coaxial, turned as much as it advanced. The overlap penalty's unit is the rig's allowance (a
// quarter of the thread allowance).
#include "boltnut_robot.h"
#include "task_robot_policy.h"

#define OVERLAP_FRACTION 0.25  // of the allowance delta: the rig's (boltnut.c)

static tf_robot* robot(void* state) { return &((boltnut_robot_state*)state)->robot; }

static tf_robot_script* script(void* state) { return &((boltnut_robot_state*)state)->script; }

static void target(const tf_env* env, double pos[3], double quat[4]) {
  (void)env;
  pos[0] = pos[1] = pos[2] = 0;
  quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
}

static double span(const tf_env* env) {
  const boltnut_robot_state* s = env->state;
  return s->nut_height;
}

static double overlap_allowed(const tf_env* env) {
  const boltnut_robot_state* s = env->state;
  return OVERLAP_FRACTION * s->rig.delta;
}

static int success(const tf_env* env, const tf_probe_set* probes) {
  (void)probes;
  return boltnut_robot_success(env->state, env->data);
}

static const tf_robot_policy_task boltnut_robot_task = {
    .state_size = sizeof(boltnut_robot_state),
    .robot = robot,
    .script = script,
    .target = target,
    .span = span,
    .overlap_allowed = overlap_allowed,
    .success = success,
    .control = boltnut_robot_track_on_bolt,
    .plan = boltnut_robot_plan,
};

const tf_task_policy tf_boltnut_robot_policy =
    TF_ROBOT_POLICY(&boltnut_robot_task, boltnut_robot_state);
