// Robot mode's shared pieces: the cell, the controllers by name, the min-jerk mover with its
// damped least-squares IK for pd, payload compensation and the gripper (see task_robot.h).
#include "task_robot.h"
#include "tf_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_HALF_THICKNESS 0.025  // m
#define IK_ITERATIONS 200
#define IK_DAMPING 1e-3        // m: lambda of the damped least squares (1 rad ~ IK_LENGTH)
#define IK_LENGTH 0.3          // m: rotation errors weigh as this much position error
#define IK_TOLERANCE_POS 1e-7  // m
#define IK_TOLERANCE_ROT 1e-6  // rad
#define IK_MAX_STEP 0.2        // rad: largest joint change per iteration

tf_robot_cell tf_robot_cell_default(void) {
  tf_robot_cell c;
  memset(&c, 0, sizeof(c));
  tf_panda_def def = tf_panda_def_default();
  c.table_top = 0;
  c.table_lo[0] = -0.85, c.table_hi[0] = 0.45;
  c.table_lo[1] = -0.6, c.table_hi[1] = 0.6;
  c.base[0] = -0.55, c.base[1] = 0;
  memcpy(c.q_start, def.qpos0, sizeof(c.q_start));
  c.q_perturb = 0;
  c.finger_opening = def.finger_opening;
  c.finger_friction = def.finger_friction;
  return c;
}

// ---------------------------------------------------------------- pose algebra

void tf_robot_relative(double pos[3], double quat[4], const double a_pos[3], const double a_quat[4],
                       const double b_pos[3], const double b_quat[4]) {
  double inv[4], d[3] = {b_pos[0] - a_pos[0], b_pos[1] - a_pos[1], b_pos[2] - a_pos[2]};
  tf_quat_conj(inv, a_quat);
  tf_quat_rotate(pos, inv, d);
  tf_quat_mul(quat, inv, b_quat);
  tf_quat_normalize(quat);
}

void tf_robot_compose_inverse(double pos[3], double quat[4], const double b_pos[3],
                              const double b_quat[4], const double rel_pos[3],
                              const double rel_quat[4]) {
  // A = B rel^-1: quat_A = quat_B rel_quat^-1, pos_A = pos_B - quat_A rel_pos
  double inv[4], r[3];
  tf_quat_conj(inv, rel_quat);
  tf_quat_mul(quat, b_quat, inv);
  tf_quat_normalize(quat);
  tf_quat_rotate(r, quat, rel_pos);
  for (int k = 0; k < 3; k++) pos[k] = b_pos[k] - r[k];
}

static void slerp(double out[4], const double a[4], const double b[4], double s) {
  double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  double bb[4] = {b[0], b[1], b[2], b[3]};
  if (dot < 0) {
    dot = -dot;
    for (int k = 0; k < 4; k++) bb[k] = -bb[k];
  }
  if (dot > 0.9995) {
    for (int k = 0; k < 4; k++) out[k] = a[k] + s * (bb[k] - a[k]);
  } else {
    double th = acos(dot), sa = sin((1 - s) * th) / sin(th), sb = sin(s * th) / sin(th);
    for (int k = 0; k < 4; k++) out[k] = sa * a[k] + sb * bb[k];
  }
  tf_quat_normalize(out);
}

// ---------------------------------------------------------------- the cell

int tf_robot_add_stand(tf_builder* b, const double xy[2], double half, double bottom, double top,
                       unsigned contype) {
  double height = top - bottom;
  tf_geom_def stand = tf_geom_def_default();
  stand.name = "stand";
  stand.type = TF_GEOM_BOX;
  stand.size[0] = stand.size[1] = half;
  stand.size[2] = 0.5 * height;
  stand.pos[0] = xy[0], stand.pos[1] = xy[1], stand.pos[2] = bottom + 0.5 * height;
  stand.rgba[0] = 0.4f, stand.rgba[1] = 0.4f, stand.rgba[2] = 0.45f, stand.rgba[3] = 1;
  stand.contype = contype;
  stand.conaffinity = TF_PANDA_CONTYPE_ARM;
  return tf_builder_add_geom(b, &stand);
}

