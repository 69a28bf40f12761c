// Actuators on hinge and slide joints: motors and position / velocity servos.
// force = gain terms on the actuator length l = gear * q and velocity gear * qdot;
// joint force = gear * force. A force clamped by forcerange stops being a servo for that
// step (constant force), so its gains are then left out of the implicit solve.
#include <math.h>

#include "model_internal.h"
#include "stage_timer.h"

// clamps force to the actuator's range, when it has one
static void clamp_force(const tf_model* m, int a, double* force) {
  double lo = m->actuator_forcerange[2 * a], hi = m->actuator_forcerange[2 * a + 1];
  if (lo < hi) {
    if (*force < lo) *force = lo;
    if (*force > hi) *force = hi;
  }
}

void tf_actuation(const tf_model* m, tf_data* d) {
  double t0 = tf_stage_start();
  for (int i = 0; i < m->nv; i++) d->qfrc_actuator[i] = 0;
  for (int a = 0; a < m->nu; a++) {
    int j = m->actuator_jntid[a];
    int dof = m->jnt_dofadr[j];
    double gear = m->actuator_gear[a];
    double length = gear * d->qpos[m->jnt_qposadr[j]];
    double speed = gear * d->qvel[dof];
    double ctrl = d->ctrl[a];
    double force = 0;
    switch (m->actuator_type[a]) {
      case TF_ACT_MOTOR:
        force = ctrl;
        break;
      case TF_ACT_POSITION:
        force = m->actuator_kp[a] * (ctrl - length) - m->actuator_kv[a] * speed;
        break;
      case TF_ACT_VELOCITY:
        force = m->actuator_kv[a] * (ctrl - speed);
        break;
      default:
        break;
    }
    clamp_force(m, a, &force);
    d->actuator_force[a] = force;
    d->qfrc_actuator[dof] += gear * force;
  }
  tf_stage_add(d, TF_TIMER_PASSIVE, t0);
}

void tf_implicit_gains(const tf_model* m, const tf_data* d, double* damping, double* stiffness) {
  for (int i = 0; i < m->nv; i++) {
    damping[i] = m->dof_damping[i];
    stiffness[i] = 0;
  }
  for (int j = 0; j < m->njnt; j++) {
    int n = tf_joint_nv(m->jnt_type[j]);
    for (int k = 0; k < n && m->jnt_type[j] != TF_JOINT_FREE; k++) {
      stiffness[m->jnt_dofadr[j] + k] += m->jnt_stiffness[j];
    }
  }
  for (int a = 0; a < m->nu; a++) {
    int type = m->actuator_type[a];
    if (type == TF_ACT_MOTOR) continue;
    double lo = m->actuator_forcerange[2 * a], hi = m->actuator_forcerange[2 * a + 1];
    double f = d->actuator_force[a];
    if (lo < hi && (f <= lo || f >= hi)) continue;  // saturated: a constant force this step
    int dof = m->jnt_dofadr[m->actuator_jntid[a]];
    double g2 = m->actuator_gear[a] * m->actuator_gear[a];
    damping[dof] += m->actuator_kv[a] * g2;
    if (type == TF_ACT_POSITION) stiffness[dof] += m->actuator_kp[a] * g2;
  }
}
