// The smooth dynamics of one state: everything up to the joint accelerations.
//
//   stages: kinematics -> velocity -> crba -> rnea (bias) -> passive + actuation -> solve
//
// Under euler with implicit_servo, joint damping D, stiffness K and servo gains enter the
// velocity solve. Linearising f(q + h v+, v+) about the current state gives
//   (M + h D + h^2 K) (v+ - v) = h (f - h K v)
// so qacc = (v+ - v) / h solves (M + h D + h^2 K) qacc = f - h K v. Explicit PD goes
// unstable once h^2 kp exceeds the inertia; this form stays stable for any gain.
#include <math.h>
#include <string.h>

#include "linalg_dense.h"
#include "tf_math.h"
#include "model_internal.h"
#include "stage_timer.h"

// adds the user's body wrenches (at the com, world axes) as generalised forces:
// tau_i = s_i . (sum of the wrenches on body(i)'s subtree, about the origin)
static void apply_body_wrenches(const tf_model* m, tf_data* d, double* qfrc) {
  int nb = m->nbody, any = 0;
  for (int k = 6; k < 6 * nb && !any; k++) any = d->xfrc_applied[k] != 0;
  if (!any) return;
  size_t mark = tf_arena_mark(d);
  double* sub = tf_arena_doubles(d, 6 * (size_t)nb);
  for (int b = 0; b < nb; b++) {
    const double* w = d->xfrc_applied + 6 * b;
    double moment[3];
    tf_vec3_cross(moment, d->xipos + 3 * b, w);
    tf_vec3_add(sub + 6 * b, w + 3, moment);
    tf_vec3_copy(sub + 6 * b + 3, w);
  }
  for (int b = nb - 1; b > 0; b--) {
    int parent = m->body_parentid[b];
    for (int k = 0; k < 6 && parent > 0; k++) sub[6 * parent + k] += sub[6 * b + k];
  }
  for (int i = 0; i < m->nv; i++) qfrc[i] += tf_dot6(d->cdof + 6 * i, sub + 6 * m->dof_bodyid[i]);
  tf_arena_release(d, mark);
}

// factors a (nv x nv, symmetric) into d->qLD and solves for x in place; 0 on success.
// A symmetric matrix is the same in either storage order, so the column-major Cholesky
// (linalg_dense.h) runs on it directly.
int tf_factor_solve(const tf_model* m, tf_data* d, const double* a, double* x) {
  double t0 = tf_stage_start();
  int nv = m->nv;
  memcpy(d->qLD, a, sizeof(double) * (size_t)(nv * nv));
  int info = tf_cholesky(nv, d->qLD);
  if (info == 0) tf_cholesky_solve(nv, 1, d->qLD, x);
  tf_stage_add(d, TF_TIMER_FACTOR, t0);
  return info;
}

int tf_forward(const tf_model* m, tf_data* d) { return tf_forward_h(m, d, m->opt.timestep); }

int tf_forward_h(const tf_model* m, tf_data* d, double h) {
  int nv = m->nv;
  tf_kinematics(m, d);
  tf_velocity(m, d);
  tf_crba(m, d);
  tf_rnea(m, d, d->qfrc_bias, NULL);
  tf_passive(m, d);
  tf_actuation(m, d);
  if (nv == 0) return 0;

  size_t mark = tf_arena_mark(d);
  double* force = tf_arena_doubles(d, (size_t)nv);
  double* a = d->qA;
  for (int i = 0; i < nv; i++) {
    force[i] = d->qfrc_passive[i] + d->qfrc_actuator[i] + d->qfrc_applied[i] - d->qfrc_bias[i];
  }
  apply_body_wrenches(m, d, force);
  memcpy(a, d->qM, sizeof(double) * (size_t)(nv * nv));

  if (m->opt.integrator == TF_INTEGRATOR_EULER && m->opt.implicit_servo) {
    double* damping = tf_arena_doubles(d, (size_t)nv);
    double* stiffness = tf_arena_doubles(d, (size_t)nv);
    tf_implicit_gains(m, d, damping, stiffness);
    for (int i = 0; i < nv; i++) {
      a[i * nv + i] += h * damping[i] + h * h * stiffness[i];
      force[i] -= h * stiffness[i] * d->qvel[i];
    }
  }
  int status = 0;
  if (tf_factor_solve(m, d, a, force) != 0) {
    tf_warn(d, TF_WARN_SINGULAR);
    status = -1;
  } else {
    memcpy(d->qacc, force, sizeof(double) * (size_t)nv);
  }
  tf_arena_release(d, mark);
  return status;
}