int tf_robot_cell_build(tf_builder* b, const tf_robot_cell* cell, tf_rng* rng, tf_robot* r,
                        char* err, size_t errlen) {
  memset(r, 0, sizeof(*r));
  r->payload_body = -1;
  const tf_panda_params* p = tf_panda_params_get();
  tf_geom_def table = tf_geom_def_default();
  table.name = "table";
  table.body = 0;
  table.type = TF_GEOM_BOX;
  for (int k = 0; k < 2; k++) {
    table.size[k] = 0.5 * (cell->table_hi[k] - cell->table_lo[k]);
    table.pos[k] = 0.5 * (cell->table_hi[k] + cell->table_lo[k]);
  }
  table.size[2] = TABLE_HALF_THICKNESS;
  table.pos[2] = cell->table_top - TABLE_HALF_THICKNESS;
  table.rgba[0] = 0.55f, table.rgba[1] = 0.45f, table.rgba[2] = 0.35f, table.rgba[3] = 1;
  if (tf_builder_add_geom(b, &table) < 0) {
    snprintf(err, errlen, "robot cell: out of memory");
    return -1;
  }

  tf_panda_def def = tf_panda_def_default();
  def.base_pos[0] = cell->base[0];
  def.base_pos[1] = cell->base[1];
  def.base_pos[2] = cell->table_top;
  double q_min[TF_PANDA_NJOINT], q_max[TF_PANDA_NJOINT];
  memcpy(q_min, p->q_min, sizeof(q_min));
  memcpy(q_max, p->q_max, sizeof(q_max));
  if (cell->urdf) {
    if (tf_urdf_load_spec(cell->urdf, &r->urdf, err, errlen)) return -1;
    tf_urdf_limits(r->urdf, q_min, q_max);
  }
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    // drawn in joint order, so a run's start is the same on every machine
    double dq =
        cell->q_perturb > 0 && rng ? tf_rng_uniform(rng, -cell->q_perturb, cell->q_perturb) : 0;
    double q = cell->q_start[i] + dq;
    int limited = !(i == TF_PANDA_NJOINT - 1 && cell->continuous_joint7);
    if (limited) q = fmin(q_max[i] - 1e-3, fmax(q_min[i] + 1e-3, q));
    def.qpos0[i] = r->q_start[i] = q;
  }
  def.finger_opening = cell->finger_opening;
  def.finger_friction = cell->finger_friction;
  def.continuous_joint7 = cell->continuous_joint7;
  if (r->urdf) {
    if (tf_urdf_add(b, r->urdf, &def, &r->panda, err, errlen)) return -1;
  } else if (tf_panda_add(b, &def, &r->panda, err, errlen)) {
    return -1;
  }
  r->gripper = 2 * cell->finger_opening;
  return 0;
}

void tf_robot_cell_tcp(const tf_robot_cell* cell, const double q[TF_PANDA_NJOINT], double pos[3],
                       double quat[4]) {
  const tf_panda_params* p = tf_panda_params_get();
  double frames[TF_PANDA_NFRAME][16];
  tf_panda_dh_fk(frames, q);
  const double* F = frames[TF_PANDA_NFRAME - 1];
  // hand = flange RotZ(hand_yaw); TCP = hand + tcp_offset along its z (flange z)
  double c = cos(p->hand_yaw), s = sin(p->hand_yaw), R[9];
  for (int i = 0; i < 3; i++) {
    R[3 * i + 0] = F[4 * i + 0] * c + F[4 * i + 1] * s;
    R[3 * i + 1] = -F[4 * i + 0] * s + F[4 * i + 1] * c;
    R[3 * i + 2] = F[4 * i + 2];
  }
  double base[3] = {cell->base[0], cell->base[1], cell->table_top};
  for (int i = 0; i < 3; i++) pos[i] = base[i] + F[4 * i + 3] + p->tcp_offset * F[4 * i + 2];
  tf_mat_to_quat(quat, R);
}

void tf_robot_start_tcp(const tf_robot* r, const tf_robot_cell* cell, double pos[3],
                        double quat[4]) {
  if (!r->urdf) {
    tf_robot_cell_tcp(cell, r->q_start, pos, quat);
    return;
  }
  // the tcp link in the base frame, the base on the table; then the hand as
  // tf_panda_add_gripper mounts it (hand_yaw about the flange's z, the TCP along it)
  const tf_panda_params* p = tf_panda_params_get();
  double flange_pos[3], flange_quat[4],
      yaw[4] = {cos(0.5 * p->hand_yaw), 0, 0, sin(0.5 * p->hand_yaw)};
  tf_urdf_fk(r->urdf, r->q_start, flange_pos, flange_quat);
  double z[3], base[3] = {cell->base[0], cell->base[1], cell->table_top};
  tf_quat_mul(quat, flange_quat, yaw);
  tf_quat_normalize(quat);
  tf_quat_rotate(z, flange_quat, (const double[3]){0, 0, 1});
  for (int k = 0; k < 3; k++) pos[k] = base[k] + flange_pos[k] + p->tcp_offset * z[k];
}

