// SubADMM: ADMM on the augmented Lagrangian of the constraint problem, with the dynamics
// split into ground-rooted subtrees (CRISP, section V-C and appendix C), accelerated by
// Anderson mixing.
//
// CRISP writes the problem A v = b + J^T lambda, (J v + e, lambda) in the sets, with a slack
// z = J v and the augmented Lagrangian (eq. 2)
//
//   L = 1/2 v'A v - b'v + g(z) + u'(J v - z) + beta/2 |J v - z|^2.
//
// A = M + h D + h^2 K is block diagonal across the subtrees hanging from the world (M does not
// couple two trees; the implicit damping and stiffness are diagonal), so with one copy
// z_q ~ J_ij v_j of row i per subsystem j it touches (q = (i, j), J_ij: row i restricted to
// j's dofs), each with its own penalty B_q and multiplier u_q, the v step splits into one
// small solve per subsystem (eq. 5, per subsystem):
//
//   (A_j + sum_q B_q J_ij^T J_ij) v_j = b_j + sum_q J_ij^T (B_q z_q - u_q)
//
// and the z step couples only the copies of one constraint block: every copy of row i feels
// the same impulse lambda_i = -u_q - B_q (J_ij v_j - z_q), and the block's set constrains the
// sum s_i = sum_j z_q = (J v)_i + sum_q (u_q + lambda_i) / B_q. With 1 / b_i = sum_q 1 / B_q
// the closed form is the projection of eq. (8)
//
//   lambda_B = Pi_B( lambda^_B - b_B (J v + e + p)_B ),   lambda^_i = -b_i sum_q u_q / B_q,
//
// followed by z_q = J_ij v_j + (u_q + lambda_i) / B_q and u_q <- u_q + B_q (J_ij v_j - z_q)
// (eq. 7), which leaves u_q = -lambda_i in every copy. The multipliers are therefore not
// stored: the state of the iteration is x = (z, lambda^), lambda^ = -u, and one iteration
// x -> F(x) is the v step with B_q z_q + lambda^_i, then lambda_i from the projection and
// z_q += (lambda_i - lambda^_i) / B_q, lambda^ <- lambda. Per block type Pi is: equality the
// identity, limit max(0, .), joint friction clamp(., -bound, bound), contact tf_project_cone
// with the De Saxce term p = [mu |J_t v + e_t|, 0...] on the normal row (CRISP eq. 4; it turns
// the cone complementarity into Signorini + Coulomb: no lift-off while sliding), evaluated at
// the same (relaxed) copies as the rest of the step.
//
// The metric P: tf_project_cone projects in the metric diag(1, mu_k^-2) that makes the
// elliptic cone circular. For a projection Pi_G in a metric G, lambda = Pi_G(lambda - G^-1 y)
// holds exactly when lambda is in the cone, y in its dual cone and lambda . y = 0; with any
// other step matrix the fixed point puts y in the wrong dual cone (unless mu = 1). So a
// contact's rows get penalties in the ratio P = G^-1 = diag(1, mu_k^2), normalised to 1 / mu_1
// and mu_1 for the normal and sliding rows (geometric mean 1); b_B inherits the ratio because
// every copy of a block's rows in one subsystem shares one scale (below).
//
// CRISP's appendix writes Pi for a contact as a clamp of the normal followed by a projection
// of the tangents onto the disc of radius mu lambda_n. With the De Saxce term on the normal
// row that pair's fixed point has u_n = -mu |u_t| under load (sinking while sliding), so the
// joint projection onto the cone is used instead; its fixed point is exact (below).
//
// Penalty per copy, equilibrated per unit: B_q = rho P_i / W_Bj, with W_Bj the mean over the
// block's rows of J_ij A_j^-1 J_ij^T, the block's Delassus diagonal seen from subsystem j
// alone (one triangular solve with A_j's factor per row and copy). Each copy's penalty then
// matches the inertia of its own subsystem along the row, so for one contact between two
// bodies the iteration does not depend on their mass ratio (each side's momentum change
// follows the same recursion), and b_i = rho P_i / W_B is the row's own Delassus scale. With
// one penalty per block (CRISP's beta) the heavy side of a contact barely feels a penalty set
// by the light side: with the acceleration below, the 20-box pile of bench/ takes 27
// iterations a step that way (100 of its 500 steps at the cap of 100) against 21 (63) per
// copy. The global rho starts at 1 and is balanced every 10
// iterations (Boyd et al. 2011, sec. 3.4.1): x4 when the split residual |J_ij v_j - z_q| is 10
// times the change of z, /4 in the opposite case, both in the norm weighted by B, refactoring
// the subsystems. settings->penalty > 0 replaces rho / W_Bj by penalty times the row's copy
// count (so b_i = penalty P_i), fixed. The z and u steps use the over-relaxed copies
// 1.5 J_ij v_j - 0.5 z_q (Boyd et al., sec. 3.4.3).
//
// Acceleration: the penalties equilibrate each row, not the stack. A heavy body on a light
// one on the ground leaves the Delassus matrix J A^-1 J^T with a slow mode however its rows
// are scaled: the two contacts of the light body must carry the same load, and only their
// difference moves it (on CRISP's 100 / 1 / 0.01 kg stack the equilibrated matrix has a
// condition number near 4 ratio^2 = 4e4). Plain ADMM took from 5,000 to over 100,000
// iterations at the landing of the top block for every fixed rho from 0.1 to 1000, and the
// balancing drove rho up to 2.6e5 within the 100 iterations. Anderson acceleration (Walker
// and Ni 2011; for ADMM, Zhang et al. 2019, "Accelerating ADMM for efficient simulation and
// optimization") extrapolates from the last ADMM_ANDERSON steps of the fixed-point map F:
// with f = F(x) - x and the differences dF, dG of the recent f and F(x), x <- F(x) - dG gamma,
// gamma the least-squares fit of f by dF in the norm |z|_B^2 + |lambda^|_(1/b)^2 (ADMM's
// own). Once the active set settles the map is affine and the few slow modes go in a few
// steps: the landing takes 9 iterations at ratio 10 and 10 at ratio 100, and no step of
// either gate more than 36. Safeguard: an extrapolated state is kept only if its residual
// |F(x) - x| is not above that of the last accepted state; otherwise the iteration goes back
// to the plain step from that state and the history restarts (as after a change of rho,
// which changes F).
//
// Subsystems: a dof belongs to the subtree of its root body (the ancestor whose parent is the
// world: m->dof_bodyid, m->body_parentid). Bodies are added parent first, but sibling trees
// can interleave (tree 1, tree 2, then a child of tree 1), so a subtree's dofs need not be
// contiguous and are gathered by index. Any non-zero entry of A across two subtrees merges
// them (A is checked, not assumed); without a matching model (m NULL or m->nv != p->nv) the
// subsystems are the connected components of A's sparsity. Each A_j is factored once per solve
// for the penalties, then A_j + sum B J^T J (again when rho changes), by tf_cholesky on
// arena scratch.
//
// Output: lambda from a z step (always in its sets) and v = v_free + A^-1 J^T lambda, so the
// dynamics hold exactly and any remaining error is constraint violation (the primal
// residual). Stops when the natural-map residual (velocity units, zero exactly at a solution)
// of that v is under tolerance * (1 + max |J v_free + e|), checked whenever the step's own
// estimate of it, max_i |lambda_i - lambda^_i| / b_i, is under the same bound (and at every
// penalty update), or at the iteration cap. At the cap
// the answer is the better, by that residual, of the last lambda and the best one seen at the
// penalty updates, then passed through the dissipation guard: lambda <- t lambda with t in
// [0, 1] minimising f(t lambda) = 1/2 t^2 lambda'W lambda + t lambda'(J v_free + e) (W =
// J A^-1 J^T). The kinetic energy 1/2 v'A v of that v differs from v_free's by f(t lambda) -
// t lambda'e <= -t lambda'e, so an unconverged answer never adds energy beyond what the rows'
// own errors e ask for (contacts and limits have e >= 0, so there it only removes energy); at
// any solution t = 1 (lambda'(J v + e) <= 0 there), so the guard never moves a converged
// answer. stats come from
// tf_constraint_residuals; the caller counts TF_WARN_SOLVER from stats->converged.
//
// Scratch (doubles), with npair = the number of (row, subsystem) copies (nefc when every row
// stays in one tree, 2 nefc when every row joins two), nx = npair + nefc, m = ADMM_ANDERSON
// and nsub <= nv:
//   sum_j nv_j^2 (<= nv^2) + nv + 3 npair + 2 nefc + (2 m + 5) nx
//   + (3 nv + nefc + 3 npair + 2 nsub + 12) / 2 for the index arrays (9, ints rounded up)
//   + 8 per allocation (23) of alignment,
// at most nv^2 + 3.5 nv + 56.5 nefc + 190 when npair <= 2 nefc.
#include <math.h>
#include <string.h>

