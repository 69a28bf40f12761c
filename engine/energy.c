// Energy and momentum of a state, for conservation tests and probes.
#include "tf_math.h"
#include "model_internal.h"

void tf_energy(const tf_model* m, const tf_data* d, double energy[2]) {
  int nv = m->nv;
  double kinetic = 0;
  for (int i = 0; i < nv; i++) {
    double row = 0;
    for (int j = 0; j < nv; j++) row += d->qM[i * nv + j] * d->qvel[j];
    kinetic += 0.5 * d->qvel[i] * row;
  }
  double potential = 0;
  for (int b = 1; b < m->nbody; b++) {
    potential -= m->body_mass[b] * tf_vec3_dot(m->opt.gravity, d->xipos + 3 * b);
  }
  for (int j = 0; j < m->njnt; j++) {
    double k = m->jnt_stiffness[j];
    if (k == 0) continue;
    const double* q = d->qpos + m->jnt_qposadr[j];
    if (m->jnt_type[j] == TF_JOINT_BALL) {
      double q0inv[4], rel[4], rotvec[3];
      tf_quat_conj(q0inv, m->qpos0 + m->jnt_qposadr[j]);
      tf_quat_mul(rel, q0inv, q);
      tf_quat_to_rotvec(rotvec, rel);
      potential += 0.5 * k * tf_vec3_dot(rotvec, rotvec);
    } else {
      double dq = q[0] - m->jnt_springref[j];
      potential += 0.5 * k * dq * dq;
    }
  }
  energy[0] = kinetic;
  energy[1] = potential;
}

void tf_momentum(const tf_model* m, const tf_data* d, double momentum[6]) {
  for (int k = 0; k < 6; k++) momentum[k] = 0;
  for (int b = 1; b < m->nbody; b++) {
    double h[6];
    tf_inertia_mul_motion(h, d->cinert + 10 * b, d->cvel + 6 * b);
    for (int k = 0; k < 6; k++) momentum[k] += h[k];
  }
}
