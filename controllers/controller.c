// The controller object: creation (every buffer allocated here, none in an update), targets,
// min-jerk keyframes, and the update loop with its decimation (zero-order hold).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "controller_internal.h"

// the root body (child of the world) of body b's tree
static int tree_root(const tf_model* m, int b) {
  while (b > 0 && m->body_parentid[b] > 0) b = m->body_parentid[b];
  return b;
}

// the state parts this configuration needs
static int needs_of(const tf_controller_config* cfg) {
  int needs = tf_ctrl_kind_info_get(cfg->kind)->needs;
  if (cfg->kind == TF_CTRL_HYBRID) {
    if (cfg->hybrid_motion == TF_HYBRID_IMPEDANCE) needs &= ~(NEED_MASS | NEED_BIAS | NEED_JDOT);
    if (cfg->hybrid_motion == TF_HYBRID_OSC) needs &= ~NEED_GRAVITY;
  }
  if (!cfg->gravity_compensation) needs &= ~NEED_GRAVITY;
  // ik projects its posture pull with K only when there is one
  if (cfg->kind == TF_CTRL_IK && cfg->ik_null_gain == 0) needs &= ~NEED_PINV;
  return needs;
}

// the arm tree's dofs and where each arm dof sits among them
static int setup_tree(tf_controller* c, const tf_model* m) {
  int root = tree_root(m, c->arm.tcp_body);
  c->ntree = 0;
  for (int i = 0; i < m->nv; i++) {
    if (tree_root(m, m->dof_bodyid[i]) == root) c->ntree++;
  }
  c->tree_dof = malloc(sizeof(int) * (size_t)c->ntree);
  c->tree_mass = malloc(sizeof(double) * (size_t)c->ntree * (size_t)c->ntree);
  c->tree_rhs = malloc(sizeof(double) * (size_t)c->ntree * (size_t)c->n);
  if (!c->tree_dof || !c->tree_mass || !c->tree_rhs) return -1;
  int t = 0;
  for (int i = 0; i < m->nv; i++) {
    if (tree_root(m, m->dof_bodyid[i]) != root) continue;
    for (int k = 0; k < c->n; k++) {
      if (c->dofadr[k] == i) c->arm_in_tree[k] = t;
    }
    c->tree_dof[t++] = i;
  }
  return 0;
}

tf_controller* tf_controller_create(const tf_model* m, const tf_arm* arm,
                                    const tf_controller_config* cfg, char* err, size_t errlen) {
  if (!m || !arm || !cfg) {
    tf_ctrl_fail(err, errlen, "controller: model, arm and config are required");
    return NULL;
  }
  if (tf_arm_check(m, arm, err, errlen) ||
      tf_controller_config_check(cfg, arm->njoint, err, errlen)) {
    return NULL;
  }
  tf_controller* c = calloc(1, sizeof(tf_controller));
  if (!c) {
    tf_ctrl_fail(err, errlen, "controller: out of memory");
    return NULL;
  }
  c->cfg = *cfg;
  c->arm = *arm;
  c->n = arm->njoint;
  c->nv = m->nv;
  c->needs = needs_of(cfg);
  for (int k = 0; k < c->n; k++) {
    int j = arm->joint[k], a = arm->actuator[k];
    c->qposadr[k] = m->jnt_qposadr[j];
    c->dofadr[k] = m->jnt_dofadr[j];
    c->gear[k] = m->actuator_gear[a];
    c->ctrl_lo[k] = m->actuator_forcerange[2 * a];
    c->ctrl_hi[k] = m->actuator_forcerange[2 * a + 1];
    c->limited[k] = m->jnt_limited[j];
    c->q_lo[k] = m->jnt_range[2 * j];
    c->q_hi[k] = m->jnt_range[2 * j + 1];
  }
  c->scratch_nv = malloc(sizeof(double) * (size_t)(m->nv > 0 ? m->nv : 1));
  c->saved_qvel = malloc(sizeof(double) * (size_t)(m->nv > 0 ? m->nv : 1));
  if (!c->scratch_nv || !c->saved_qvel || setup_tree(c, m)) {
    tf_controller_destroy(c);
    tf_ctrl_fail(err, errlen, "controller: out of memory");
    return NULL;
  }
  c->pose_quat[0] = 1;
  return c;
}

void tf_controller_destroy(tf_controller* c) {
  if (!c) return;
  free(c->tree_dof);
  free(c->tree_mass);
  free(c->tree_rhs);
  free(c->scratch_nv);
  free(c->saved_qvel);
  free(c);
}

const tf_controller_config* tf_controller_config_of(const tf_controller* c) { return &c->cfg; }

void tf_controller_reset(tf_controller* c, const tf_model* m, tf_data* d) {
  tf_kinematics(m, d);
  c->nkey = 1;
  c->key_time[0] = d->time;
  for (int k = 0; k < c->n; k++) {
    c->key_q[k] = d->qpos[c->qposadr[k]];
    c->posture[k] = c->key_q[k];
    c->torque[k] = 0;
  }
  tf_arm_tcp_pose(m, d, &c->arm, c->pose_pos, c->pose_quat);
  memset(c->wrench, 0, sizeof(c->wrench));
  memset(c->measured, 0, sizeof(c->measured));
  c->calls = 0;
}

