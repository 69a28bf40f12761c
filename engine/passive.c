// Passive joint forces: springs toward their rest position and viscous dampers. Their
// explicit values are computed here; under the euler integrator their gains also enter the
// velocity solve (forward.c), which keeps stiff springs and heavy damping stable.
#include <string.h>

#include "tf_math.h"
#include "model_internal.h"
#include "stage_timer.h"

void tf_passive(const tf_model* m, tf_data* d) {
  double t0 = tf_stage_start();
  for (int i = 0; i < m->nv; i++) d->qfrc_passive[i] = -m->dof_damping[i] * d->qvel[i];
  for (int j = 0; j < m->njnt; j++) {
    double k = m->jnt_stiffness[j];
    if (k == 0) continue;
    const double* q = d->qpos + m->jnt_qposadr[j];
    double* f = d->qfrc_passive + m->jnt_dofadr[j];
    if (m->jnt_type[j] == TF_JOINT_BALL) {
      // restoring torque along the rotation vector from the initial orientation
      double q0inv[4], rel[4], rotvec[3];
      tf_quat_conj(q0inv, m->qpos0 + m->jnt_qposadr[j]);
      tf_quat_mul(rel, q0inv, q);
      tf_quat_to_rotvec(rotvec, rel);
      for (int k3 = 0; k3 < 3; k3++) f[k3] -= k * rotvec[k3];
    } else {
      f[0] -= k * (q[0] - m->jnt_springref[j]);
    }
  }
  tf_stage_add(d, TF_TIMER_PASSIVE, t0);
}
