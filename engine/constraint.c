// Constraint rows of one step, assembled into the problem the solvers share (solver.h).
//
// Contacts: rows [normal, t1, t2(, torsion)] of the relative velocity of the two bodies at
// the contact point, J = frame (J_p(body2) - J_p(body1)); the normal row asks
// J_n v >= -max(dist, 0) / h, so a part may close a positive gap within the step but never
// gets velocity from an existing overlap (the position pass removes that).
// Joint limits: speculative too, a row when the joint could reach its stop this step.
// Joint dry friction: one row per dof, |lambda| <= frictionloss * h.
// Equality: connect (3 rows) and weld (3 + 3 rows), error removed within one step.
#include <math.h>
#include <string.h>

#include "constraint_stage.h"
#include "tf_math.h"
#include "model_internal.h"
#include "solver.h"
#include "stage_timer.h"

// translational Jacobian of world point p on body b: jac (3 x nv), zero outside b's chain
static void point_jacobian(const tf_model* m, const tf_data* d, int b, const double p[3],
                           double* jac) {
  int nv = m->nv;
  memset(jac, 0, sizeof(double) * 3 * (size_t)nv);
  // the last dof on b's path to the world
  while (b > 0 && m->body_dofnum[b] == 0) b = m->body_parentid[b];
  if (b <= 0) return;
  for (int i = m->body_dofadr[b] + m->body_dofnum[b] - 1; i >= 0; i = m->dof_parentid[i]) {
    const double* s = d->cdof + 6 * i;
    double wxp[3];
    tf_vec3_cross(wxp, s, p);
    for (int k = 0; k < 3; k++) jac[k * nv + i] = s[3 + k] + wxp[k];
  }
}

// rotational Jacobian of body b: jac (3 x nv)
static void angular_jacobian(const tf_model* m, const tf_data* d, int b, double* jac) {
  int nv = m->nv;
  memset(jac, 0, sizeof(double) * 3 * (size_t)nv);
  while (b > 0 && m->body_dofnum[b] == 0) b = m->body_parentid[b];
  if (b <= 0) return;
  for (int i = m->body_dofadr[b] + m->body_dofnum[b] - 1; i >= 0; i = m->dof_parentid[i]) {
    for (int k = 0; k < 3; k++) jac[k * nv + i] = d->cdof[6 * i + k];
  }
}

// opens a block of dim rows; -1 (and a counted warning) if the row buffer is full
static int open_block(const tf_model* m, tf_data* d, int type, int dim, int id) {
  if (d->nefc + dim > m->nefcmax) {
    tf_warn(d, TF_WARN_EFCFULL);
    return -1;
  }
  int blk = d->nblock++;
  d->efc_block_type[blk] = type;
  d->efc_block_adr[blk] = d->nefc;
  d->efc_block_dim[blk] = dim;
  d->efc_block_id[blk] = id;
  d->efc_solref[2 * blk] = 0.02;
  d->efc_solref[2 * blk + 1] = 1.0;
  d->efc_solimp[3 * blk] = 0.9;
  d->efc_solimp[3 * blk + 1] = 0.95;
  d->efc_solimp[3 * blk + 2] = 0.001;
  int adr = d->nefc;
  d->nefc += dim;
  for (int r = adr; r < adr + dim; r++) {
    memset(d->efc_J + (size_t)r * (size_t)m->nv, 0, sizeof(double) * (size_t)m->nv);
    d->efc_e[r] = d->efc_pos[r] = d->efc_mu[r] = d->efc_bound[r] = d->efc_lambda[r] = 0;
  }
  return blk;
}

