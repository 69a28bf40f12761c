// Composite-rigid-body algorithm: the joint-space inertia M(q).
//
// With every dof's motion axis s_i in world coordinates (tf_kinematics), the composite
// inertia of body b's subtree is the plain sum of the spatial inertias in it, and
// M_ij = s_j^T Ic(body(i)) s_i for j on the path from dof i to the root (Featherstone,
// Rigid Body Dynamics Algorithms, ch. 6). Armature is added to the diagonal.
#include <string.h>

#include "tf_math.h"
#include "model_internal.h"
#include "stage_timer.h"

void tf_crba(const tf_model* m, tf_data* d) {
  double t0 = tf_stage_start();
  int nv = m->nv;
  memcpy(d->crb, d->cinert, sizeof(double) * 10 * (size_t)m->nbody);
  for (int b = m->nbody - 1; b > 0; b--) {
    int parent = m->body_parentid[b];
    if (parent > 0) {
      for (int k = 0; k < 10; k++) d->crb[10 * parent + k] += d->crb[10 * b + k];
    }
  }
  memset(d->qM, 0, sizeof(double) * (size_t)(nv * nv));
  for (int i = 0; i < nv; i++) {
    double force[6];
    tf_inertia_mul_motion(force, d->crb + 10 * m->dof_bodyid[i], d->cdof + 6 * i);
    for (int j = i; j >= 0; j = m->dof_parentid[j]) {
      double mij = tf_dot6(d->cdof + 6 * j, force);
      d->qM[i * nv + j] = mij;
      d->qM[j * nv + i] = mij;
    }
    d->qM[i * nv + i] += m->dof_armature[i];
  }
  tf_stage_add(d, TF_TIMER_CRBA, t0);
}
