// Forward kinematics and velocity kinematics over the kinematic tree.
//
// A body's joints are applied in order, each one about / along its anchor and axis given in
// the body frame: T = T_parent * T_offset * J_1(q_1) * J_2(q_2) ..., with
// J_k = Trans(p_k) Rot(a_k, q_k) Trans(-p_k). A free joint instead sets the pose directly.
// Every dof gets its motion axis cdof as a spatial vector about the world origin, so mass
// matrix, bias forces and momentum are dot products and sums without frame transforms.
#include <string.h>

#include "tf_math.h"
#include "model_internal.h"
#include "stage_timer.h"

// spatial motion axis of a rotation about axis a through point p: [a; p x a]
static void rotation_axis(double cdof[6], const double p[3], const double a[3]) {
  tf_vec3_copy(cdof, a);
  tf_vec3_cross(cdof + 3, p, a);
}

// moves the frame (pos, quat) by one non-free joint and writes its world anchor, axis and cdof
static void apply_joint(const tf_model* m, tf_data* d, int j, double pos[3], double quat[4]) {
  const double* qpos = d->qpos + m->jnt_qposadr[j];
  const double* jpos = m->jnt_pos + 3 * j;
  const double* jaxis = m->jnt_axis + 3 * j;
  double* anchor = d->xanchor + 3 * j;
  double* axis = d->xaxis + 3 * j;
  double* cdof = d->cdof + 6 * m->jnt_dofadr[j];
  double offset[3];

  tf_quat_rotate(offset, quat, jpos);
  tf_vec3_add(anchor, pos, offset);
  tf_quat_rotate(axis, quat, jaxis);

  switch (m->jnt_type[j]) {
    case TF_JOINT_SLIDE: {
      double step[3];
      tf_vec3_scale(step, axis, qpos[0]);
      tf_vec3_add(pos, pos, step);
      tf_vec3_add(anchor, anchor, step);
      memset(cdof, 0, 3 * sizeof(double));
      tf_vec3_copy(cdof + 3, axis);
      break;
    }
    case TF_JOINT_HINGE: {
      double rot[4];
      tf_quat_from_axis_angle(rot, jaxis, qpos[0]);
      tf_quat_mul(quat, quat, rot);
      tf_quat_normalize(quat);
      // the anchor is a fixed point of the motion: pos = anchor - R_new * jnt_pos
      tf_quat_rotate(offset, quat, jpos);
      tf_vec3_sub(pos, anchor, offset);
      rotation_axis(cdof, anchor, axis);
      break;
    }
    case TF_JOINT_BALL: {
      double rot[4] = {qpos[0], qpos[1], qpos[2], qpos[3]};
      tf_quat_normalize(rot);
      tf_quat_mul(quat, quat, rot);
      tf_quat_normalize(quat);
      tf_quat_rotate(offset, quat, jpos);
      tf_vec3_sub(pos, anchor, offset);
      // angular velocity is expressed in the frame after the rotation
      double mat[9];
      tf_quat_to_mat(mat, quat);
      for (int k = 0; k < 3; k++) {
        double col[3] = {mat[k], mat[3 + k], mat[6 + k]};
        rotation_axis(cdof + 6 * k, anchor, col);
      }
      break;
    }
    default:
      break;
  }
}

// free joint: qpos is the body pose; linear dofs along world axes, angular in the body frame
static void apply_free_joint(const tf_model* m, tf_data* d, int j, double pos[3], double quat[4]) {
  const double* qpos = d->qpos + m->jnt_qposadr[j];
  double* cdof = d->cdof + 6 * m->jnt_dofadr[j];
  tf_vec3_copy(pos, qpos);
  memcpy(quat, qpos + 3, 4 * sizeof(double));
  tf_quat_normalize(quat);
  tf_vec3_copy(d->xanchor + 3 * j, pos);
  tf_vec3_copy(d->xaxis + 3 * j, (double[3]){0, 0, 1});
  memset(cdof, 0, 18 * sizeof(double));
  cdof[3] = cdof[6 + 4] = cdof[12 + 5] = 1;
  double mat[9];
  tf_quat_to_mat(mat, quat);
  for (int k = 0; k < 3; k++) {
    double col[3] = {mat[k], mat[3 + k], mat[6 + k]};
    rotation_axis(cdof + 18 + 6 * k, pos, col);
  }
}

