// Robot mode's policy interface (see task_robot_policy.h): the delta-pose target and the
// gripper, the payload while the hand holds the part, the observation with the estimated TCP
// wrench, the keypoint reward, and the script as a policy.
//
// The scripted policy. The task's state is copied once when the episode begins (the
// environment as built, before any control) into a shadow whose robot only plans: its mover
// has no controller (kind osc, so no IK either), so tf_robot_move records segments and nothing
// else. At each policy step the shadow runs the task's script one control step at a time at
// the times the coming policy step will reach (d's time set to each, then put back), reading
// the real state as the script reads it (the part in the hand, the measured TCP at the
// release), and the action is the delta from the policy's target to the shadow's command at the
// policy step's last control step, with the shadow's gripper. The gripper and a task's drive
// write d->ctrl; the shadow's writes are undone. At decimation 1 the command sequence is the
// script's own; at larger decimations the policy step's linear ramp samples it.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "task_robot_policy.h"
#include "tf_math.h"

#define MAX_OPENING 0.08     // m: the gripper's full opening (action 1)
#define REACH 0.8            // m: the target stays this close to the shoulder (the Panda: 0.855)
#define FLOOR 0.05           // m: and no lower than this under the part's target
#define WRENCH_DAMPING 1e-3  // lambda of the wrench's damped pseudo-inverse (m, rad alike)

static const tf_robot_policy_task* task_of(const tf_task_policy* p) { return p->task; }

static tf_robot* robot_of(const tf_task_policy* p, const tf_env* env) {
  return task_of(p)->robot(env->state);
}

static const tf_robot_part* part_of(const tf_task_policy* p, const tf_env* env) {
  return &task_of(p)->script(env->state)->part;
}

static double clip1(double x) { return x < -1 ? -1 : x > 1 ? 1 : x; }

int tf_robot_policy_begin(const tf_task_policy* p, void* ps, tf_env* env,
                          const tf_probe_set* probes, const tf_policy_settings* set, char* err,
                          size_t errlen) {
  const tf_robot_policy_task* task = task_of(p);
  tf_robot_policy_state* st = ps;
  const tf_model* m = env->model;
  const tf_data* d = env->data;
  if (m->nu > TF_ROBOT_POLICY_MAX_CTRL) {
    snprintf(err, errlen, "robot mode: %d actuators, the policy interface takes at most %d", m->nu,
             TF_ROBOT_POLICY_MAX_CTRL);
    return -1;
  }
  tf_robot* r = robot_of(p, env);
  st->set = *set;
  double policy_dt = set->decimation * set->control_dt;
  st->pos_limit = set->max_speed * policy_dt;
  st->rot_limit = set->max_rot_speed * policy_dt;
  // the target starts where the mover commands at the build: the TCP's pose
  tf_robot_target(r, st->target_pos, st->target_quat);
  memcpy(st->from_pos, st->target_pos, sizeof(st->from_pos));
  memcpy(st->from_quat, st->target_quat, sizeof(st->from_quat));
  memset(st->rotation, 0, sizeof(st->rotation));
  st->gripper = r->gripper;
  st->step = 0;
  memcpy(st->shoulder, d->xanchor + 3 * r->arm.joint[1], sizeof(st->shoulder));
  double seat[3], seat_quat[4];
  task->target(env, seat, seat_quat);
  st->floor = seat[2] - FLOOR;
  st->overlap_step = 0;
  st->overlap_ncontact = probes->overlap.ncontact;
  st->overlap_sum = probes->overlap.sum;
  // the shadow: the state as built, its robot a planner only
  memcpy(st->shadow, env->state, task->state_size);
  tf_robot* shadow = task->robot(st->shadow);
  shadow->kind = TF_ROBOT_OSC;
  shadow->ctrl = NULL;
  shadow->scratch = NULL;
  return 0;
}

// the target within the arm's reach and above the floor
static void clamp_target(tf_robot_policy_state* st) {
  double* x = st->target_pos;
  if (x[2] < st->floor) x[2] = st->floor;
  double e[3] = {x[0] - st->shoulder[0], x[1] - st->shoulder[1], x[2] - st->shoulder[2]};
  double n = tf_vec3_norm(e);
  if (n > REACH) {
    for (int k = 0; k < 3; k++) x[k] = st->shoulder[k] + e[k] * (REACH / n);
  }
}