#include "linalg_dense.h"
#include "model_internal.h"
#include "solver.h"
#include "solver_util.h"

#define ADMM_RELAX 1.5         // over-relaxation alpha of the copies (Boyd et al. sec. 3.4.3)
#define ADMM_BALANCE_EVERY 10  // iterations between penalty updates
#define ADMM_BALANCE_RATIO 10  // residual ratio that triggers one
#define ADMM_BALANCE_STEP 4    // factor of one update
#define ADMM_RHO_MIN 1e-6
#define ADMM_RHO_MAX 1e6
#define ADMM_ANDERSON 5          // Anderson memory: ADMM steps the extrapolation looks back on
#define ADMM_ANDERSON_REG 1e-10  // Tikhonov term of its least squares, relative to the trace

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

// factors every subsystem's A_j + sum_q B_q J_ij^T J_ij (column-major, lower), the sum over
// the subsystem's copies (penalty NULL: A_j alone); 0 on success
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
    for (int t = sp->sub_pairadr[j]; t < sp->sub_pairadr[j + 1] && penalty; t++) {
      int q = sp->sub_pairs[t];
      double bq = penalty[q];
      if (bq == 0) continue;
      const double* jr = p->J + (size_t)sp->pair_row[q] * (size_t)nv;
      for (int c = 0; c < n; c++) {
        double jc = bq * jr[dofs[c]];
        if (jc == 0) continue;
        for (int a = 0; a < n; a++) k[a + c * n] += jr[dofs[a]] * jc;
      }
    }
    if (tf_cholesky(n, k) != 0) return -1;
    k += (size_t)n * (size_t)n;
  }
  return 0;
}

