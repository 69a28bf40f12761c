// Recursive Newton-Euler: inverse dynamics tau = M(q) qacc + c(q, v), where c holds the
// Coriolis, centrifugal and gravity forces (Featherstone, ch. 5). Gravity enters as an
// upward acceleration of the world, so c includes it without a separate pass.
//   a_b = a_parent + sum_i (sdot_i qvel_i + s_i qacc_i),   a_world = -g
//   f_b = I_b a_b + v_b x* (I_b v_b),   summed from the leaves up
//   tau_i = s_i . f_body(i)
#include <string.h>

#include "tf_math.h"
#include "model_internal.h"
#include "stage_timer.h"

void tf_rnea(const tf_model* m, tf_data* d, double* result, const double* qacc) {
  double t0 = tf_stage_start();
  size_t mark = tf_arena_mark(d);
  int nb = m->nbody;
  double* cacc = tf_arena_doubles(d, 6 * (size_t)nb);
  double* cfrc = tf_arena_doubles(d, 6 * (size_t)nb);

  memset(cacc, 0, 6 * sizeof(double));
  tf_vec3_scale(cacc + 3, m->opt.gravity, -1.0);
  memset(cfrc, 0, 6 * sizeof(double));
  for (int b = 1; b < nb; b++) {
    double* a = cacc + 6 * b;
    memcpy(a, cacc + 6 * m->body_parentid[b], 6 * sizeof(double));
    int adr = m->body_dofadr[b];
    for (int i = adr; i < adr + m->body_dofnum[b]; i++) {
      double qa = qacc ? qacc[i] : 0;
      for (int k = 0; k < 6; k++) {
        a[k] += d->cdof_dot[6 * i + k] * d->qvel[i] + d->cdof[6 * i + k] * qa;
      }
    }
    double ia[6], iv[6], vxiv[6];
    const double* inert = d->cinert + 10 * b;
    const double* v = d->cvel + 6 * b;
    tf_inertia_mul_motion(ia, inert, a);
    tf_inertia_mul_motion(iv, inert, v);
    tf_cross_force(vxiv, v, iv);
    for (int k = 0; k < 6; k++) cfrc[6 * b + k] = ia[k] + vxiv[k];
  }
  for (int b = nb - 1; b > 0; b--) {
    int parent = m->body_parentid[b];
    if (parent > 0) {
      for (int k = 0; k < 6; k++) cfrc[6 * parent + k] += cfrc[6 * b + k];
    }
  }
  for (int i = 0; i < m->nv; i++) {
    result[i] = tf_dot6(d->cdof + 6 * i, cfrc + 6 * m->dof_bodyid[i]);
    if (qacc) result[i] += m->dof_armature[i] * qacc[i];
  }
  tf_arena_release(d, mark);
  tf_stage_add(d, TF_TIMER_RNEA, t0);
}
