// The peg's robot mode as a policy (task_robot_policy.h, docs/train.md): the peg's target is
// its seat on the hole's floor, upright; keypoints along its length; success is the task's
// (the tip within 1 mm of the floor, the axis within 1 deg of vertical); the overlap penalty's
// unit the rig's allowance (half the radial clearance, at least 10 um).
#include "peg_robot.h"
#include "task_robot_policy.h"

static tf_robot* robot(void* state) { return &((peg_robot_state*)state)->robot; }

static tf_robot_script* script(void* state) { return &((peg_robot_state*)state)->script; }

static void target(const tf_env* env, double pos[3], double quat[4]) {
  const peg_robot_state* s = env->state;
  pos[0] = pos[1] = 0;
  pos[2] = -s->peg.cfg.depth;
  quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
}

static double span(const tf_env* env) {
  const peg_robot_state* s = env->state;
  return s->peg.cfg.length;
}

static double overlap_allowed(const tf_env* env) {
  const peg_robot_state* s = env->state;
  return peg_overlap_allowed(&s->peg.cfg);
}

static int success(const tf_env* env, const tf_probe_set* probes) {
  (void)probes;
  const peg_robot_state* s = env->state;
  return peg_seated(peg_seat_error(&s->peg, env->data), peg_tilt(&s->peg, env->data));
}

static void plan(tf_env* env) {
  peg_robot_state* s = env->state;
  tf_robot_script_plan(&s->script, &s->robot, env->model, env->data);
}

static const tf_robot_policy_task peg_robot_task = {
    .state_size = sizeof(peg_robot_state),
    .robot = robot,
    .script = script,
    .target = target,
    .span = span,
    .overlap_allowed = overlap_allowed,
    .success = success,
    .plan = plan,
};

const tf_task_policy tf_peg_robot_policy = TF_ROBOT_POLICY(&peg_robot_task, peg_robot_state);