void tf_robot_policy_act(const tf_task_policy* p, void* ps, tf_env* env, const double* action) {
  (void)p;
  (void)env;
  tf_robot_policy_state* st = ps;
  memcpy(st->from_pos, st->target_pos, sizeof(st->from_pos));
  memcpy(st->from_quat, st->target_quat, sizeof(st->from_quat));
  for (int k = 0; k < 3; k++) st->target_pos[k] += action[k] * st->pos_limit;
  clamp_target(st);
  double rotvec[3], turn[4];
  for (int k = 0; k < 3; k++) rotvec[k] = action[3 + k] * st->rot_limit;
  tf_quat_from_rotvec(turn, rotvec);
  tf_quat_mul(st->target_quat, turn, st->from_quat);
  tf_quat_normalize(st->target_quat);
  memcpy(st->rotation, rotvec, sizeof(st->rotation));
  st->gripper = 0.5 * (action[6] + 1) * MAX_OPENING;
  st->step = 0;
  st->overlap_step = 0;
}

// both fingers press on the part (a normal impulse in the last solve)
static int fingers_hold(const tf_robot* r, const tf_model* m, const tf_data* d, int part) {
  int touch[2] = {0, 0};
  for (int c = 0; c < d->ncon; c++) {
    const tf_contact* con = &d->contact[c];
    if (con->efc_adr < 0 || !(con->lambda[0] > 0)) continue;
    int b0 = m->geom_bodyid[con->geom[0]], b1 = m->geom_bodyid[con->geom[1]];
    int other = b0 == part ? b1 : b1 == part ? b0 : -1;
    for (int k = 0; k < 2; k++) touch[k] |= other >= 0 && other == r->panda.finger[k];
  }
  return touch[0] && touch[1];
}

void tf_robot_policy_control(const tf_task_policy* p, void* ps, tf_env* env) {
  const tf_robot_policy_task* task = task_of(p);
  tf_robot_policy_state* st = ps;
  const tf_model* m = env->model;
  tf_data* d = env->data;
  tf_robot* r = robot_of(p, env);
  tf_robot_script* script = task->script(env->state);
  // the command: the ramp from the last target to this one, the target itself at its end
  st->step++;
  double pos[3], quat[4];
  if (st->step >= st->set.decimation) {
    memcpy(pos, st->target_pos, sizeof(pos));
    memcpy(quat, st->target_quat, sizeof(quat));
  } else {
    double u = (double)st->step / st->set.decimation, rotvec[3], turn[4];
    for (int k = 0; k < 3; k++) {
      pos[k] = st->from_pos[k] + u * (st->target_pos[k] - st->from_pos[k]);
      rotvec[k] = u * st->rotation[k];
    }
    tf_quat_from_rotvec(turn, rotvec);
    tf_quat_mul(quat, turn, st->from_quat);
    tf_quat_normalize(quat);
  }
  tf_robot_hold(r, m, d, pos, quat);
  if (!script->weld) {
    tf_robot_grip(r, d, st->gripper);
    const tf_robot_part* part = &script->part;
    int held = st->gripper < part->width && fingers_hold(r, m, d, part->body);
    tf_robot_payload(r, held ? part->body : -1, held ? part->mass : 0);
  }
  if (task->control) task->control(env);
  tf_robot_step(r, m, d);
}

void tf_robot_policy_observe(const tf_task_policy* p, void* ps, tf_env* env,
                             const tf_probe_set* probes) {
  (void)p;
  (void)env;
  tf_robot_policy_state* st = ps;
  double depth = tf_policy_overlap_step(probes, st->overlap_ncontact, st->overlap_sum);
  st->overlap_step = fmax(st->overlap_step, depth);
  st->overlap_ncontact = probes->overlap.ncontact;
  st->overlap_sum = probes->overlap.sum;
}

// the wrench the world applies to the hand at the TCP (force, torque; world), from the arm's
// constraint torques: w = (J J^T + l^2 I)^-1 J tau
static void tcp_wrench(const tf_robot* r, const tf_model* m, const tf_data* d, const double* jac,
                       double w[6]) {
  const tf_arm* arm = &r->arm;
  int n = arm->njoint;
  double tau[TF_ARM_MAX_JOINTS], a[36];
  for (int j = 0; j < n; j++) tau[j] = d->qfrc_constraint[m->jnt_dofadr[arm->joint[j]]];
  for (int i = 0; i < 6; i++) {
    w[i] = 0;
    for (int j = 0; j < n; j++) w[i] += jac[n * i + j] * tau[j];
    for (int k = 0; k < 6; k++) {
      double t = i == k ? WRENCH_DAMPING * WRENCH_DAMPING : 0;
      for (int j = 0; j < n; j++) t += jac[n * i + j] * jac[n * k + j];
      a[6 * i + k] = t;
    }
  }
  if (tf_robot_solve6(a, w)) memset(w, 0, 6 * sizeof(double));
}

