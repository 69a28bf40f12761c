// SubADMM: ADMM on the augmented Lagrangian of the constraint problem, with the dynamics
// split into ground-rooted subtrees (CRISP, section V-C and appendix C).
//
// CRISP writes the problem A v = b + J^T lambda, (J v + e, lambda) in the sets, with a slack
// z = J v and the augmented Lagrangian (eq. 2)
//
//   L = 1/2 v'A v - b'v + g(z) + u'(J v - z) + beta/2 |J v - z|^2.
//
// A = M + h D + h^2 K is block diagonal across the subtrees hanging from the world (M does not
// couple two trees; the implicit damping and stiffness are diagonal), so with one copy
// z_ij ~ J_ij v_j of row i per subsystem j it touches (J_ij: row i restricted to j's dofs)
// the v step splits into one small solve per subsystem (eq. 5, per subsystem):
//
//   (A_j + sum_i B_i J_ij^T J_ij) v_j = b_j + sum_i J_ij^T (B_i z_ij - u_ij)
//
// and the z step couples only the copies of one constraint block: every copy of row i feels
// the same impulse lambda_i = -u_ij - B_i (J_ij v_j - z_ij), and the block's set constrains
// the sum s_i = sum_j z_ij = (J v)_i + (sum_j u_ij + n_i lambda_i) / B_i (n_i copies). The
// closed form is the projection of eq. (8) with the averaged multiplier:
//
//   lambda_B = Pi_B( -beta_B P_B (J v + e + p)_B - mean_j u_B,j ),   B_i = n_i beta_B P_i
//
// followed by z_ij = J_ij v_j + (u_ij + lambda_i) / B_i and u_ij <- u_ij + B_i (J_ij v_j - z_ij)
// (eq. 7; it leaves u_ij = -lambda_i). Per block type Pi is: equality the identity, limit
// max(0, .), joint friction clamp(., -bound, bound), contact tf_project_cone with the De
// Saxce term p = [mu |J_t v + e_t|, 0...] on the normal row (CRISP eq. 4; it turns the cone
// complementarity into Signorini + Coulomb: no lift-off while sliding).
//
// The metric P: tf_project_cone projects in the metric diag(1, mu_k^-2) that makes the
// elliptic cone circular. For a projection Pi_G in a metric G, lambda = Pi_G(lambda - G^-1 y)
// holds exactly when lambda is in the cone, y in its dual cone and lambda . y = 0; with any
// other step matrix the fixed point puts y in the wrong dual cone (unless mu = 1). So a
// contact's rows get penalties in the ratio P = G^-1 = diag(1, mu_k^2), normalised to 1 / mu_1
// and mu_1 for the normal and sliding rows (geometric mean 1).
//
// CRISP's appendix writes Pi for a contact as a clamp of the normal followed by a projection
// of the tangents onto the disc of radius mu lambda_n. With the De Saxce term on the normal
// row that pair's fixed point has u_n = -mu |u_t| under load (sinking while sliding), so the
// joint projection onto the cone is used instead; its fixed point is exact (below).
//
// Penalty: settings->penalty if > 0 (beta_B = penalty for every block, fixed); otherwise
// beta_B = rho / mean_i W~_ii over the block, with W~_ii = sum_k J_ik^2 / A_kk the Jacobi
// estimate of the Delassus diagonal (so the penalty term is comparable to A along every
// constraint direction, whatever the masses), and the global rho starting at 1 and balanced
// every 10 iterations (Boyd et al. 2011, sec. 3.4.1): x4 when the split residual |J v - z|
// is 10 times the change of z, /4 in the opposite case, refactoring the subsystems. The z and
// u steps use the over-relaxed copies 1.5 J_ij v_j - 0.5 z_ij (Boyd et al., sec. 3.4.3), about
// a third fewer iterations on the tests' stacks and inclines.
//
// Subsystems: a dof belongs to the subtree of its root body (the ancestor whose parent is the
// world: m->dof_bodyid, m->body_parentid). Bodies are added parent first, but sibling trees
// can interleave (tree 1, tree 2, then a child of tree 1), so a subtree's dofs need not be
// contiguous and are gathered by index. Any non-zero entry of A across two subtrees merges
// them (A is checked, not assumed); without a matching model (m NULL or m->nv != p->nv) the
// subsystems are the connected components of A's sparsity. Each A_j + sum B J^T J is factored
// once per solve (again when rho changes) with LAPACK's dpotrf_work on arena scratch.
//
// Output: lambda from the last z step and v = v_free + A^-1 J^T lambda, so the dynamics hold
// exactly and any remaining error is constraint violation (the primal residual). Stops like
// tf_solve_pgs: when the largest change of lambda is under tolerance * max |lambda| and the
// natural-map residual (velocity units, zero exactly at a solution) of that v is under
// tolerance * (1 + max |J v_free + e|), or at the iteration cap. stats come from
// tf_constraint_residuals; the caller counts TF_WARN_SOLVER from stats->converged.
//
// Scratch (doubles), with npair = the number of (row, subsystem) copies (nefc when every row
// stays in one tree, 2 nefc when every row joins two) and nsub <= nv:
//   sum_j nv_j^2 (<= nv^2) + nv + 3 nefc + 3 npair
//   + (3 nv + nefc + 3 npair + 2 nsub + 3) / 2 for the index arrays
//   + 8 per allocation (17) of alignment,
// at most nv^2 + 3.5 nv + 12.5 nefc + 140 when npair <= 2 nefc.
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "model_internal.h"
#include "solver.h"
#include "solver_util.h"

