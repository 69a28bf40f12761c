// Projected Gauss-Seidel on the dual of the velocity-level constraint problem.
//
// The problem (solver.h, CRISP eq. 1) is  A v = b + J^T lambda  with (J v + e, lambda) in the
// row sets. Eliminating v = v_free + A^-1 J^T lambda leaves the dual in lambda alone,
//
//   u = W lambda + u_free,   W = J A^-1 J^T (the Delassus matrix),  u_free = J v_free + e,
//
// with (u, lambda) in the sets. Gauss-Seidel visits one block at a time (a contact with its
// friction rows, a limit, a joint friction row, an equality) and solves that block's small
// problem exactly with every other block held fixed (Jean and Moreau's non-smooth contact
// dynamics; Erleben, "Numerical methods for linear complementarity problems in physics-based
// animation", 2013):
//   equality   lambda_B <- lambda_B - W_BB^-1 u_B                       (block solve)
//   limit      lambda <- max(0, lambda - u / W_ii)
//   friction   lambda <- clamp(lambda - u / W_ii, -bound, bound)
//   contact    [n, t1, t2(, torsion)]: first the sticking candidate, the block solve for zero
//              row velocity  lambda* = lambda - W_BB^-1 u_B. If it lies inside the elliptic
//              cone sum (l_k / mu_k)^2 <= l_n^2 it is the exact local answer. Otherwise the
//              contact slides or separates: the normal row is updated with the tangential
//              impulse fixed, l_n <- max(0, l_n - u_n / W_nn), then the tangential impulse
//              minimises the block's quadratic over the ellipse sum (t_k / mu_k)^2 <= l_n^2
//              (a trust-region problem in t_k / mu_k, solved by Newton on its multiplier).
// The last step is maximal dissipation: at its optimum the sliding velocity u_t is
// -gamma diag(mu^-2) t, opposite the friction impulse, and the fixed point is Signorini on
// the normal (l_n >= 0 perp u_n >= 0) with Coulomb on the tangents. This is the same set of
// solutions as the De Saxce cone complementarity of solver.h (lambda in the cone, perp
// u + [mu |u_t|, 0] in the dual cone): for lambda on the cone boundary opposing u_t the De
// Saxce term and the tangential part of lambda . u cancel, leaving l_n u_n. Projecting the
// unconstrained block solution onto the cone (tf_project_cone), which the shortcut would do,
// is a projection in the wrong metric whenever W_BB couples the normal and tangential rows
// (an off-centre contact point always does), and its fixed point is then not Coulomb's: the
// friction would not oppose the slip. tf_project_cone is used to bring a warm start into the
// cones. The cone is a true ellipse per contact, never a pyramid, so friction is isotropic.
//
// W is never formed in full: the sweep keeps v = v_free + A^-1 J^T lambda current, reads a
// block's row velocities as J_B v + e_B (O(nv) per row) and adds A^-1 J_B^T dlambda_B back
// into v after the update. Only the diagonal blocks W_BB are stored. A^-1 J^T is one
// multi-right-hand-side solve with the problem's Cholesky factor.
//
// Stops when the largest change of lambda in a sweep is under tolerance * max |lambda| and
// the natural-map residual, max over rows of |lambda - Pi(lambda - c y)| / c with c ~ 1 / W_ii
// (velocity units, zero exactly at a solution), is under tolerance * (1 + max |u_free|); or
// at the iteration cap. A small change alone is not enough: PGS creeps on stacks. stats come
// from tf_constraint_residuals; the caller counts TF_WARN_SOLVER from stats->converged.
// settings->substeps is the caller's business (it splits the step and calls this solver once
// per substep); a solve here is one step's problem and ignores it.
//
// An unconverged answer (the cap reached) goes through a dissipation guard: lambda <- t
// lambda, t in [0, 1] minimising the dual objective along the ray, f(t lambda) = t^2 / 2
// lambda'W lambda + t lambda'(J v_free + e), and v to match. The kinetic energy 1/2 v'A v of
// v = v_free + A^-1 J^T lambda differs from v_free's by f(lambda) - lambda'e, so after the
// guard by at most -t lambda'e: no energy beyond what the rows' own errors ask for (contacts
// and limits have e >= 0: none). At any solution lambda'(J v + e) <= 0, so t = 1 and a
// converged answer is never touched. PGS needs it: a sweep lowers f only for frictionless
// rows and only from where it started, and it starts from the previous step's impulses. On a
// heavy block landing on a light one (validate/gate_contact.c, stack_ratio100) each sweep moves
// the load through the light block by about 1 %, the next step starts from the landing's
// large impulses, and without the guard that leftover threw the 100 kg block back up (+2.5 J
// in one step); on the 20-box pile of bench/ such leftovers kept the pile stirring, and 985
// of 1,000 steps hit the cap of 100 sweeps (179 with the guard).
// The slow convergence itself is PGS's own: the equilibrated Delassus matrix of that stack
// has a condition number near 4e4, and neither the block order (reversed, or forward and
// backward sweeps in turn) nor over-relaxation (1.3 to 1.6) made the stack hold; the
// alternating sweeps doubled the iterations on the tests' stacks and over-relaxation added
// energy, so the sweep stays forward and unrelaxed.
//
// Scratch (doubles): nv * nefc (A^-1 J^T) + sum over blocks of dim^2 (at most 6 nefc), plus
// 8 per allocation (2) of alignment.
#include <math.h>
#include <string.h>