// the copy of row i in subsystem j, -1 if the row does not touch it
static int row_copy(const admm_split* sp, int i, int j) {
  for (int q = sp->row_pairadr[i]; q < sp->row_pairadr[i + 1]; q++) {
    if (sp->pair_sub[q] == j) return q;
  }
  return -1;
}

// per-copy penalty before rho (see the top): the cone metric over W_Bj, the block's mean
// Delassus diagonal within the copy's subsystem, or the user's penalty times the row's copy
// count. factors hold A_j alone; diag (npair) and work (nv) are scratch
static void base_penalties(const tf_constraint_problem* p, const tf_solver_settings* s,
                           const admm_split* sp, const double* factors, double* diag, double* work,
                           double* base) {
  int nv = p->nv;
  if (!(s->penalty > 0)) {
    // diag_q = J_ij A_j^-1 J_ij^T = |L_j^-1 J_ij^T|^2
    const double* fac = factors;
    for (int j = 0; j < sp->nsub; j++) {
      const int* dofs = sp->sub_dofs + sp->sub_dofadr[j];
      int n = sp->sub_dofadr[j + 1] - sp->sub_dofadr[j];
      for (int t = sp->sub_pairadr[j]; t < sp->sub_pairadr[j + 1]; t++) {
        int q = sp->sub_pairs[t];
        const double* jr = p->J + (size_t)sp->pair_row[q] * (size_t)nv;
        for (int a = 0; a < n; a++) work[a] = jr[dofs[a]];
        tf_lower_solve(n, fac, work);
        double w = 0;
        for (int a = 0; a < n; a++) w += work[a] * work[a];
        diag[q] = w;
      }
      fac += (size_t)n * (size_t)n;
    }
  }
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    double metric[6];
    for (int k = 0; k < dim; k++) metric[k] = 1;
    if (p->block_type[blk] == TF_EFC_CONTACT && dim > 1) {
      const double* mu = p->mu + adr;
      double mu1 = mu[1] > 0 ? mu[1] : 1;
      metric[0] = 1 / mu1;
      for (int k = 1; k < dim; k++) metric[k] = mu[k] > 0 ? mu[k] * mu[k] / mu1 : 0;
    }
    for (int k = 0; k < dim; k++) {
      int i = adr + k, ncopy = sp->row_pairadr[i + 1] - sp->row_pairadr[i];
      for (int q = sp->row_pairadr[i]; q < sp->row_pairadr[i + 1]; q++) {
        if (s->penalty > 0) {
          base[q] = s->penalty * metric[k] * ncopy;
          continue;
        }
        // the mean over the block's rows that touch the same subsystem
        int j = sp->pair_sub[q], count = 0;
        double sum = 0;
        for (int r = adr; r < adr + dim; r++) {
          int qr = row_copy(sp, r, j);
          if (qr < 0) continue;
          sum += diag[qr];
          count++;
        }
        base[q] = metric[k] * (sum > 0 ? count / sum : 1);
      }
    }
  }
}