// rows of contacts c0 .. ncon - 1
static void add_contact_rows(const tf_model* m, tf_data* d, int c0, double* jac1, double* jac2,
                             double h) {
  int nv = m->nv;
  for (int c = c0; c < d->ncon; c++) {
    tf_contact* con = d->contact + c;
    int dim = con->condim;
    int blk = open_block(m, d, TF_EFC_CONTACT, dim, c);
    if (blk < 0) return;
    int adr = d->efc_block_adr[blk];
    con->efc_adr = adr;
    int b1 = m->geom_bodyid[con->geom[0]], b2 = m->geom_bodyid[con->geom[1]];
    point_jacobian(m, d, b1, con->pos, jac1);
    point_jacobian(m, d, b2, con->pos, jac2);
    for (int r = 0; r < dim && r < 3; r++) {
      double* row = d->efc_J + (size_t)(adr + r) * (size_t)nv;
      const double* dir = con->frame + 3 * r;
      for (int i = 0; i < nv; i++) {
        row[i] = dir[0] * (jac2[i] - jac1[i]) + dir[1] * (jac2[nv + i] - jac1[nv + i]) +
                 dir[2] * (jac2[2 * nv + i] - jac1[2 * nv + i]);
      }
    }
    if (dim == 4) {
      angular_jacobian(m, d, b1, jac1);
      angular_jacobian(m, d, b2, jac2);
      double* row = d->efc_J + (size_t)(adr + 3) * (size_t)nv;
      const double* n = con->frame;
      for (int i = 0; i < nv; i++) {
        row[i] = n[0] * (jac2[i] - jac1[i]) + n[1] * (jac2[nv + i] - jac1[nv + i]) +
                 n[2] * (jac2[2 * nv + i] - jac1[2 * nv + i]);
      }
      d->efc_mu[adr + 3] = con->mu[1];
    }
    d->efc_e[adr] = fmax(con->dist, 0) / h;
    d->efc_pos[adr] = con->dist;
    for (int r = 1; r < dim && r < 3; r++) d->efc_mu[adr + r] = con->mu[0];
    for (int r = 0; r < dim; r++) d->efc_lambda[adr + r] = con->lambda[r];
    memcpy(d->efc_solref + 2 * blk, con->solref, 2 * sizeof(double));
    memcpy(d->efc_solimp + 3 * blk, con->solimp, 3 * sizeof(double));
  }
}

// a limit row when the joint is at its stop or could reach it within the step
static void add_limit_rows(const tf_model* m, tf_data* d, const double* v_predicted, double h) {
  for (int j = 0; j < m->njnt; j++) {
    if (!m->jnt_limited[j]) continue;
    int dof = m->jnt_dofadr[j];
    double q = d->qpos[m->jnt_qposadr[j]], v = v_predicted[dof];
    for (int side = 0; side < 2; side++) {
      // distance to the stop, and the speed toward it
      double dist = side == 0 ? q - m->jnt_range[2 * j] : m->jnt_range[2 * j + 1] - q;
      double approach = side == 0 ? -v : v;
      if (dist > m->opt.min_margin && dist > approach * h) continue;
      int blk = open_block(m, d, TF_EFC_LIMIT, 1, j);
      if (blk < 0) return;
      int r = d->efc_block_adr[blk];
      d->efc_J[(size_t)r * (size_t)m->nv + dof] = side == 0 ? 1 : -1;
      d->efc_e[r] = fmax(dist, 0) / h;
      d->efc_pos[r] = dist;
    }
  }
}

static void add_friction_rows(const tf_model* m, tf_data* d, double h) {
  for (int i = 0; i < m->nv; i++) {
    if (m->dof_frictionloss[i] <= 0) continue;
    int blk = open_block(m, d, TF_EFC_FRICTION, 1, i);
    if (blk < 0) return;
    int r = d->efc_block_adr[blk];
    d->efc_J[(size_t)r * (size_t)m->nv + i] = 1;
    d->efc_bound[r] = m->dof_frictionloss[i] * h;
  }
}

static void add_equality_rows(const tf_model* m, tf_data* d, double* jac1, double* jac2, double h) {
  int nv = m->nv;
  for (int e = 0; e < m->neq; e++) {
    int b1 = m->eq_body1[e], b2 = m->eq_body2[e];
    int weld = m->eq_type[e] == TF_EQ_WELD;
    int blk = open_block(m, d, TF_EFC_EQUALITY, weld ? 6 : 3, e);
    if (blk < 0) return;
    int adr = d->efc_block_adr[blk];
    double p1[3], p2[3];
    tf_mat3_mul_vec(p1, d->xmat + 9 * b1, m->eq_anchor1 + 3 * e);
    tf_vec3_add(p1, p1, d->xpos + 3 * b1);
    tf_mat3_mul_vec(p2, d->xmat + 9 * b2, m->eq_anchor2 + 3 * e);
    tf_vec3_add(p2, p2, d->xpos + 3 * b2);
    point_jacobian(m, d, b1, p1, jac1);
    point_jacobian(m, d, b2, p2, jac2);
    for (int k = 0; k < 3; k++) {
      double* row = d->efc_J + (size_t)(adr + k) * (size_t)nv;
      for (int i = 0; i < nv; i++) row[i] = jac1[k * nv + i] - jac2[k * nv + i];
      d->efc_pos[adr + k] = p1[k] - p2[k];
      d->efc_e[adr + k] = d->efc_pos[adr + k] / h;
    }
    if (!weld) continue;
    // rotation taking body2 to its target orientation body1 * relquat, in world axes
    double target[4], q2inv[4], err[4], rotvec[3];
    tf_quat_mul(target, d->xquat + 4 * b1, m->eq_relquat + 4 * e);
    tf_quat_conj(q2inv, d->xquat + 4 * b2);
    tf_quat_mul(err, target, q2inv);
    tf_quat_to_rotvec(rotvec, err);
    angular_jacobian(m, d, b1, jac1);
    angular_jacobian(m, d, b2, jac2);
    for (int k = 0; k < 3; k++) {
      double* row = d->efc_J + (size_t)(adr + 3 + k) * (size_t)nv;
      for (int i = 0; i < nv; i++) row[i] = jac1[k * nv + i] - jac2[k * nv + i];
      d->efc_pos[adr + 3 + k] = rotvec[k];
      d->efc_e[adr + 3 + k] = rotvec[k] / h;
    }
  }
}

