// Pieces every constraint solver shares: the residuals reported in tf_solver_stats,
// solves with A through its Cholesky factor, and the projection onto the contact cones.
#include <math.h>
#include <string.h>

#include "linalg_dense.h"
#include "solver.h"
#include "solver_util.h"

void tf_solve_A(const tf_constraint_problem* p, double* x) {
  if (p->nv == 0) return;
  tf_cholesky_solve(p->nv, 1, p->A_factor, x);
}

void tf_mul_J(const tf_constraint_problem* p, double* out, const double* v) {
  for (int i = 0; i < p->nefc; i++) {
    const double* row = p->J + (size_t)i * (size_t)p->nv;
    double s = 0;
    for (int k = 0; k < p->nv; k++) s += row[k] * v[k];
    out[i] = s;
  }
}

void tf_mul_JT(const tf_constraint_problem* p, double* out, const double* lambda) {
  memset(out, 0, sizeof(double) * (size_t)p->nv);
  for (int i = 0; i < p->nefc; i++) {
    if (lambda[i] == 0) continue;
    const double* row = p->J + (size_t)i * (size_t)p->nv;
    for (int k = 0; k < p->nv; k++) out[k] += row[k] * lambda[i];
  }
}

void tf_project_cone(double* lambda, const double* mu, int dim) {
  // elliptic cone sum (l_k / mu_k)^2 <= l_n^2: scale to the unit circular cone, project
  // there (Euclidean projection onto the second-order cone), scale back. This is the
  // projection in the metric that makes the cone circular (Euclidean only for mu = 1).
  if (dim == 1) {
    if (lambda[0] < 0) lambda[0] = 0;
    return;
  }
  double t[3], norm2 = 0;
  for (int k = 1; k < dim; k++) {
    t[k - 1] = mu[k] > 0 ? lambda[k] / mu[k] : 0;
    norm2 += t[k - 1] * t[k - 1];
  }
  double n = lambda[0], norm = sqrt(norm2);
  if (norm <= n) {
    for (int k = 1; k < dim; k++) {
      if (mu[k] <= 0) lambda[k] = 0;
    }
    return;
  }
  if (norm <= -n) {
    for (int k = 0; k < dim; k++) lambda[k] = 0;
    return;
  }
  double a = 0.5 * (n + norm);
  lambda[0] = a;
  for (int k = 1; k < dim; k++) lambda[k] = mu[k] > 0 ? mu[k] * t[k - 1] * a / norm : 0;
}

void tf_constraint_residuals(const tf_constraint_problem* p, const double* v, const double* lambda,
                             tf_solver_stats* stats) {
  // dual: ||A v - b - J^T lambda||
  double dual = 0;
  for (int i = 0; i < p->nv; i++) {
    double r = -p->b[i];
    for (int k = 0; k < p->nv; k++) r += p->A[i * p->nv + k] * v[k];
    for (int j = 0; j < p->nefc; j++) r -= p->J[(size_t)j * (size_t)p->nv + i] * lambda[j];
    dual += r * r;
  }
  // primal: distance of each row velocity u = J v + e from its set, given lambda's regime;
  // complementarity: |lambda . u| over unilateral rows
  double primal = 0, comp = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    double u[6] = {0};
    for (int k = 0; k < dim; k++) {
      const double* row = p->J + (size_t)(adr + k) * (size_t)p->nv;
      double s = 0;
      for (int c = 0; c < p->nv; c++) s += row[c] * v[c];
      u[k] = s + p->e[adr + k];
    }
    switch (p->block_type[blk]) {
      case TF_EFC_EQUALITY:
        for (int k = 0; k < dim; k++) primal += u[k] * u[k];
        break;
      case TF_EFC_FRICTION: {
        // sticking (|lambda| < bound) needs u = 0
        if (fabs(lambda[adr]) < p->bound[adr] * (1 - 1e-9)) primal += u[0] * u[0];
        comp += fabs(lambda[adr] * u[0] + p->bound[adr] * fabs(u[0]));
        break;
      }
      case TF_EFC_LIMIT:
        if (u[0] < 0) primal += u[0] * u[0];
        comp += fabs(lambda[adr] * u[0]);
        break;
      case TF_EFC_CONTACT: {
        // y = u + [mu |u_t|, 0...] in the dual cone reduces to u_n >= 0 (the De Saxce term
        // is exactly the dual cone's bound on the tangential part); lambda . y = 0 holds only
        // with zero normal velocity under load and the friction opposing the slip
        double slip2 = 0;
        for (int k = 1; k < dim; k++) slip2 += p->mu[adr + k] * p->mu[adr + k] * u[k] * u[k];
        if (u[0] < 0) primal += u[0] * u[0];
        double ly = lambda[adr] * (u[0] + sqrt(slip2));
        for (int k = 1; k < dim; k++) ly += lambda[adr + k] * u[k];
        comp += fabs(ly);
        // sticking contacts (strictly inside the cone) need zero tangential velocity
        double t2 = 0;
        for (int k = 1; k < dim; k++) {
          double mk = p->mu[adr + k];
          if (mk > 0) t2 += (lambda[adr + k] / mk) * (lambda[adr + k] / mk);
        }
        if (sqrt(t2) < lambda[adr] * (1 - 1e-6)) {
          // frictionless directions (mu = 0) may slip freely
          for (int k = 1; k < dim; k++) {
            if (p->mu[adr + k] > 0) primal += u[k] * u[k];
          }
        }
        break;
      }
      default:
        break;
    }
  }
  stats->primal_residual = sqrt(primal);
  stats->dual_residual = sqrt(dual);
  stats->complementarity = comp;
}