void tf_kinematics(const tf_model* m, tf_data* d) {
  double t0 = tf_stage_start();
  memset(d->xpos, 0, 3 * sizeof(double));
  tf_quat_identity(d->xquat);
  tf_quat_to_mat(d->xmat, d->xquat);
  memset(d->xipos, 0, 3 * sizeof(double));
  tf_quat_to_mat(d->ximat, d->xquat);
  memset(d->cinert, 0, 10 * sizeof(double));

  for (int b = 1; b < m->nbody; b++) {
    int parent = m->body_parentid[b];
    double pos[3], quat[4];
    int jadr = m->body_jntadr[b], jnum = m->body_jntnum[b];
    if (jnum == 1 && m->jnt_type[jadr] == TF_JOINT_FREE) {
      apply_free_joint(m, d, jadr, pos, quat);
    } else {
      double offset[3];
      tf_quat_rotate(offset, d->xquat + 4 * parent, m->body_pos + 3 * b);
      tf_vec3_add(pos, d->xpos + 3 * parent, offset);
      tf_quat_mul(quat, d->xquat + 4 * parent, m->body_quat + 4 * b);
      for (int j = jadr; j < jadr + jnum; j++) apply_joint(m, d, j, pos, quat);
    }
    tf_vec3_copy(d->xpos + 3 * b, pos);
    memcpy(d->xquat + 4 * b, quat, 4 * sizeof(double));
    double* xmat = d->xmat + 9 * b;
    tf_quat_to_mat(xmat, quat);

    // centre of mass, principal frame and the spatial inertia about the world origin
    double offset[3], imat[9];
    tf_mat3_mul_vec(offset, xmat, m->body_ipos + 3 * b);
    tf_vec3_add(d->xipos + 3 * b, pos, offset);
    tf_quat_to_mat(imat, m->body_iquat + 4 * b);
    tf_mat3_mul(d->ximat + 9 * b, xmat, imat);
    const double* R = d->ximat + 9 * b;
    const double* mom = m->body_inertia + 3 * b;
    double ic[9];
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) {
        ic[3 * r + c] = R[3 * r] * mom[0] * R[3 * c] + R[3 * r + 1] * mom[1] * R[3 * c + 1] +
                        R[3 * r + 2] * mom[2] * R[3 * c + 2];
      }
    }
    tf_inertia_from_com(d->cinert + 10 * b, m->body_mass[b], d->xipos + 3 * b, ic);
  }
  for (int g = 0; g < m->ngeom; g++) {
    int b = m->geom_bodyid[g];
    double offset[3], quat[4];
    tf_quat_rotate(offset, d->xquat + 4 * b, m->geom_pos + 3 * g);
    tf_vec3_add(d->geom_xpos + 3 * g, d->xpos + 3 * b, offset);
    tf_quat_mul(quat, d->xquat + 4 * b, m->geom_quat + 4 * g);
    tf_quat_to_mat(d->geom_xmat + 9 * g, quat);
  }
  tf_stage_add(d, TF_TIMER_KINEMATICS, t0);
}

// cdof_dot of a group of dofs that share one velocity before them (a ball's or a free
// joint's three rotations, or a single hinge / slide) is cvel_before x cdof; translations
// of a free joint are fixed world axes
void tf_velocity(const tf_model* m, tf_data* d) {
  double t0 = tf_stage_start();
  memset(d->cvel, 0, 6 * sizeof(double));
  for (int b = 1; b < m->nbody; b++) {
    double* cvel = d->cvel + 6 * b;
    memcpy(cvel, d->cvel + 6 * m->body_parentid[b], 6 * sizeof(double));
    int jadr = m->body_jntadr[b];
    for (int j = jadr; j < jadr + m->body_jntnum[b]; j++) {
      int dof = m->jnt_dofadr[j];
      int n = tf_joint_nv(m->jnt_type[j]);
      int first = dof;
      if (m->jnt_type[j] == TF_JOINT_FREE) {
        memset(d->cdof_dot + 6 * dof, 0, 18 * sizeof(double));
        for (int k = 0; k < 3; k++) cvel[3 + k] += d->qvel[dof + k];
        first = dof + 3;
      }
      for (int i = first; i < dof + n; i++) {
        tf_cross_motion(d->cdof_dot + 6 * i, cvel, d->cdof + 6 * i);
      }
      for (int i = first; i < dof + n; i++) {
        for (int k = 0; k < 6; k++) cvel[k] += d->cdof[6 * i + k] * d->qvel[i];
      }
    }
  }
  tf_stage_add(d, TF_TIMER_KINEMATICS, t0);
}

void tf_body_velocity(const tf_model* m, const tf_data* d, int body, double out[6]) {
  double w[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  int b = body;
  // the last dof on the body's path to the world, then each dof's parent
  while (b > 0 && m->body_dofnum[b] == 0) b = m->body_parentid[b];
  for (int i = b > 0 ? m->body_dofadr[b] + m->body_dofnum[b] - 1 : -1; i >= 0;
       i = m->dof_parentid[i]) {
    const double* s = d->cdof + 6 * i;
    for (int k = 0; k < 3; k++) {
      w[k] += s[k] * d->qvel[i];
      v[k] += s[3 + k] * d->qvel[i];
    }
  }
  // the motion axes are about the world origin: the frame origin p moves at v + w x p
  double wxp[3];
  tf_vec3_cross(wxp, w, d->xpos + 3 * body);
  for (int k = 0; k < 3; k++) {
    out[k] = v[k] + wxp[k];
    out[3 + k] = w[k];
  }
}