// ---------------------------------------------------------------- controllers

static tf_controller_kind controller_kind(tf_robot_controller kind) {
  switch (kind) {
    case TF_ROBOT_IMPEDANCE:
      return TF_CTRL_IMPEDANCE;
    case TF_ROBOT_IK:
      return TF_CTRL_IK;
    case TF_ROBOT_PD:
      return TF_CTRL_PD;
    default:
      return TF_CTRL_OSC;
  }
}

void tf_robot_tcp(const tf_robot* r, const tf_model* m, const tf_data* d, double pos[3],
                  double quat[4]) {
  tf_arm_tcp_pose(m, d, &r->arm, pos, quat);
}

int tf_robot_start(tf_robot* r, const tf_model* m, tf_data* d, tf_robot_controller kind, char* err,
                   size_t errlen) {
  r->kind = kind;
  r->arm = tf_arm_from_panda(&r->panda);
  // every controller at its library defaults (tf_controller_config_default documents them),
  // gravity compensation on: the scripts ask nothing a default-tuned Panda cannot do
  tf_controller_config cfg = tf_controller_config_default(controller_kind(kind));
  r->ctrl = tf_controller_create(m, &r->arm, &cfg, err, errlen);
  if (!r->ctrl) return -1;
  r->scratch = tf_data_create(m);
  if (!r->scratch) {
    snprintf(err, errlen, "robot: out of memory");
    return -1;
  }
  tf_kinematics(m, d);
  tf_controller_reset(r->ctrl, m, d);
  tf_robot_tcp(r, m, d, r->from_pos, r->from_quat);
  memcpy(r->to_pos, r->from_pos, sizeof(r->to_pos));
  memcpy(r->to_quat, r->from_quat, sizeof(r->to_quat));
  r->t0 = r->t1 = d->time;
  tf_panda_set_gripper(&r->panda, d, r->gripper);
  return 0;
}

void tf_robot_free(tf_robot* r) {
  tf_controller_destroy(r->ctrl);
  tf_data_destroy(r->scratch);
  tf_urdf_free(r->urdf);
  r->ctrl = NULL;
  r->scratch = NULL;
  r->urdf = NULL;
}

// ---------------------------------------------------------------- IK (pd)

// Cholesky solve of the 6 x 6 SPD a x = b in place (a overwritten); 0 or -1
static int spd6_solve(double a[36], double b[6]) {
  for (int j = 0; j < 6; j++) {
    double s = a[6 * j + j];
    for (int k = 0; k < j; k++) s -= a[6 * j + k] * a[6 * j + k];
    if (!(s > 0)) return -1;
    a[6 * j + j] = sqrt(s);
    for (int i = j + 1; i < 6; i++) {
      double t = a[6 * i + j];
      for (int k = 0; k < j; k++) t -= a[6 * i + k] * a[6 * j + k];
      a[6 * i + j] = t / a[6 * j + j];
    }
  }
  for (int i = 0; i < 6; i++) {
    double t = b[i];
    for (int k = 0; k < i; k++) t -= a[6 * i + k] * b[k];
    b[i] = t / a[6 * i + i];
  }
  for (int i = 5; i >= 0; i--) {
    double t = b[i];
    for (int k = i + 1; k < 6; k++) t -= a[6 * k + i] * b[k];
    b[i] = t / a[6 * i + i];
  }
  return 0;
}

// the IK's Cholesky for other callers (the policy interface's wrench estimate)
int tf_robot_solve6(double a[36], double b[6]) { return spd6_solve(a, b); }

