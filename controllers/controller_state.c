// The arm's state at a control update, gathered from the engine's stages.
//
// Motion axes cdof are spatial vectors about the world origin (angular w, linear v_O), so the
// TCP Jacobian column of a dof on the TCP's path to the root is [v_O + w x p; w] at the TCP
// p, and the TCP's acceleration at zero joint acceleration (Jdot qd) follows from the sum of
// cdof_dot_i qd_i over the same path: a_p = a_O + alpha x p + w x v_p (classical acceleration
// of a body point from the spatial one). Gravity torques are tf_rnea at zero velocity and
// acceleration; the full bias c(q, qd) is tf_rnea at zero acceleration. M^-1's arm block is
// taken from the inverse of the arm tree's block of M (the gripper's dofs included), which
// is exact for the tree: other trees do not couple into M.
#include <math.h>
#include <string.h>

#include "controller_internal.h"
#include "tf_math.h"

tf_arm tf_arm_from_panda(const tf_panda* panda) {
  tf_arm arm;
  memset(&arm, 0, sizeof(arm));
  arm.njoint = TF_PANDA_NJOINT;
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    arm.joint[i] = panda->joint[i];
    arm.actuator[i] = panda->actuator[i];
  }
  arm.tcp_body = panda->tcp_body;
  memcpy(arm.tcp_pos, panda->tcp_pos, sizeof(arm.tcp_pos));
  memcpy(arm.tcp_quat, panda->tcp_quat, sizeof(arm.tcp_quat));
  return arm;
}

// the last dof on the path from body to the world (the body's own, or an ancestor's); -1
static int last_dof(const tf_model* m, int body) {
  while (body > 0 && m->body_dofnum[body] == 0) body = m->body_parentid[body];
  if (body <= 0) return -1;
  return m->body_dofadr[body] + m->body_dofnum[body] - 1;
}

static int dof_moves_body(const tf_model* m, int dof, int body) {
  for (int i = last_dof(m, body); i >= 0; i = m->dof_parentid[i]) {
    if (i == dof) return 1;
  }
  return 0;
}

int tf_arm_check(const tf_model* m, const tf_arm* arm, char* err, size_t errlen) {
  if (arm->njoint < 1 || arm->njoint > TF_ARM_MAX_JOINTS) {
    return tf_ctrl_fail(err, errlen, "arm: njoint must be in 1..%d (got %d)", TF_ARM_MAX_JOINTS,
                        arm->njoint);
  }
  if (arm->tcp_body < 1 || arm->tcp_body >= m->nbody) {
    return tf_ctrl_fail(err, errlen, "arm: tcp_body %d is not a body of the model", arm->tcp_body);
  }
  double qn = 0;
  for (int k = 0; k < 4; k++) qn += arm->tcp_quat[k] * arm->tcp_quat[k];
  if (!(fabs(qn - 1) < 1e-6)) {
    return tf_ctrl_fail(err, errlen, "arm: tcp_quat must be a unit quaternion (norm^2 %g)", qn);
  }
  for (int i = 0; i < arm->njoint; i++) {
    int j = arm->joint[i], a = arm->actuator[i];
    if (j < 0 || j >= m->njnt ||
        (m->jnt_type[j] != TF_JOINT_HINGE && m->jnt_type[j] != TF_JOINT_SLIDE)) {
      return tf_ctrl_fail(err, errlen, "arm: joint[%d] = %d is not a hinge or slide joint", i, j);
    }
    if (!dof_moves_body(m, m->jnt_dofadr[j], arm->tcp_body)) {
      return tf_ctrl_fail(err, errlen, "arm: joint '%s' does not move the TCP body '%s'",
                          tf_joint_name(m, j), tf_body_name(m, arm->tcp_body));
    }
    for (int k = 0; k < i; k++) {
      if (arm->joint[k] == j) {
        return tf_ctrl_fail(err, errlen, "arm: joint '%s' listed twice", tf_joint_name(m, j));
      }
    }
    if (a < 0 || a >= m->nu || m->actuator_type[a] != TF_ACT_MOTOR || m->actuator_jntid[a] != j ||
        m->actuator_gear[a] == 0) {
      return tf_ctrl_fail(err, errlen,
                          "arm: actuator[%d] = %d is not a torque motor (non-zero gear) on joint "
                          "'%s'",
                          i, a, tf_joint_name(m, j));
    }
  }
  return 0;
}