// the penalty of each copy (rho * base) and each row's 1 / b_i = sum of its copies' 1 / B_q
static void copy_penalties(const tf_constraint_problem* p, const admm_split* sp, const double* base,
                           double rho, double* penalty, double* binv) {
  for (int q = 0; q < sp->npair; q++) penalty[q] = rho * base[q];
  for (int i = 0; i < p->nefc; i++) {
    double sum = 0;
    for (int q = sp->row_pairadr[i]; q < sp->row_pairadr[i + 1]; q++) {
      if (penalty[q] > 0) sum += 1 / penalty[q];
    }
    binv[i] = sum;
  }
}

// the v step: one solve per subsystem with its factor (u_q = -lambda^_i, see the top)
static void solve_velocity(const tf_constraint_problem* p, const admm_split* sp,
                           const double* factors, const double* penalty, const double* z,
                           const double* lam_hat, double* rhs, double* v) {
  int nv = p->nv;
  const double* k = factors;
  for (int j = 0; j < sp->nsub; j++) {
    const int* dofs = sp->sub_dofs + sp->sub_dofadr[j];
    int n = sp->sub_dofadr[j + 1] - sp->sub_dofadr[j];
    for (int a = 0; a < n; a++) rhs[a] = p->b[dofs[a]];
    for (int t = sp->sub_pairadr[j]; t < sp->sub_pairadr[j + 1]; t++) {
      int q = sp->sub_pairs[t], row = sp->pair_row[q];
      double c = penalty[q] * z[q] + lam_hat[row];
      if (c == 0) continue;
      const double* jr = p->J + (size_t)row * (size_t)nv;
      for (int a = 0; a < n; a++) rhs[a] += jr[dofs[a]] * c;
    }
    tf_cholesky_solve(n, 1, k, rhs);
    for (int a = 0; a < n; a++) v[dofs[a]] = rhs[a];
    k += (size_t)n * (size_t)n;
  }
}

// a_q = J_ij v_j for every copy
static void copy_velocities(const tf_constraint_problem* p, const admm_split* sp, const double* v,
                            double* a) {
  int nv = p->nv;
  for (int q = 0; q < sp->npair; q++) {
    const double* jr = p->J + (size_t)sp->pair_row[q] * (size_t)nv;
    int j = sp->pair_sub[q];
    double aq = 0;
    for (int t = sp->sub_dofadr[j]; t < sp->sub_dofadr[j + 1]; t++) {
      int c = sp->sub_dofs[t];
      aq += jr[c] * v[c];
    }
    a[q] = aq;
  }
}

// what one z step reports: the largest change of lambda against lambda^ over its row's
// penalty, |lambda_i - lambda^_i| / b_i (velocity units: the step's own natural-map residual),
// and the B-weighted squared norms of the split residual J_ij v_j - z_q and of the change of z
typedef struct admm_step_stats {
  double change;
  double split2;
  double move2;
} admm_step_stats;