// joint angles q (warm start in, solution out) that put the TCP at (pos, quat), by damped
// least squares on the engine's kinematics in the scratch data; 0, or -1 when it did not
// converge (q is then the best found)
static int solve_ik(tf_robot* r, const tf_model* m, const tf_data* d, const double pos[3],
                    const double quat[4], double* q) {
  tf_data* s = r->scratch;
  const tf_arm* arm = &r->arm;
  int n = arm->njoint;
  memcpy(s->qpos, d->qpos, sizeof(double) * (size_t)m->nq);
  double jac[6 * TF_ARM_MAX_JOINTS];
  for (int it = 0; it < IK_ITERATIONS; it++) {
    for (int k = 0; k < n; k++) s->qpos[m->jnt_qposadr[arm->joint[k]]] = q[k];
    tf_kinematics(m, s);
    double p[3], qt[4], e[6];
    tf_arm_tcp_pose(m, s, arm, p, qt);
    for (int k = 0; k < 3; k++) e[k] = pos[k] - p[k];
    tf_quat_rotation_error(e + 3, quat, qt);
    double ep = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    double er = sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]);
    if (ep < IK_TOLERANCE_POS && er < IK_TOLERANCE_ROT) return 0;
    tf_arm_jacobian(m, s, arm, jac);
    // weigh rotation rows by IK_LENGTH: J' = W J, e' = W e, dq = J'^T (J' J'^T + l^2 I)^-1 e'
    for (int k = 3; k < 6; k++) {
      e[k] *= IK_LENGTH;
      for (int j = 0; j < n; j++) jac[n * k + j] *= IK_LENGTH;
    }
    double a[36];
    for (int i = 0; i < 6; i++) {
      for (int j = 0; j < 6; j++) {
        double t = i == j ? IK_DAMPING * IK_DAMPING : 0;
        for (int k = 0; k < n; k++) t += jac[n * i + k] * jac[n * j + k];
        a[6 * i + j] = t;
      }
    }
    if (spd6_solve(a, e)) return -1;
    double dq[TF_ARM_MAX_JOINTS], big = 0;
    for (int j = 0; j < n; j++) {
      dq[j] = 0;
      for (int i = 0; i < 6; i++) dq[j] += jac[n * i + j] * e[i];
      big = fmax(big, fabs(dq[j]));
    }
    double scale = big > IK_MAX_STEP ? IK_MAX_STEP / big : 1;
    for (int j = 0; j < n; j++) {
      int jn = arm->joint[j];
      q[j] += scale * dq[j];
      if (m->jnt_limited[jn]) {
        q[j] = fmin(m->jnt_range[2 * jn + 1], fmax(m->jnt_range[2 * jn], q[j]));
      }
    }
  }
  return -1;
}

// ---------------------------------------------------------------- the mover

static void current_command(const tf_robot* r, double t, double pos[3], double quat[4]) {
  double tau = r->t1 > r->t0 ? (t - r->t0) / (r->t1 - r->t0) : 1, s;
  tf_min_jerk(tau, &s, NULL, NULL);
  for (int k = 0; k < 3; k++) pos[k] = r->from_pos[k] + s * (r->to_pos[k] - r->from_pos[k]);
  slerp(quat, r->from_quat, r->to_quat, s);
}

// the segment's joint keyframes for pd: from q_from (the reference now) to the IK solution
static void plan_joints(tf_robot* r, const tf_model* m, const tf_data* d, const double* q_from,
                        double duration) {
  int n = r->arm.njoint;
  double q_goal[TF_ARM_MAX_JOINTS], keys[2 * TF_ARM_MAX_JOINTS], times[2];
  memcpy(q_goal, q_from, sizeof(double) * (size_t)n);
  if (solve_ik(r, m, d, r->to_pos, r->to_quat, q_goal)) r->ik_failed++;
  char err[128];
  if (duration > 0) {
    times[0] = d->time, times[1] = d->time + duration;
    memcpy(keys, q_from, sizeof(double) * (size_t)n);
    memcpy(keys + n, q_goal, sizeof(double) * (size_t)n);
    tf_controller_set_keyframes(r->ctrl, 2, times, keys, err, sizeof(err));
  } else {
    times[0] = d->time;
    tf_controller_set_keyframes(r->ctrl, 1, times, q_goal, err, sizeof(err));
  }
}

static void start_segment(tf_robot* r, const tf_data* d, const double from_pos[3],
                          const double from_quat[4], const double pos[3], const double quat[4],
                          double duration) {
  memcpy(r->from_pos, from_pos, sizeof(r->from_pos));
  memcpy(r->from_quat, from_quat, sizeof(r->from_quat));
  memcpy(r->to_pos, pos, sizeof(r->to_pos));
  memcpy(r->to_quat, quat, sizeof(r->to_quat));
  tf_quat_normalize(r->to_quat);
  r->t0 = d->time;
  r->t1 = d->time + fmax(0, duration);
}