void tf_arm_tcp_pose(const tf_model* m, const tf_data* d, const tf_arm* arm, double pos[3],
                     double quat[4]) {
  (void)m;
  int b = arm->tcp_body;
  double offset[3];
  tf_quat_rotate(offset, d->xquat + 4 * b, arm->tcp_pos);
  for (int k = 0; k < 3; k++) pos[k] = d->xpos[3 * b + k] + offset[k];
  tf_quat_mul(quat, d->xquat + 4 * b, arm->tcp_quat);
}

// the column of one motion axis at point p: [v_O + w x p; w]
static void jacobian_column(double* jac, int n, int col, const double cdof[6], const double p[3]) {
  const double* w = cdof;
  const double* v = cdof + 3;
  jac[0 * n + col] = v[0] + w[1] * p[2] - w[2] * p[1];
  jac[1 * n + col] = v[1] + w[2] * p[0] - w[0] * p[2];
  jac[2 * n + col] = v[2] + w[0] * p[1] - w[1] * p[0];
  jac[3 * n + col] = w[0];
  jac[4 * n + col] = w[1];
  jac[5 * n + col] = w[2];
}

void tf_arm_jacobian(const tf_model* m, const tf_data* d, const tf_arm* arm, double* jac) {
  int n = arm->njoint;
  double p[3], quat[4];
  tf_arm_tcp_pose(m, d, arm, p, quat);
  memset(jac, 0, sizeof(double) * 6 * (size_t)n);
  for (int i = last_dof(m, arm->tcp_body); i >= 0; i = m->dof_parentid[i]) {
    for (int k = 0; k < n; k++) {
      if (m->jnt_dofadr[arm->joint[k]] == i) jacobian_column(jac, n, k, d->cdof + 6 * i, p);
    }
  }
}

// TCP twist from the TCP body's spatial velocity, and Jdot qd from the cdof_dot sum
static void tcp_motion(const tf_controller* c, const tf_model* m, const tf_data* d,
                       tf_arm_state* st, int with_jdot) {
  const double* cvel = d->cvel + 6 * c->arm.tcp_body;
  const double* w = cvel;
  const double* p = st->pos;
  double* v = st->twist;
  v[0] = cvel[3] + w[1] * p[2] - w[2] * p[1];
  v[1] = cvel[4] + w[2] * p[0] - w[0] * p[2];
  v[2] = cvel[5] + w[0] * p[1] - w[1] * p[0];
  v[3] = w[0], v[4] = w[1], v[5] = w[2];
  if (!with_jdot) return;
  double acc[6] = {0};
  for (int i = last_dof(m, c->arm.tcp_body); i >= 0; i = m->dof_parentid[i]) {
    for (int k = 0; k < 6; k++) acc[k] += d->cdof_dot[6 * i + k] * d->qvel[i];
  }
  const double* al = acc;
  double* a = st->jdot_qd;
  a[0] = acc[3] + al[1] * p[2] - al[2] * p[1] + w[1] * v[2] - w[2] * v[1];
  a[1] = acc[4] + al[2] * p[0] - al[0] * p[2] + w[2] * v[0] - w[0] * v[2];
  a[2] = acc[5] + al[0] * p[1] - al[1] * p[0] + w[0] * v[1] - w[1] * v[0];
  a[3] = al[0], a[4] = al[1], a[5] = al[2];
}

// M's arm block and the arm block of the tree's M^-1 (tf_crba has run)
static int mass_blocks(tf_controller* c, const tf_model* m, const tf_data* d, tf_arm_state* st) {
  int n = c->n, nt = c->ntree, nv = m->nv;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) st->mass[i * n + j] = d->qM[c->dofadr[i] * nv + c->dofadr[j]];
  }
  for (int i = 0; i < nt; i++) {
    for (int j = 0; j < nt; j++)
      c->tree_mass[i * nt + j] = d->qM[c->tree_dof[i] * nv + c->tree_dof[j]];
  }
  memset(c->tree_rhs, 0, sizeof(double) * (size_t)nt * (size_t)n);
  for (int k = 0; k < n; k++) c->tree_rhs[k * nt + c->arm_in_tree[k]] = 1;
  if (tf_ctrl_spd_solve(nt, c->tree_mass, n, c->tree_rhs)) return -1;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < n; k++) st->minv[i * n + k] = c->tree_rhs[k * nt + c->arm_in_tree[i]];
  }
  return 0;
}