// projects x onto the block's set: the impulse sets of solver.h
void tf_project_block(const tf_constraint_problem* p, int blk, double* x) {
  int adr = p->block_adr[blk], dim = p->block_dim[blk];
  switch (p->block_type[blk]) {
    case TF_EFC_CONTACT:
      tf_project_cone(x, p->mu + adr, dim);
      break;
    case TF_EFC_LIMIT:
      for (int k = 0; k < dim; k++) x[k] = fmax(0, x[k]);
      break;
    case TF_EFC_FRICTION:
      for (int k = 0; k < dim; k++) {
        double bnd = p->bound[adr + k];
        x[k] = fmin(bnd, fmax(-bnd, x[k]));
      }
      break;
    default:
      break;
  }
}

// the natural-map residual of (v, lambda) in velocity units, the largest over the rows of
// |lambda - Pi(lambda - c y)| / c with y = J v + e (plus the De Saxce term on a contact's
// normal row) and c the Jacobi estimate of 1 / W_ii (a block's mean; a contact's rows in the
// cone's metric, c diag(1 / mu_1, mu_k^2 / mu_1)). It is zero exactly at a solution, whatever
// the regime: a fast slide cannot hide a penetrating normal velocity, and lambda = 0 passes
// only where the rows are free to separate
double tf_natural_residual(const tf_constraint_problem* p, const double* v, const double* lambda) {
  int nv = p->nv;
  double worst = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk], type = p->block_type[blk];
    double y[6], c[6], x[6], sum = 0;
    for (int k = 0; k < dim; k++) {
      const double* row = p->J + (size_t)(adr + k) * (size_t)nv;
      double s = p->e[adr + k];
      for (int col = 0; col < nv; col++) {
        s += row[col] * v[col];
        double acc = p->A[col * nv + col];
        if (row[col] != 0 && acc > 0) sum += row[col] * row[col] / acc;
      }
      y[k] = s;
    }
    if (type == TF_EFC_EQUALITY) {
      for (int k = 0; k < dim; k++) worst = fmax(worst, fabs(y[k]));
      continue;
    }
    double c0 = sum > 0 ? dim / sum : 1;
    for (int k = 0; k < dim; k++) c[k] = c0;
    if (type == TF_EFC_CONTACT && dim > 1) {
      const double* mu = p->mu + adr;
      double mu1 = mu[1] > 0 ? mu[1] : 1, slip = 0;
      for (int k = 1; k < dim; k++) slip += mu[k] * mu[k] * y[k] * y[k];
      y[0] += sqrt(slip);
      c[0] = c0 / mu1;
      for (int k = 1; k < dim; k++) c[k] = mu[k] > 0 ? c0 * mu[k] * mu[k] / mu1 : 0;
    }
    for (int k = 0; k < dim; k++) x[k] = lambda[adr + k] - c[k] * y[k];
    tf_project_block(p, blk, x);
    for (int k = 0; k < dim; k++) {
      if (c[k] > 0) worst = fmax(worst, fabs(lambda[adr + k] - x[k]) / c[k]);
    }
  }
  return worst;
}

// v = v_free + A^-1 J^T lambda, exactly (no drift from the sweep's incremental updates)
void tf_velocity_from_impulse(const tf_constraint_problem* p, const double* lambda, double* v) {
  tf_mul_JT(p, v, lambda);
  tf_solve_A(p, v);
  for (int i = 0; i < p->nv; i++) v[i] += p->v_free[i];
}

// the dissipation guard for an unconverged answer (see the top): lambda <- t lambda and v to
// match, t in [0, 1] minimising t^2 / 2 lambda'W lambda + t lambda'(J v_free + e); v holds
// v_free + A^-1 J^T lambda on entry
void tf_dissipation_guard(const tf_constraint_problem* p, double* lambda, double* v) {
  double quad = 0, lin = 0;
  for (int i = 0; i < p->nefc; i++) {
    if (lambda[i] == 0) continue;
    const double* row = p->J + (size_t)i * (size_t)p->nv;
    double free = p->e[i], dv = 0;
    for (int c = 0; c < p->nv; c++) {
      free += row[c] * p->v_free[c];
      dv += row[c] * (v[c] - p->v_free[c]);
    }
    quad += lambda[i] * dv;  // lambda'W lambda
    lin += lambda[i] * free;
  }
  if (!(quad > 0) || -lin >= quad) return;
  double t = fmax(0, -lin / quad);
  for (int i = 0; i < p->nefc; i++) lambda[i] *= t;
  for (int c = 0; c < p->nv; c++) v[c] = p->v_free[c] + t * (v[c] - p->v_free[c]);
}