void tf_robot_move(tf_robot* r, const tf_model* m, const tf_data* d, const double pos[3],
                   const double quat[4], double duration) {
  double p[3], q[4];
  current_command(r, d->time, p, q);
  start_segment(r, d, p, q, pos, quat, duration);
  if (r->kind == TF_ROBOT_PD) {
    double q_ref[TF_ARM_MAX_JOINTS];
    tf_controller_joint_reference(r->ctrl, d->time, q_ref, NULL, NULL);
    plan_joints(r, m, d, q_ref, duration);
  }
}

void tf_robot_move_from_here(tf_robot* r, const tf_model* m, tf_data* d, const double pos[3],
                             const double quat[4], double duration) {
  double p[3], q[4];
  tf_kinematics(m, d);
  tf_robot_tcp(r, m, d, p, q);
  start_segment(r, d, p, q, pos, quat, duration);
  if (r->kind == TF_ROBOT_PD) {
    double q_now[TF_ARM_MAX_JOINTS];
    for (int k = 0; k < r->arm.njoint; k++) q_now[k] = d->qpos[m->jnt_qposadr[r->arm.joint[k]]];
    plan_joints(r, m, d, q_now, duration);
  }
}

// a segment of no length at the pose (see the header)
void tf_robot_hold(tf_robot* r, const tf_model* m, const tf_data* d, const double pos[3],
                   const double quat[4]) {
  // from = to: current_command gives back exactly this pose, whatever the blend's rounding
  start_segment(r, d, pos, quat, pos, quat, 0);
  memcpy(r->from_quat, r->to_quat, sizeof(r->from_quat));
  if (r->kind == TF_ROBOT_PD) {
    double q_ref[TF_ARM_MAX_JOINTS];
    tf_controller_joint_reference(r->ctrl, d->time, q_ref, NULL, NULL);
    plan_joints(r, m, d, q_ref, 0);
  }
}

// the mover's command at time t
void tf_robot_command(const tf_robot* r, double t, double pos[3], double quat[4]) {
  current_command(r, t, pos, quat);
}

void tf_robot_target(const tf_robot* r, double pos[3], double quat[4]) {
  memcpy(pos, r->to_pos, sizeof(r->to_pos));
  memcpy(quat, r->to_quat, sizeof(r->to_quat));
}

void tf_robot_grip(tf_robot* r, tf_data* d, double opening) {
  r->gripper = opening;
  tf_panda_set_gripper(&r->panda, d, opening);
}

void tf_robot_payload(tf_robot* r, int body, double mass) {
  r->payload_body = body;
  r->payload_mass = mass > 0 ? mass : 0;
}

// J_c^T (-m gravity) for the payload's centre of mass, through the hand: added to the motors
static void add_payload(const tf_robot* r, const tf_model* m, tf_data* d) {
  if (r->payload_mass <= 0 || r->payload_body < 0) return;
  tf_arm at = r->arm;
  const double* R = d->xmat + 9 * at.tcp_body;
  const double* x = d->xpos + 3 * at.tcp_body;
  const double* c = d->xipos + 3 * r->payload_body;
  double w[3] = {c[0] - x[0], c[1] - x[1], c[2] - x[2]};
  for (int k = 0; k < 3; k++) at.tcp_pos[k] = R[k] * w[0] + R[3 + k] * w[1] + R[6 + k] * w[2];
  double jac[6 * TF_ARM_MAX_JOINTS], f[3];
  tf_arm_jacobian(m, d, &at, jac);
  for (int k = 0; k < 3; k++) f[k] = -r->payload_mass * m->opt.gravity[k];
  for (int j = 0; j < at.njoint; j++) {
    double tau = 0;
    for (int k = 0; k < 3; k++) tau += jac[at.njoint * k + j] * f[k];
    int a = at.actuator[j];
    double u = d->ctrl[a] + tau / m->actuator_gear[a];
    double lo = m->actuator_forcerange[2 * a], hi = m->actuator_forcerange[2 * a + 1];
    if (lo < hi) u = fmin(hi, fmax(lo, u));
    d->ctrl[a] = u;
  }
}

int tf_robot_step(tf_robot* r, const tf_model* m, tf_data* d) {
  if (r->kind != TF_ROBOT_PD) {
    double p[3], q[4];
    current_command(r, d->time, p, q);
    tf_controller_set_pose(r->ctrl, p, q);
  }
  int rc = tf_controller_update(r->ctrl, m, d);
  // the controller refreshed the kinematics of d: the payload's Jacobian reads them
  add_payload(r, m, d);
  return rc;
}