#include "linalg_dense.h"
#include "model_internal.h"
#include "solver.h"
#include "solver_util.h"

#define PGS_MAXDIM 6  // the largest block solved as a block (a weld's 6 rows)

// in-place Cholesky (row-major, lower) of a small symmetric block; regularised by a tiny
// multiple of its largest diagonal so dependent rows (a weld whose rows repeat) still factor
static int small_cholesky(double* a, int n) {
  double dmax = 0;
  for (int i = 0; i < n; i++) dmax = fmax(dmax, a[i * n + i]);
  if (!(dmax > 0)) return -1;
  double reg = 1e-12 * dmax;
  for (int j = 0; j < n; j++) {
    double s = a[j * n + j] + reg;
    for (int k = 0; k < j; k++) s -= a[j * n + k] * a[j * n + k];
    if (!(s > 0)) return -1;
    double ljj = sqrt(s);
    a[j * n + j] = ljj;
    for (int i = j + 1; i < n; i++) {
      double t = a[i * n + j];
      for (int k = 0; k < j; k++) t -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = t / ljj;
    }
  }
  return 0;
}

// x <- (L L^T)^-1 x for a factor from small_cholesky
static void small_cholesky_solve(const double* l, int n, double* x) {
  for (int i = 0; i < n; i++) {
    double s = x[i];
    for (int k = 0; k < i; k++) s -= l[i * n + k] * x[k];
    x[i] = s / l[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = x[i];
    for (int k = i + 1; k < n; k++) s -= l[k * n + i] * x[k];
    x[i] = s / l[i * n + i];
  }
}

// the sliding friction of one contact: minimises 0.5 s'Hs + g's over |s| <= r (n <= 3) by
// Newton on the multiplier gamma of the ball, (H + gamma I) s = -g, |s| = r (More and
// Sorensen's trust-region iteration; monotone from gamma = 0 when H is positive definite)
static void ball_qp(double* s, const double* h, const double* g, int n, double r) {
  if (!(r > 0)) {
    for (int i = 0; i < n; i++) s[i] = 0;
    return;
  }
  double trace = 0, ng2 = 0;
  for (int i = 0; i < n; i++) {
    trace += h[i * n + i];
    ng2 += g[i] * g[i];
    s[i] = 0;
  }
  if (!(trace > 0)) {
    // no curvature (rows that move nothing): the linear term alone, minimised on the sphere
    for (int i = 0; i < n; i++) s[i] = ng2 > 0 ? -r * g[i] / sqrt(ng2) : 0;
    return;
  }
  double gamma = 0, l[9];
  for (int iter = 0; iter < 60; iter++) {
    for (int i = 0; i < n * n; i++) l[i] = h[i];
    for (int i = 0; i < n; i++) l[i * n + i] += gamma;
    if (small_cholesky(l, n) != 0) {
      gamma = fmax(2 * gamma, 1e-12 * trace);
      continue;
    }
    for (int i = 0; i < n; i++) s[i] = -g[i];
    small_cholesky_solve(l, n, s);
    double ns2 = 0;
    for (int i = 0; i < n; i++) ns2 += s[i] * s[i];
    double ns = sqrt(ns2);
    if (gamma == 0 && ns <= r) return;
    if (fabs(ns - r) <= 1e-14 * r) break;
    // w = L^-1 s, step = (|s| / |w|)^2 (|s| - r) / r
    double w[3], nw2 = 0;
    for (int i = 0; i < n; i++) {
      double t = s[i];
      for (int k = 0; k < i; k++) t -= l[i * n + k] * w[k];
      w[i] = t / l[i * n + i];
      nw2 += w[i] * w[i];
    }
    double step = ns2 / nw2 * (ns - r) / r;
    gamma = fmax(gamma + step, 0);
    if (fabs(step) <= 1e-15 * gamma) break;
  }
  // rounding may leave s a hair outside the ball: put it on it
  double ns2 = 0;
  for (int i = 0; i < n; i++) ns2 += s[i] * s[i];
  if (ns2 > r * r) {
    double k = r / sqrt(ns2);
    for (int i = 0; i < n; i++) s[i] *= k;
  }
}

// row velocities J_B v + e_B of the block's rows
static void block_velocity(const tf_constraint_problem* p, const double* v, int adr, int dim,
                           double* u) {
  for (int k = 0; k < dim; k++) {
    const double* row = p->J + (size_t)(adr + k) * (size_t)p->nv;
    double s = p->e[adr + k];
    for (int c = 0; c < p->nv; c++) s += row[c] * v[c];
    u[k] = s;
  }
}

// v += A^-1 J_B^T dlambda_B; returns the largest |dlambda|
static double apply_change(const tf_constraint_problem* p, const double* minv_jt, int adr, int dim,
                           const double* dl, double* v) {
  double change = 0;
  for (int k = 0; k < dim; k++) {
    if (dl[k] == 0) continue;
    const double* col = minv_jt + (size_t)(adr + k) * (size_t)p->nv;
    for (int c = 0; c < p->nv; c++) v[c] += col[c] * dl[k];
    change = fmax(change, fabs(dl[k]));
  }
  return change;
}

// one contact block: sticking candidate, else normal then tangential (see the top)
static void update_contact(const tf_constraint_problem* p, const double* w, int adr, int dim,
                           const double* u_in, double* lam, double* dl) {
  const double* mu = p->mu + adr;
  double u[4], old[4];
  for (int k = 0; k < dim; k++) {
    u[k] = u_in[k];
    old[k] = lam[k];
  }
  // rows that carry impulse: the normal and the tangential rows with mu > 0
  int act[4], na = 0;
  act[na++] = 0;
  for (int k = 1; k < dim; k++) {
    if (mu[k] > 0) act[na++] = k;
  }
  int done = 0;
  if (na > 1) {
    double l[16], x[4];
    for (int i = 0; i < na; i++) {
      for (int j = 0; j < na; j++) l[i * na + j] = w[act[i] * dim + act[j]];
      x[i] = -u[act[i]];
    }
    if (small_cholesky(l, na) == 0) {
      small_cholesky_solve(l, na, x);
      double n = lam[0] + x[0], t2 = 0;
      for (int i = 1; i < na; i++) {
        double t = (lam[act[i]] + x[i]) / mu[act[i]];
        t2 += t * t;
      }
      if (n > 0 && t2 <= n * n) {
        for (int i = 0; i < na; i++) lam[act[i]] += x[i];
        done = 1;
      }
    }
  }
  if (!done) {
    // normal row with the tangential impulse fixed
    double wnn = w[0];
    if (wnn > 0) {
      double ln = fmax(0, lam[0] - u[0] / wnn);
      double d = ln - lam[0];
      for (int k = 0; k < dim; k++) u[k] += w[k * dim] * d;
      lam[0] = ln;
    }
    // tangential impulse over the ellipse of radius l_n, in the scaled unknowns s = t / mu:
    // minimise 0.5 s' D W_tt D s + (D q)' s, q = u_t - W_tt t (the rows' velocity without
    // their own impulse)
    int nt = na - 1;
    if (nt > 0) {
      double h[9], g[3], s[3];
      for (int i = 0; i < nt; i++) {
        int ki = act[i + 1];
        double q = u[ki];
        for (int j = 0; j < nt; j++) {
          int kj = act[j + 1];
          q -= w[ki * dim + kj] * lam[kj];
          h[i * nt + j] = mu[ki] * w[ki * dim + kj] * mu[kj];
        }
        g[i] = mu[ki] * q;
      }
      ball_qp(s, h, g, nt, lam[0]);
      for (int i = 0; i < nt; i++) lam[act[i + 1]] = mu[act[i + 1]] * s[i];
    }
  }
  for (int k = 1; k < dim; k++) {
    if (!(mu[k] > 0)) lam[k] = 0;
  }
  for (int k = 0; k < dim; k++) dl[k] = lam[k] - old[k];
}

// one block of any type; returns the largest change of its impulses
static double update_block(const tf_constraint_problem* p, const double* minv_jt, const double* w,
                           int blk, double* v, double* lambda) {
  int adr = p->block_adr[blk], dim = p->block_dim[blk], type = p->block_type[blk];
  double* lam = lambda + adr;
  double u[PGS_MAXDIM], dl[PGS_MAXDIM] = {0};
  block_velocity(p, v, adr, dim, u);
  if (type == TF_EFC_CONTACT) {
    update_contact(p, w, adr, dim, u, lam, dl);
  } else if (type == TF_EFC_EQUALITY && dim > 1) {
    double l[PGS_MAXDIM * PGS_MAXDIM];
    memcpy(l, w, sizeof(double) * (size_t)(dim * dim));
    if (small_cholesky(l, dim) == 0) {
      for (int k = 0; k < dim; k++) dl[k] = -u[k];
      small_cholesky_solve(l, dim, dl);
      for (int k = 0; k < dim; k++) lam[k] += dl[k];
    }
  } else {
    // scalar rows, one after the other (limits and joint friction are 1-row blocks)
    for (int k = 0; k < dim; k++) {
      double wkk = w[k * dim + k];
      if (!(wkk > 0)) continue;
      for (int j = 0; j < k; j++) u[k] += w[k * dim + j] * dl[j];
      double x = lam[k] - u[k] / wkk;
      if (type == TF_EFC_LIMIT) {
        x = fmax(0, x);
      } else if (type == TF_EFC_FRICTION) {
        double bnd = p->bound[adr + k];
        x = fmin(bnd, fmax(-bnd, x));
      }
      dl[k] = x - lam[k];
      lam[k] = x;
    }
  }
  return apply_change(p, minv_jt, adr, dim, dl, v);
}

// brings a warm start into the sets (non-finite entries restart from zero)
static void clamp_warm_start(const tf_constraint_problem* p, double* lambda) {
  for (int i = 0; i < p->nefc; i++) {
    if (!isfinite(lambda[i])) lambda[i] = 0;
  }
  for (int blk = 0; blk < p->nblock; blk++) tf_project_block(p, blk, lambda + p->block_adr[blk]);
}

int tf_solve_pgs(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                 const tf_solver_settings* s, double* v, double* lambda, tf_solver_stats* stats) {
  (void)m;
  int nv = p->nv, nefc = p->nefc;
  memset(stats, 0, sizeof(*stats));
  if (nefc == 0 || nv == 0) {
    memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
    for (int i = 0; i < nefc; i++) lambda[i] = 0;
    tf_constraint_residuals(p, v, lambda, stats);
    stats->converged = 1;
    return 0;
  }
  size_t mark = tf_arena_mark(d);
  int status = 0;

  // A^-1 J^T: J stored row-major (nefc x nv) is J^T column-major (nv x nefc)
  double* minv_jt = tf_arena_doubles(d, (size_t)nv * (size_t)nefc);
  memcpy(minv_jt, p->J, sizeof(double) * (size_t)nv * (size_t)nefc);
  tf_cholesky_solve(nv, nefc, p->A_factor, minv_jt);
  int info = 0;

  // diagonal blocks of W, one after the other in block order
  size_t nw = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    nw += (size_t)(p->block_dim[blk] * p->block_dim[blk]);
  }
  double* w = tf_arena_doubles(d, nw);
  double* wb = w;
  for (int blk = 0; blk < p->nblock && info == 0; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    if (dim > PGS_MAXDIM || (p->block_type[blk] == TF_EFC_CONTACT && dim > 4)) {
      info = -1;  // blocks are at most 6 rows (contacts 4): a malformed problem
      break;
    }
    for (int i = 0; i < dim; i++) {
      const double* row = p->J + (size_t)(adr + i) * (size_t)nv;
      for (int j = 0; j < dim; j++) {
        const double* col = minv_jt + (size_t)(adr + j) * (size_t)nv;
        double sum = 0;
        for (int c = 0; c < nv; c++) sum += row[c] * col[c];
        wb[i * dim + j] = sum;
      }
    }
    wb += dim * dim;
  }

  // scales of the stopping test
  double umax = 0;
  for (int i = 0; i < nefc; i++) {
    const double* row = p->J + (size_t)i * (size_t)nv;
    double sum = p->e[i];
    for (int c = 0; c < nv; c++) sum += row[c] * p->v_free[c];
    umax = fmax(umax, fabs(sum));
  }
  // settings->substeps is not read: the caller splits the step (see the top)
  double tol = s->tolerance > 0 ? s->tolerance : 0;
  int cap = s->iterations > 0 ? s->iterations : 1;

  if (info == 0) {
    clamp_warm_start(p, lambda);
    tf_velocity_from_impulse(p, lambda, v);
    int iter = 0;
    while (iter < cap) {
      iter++;
      double change = 0, lmax = 0;
      const double* wblk = w;
      for (int blk = 0; blk < p->nblock; blk++) {
        change = fmax(change, update_block(p, minv_jt, wblk, blk, v, lambda));
        wblk += p->block_dim[blk] * p->block_dim[blk];
      }
      for (int i = 0; i < nefc; i++) lmax = fmax(lmax, fabs(lambda[i]));
      if (!isfinite(change) || !isfinite(lmax)) {
        status = -1;
        break;
      }
      if (change <= tol * lmax && tf_natural_residual(p, v, lambda) <= tol * (1 + umax)) {
        stats->converged = 1;
        break;
      }
    }
    stats->iterations = iter;
  } else {
    status = -1;
  }

  if (status != 0) {
    memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
    memset(lambda, 0, sizeof(double) * (size_t)nefc);
    stats->converged = 0;
  } else {
    tf_velocity_from_impulse(p, lambda, v);
    if (!stats->converged) tf_dissipation_guard(p, lambda, v);
  }
  int iterations = stats->iterations, converged = stats->converged;
  tf_constraint_residuals(p, v, lambda, stats);
  stats->iterations = iterations;
  stats->converged = converged;
  tf_arena_release(d, mark);
  return status;
}