// K = (J J^T)^-1 J (column-major 6 x n); a singular J J^T gets a tiny damping
static int pinv_factor(const tf_controller* c, tf_arm_state* st) {
  int n = c->n;
  double a[36];
  for (int attempt = 0; attempt < 2; attempt++) {
    tf_ctrl_jjt(a, st->jac, n, 0);
    if (attempt) {
      double trace = 0;
      for (int r = 0; r < 6; r++) trace += a[7 * r];
      for (int r = 0; r < 6; r++) a[7 * r] += 1e-9 * trace / 6 + 1e-12;
    }
    for (int k = 0; k < n; k++) {
      for (int r = 0; r < 6; r++) st->pinv_k[6 * k + r] = st->jac[r * n + k];
    }
    if (tf_ctrl_spd_solve(6, a, n, st->pinv_k) == 0) return 0;
  }
  return -1;
}

// the wrench the robot exerts at the TCP: minus the least-squares TCP wrench that explains
// the external joint torques (constraint forces of the last step and user body wrenches)
static void estimate_wrench(tf_controller* c, const tf_model* m, const tf_data* d,
                            tf_arm_state* st) {
  int n = c->n;
  double tau[NJ];
  for (int k = 0; k < n; k++) tau[k] = d->qfrc_constraint[c->dofadr[k]];
  for (int b = 1; b < m->nbody; b++) {
    const double* w = d->xfrc_applied + 6 * b;
    int any = 0;
    for (int k = 0; k < 6; k++) any |= w[k] != 0;
    if (!any) continue;
    // the wrench about the origin: moment = torque + com x force
    const double* x = d->xipos + 3 * b;
    double sp[6] = {w[3] + x[1] * w[2] - x[2] * w[1],
                    w[4] + x[2] * w[0] - x[0] * w[2],
                    w[5] + x[0] * w[1] - x[1] * w[0],
                    w[0],
                    w[1],
                    w[2]};
    for (int i = last_dof(m, b); i >= 0; i = m->dof_parentid[i]) {
      for (int k = 0; k < n; k++) {
        if (c->dofadr[k] != i) continue;
        for (int r = 0; r < 6; r++) tau[k] += d->cdof[6 * i + r] * sp[r];
      }
    }
  }
  for (int r = 0; r < 6; r++) {
    double f = 0;
    for (int k = 0; k < n; k++) f += st->pinv_k[6 * k + r] * tau[k];
    c->measured[r] = -f;
  }
}

int tf_ctrl_state_update(tf_controller* c, const tf_model* m, tf_data* d, int needs) {
  tf_arm_state* st = &c->st;
  int n = c->n, nv = m->nv;
  tf_kinematics(m, d);
  tf_velocity(m, d);
  for (int k = 0; k < n; k++) {
    st->q[k] = d->qpos[c->qposadr[k]];
    st->qd[k] = d->qvel[c->dofadr[k]];
  }
  tf_arm_tcp_pose(m, d, &c->arm, st->pos, st->quat);
  if (needs & NEED_JACOBIAN) {
    tf_arm_jacobian(m, d, &c->arm, st->jac);
    tcp_motion(c, m, d, st, (needs & NEED_JDOT) != 0);
    for (int k = 0; k < 3; k++) st->error[k] = c->pose_pos[k] - st->pos[k];
    tf_quat_rotation_error(st->error + 3, c->pose_quat, st->quat);
  }
  if ((needs & (NEED_PINV | NEED_WRENCH)) && pinv_factor(c, st)) return -1;
  if (needs & NEED_WRENCH) estimate_wrench(c, m, d, st);
  if (needs & NEED_MASS) {
    tf_crba(m, d);
    if (mass_blocks(c, m, d, st)) return -1;
  }
  if (needs & NEED_BIAS) {
    tf_rnea(m, d, c->scratch_nv, NULL);
    for (int k = 0; k < n; k++) st->bias[k] = c->scratch_nv[c->dofadr[k]];
  }
  if (needs & NEED_GRAVITY) {
    // rnea at rest: only gravity is left; the velocities are put back afterwards
    memcpy(c->saved_qvel, d->qvel, sizeof(double) * (size_t)nv);
    memset(d->qvel, 0, sizeof(double) * (size_t)nv);
    tf_velocity(m, d);
    tf_rnea(m, d, c->scratch_nv, NULL);
    memcpy(d->qvel, c->saved_qvel, sizeof(double) * (size_t)nv);
    tf_velocity(m, d);
    for (int k = 0; k < n; k++) st->grav[k] = c->scratch_nv[c->dofadr[k]];
  }
  return 0;
}