void tf_constraint_rows(const tf_model* m, tf_data* d, const double* v_predicted, double h) {
  double t0 = tf_stage_start();
  d->nefc = 0;
  d->nblock = 0;
  size_t mark = tf_arena_mark(d);
  double* jac1 = tf_arena_doubles(d, 3 * (size_t)m->nv);
  double* jac2 = tf_arena_doubles(d, 3 * (size_t)m->nv);
  add_equality_rows(m, d, jac1, jac2, h);
  add_friction_rows(m, d, h);
  add_limit_rows(m, d, v_predicted, h);
  add_contact_rows(m, d, 0, jac1, jac2, h);
  tf_arena_release(d, mark);
  tf_stage_add(d, TF_TIMER_CONSTRAINT, t0);
}

// a position error p1 measured at the iterate into the start value its linearisation implies,
// and the row asks for the end of the step at a gap >= 0 (e = p0 / h, see
// tf_constraint_rows_close_overlaps). An overlap the start value implies is seldom one the
// start has: the linearisation is taken a step away from q0 (a gear a tooth pitch on), and
// with e = 0 such a row kept its overlap for every pass (171 um between two teeth at 50 Hz)
// and left it to the position pass, whose push tilted the gear onto its shoulder and lifted
// it 20-40 um
static void rows_from_iterate(const tf_model* m, tf_data* d, int blk0, const double* v1, double h) {
  int nv = m->nv;
  for (int blk = blk0; blk < d->nblock; blk++) {
    int type = d->efc_block_type[blk];
    if (type == TF_EFC_FRICTION) continue;
    int adr = d->efc_block_adr[blk];
    // contacts and limits carry a position only on their first (normal) row
    int npos = type == TF_EFC_EQUALITY ? d->efc_block_dim[blk] : 1;
    for (int r = adr; r < adr + npos; r++) {
      const double* row = d->efc_J + (size_t)r * (size_t)nv;
      double jv = 0;
      for (int i = 0; i < nv; i++) jv += row[i] * v1[i];
      double p0 = d->efc_pos[r] - h * jv;
      d->efc_pos[r] = p0;
      d->efc_e[r] = p0 / h;
    }
  }
}

void tf_constraint_rows_close_overlaps(tf_data* d, double h) {
  for (int blk = 0; blk < d->nblock; blk++) {
    int type = d->efc_block_type[blk];
    if (type != TF_EFC_CONTACT && type != TF_EFC_LIMIT) continue;
    int r = d->efc_block_adr[blk];
    if (d->efc_pos[r] < 0) d->efc_e[r] = d->efc_pos[r] / h;
  }
}

void tf_constraint_rows_append(const tf_model* m, tf_data* d, int c0, const double* v1, double h) {
  double t0 = tf_stage_start();
  int blk0 = d->nblock;
  size_t mark = tf_arena_mark(d);
  double* jac1 = tf_arena_doubles(d, 3 * (size_t)m->nv);
  double* jac2 = tf_arena_doubles(d, 3 * (size_t)m->nv);
  add_contact_rows(m, d, c0, jac1, jac2, h);
  tf_arena_release(d, mark);
  if (v1) rows_from_iterate(m, d, blk0, v1, h);
  tf_stage_add(d, TF_TIMER_CONSTRAINT, t0);
}

void tf_constraint_rows_from_iterate(const tf_model* m, tf_data* d, const double* v1, double h) {
  rows_from_iterate(m, d, 0, v1, h);
}