// the z / lambda step from the state (z_old, lam_hat) and the copies' velocities a: writes
// the new copies z_new and lambda (in the sets), over-relaxed copies alpha a + (1 - alpha) z
static admm_step_stats update_impulses(const tf_constraint_problem* p, const admm_split* sp,
                                       const double* penalty, const double* binv, const double* a,
                                       const double* z_old, const double* lam_hat, double* z_new,
                                       double* lambda) {
  admm_step_stats st = {0, 0, 0};
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    double x[6], y[6];
    for (int k = 0; k < dim; k++) {
      int i = adr + k;
      double sum = p->e[i];
      for (int q = sp->row_pairadr[i]; q < sp->row_pairadr[i + 1]; q++) {
        sum += ADMM_RELAX * a[q] + (1 - ADMM_RELAX) * z_old[q];
      }
      y[k] = sum;
    }
    if (p->block_type[blk] == TF_EFC_CONTACT) {
      double slip = 0;
      for (int k = 1; k < dim; k++) {
        double ut = p->mu[adr + k] * y[k];
        slip += ut * ut;
      }
      y[0] += sqrt(slip);
    }
    for (int k = 0; k < dim; k++) {
      int i = adr + k;
      x[k] = binv[i] > 0 ? lam_hat[i] - y[k] / binv[i] : lam_hat[i];
    }
    tf_project_block(p, blk, x);
    for (int k = 0; k < dim; k++) {
      int i = adr + k;
      double dl = x[k] - lam_hat[i];
      st.change = fmax(st.change, fabs(dl) * binv[i]);
      lambda[i] = x[k];
      for (int q = sp->row_pairadr[i]; q < sp->row_pairadr[i + 1]; q++) {
        double bq = penalty[q];
        double relaxed = ADMM_RELAX * a[q] + (1 - ADMM_RELAX) * z_old[q];
        double zq = bq > 0 ? relaxed + dl / bq : relaxed;
        st.move2 += bq * (zq - z_old[q]) * (zq - z_old[q]);
        st.split2 += bq * (a[q] - zq) * (a[q] - zq);
        z_new[q] = zq;
      }
    }
  }
  return st;
}

// brings a warm start into the sets (non-finite entries restart from zero)
static void clamp_warm_start(const tf_constraint_problem* p, double* lambda) {
  for (int i = 0; i < p->nefc; i++) {
    if (!isfinite(lambda[i])) lambda[i] = 0;
  }
  for (int blk = 0; blk < p->nblock; blk++) tf_project_block(p, blk, lambda + p->block_adr[blk]);
}

// Anderson acceleration of x -> F(x) (see the top): the differences of the last m outputs
// g = F(x) and residuals f = g - x, in a ring
typedef struct admm_anderson {
  int m;           // memory
  int n;           // length of the state
  int count;       // differences held
  int head;        // next slot of the ring
  int have_prev;   // g_prev / f_prev hold the previous step
  double* dg;      // (m x n)
  double* df;      // (m x n)
  double* g_prev;  // (n)
  double* f_prev;  // (n)
} admm_anderson;

static void anderson_reset(admm_anderson* aa) { aa->count = aa->head = aa->have_prev = 0; }

// u'W w in the state's norm: weights B_q on the copies, 1 / b_i on the rows
static double weighted_dot(const admm_split* sp, const double* penalty, const double* binv,
                           int nefc, const double* u, const double* w) {
  double sum = 0;
  for (int q = 0; q < sp->npair; q++) sum += penalty[q] * u[q] * w[q];
  u += sp->npair;
  w += sp->npair;
  for (int i = 0; i < nefc; i++) sum += binv[i] * u[i] * w[i];
  return sum;
}

// |u - w|^2 in the same norm
static double weighted_dist2(const admm_split* sp, const double* penalty, const double* binv,
                             int nefc, const double* u, const double* w) {
  double sum = 0;
  for (int q = 0; q < sp->npair; q++) sum += penalty[q] * (u[q] - w[q]) * (u[q] - w[q]);
  u += sp->npair;
  w += sp->npair;
  for (int i = 0; i < nefc; i++) sum += binv[i] * (u[i] - w[i]) * (u[i] - w[i]);
  return sum;
}