#define ADMM_RELAX 1.5         // over-relaxation alpha of the copies (Boyd et al. sec. 3.4.3)
#define ADMM_BALANCE_EVERY 10  // iterations between penalty updates
#define ADMM_BALANCE_RATIO 10  // residual ratio that triggers one
#define ADMM_BALANCE_STEP 4    // factor of one update
#define ADMM_RHO_MIN 1e-6
#define ADMM_RHO_MAX 1e6

typedef struct admm_split {
  int nsub;
  int npair;
  int* sub_dofadr;   // (nsub + 1) into sub_dofs
  int* sub_dofs;     // (nv) dofs grouped by subsystem, ascending within each
  int* row_pairadr;  // (nefc + 1) into pair_sub / pair_row: the copies of each row
  int* pair_sub;     // (npair) subsystem of each copy
  int* pair_row;     // (npair) row of each copy
  int* sub_pairadr;  // (nsub + 1) into sub_pairs
  int* sub_pairs;    // (npair) copies grouped by subsystem
} admm_split;

// ints from the arena (which hands out doubles); the memory has no declared type
static int* arena_ints(tf_data* d, size_t n) { return (int*)tf_arena_doubles(d, (n + 1) / 2); }

// union-find root with path halving
static int find_root(int* parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

// union-find merge; the smaller index stays the root so subsystems number by first dof
static void unite(int* parent, int a, int b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a < b) parent[b] = a;
  if (b < a) parent[a] = b;
}

