// Time integration: positions on the configuration manifold and the two integrators.
//
// Quaternions (free and ball joints) move by the exponential map in the body frame:
// q <- q (x) exp(h w / 2). rk4 is Runge-Kutta-Munthe-Kaas: the stages live in the tangent
// space at the step's start, theta' = dexp^-1(theta) w with the right Jacobian inverse
//   Jr^-1(theta) = 1 + [theta]x / 2 + (1/|theta|^2 - (1 + cos|theta|) / (2 |theta| sin|theta|))
//   [theta]x^2
// which keeps the classic fourth order on rotations (plain averaging of body rates loses it).
#include <math.h>
#include <string.h>

#include "tf_math.h"
#include "model_internal.h"
#include "stage_timer.h"

void tf_integrate_pos(const tf_model* m, double* qpos_out, const double* qpos, const double* qvel,
                      double scale) {
  for (int j = 0; j < m->njnt; j++) {
    const double* q = qpos + m->jnt_qposadr[j];
    double* out = qpos_out + m->jnt_qposadr[j];
    const double* v = qvel + m->jnt_dofadr[j];
    int type = m->jnt_type[j];
    if (type == TF_JOINT_FREE) {
      for (int k = 0; k < 3; k++) out[k] = q[k] + scale * v[k];
      q += 3;
      out += 3;
      v += 3;
    }
    if (type == TF_JOINT_FREE || type == TF_JOINT_BALL) {
      double rotvec[3], dq[4];
      tf_vec3_scale(rotvec, v, scale);
      tf_quat_from_rotvec(dq, rotvec);
      tf_quat_mul(out, q, dq);
      tf_quat_normalize(out);
    } else {
      out[0] = q[0] + scale * v[0];
    }
  }
}

void tf_difference_pos(const tf_model* m, double* qvel, const double* qpos_a,
                       const double* qpos_b) {
  for (int j = 0; j < m->njnt; j++) {
    const double* a = qpos_a + m->jnt_qposadr[j];
    const double* b = qpos_b + m->jnt_qposadr[j];
    double* v = qvel + m->jnt_dofadr[j];
    int type = m->jnt_type[j];
    if (type == TF_JOINT_FREE) {
      for (int k = 0; k < 3; k++) v[k] = b[k] - a[k];
      a += 3;
      b += 3;
      v += 3;
    }
    if (type == TF_JOINT_FREE || type == TF_JOINT_BALL) {
      double ainv[4], rel[4];
      tf_quat_conj(ainv, a);
      tf_quat_mul(rel, ainv, b);
      tf_quat_to_rotvec(v, rel);
    } else {
      v[0] = b[0] - a[0];
    }
  }
}

// out = Jr^-1(theta) w for each rotational triple, identity elsewhere
static void tangent_rate(const tf_model* m, double* out, const double* theta, const double* qvel) {
  memcpy(out, qvel, sizeof(double) * (size_t)m->nv);
  for (int j = 0; j < m->njnt; j++) {
    int type = m->jnt_type[j];
    if (type != TF_JOINT_FREE && type != TF_JOINT_BALL) continue;
    int adr = m->jnt_dofadr[j] + (type == TF_JOINT_FREE ? 3 : 0);
    const double* th = theta + adr;
    const double* w = qvel + adr;
    double angle2 = tf_vec3_dot(th, th);
    double angle = sqrt(angle2);
    double c = angle > 1e-4 ? 1.0 / angle2 - (1 + cos(angle)) / (2 * angle * sin(angle))
                            : 1.0 / 12.0 + angle2 / 720.0;
    double txw[3], txtxw[3];
    tf_vec3_cross(txw, th, w);
    tf_vec3_cross(txtxw, th, txw);
    for (int k = 0; k < 3; k++) out[adr + k] = w[k] + 0.5 * txw[k] + c * txtxw[k];
  }
}

static int all_finite(const double* x, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i])) return 0;
  }
  return 1;
}

int tf_step_rk4(const tf_model* m, tf_data* d) {
  static const double stage_c[4] = {0, 0.5, 0.5, 1};
  static const double weight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  int nq = m->nq, nv = m->nv;
  double h = m->opt.timestep;
  size_t mark = tf_arena_mark(d);
  double* q0 = tf_arena_doubles(d, (size_t)nq);
  double* v0 = tf_arena_doubles(d, (size_t)nv);
  double* theta = tf_arena_doubles(d, (size_t)nv);
  double* ktheta = tf_arena_doubles(d, 4 * (size_t)nv);
  double* kvel = tf_arena_doubles(d, 4 * (size_t)nv);
  double time0 = d->time;
  memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
  memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);

  int status = 0;
  for (int s = 0; s < 4 && status == 0; s++) {
    double c = stage_c[s] * h;
    for (int i = 0; i < nv; i++) {
      theta[i] = s ? c * ktheta[(s - 1) * nv + i] : 0;
      d->qvel[i] = v0[i] + (s ? c * kvel[(s - 1) * nv + i] : 0);
    }
    tf_integrate_pos(m, d->qpos, q0, theta, 1.0);
    d->time = time0 + c;
    status = tf_forward(m, d);
    double t0 = tf_stage_start();
    memcpy(kvel + s * nv, d->qacc, sizeof(double) * (size_t)nv);
    tangent_rate(m, ktheta + s * nv, theta, d->qvel);
    tf_stage_add(d, TF_TIMER_INTEGRATE, t0);
  }
  double t0 = tf_stage_start();
  if (status == 0) {
    for (int i = 0; i < nv; i++) {
      double dth = 0, dv = 0;
      for (int s = 0; s < 4; s++) {
        dth += weight[s] * ktheta[s * nv + i];
        dv += weight[s] * kvel[s * nv + i];
      }
      theta[i] = h * dth;
      d->qvel[i] = v0[i] + h * dv;
    }
    tf_integrate_pos(m, d->qpos, q0, theta, 1.0);
    d->time = time0 + h;
    if (!all_finite(d->qpos, nq) || !all_finite(d->qvel, nv)) status = -2;
  }
  if (status != 0) {
    memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
    d->time = time0;
  }
  tf_arena_release(d, mark);
  tf_stage_add(d, TF_TIMER_INTEGRATE, t0);
  return status;
}