void tf_robot_policy_observation(const tf_task_policy* p, const void* ps, const tf_env* env,
                                 double* obs) {
  const tf_robot_policy_task* task = task_of(p);
  const tf_robot_policy_state* st = ps;
  const tf_model* m = env->model;
  const tf_data* d = env->data;
  const tf_robot* r = robot_of(p, env);
  const tf_arm* arm = &r->arm;
  int n = arm->njoint, at = 0;
  for (int j = 0; j < TF_PANDA_NJOINT; j++) {
    obs[at + j] = j < n ? d->qpos[m->jnt_qposadr[arm->joint[j]]] : 0;
    obs[at + TF_PANDA_NJOINT + j] = j < n ? d->qvel[m->jnt_dofadr[arm->joint[j]]] : 0;
  }
  at += 2 * TF_PANDA_NJOINT;
  tf_robot_tcp(r, m, d, obs + at, obs + at + 3);
  at += 7;
  double jac[6 * TF_ARM_MAX_JOINTS], qd[TF_ARM_MAX_JOINTS];
  tf_arm_jacobian(m, d, arm, jac);
  for (int j = 0; j < n; j++) qd[j] = d->qvel[m->jnt_dofadr[arm->joint[j]]];
  for (int i = 0; i < 6; i++) {
    double v = 0;
    for (int j = 0; j < n; j++) v += jac[n * i + j] * qd[j];
    obs[at + i] = v;
  }
  at += 6;
  int body = part_of(p, env)->body;
  double seat[3], seat_quat[4];
  task->target(env, seat, seat_quat);
  tf_policy_relative_pose(obs + at, d->xpos + 3 * body, d->xquat + 4 * body, seat, seat_quat);
  at += 7;
  tcp_wrench(r, m, d, jac, obs + at);
  at += 6;
  obs[at++] = d->qpos[m->jnt_qposadr[r->panda.finger_joint[0]]] +
              d->qpos[m->jnt_qposadr[r->panda.finger_joint[1]]];
  memcpy(obs + at, st->target_pos, 3 * sizeof(double));
  memcpy(obs + at + 3, st->target_quat, 4 * sizeof(double));
  at += 7;
  obs[at++] = d->time;
}

double tf_robot_policy_reward(const tf_task_policy* p, void* ps, const tf_env* env,
                              const tf_probe_set* probes, int* success) {
  const tf_robot_policy_task* task = task_of(p);
  const tf_robot_policy_state* st = ps;
  const tf_data* d = env->data;
  int body = part_of(p, env)->body;
  double seat[3], seat_quat[4];
  task->target(env, seat, seat_quat);
  double r = tf_policy_keypoint_reward(d->xpos + 3 * body, d->xquat + 4 * body, seat, seat_quat,
                                       task->span(env), NULL);
  *success = task->success(env, probes);
  if (*success) r += st->set.success_bonus;
  double allowed = task->overlap_allowed(env);
  if (st->overlap_step > 0 && allowed > 0) r -= st->set.overlap_weight * st->overlap_step / allowed;
  return r;
}

void tf_robot_policy_scripted(const tf_task_policy* p, void* ps, tf_env* env, double* action) {
  const tf_robot_policy_task* task = task_of(p);
  tf_robot_policy_state* st = ps;
  tf_data* d = env->data;
  int nu = env->model->nu, dec = st->set.decimation;
  tf_env shadow_env = *env;
  shadow_env.state = st->shadow;
  tf_robot* shadow = task->robot(st->shadow);
  double t = d->time, last = t + (dec - 1) * st->set.control_dt;
  memcpy(st->ctrl_save, d->ctrl, sizeof(double) * (size_t)nu);
  // the script's control steps of the coming policy step, on the state as it is now
  for (int j = 0; j < dec; j++) {
    d->time = t + j * st->set.control_dt;
    task->plan(&shadow_env);
  }
  d->time = t;
  memcpy(d->ctrl, st->ctrl_save, sizeof(double) * (size_t)nu);
  double pos[3], quat[4], rotvec[3];
  tf_robot_command(shadow, last, pos, quat);
  for (int k = 0; k < 3; k++) action[k] = clip1((pos[k] - st->target_pos[k]) / st->pos_limit);
  tf_quat_rotation_error(rotvec, quat, st->target_quat);
  for (int k = 0; k < 3; k++) action[3 + k] = clip1(rotvec[k] / st->rot_limit);
  action[6] = clip1(shadow->gripper / (0.5 * MAX_OPENING) - 1);
}