// subsystems (ground-rooted subtrees, merged wherever A couples them) and the copies of each
// row, one per subsystem its Jacobian touches
static void split_problem(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                          admm_split* sp) {
  int nv = p->nv, nefc = p->nefc;
  int* comp = arena_ints(d, (size_t)nv);
  int* root = arena_ints(d, (size_t)nv);
  for (int i = 0; i < nv; i++) comp[i] = i;
  if (m && m->nv == nv && m->dof_bodyid && m->body_parentid) {
    for (int i = 0; i < nv; i++) {
      int body = m->dof_bodyid[i];
      while (body > 0 && m->body_parentid[body] > 0) body = m->body_parentid[body];
      root[i] = body;
      for (int j = 0; j < i; j++) {
        if (root[j] == root[i]) {
          unite(comp, i, j);
          break;
        }
      }
    }
  }
  for (int i = 0; i < nv; i++) {
    for (int k = i + 1; k < nv; k++) {
      if (p->A[i * nv + k] != 0 || p->A[k * nv + i] != 0) unite(comp, i, k);
    }
  }
  // number the subsystems by their first dof; root[] now holds each dof's subsystem
  int nsub = 0;
  for (int i = 0; i < nv; i++) {
    int r = find_root(comp, i);
    root[i] = r == i ? nsub++ : root[r];
  }
  sp->nsub = nsub;
  sp->sub_dofadr = arena_ints(d, (size_t)nsub + 1);
  sp->sub_dofs = arena_ints(d, (size_t)nv);
  memset(sp->sub_dofadr, 0, sizeof(int) * ((size_t)nsub + 1));
  for (int i = 0; i < nv; i++) sp->sub_dofadr[root[i] + 1]++;
  for (int j = 0; j < nsub; j++) sp->sub_dofadr[j + 1] += sp->sub_dofadr[j];
  for (int j = 0; j < nsub; j++) comp[j] = sp->sub_dofadr[j];  // fill cursors
  for (int i = 0; i < nv; i++) sp->sub_dofs[comp[root[i]]++] = i;

  // copies: row i touches subsystem j when J_ij is not all zero
  sp->row_pairadr = arena_ints(d, (size_t)nefc + 1);
  int npair = 0;
  for (int pass = 0; pass < 2; pass++) {
    npair = 0;
    for (int i = 0; i < nefc; i++) {
      const double* row = p->J + (size_t)i * (size_t)nv;
      if (pass == 0) sp->row_pairadr[i] = npair;
      for (int j = 0; j < nsub; j++) {
        int touches = 0;
        for (int a = sp->sub_dofadr[j]; a < sp->sub_dofadr[j + 1] && !touches; a++) {
          touches = row[sp->sub_dofs[a]] != 0;
        }
        if (!touches) continue;
        if (pass == 1) {
          sp->pair_sub[npair] = j;
          sp->pair_row[npair] = i;
        }
        npair++;
      }
    }
    if (pass == 0) {
      sp->row_pairadr[nefc] = npair;
      sp->pair_sub = arena_ints(d, (size_t)npair);
      sp->pair_row = arena_ints(d, (size_t)npair);
    }
  }
  sp->npair = npair;
  sp->sub_pairadr = arena_ints(d, (size_t)nsub + 1);
  sp->sub_pairs = arena_ints(d, (size_t)npair);
  memset(sp->sub_pairadr, 0, sizeof(int) * ((size_t)nsub + 1));
  for (int q = 0; q < npair; q++) sp->sub_pairadr[sp->pair_sub[q] + 1]++;
  for (int j = 0; j < nsub; j++) sp->sub_pairadr[j + 1] += sp->sub_pairadr[j];
  for (int j = 0; j < nsub; j++) comp[j] = sp->sub_pairadr[j];
  for (int q = 0; q < npair; q++) sp->sub_pairs[comp[sp->pair_sub[q]]++] = q;
}

// per-row penalty before rho and the copy count: the block's beta times the cone metric
static void base_penalties(const tf_constraint_problem* p, const tf_solver_settings* s,
                           double* base) {
  int nv = p->nv;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    double beta = s->penalty;
    if (!(beta > 0)) {
      // inverse of the Jacobi estimate of the block's mean Delassus diagonal
      double sum = 0;
      for (int k = 0; k < dim; k++) {
        const double* row = p->J + (size_t)(adr + k) * (size_t)nv;
        for (int c = 0; c < nv; c++) {
          double acc = p->A[c * nv + c];
          if (row[c] != 0 && acc > 0) sum += row[c] * row[c] / acc;
        }
      }
      beta = sum > 0 ? dim / sum : 1;
    }
    for (int k = 0; k < dim; k++) base[adr + k] = beta;
    if (p->block_type[blk] == TF_EFC_CONTACT && dim > 1) {
      const double* mu = p->mu + adr;
      double mu1 = mu[1] > 0 ? mu[1] : 1;
      base[adr] = beta / mu1;
      for (int k = 1; k < dim; k++) base[adr + k] = mu[k] > 0 ? beta * mu[k] * mu[k] / mu1 : 0;
    }
  }
}