int tf_controller_set_keyframes(tf_controller* c, int n, const double* times, const double* q,
                                char* err, size_t errlen) {
  if (n < 1 || n > TF_CONTROLLER_MAX_KEYFRAMES) {
    return tf_ctrl_fail(err, errlen, "keyframes: need 1..%d keyframes (got %d)",
                        TF_CONTROLLER_MAX_KEYFRAMES, n);
  }
  for (int i = 0; i < n; i++) {
    if (!isfinite(times[i]) || (i > 0 && !(times[i] > times[i - 1]))) {
      return tf_ctrl_fail(err, errlen,
                          "keyframes: times must be finite and strictly increasing "
                          "(keyframe %d at %g s)",
                          i, times[i]);
    }
    for (int k = 0; k < c->n; k++) {
      if (!isfinite(q[i * c->n + k])) {
        return tf_ctrl_fail(err, errlen, "keyframes: q of keyframe %d joint %d is not finite", i,
                            k);
      }
    }
  }
  c->nkey = n;
  for (int i = 0; i < n; i++) {
    c->key_time[i] = times[i];
    memcpy(c->key_q + i * NJ, q + i * c->n, sizeof(double) * (size_t)c->n);
  }
  return 0;
}

int tf_controller_move_joints(tf_controller* c, const tf_model* m, const tf_data* d,
                              const double* q, double duration, char* err, size_t errlen) {
  (void)m;
  if (!(duration > 0) || !isfinite(duration)) {
    return tf_ctrl_fail(err, errlen, "move_joints: duration must be > 0 s (got %g)", duration);
  }
  double times[2] = {d->time, d->time + duration}, key[2 * NJ];
  for (int k = 0; k < c->n; k++) {
    key[k] = d->qpos[c->qposadr[k]];
    key[c->n + k] = q[k];
  }
  return tf_controller_set_keyframes(c, 2, times, key, err, errlen);
}

void tf_min_jerk(double tau, double* s, double* ds, double* dds) {
  double t = tau < 0 ? 0 : (tau > 1 ? 1 : tau);
  double t2 = t * t, t3 = t2 * t;
  if (s) *s = t3 * (10 - 15 * t + 6 * t2);
  if (ds) *ds = 30 * t2 * (1 - 2 * t + t2);
  if (dds) *dds = 60 * t * (1 - 3 * t + 2 * t2);
}

void tf_controller_joint_reference(const tf_controller* c, double t, double* q, double* qd,
                                   double* qdd) {
  int n = c->n, seg = 0;
  while (seg + 1 < c->nkey && t >= c->key_time[seg + 1]) seg++;
  const double* q0 = c->key_q + seg * NJ;
  if (seg + 1 >= c->nkey || t <= c->key_time[seg]) {
    // holding a keyframe: before the first, at or after the last
    for (int k = 0; k < n; k++) {
      if (q) q[k] = q0[k];
      if (qd) qd[k] = 0;
      if (qdd) qdd[k] = 0;
    }
    return;
  }
  const double* q1 = q0 + NJ;
  double span = c->key_time[seg + 1] - c->key_time[seg], s, ds, dds;
  tf_min_jerk((t - c->key_time[seg]) / span, &s, &ds, &dds);
  for (int k = 0; k < n; k++) {
    double delta = q1[k] - q0[k];
    if (q) q[k] = q0[k] + delta * s;
    if (qd) qd[k] = delta * ds / span;
    if (qdd) qdd[k] = delta * dds / (span * span);
  }
}

void tf_controller_set_pose(tf_controller* c, const double pos[3], const double quat[4]) {
  double n = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
  for (int k = 0; k < 3; k++) c->pose_pos[k] = pos[k];
  for (int k = 0; k < 4; k++) c->pose_quat[k] = n > 0 ? quat[k] / n : (k == 0);
}

void tf_controller_set_wrench(tf_controller* c, const double wrench[6]) {
  memcpy(c->wrench, wrench, sizeof(c->wrench));
}

void tf_controller_set_posture(tf_controller* c, const double* q) {
  memcpy(c->posture, q, sizeof(double) * (size_t)c->n);
}

// writes the held torques into the motors' controls
static void write_ctrl(const tf_controller* c, tf_data* d) {
  for (int k = 0; k < c->n; k++) d->ctrl[c->arm.actuator[k]] = c->torque[k] / c->gear[k];
}

int tf_controller_compute(tf_controller* c, const tf_model* m, tf_data* d) {
  double tau[NJ] = {0};
  int status = tf_ctrl_state_update(c, m, d, c->needs);
  if (status == 0) status = tf_ctrl_kind_info_get(c->cfg.kind)->compute(c, m, d, tau);
  for (int k = 0; k < c->n && status == 0; k++) {
    if (!isfinite(tau[k])) status = -1;
  }
  for (int k = 0; k < c->n; k++) {
    double ctrl = status == 0 ? tau[k] / c->gear[k] : 0;
    // the motor clamps anyway; clamping here keeps the reported torque the applied one
    if (c->ctrl_lo[k] < c->ctrl_hi[k]) ctrl = fmin(fmax(ctrl, c->ctrl_lo[k]), c->ctrl_hi[k]);
    c->torque[k] = ctrl * c->gear[k];
  }
  write_ctrl(c, d);
  return status;
}

int tf_controller_update(tf_controller* c, const tf_model* m, tf_data* d) {
  int status = 0;
  if (c->calls % c->cfg.decimation == 0) {
    status = tf_controller_compute(c, m, d);
  } else {
    write_ctrl(c, d);
  }
  c->calls++;
  return status;
}

const double* tf_controller_torque(const tf_controller* c) { return c->torque; }

const double* tf_controller_measured_wrench(const tf_controller* c) { return c->measured; }