// records the step x -> g and writes the extrapolated next state over x
static void anderson_step(admm_anderson* aa, const admm_split* sp, const double* penalty,
                          const double* binv, const double* g, double* x) {
  int n = aa->n, m = aa->m;
  for (int k = 0; k < n; k++) x[k] = g[k] - x[k];  // x holds f from here
  if (aa->have_prev) {
    double* dg = aa->dg + (size_t)aa->head * (size_t)n;
    double* df = aa->df + (size_t)aa->head * (size_t)n;
    for (int k = 0; k < n; k++) {
      dg[k] = g[k] - aa->g_prev[k];
      df[k] = x[k] - aa->f_prev[k];
    }
    aa->head = (aa->head + 1) % m;
    if (aa->count < m) aa->count++;
  }
  memcpy(aa->g_prev, g, sizeof(double) * (size_t)n);
  memcpy(aa->f_prev, x, sizeof(double) * (size_t)n);
  aa->have_prev = 1;
  // gamma = argmin |f - dF gamma| by the normal equations (c <= m small), Cholesky
  int c = aa->count, ok = c > 0;
  double h[ADMM_ANDERSON * ADMM_ANDERSON], gamma[ADMM_ANDERSON], trace = 0;
  int nefc = n - sp->npair;
  for (int i = 0; i < c; i++) {
    const double* fi = aa->df + (size_t)i * (size_t)n;
    gamma[i] = weighted_dot(sp, penalty, binv, nefc, fi, x);
    for (int j = 0; j <= i; j++) {
      const double* fj = aa->df + (size_t)j * (size_t)n;
      h[i * c + j] = h[j * c + i] = weighted_dot(sp, penalty, binv, nefc, fi, fj);
    }
    trace += h[i * c + i];
  }
  for (int i = 0; i < c; i++) h[i * c + i] += ADMM_ANDERSON_REG * trace;
  for (int j = 0; j < c && ok; j++) {
    double d = h[j * c + j];
    for (int k = 0; k < j; k++) d -= h[j * c + k] * h[j * c + k];
    if (!(d > 0)) {
      ok = 0;
      break;
    }
    h[j * c + j] = sqrt(d);
    for (int i = j + 1; i < c; i++) {
      double t = h[i * c + j];
      for (int k = 0; k < j; k++) t -= h[i * c + k] * h[j * c + k];
      h[i * c + j] = t / h[j * c + j];
    }
  }
  for (int i = 0; i < c && ok; i++) {
    double t = gamma[i];
    for (int k = 0; k < i; k++) t -= h[i * c + k] * gamma[k];
    gamma[i] = t / h[i * c + i];
  }
  for (int i = c - 1; i >= 0 && ok; i--) {
    double t = gamma[i];
    for (int k = i + 1; k < c; k++) t -= h[k * c + i] * gamma[k];
    gamma[i] = t / h[i * c + i];
  }
  for (int k = 0; k < n; k++) {
    double xk = g[k];
    for (int i = 0; i < c && ok; i++) xk -= gamma[i] * aa->dg[(size_t)i * (size_t)n + k];
    x[k] = xk;
  }
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
  int npair = sp.npair, nx = npair + nefc;
  size_t nxs = (size_t)nx;
  double* factors = tf_arena_doubles(d, nfactor);
  double* base = tf_arena_doubles(d, (size_t)npair);
  double* penalty = tf_arena_doubles(d, (size_t)npair);
  double* a = tf_arena_doubles(d, (size_t)npair);
  double* binv = tf_arena_doubles(d, (size_t)nefc);
  double* best = tf_arena_doubles(d, (size_t)nefc);
  double* rhs = tf_arena_doubles(d, (size_t)nv);
  double* x = tf_arena_doubles(d, nxs);      // the state (z, lambda^)
  double* g = tf_arena_doubles(d, nxs);      // F(x)
  double* g_acc = tf_arena_doubles(d, nxs);  // F at the last accepted state
  admm_anderson aa;
  aa.m = ADMM_ANDERSON;
  aa.n = nx;
  aa.dg = tf_arena_doubles(d, ADMM_ANDERSON * nxs);
  aa.df = tf_arena_doubles(d, ADMM_ANDERSON * nxs);
  aa.g_prev = tf_arena_doubles(d, nxs);
  aa.f_prev = tf_arena_doubles(d, nxs);
  anderson_reset(&aa);

  // scales of the stopping test
  double umax = 0;
  for (int i = 0; i < nefc; i++) {
    const double* row = p->J + (size_t)i * (size_t)nv;
    double sum = p->e[i];
    for (int c = 0; c < nv; c++) sum += row[c] * p->v_free[c];
    umax = fmax(umax, fabs(sum));
  }
  double tol = s->tolerance > 0 ? s->tolerance : 0;
  int cap = s->iterations > 0 ? s->iterations : 1;
  int adaptive = !(s->penalty > 0);

  // penalties from A_j alone (a scratches the Delassus diagonals), then the v step's factors
  double rho = 1;
  int status = factor_subsystems(p, &sp, NULL, factors);
  if (status == 0) {
    base_penalties(p, s, &sp, factors, a, rhs, base);
    copy_penalties(p, &sp, base, rho, penalty, binv);
    status = factor_subsystems(p, &sp, penalty, factors);
  }

  // warm start: lambda^ = lambda, z = the copies' velocities under v(lambda): the fixed point
  // when lambda already solves the problem
  double* z = x;
  double* lam_hat = x + npair;
  clamp_warm_start(p, lambda);
  tf_velocity_from_impulse(p, lambda, v);
  copy_velocities(p, &sp, v, z);
  memcpy(lam_hat, lambda, sizeof(double) * (size_t)nefc);
  memcpy(best, lambda, sizeof(double) * (size_t)nefc);
  double best_res = INFINITY, res_acc = INFINITY;
  int extrapolated = 0, iter = 0;
  while (status == 0 && iter < cap) {
    iter++;
    // g = F(x): the v step, the copies, the z / lambda step
    solve_velocity(p, &sp, factors, penalty, z, lam_hat, rhs, v);
    copy_velocities(p, &sp, v, a);
    admm_step_stats st = update_impulses(p, &sp, penalty, binv, a, z, lam_hat, g, g + npair);
    memcpy(lambda, g + npair, sizeof(double) * (size_t)nefc);
    double lmax = 0;
    for (int i = 0; i < nefc; i++) lmax = fmax(lmax, fabs(lambda[i]));
    double res = weighted_dist2(&sp, penalty, binv, nefc, g, x);
    if (!isfinite(res) || !isfinite(lmax)) {
      status = -1;
      break;
    }
    int balance = adaptive && iter % ADMM_BALANCE_EVERY == 0;
    if (st.change <= tol * (1 + umax) || balance) {
      tf_velocity_from_impulse(p, lambda, v);  // the next v step overwrites it
      double r = tf_natural_residual(p, v, lambda);
      if (r <= tol * (1 + umax)) {
        stats->converged = 1;
        break;
      }
      if (r < best_res) {
        best_res = r;
        memcpy(best, lambda, sizeof(double) * (size_t)nefc);
      }
    }
    if (balance) {
      double next = rho, split2 = st.split2, move2 = st.move2;
      double ratio2 = ADMM_BALANCE_RATIO * ADMM_BALANCE_RATIO;
      if (split2 > ratio2 * move2) next = rho * ADMM_BALANCE_STEP;
      if (move2 > ratio2 * split2) next = rho / ADMM_BALANCE_STEP;
      next = fmin(ADMM_RHO_MAX, fmax(ADMM_RHO_MIN, next));
      if (next != rho) {
        // a new F: the plain step, and the history starts again
        rho = next;
        copy_penalties(p, &sp, base, rho, penalty, binv);
        status = factor_subsystems(p, &sp, penalty, factors);
        memcpy(x, g, sizeof(double) * nxs);
        anderson_reset(&aa);
        res_acc = INFINITY;
        extrapolated = 0;
        continue;
      }
    }
    if (extrapolated && res > res_acc) {
      // the extrapolated state did worse than the last accepted one: its plain step instead
      memcpy(x, g_acc, sizeof(double) * nxs);
      anderson_reset(&aa);
      extrapolated = 0;
      continue;
    }
    res_acc = res;
    memcpy(g_acc, g, sizeof(double) * nxs);
    anderson_step(&aa, &sp, penalty, binv, g, x);
    extrapolated = aa.count > 0;
  }

  if (status != 0) {
    memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
    memset(lambda, 0, sizeof(double) * (size_t)nefc);
    stats->converged = 0;
  } else {
    tf_velocity_from_impulse(p, lambda, v);
    if (!stats->converged) {
      // at the cap: the better of the last and the best lambda, then no net work
      if (best_res < tf_natural_residual(p, v, lambda)) {
        memcpy(lambda, best, sizeof(double) * (size_t)nefc);
        tf_velocity_from_impulse(p, lambda, v);
      }
      tf_dissipation_guard(p, lambda, v);
    }
  }
  int converged = stats->converged;
  tf_constraint_residuals(p, v, lambda, stats);
  stats->iterations = iter;
  stats->converged = converged;
  tf_arena_release(d, mark);
  return status;
}