// factors every subsystem's A_j + sum_i B_i J_ij^T J_ij (column-major, lower); 0 on success
static int factor_subsystems(const tf_constraint_problem* p, const admm_split* sp,
                             const double* penalty, double* factors) {
  int nv = p->nv;
  double* k = factors;
  for (int j = 0; j < sp->nsub; j++) {
    const int* dofs = sp->sub_dofs + sp->sub_dofadr[j];
    int n = sp->sub_dofadr[j + 1] - sp->sub_dofadr[j];
    for (int a = 0; a < n; a++) {
      for (int c = 0; c < n; c++) k[a + c * n] = p->A[dofs[a] * nv + dofs[c]];
    }
    for (int t = sp->sub_pairadr[j]; t < sp->sub_pairadr[j + 1]; t++) {
      int row = sp->pair_row[sp->sub_pairs[t]];
      double bq = penalty[row];
      if (bq == 0) continue;
      const double* jr = p->J + (size_t)row * (size_t)nv;
      for (int c = 0; c < n; c++) {
        double jc = bq * jr[dofs[c]];
        if (jc == 0) continue;
        for (int a = 0; a < n; a++) k[a + c * n] += jr[dofs[a]] * jc;
      }
    }
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, k, n) != 0) return -1;
    k += (size_t)n * (size_t)n;
  }
  return 0;
}

// the penalty of each copy of each row: rho * base * (copies of the row)
static void copy_penalties(const tf_constraint_problem* p, const admm_split* sp, const double* base,
                           double rho, double* penalty) {
  for (int i = 0; i < p->nefc; i++) {
    penalty[i] = rho * base[i] * (sp->row_pairadr[i + 1] - sp->row_pairadr[i]);
  }
}

// the v step: one solve per subsystem with its factor
static void solve_velocity(const tf_constraint_problem* p, const admm_split* sp,
                           const double* factors, const double* penalty, const double* z,
                           const double* u, double* rhs, double* v) {
  int nv = p->nv;
  const double* k = factors;
  for (int j = 0; j < sp->nsub; j++) {
    const int* dofs = sp->sub_dofs + sp->sub_dofadr[j];
    int n = sp->sub_dofadr[j + 1] - sp->sub_dofadr[j];
    for (int a = 0; a < n; a++) rhs[a] = p->b[dofs[a]];
    for (int t = sp->sub_pairadr[j]; t < sp->sub_pairadr[j + 1]; t++) {
      int q = sp->sub_pairs[t], row = sp->pair_row[q];
      double c = penalty[row] * z[q] - u[q];
      if (c == 0) continue;
      const double* jr = p->J + (size_t)row * (size_t)nv;
      for (int a = 0; a < n; a++) rhs[a] += jr[dofs[a]] * c;
    }
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, 1, (double*)k, n, rhs, n);
    for (int a = 0; a < n; a++) v[dofs[a]] = rhs[a];
    k += (size_t)n * (size_t)n;
  }
}

// a_q = J_ij v_j for every copy; jv = J v (the sum of a row's copies)
static void copy_velocities(const tf_constraint_problem* p, const admm_split* sp, const double* v,
                            double* a, double* jv) {
  int nv = p->nv;
  for (int i = 0; i < p->nefc; i++) {
    const double* jr = p->J + (size_t)i * (size_t)nv;
    double sum = 0;
    for (int q = sp->row_pairadr[i]; q < sp->row_pairadr[i + 1]; q++) {
      int j = sp->pair_sub[q];
      double aq = 0;
      for (int t = sp->sub_dofadr[j]; t < sp->sub_dofadr[j + 1]; t++) {
        int c = sp->sub_dofs[t];
        aq += jr[c] * v[c];
      }
      a[q] = aq;
      sum += aq;
    }
    jv[i] = sum;
  }
}

// over-relaxation: the z and u steps see alpha J_ij v_j + (1 - alpha) z_ij instead of J_ij v_j
static void relax_copies(const tf_constraint_problem* p, const admm_split* sp, const double* z,
                         double* a, double* jv) {
  for (int i = 0; i < p->nefc; i++) {
    double sum = 0;
    for (int q = sp->row_pairadr[i]; q < sp->row_pairadr[i + 1]; q++) {
      a[q] = ADMM_RELAX * a[q] + (1 - ADMM_RELAX) * z[q];
      sum += a[q];
    }
    jv[i] = sum;
  }
}

// projects x onto the block's set (eq. 8)
static void project_block(const tf_constraint_problem* p, int blk, double* x) {
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

// the z / lambda step and the multiplier update; returns the largest change of lambda and
// writes the largest |J_ij v_j - z_ij| and |z_ij - z_ij old|
static double update_impulses(const tf_constraint_problem* p, const admm_split* sp,
                              const double* base, double rho, const double* penalty,
                              const double* a, const double* jv, double* z, double* u,
                              double* lambda, double* r_split, double* r_move) {
  double change = 0, rs = 0, rm = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    double x[6];
    double saxce = 0;
    if (p->block_type[blk] == TF_EFC_CONTACT) {
      for (int k = 1; k < dim; k++) {
        double ut = p->mu[adr + k] * (jv[adr + k] + p->e[adr + k]);
        saxce += ut * ut;
      }
      saxce = sqrt(saxce);
    }
    for (int k = 0; k < dim; k++) {
      int i = adr + k;
      int q0 = sp->row_pairadr[i], nq = sp->row_pairadr[i + 1] - q0;
      double ubar = 0;
      for (int q = q0; q < q0 + nq; q++) ubar += u[q];
      if (nq > 0) ubar /= nq;
      double y = jv[i] + p->e[i] + (k == 0 ? saxce : 0);
      x[k] = -rho * base[i] * y - ubar;
    }
    project_block(p, blk, x);
    for (int k = 0; k < dim; k++) {
      int i = adr + k;
      change = fmax(change, fabs(x[k] - lambda[i]));
      lambda[i] = x[k];
      double bq = penalty[i];
      for (int q = sp->row_pairadr[i]; q < sp->row_pairadr[i + 1]; q++) {
        double zq = bq > 0 ? a[q] + (u[q] + x[k]) / bq : a[q];
        rm = fmax(rm, fabs(zq - z[q]));
        z[q] = zq;
        u[q] += bq * (a[q] - zq);
        rs = fmax(rs, fabs(a[q] - zq));
      }
    }
  }
  *r_split = rs;
  *r_move = rm;
  return change;
}

// the natural-map residual of (v, lambda) in velocity units, the largest over the rows of
// |lambda - Pi(lambda - c y)| / c with y = J v + e (plus the De Saxce term on a contact's
// normal row) and c the Jacobi estimate of 1 / W_ii (a block's mean; a contact's rows in the
// cone's metric, c diag(1 / mu_1, mu_k^2 / mu_1)). It is zero exactly at a solution, whatever
// the regime: a fast slide cannot hide a penetrating normal velocity, and lambda = 0 passes
// only where the rows are free to separate
static double natural_residual(const tf_constraint_problem* p, const double* v,
                               const double* lambda) {
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
    project_block(p, blk, x);
    for (int k = 0; k < dim; k++) {
      if (c[k] > 0) worst = fmax(worst, fabs(lambda[adr + k] - x[k]) / c[k]);
    }
  }
  return worst;
}

// brings a warm start into the sets (non-finite entries restart from zero)
static void clamp_warm_start(const tf_constraint_problem* p, double* lambda) {
  for (int i = 0; i < p->nefc; i++) {
    if (!isfinite(lambda[i])) lambda[i] = 0;
  }
  for (int blk = 0; blk < p->nblock; blk++) project_block(p, blk, lambda + p->block_adr[blk]);
}

// v = v_free + A^-1 J^T lambda
static void velocity_from_impulse(const tf_constraint_problem* p, const double* lambda, double* v) {
  tf_mul_JT(p, v, lambda);
  tf_solve_A(p, v);
  for (int i = 0; i < p->nv; i++) v[i] += p->v_free[i];
}

int tf_solve_admm(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                  const tf_solver_settings* s, double* v, double* lambda, tf_solver_stats* stats) {
  int nv = p->nv, nefc = p->nefc;
  memset(stats, 0, sizeof(*stats));
  if (nefc == 0 || nv == 0) {
    memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
    for (int i = 0; i < nefc; i++) lambda[i] = 0;
    tf_constraint_residuals(p, v, lambda, stats);
    stats->converged = 1;
    return 0;
  }
  for (int blk = 0; blk < p->nblock; blk++) {
    if (p->block_dim[blk] > 6) {
      // blocks are at most 6 rows (a weld): a malformed problem
      memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
      memset(lambda, 0, sizeof(double) * (size_t)nefc);
      tf_constraint_residuals(p, v, lambda, stats);
      return -1;
    }
  }
  size_t mark = tf_arena_mark(d);
  admm_split sp;
  split_problem(m, d, p, &sp);

  size_t nfactor = 0;
  for (int j = 0; j < sp.nsub; j++) {
    size_t n = (size_t)(sp.sub_dofadr[j + 1] - sp.sub_dofadr[j]);
    nfactor += n * n;
  }
  double* factors = tf_arena_doubles(d, nfactor);
  double* base = tf_arena_doubles(d, (size_t)nefc);
  double* penalty = tf_arena_doubles(d, (size_t)nefc);
  double* jv = tf_arena_doubles(d, (size_t)nefc);
  double* z = tf_arena_doubles(d, (size_t)sp.npair);
  double* u = tf_arena_doubles(d, (size_t)sp.npair);
  double* a = tf_arena_doubles(d, (size_t)sp.npair);
  double* rhs = tf_arena_doubles(d, (size_t)nv);

  // scales of the stopping test
  double umax = 0;
  tf_mul_J(p, jv, p->v_free);
  for (int i = 0; i < nefc; i++) umax = fmax(umax, fabs(jv[i] + p->e[i]));
  double tol = s->tolerance > 0 ? s->tolerance : 0;
  int cap = s->iterations > 0 ? s->iterations : 1;
  int adaptive = !(s->penalty > 0);

  base_penalties(p, s, base);
  double rho = 1;
  copy_penalties(p, &sp, base, rho, penalty);
  int status = factor_subsystems(p, &sp, penalty, factors);

  // warm start: u = -lambda, z = the copies' velocities under v(lambda)
  clamp_warm_start(p, lambda);
  velocity_from_impulse(p, lambda, v);
  copy_velocities(p, &sp, v, a, jv);
  for (int i = 0; i < nefc; i++) {
    for (int q = sp.row_pairadr[i]; q < sp.row_pairadr[i + 1]; q++) {
      z[q] = a[q];
      u[q] = -lambda[i];
    }
  }

  int iter = 0;
  while (status == 0 && iter < cap) {
    iter++;
    solve_velocity(p, &sp, factors, penalty, z, u, rhs, v);
    copy_velocities(p, &sp, v, a, jv);
    relax_copies(p, &sp, z, a, jv);
    double r_split, r_move;
    double change =
        update_impulses(p, &sp, base, rho, penalty, a, jv, z, u, lambda, &r_split, &r_move);
    double lmax = 0;
    for (int i = 0; i < nefc; i++) lmax = fmax(lmax, fabs(lambda[i]));
    if (!isfinite(change) || !isfinite(lmax)) {
      status = -1;
      break;
    }
    if (change <= tol * lmax) {
      velocity_from_impulse(p, lambda, v);  // the next v step overwrites it
      if (natural_residual(p, v, lambda) <= tol * (1 + umax)) {
        stats->converged = 1;
        break;
      }
    }
    if (adaptive && iter % ADMM_BALANCE_EVERY == 0) {
      double next = rho;
      if (r_split > ADMM_BALANCE_RATIO * r_move) next = rho * ADMM_BALANCE_STEP;
      if (r_move > ADMM_BALANCE_RATIO * r_split) next = rho / ADMM_BALANCE_STEP;
      next = fmin(ADMM_RHO_MAX, fmax(ADMM_RHO_MIN, next));
      if (next != rho) {
        rho = next;
        copy_penalties(p, &sp, base, rho, penalty);
        status = factor_subsystems(p, &sp, penalty, factors);
      }
    }
  }
  stats->iterations = iter;

  if (status != 0) {
    memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
    memset(lambda, 0, sizeof(double) * (size_t)nefc);
    stats->converged = 0;
  } else {
    velocity_from_impulse(p, lambda, v);
  }
  int converged = stats->converged;
  tf_constraint_residuals(p, v, lambda, stats);
  stats->iterations = iter;
  stats->converged = converged;
  tf_arena_release(d, mark);
  return status;
}
