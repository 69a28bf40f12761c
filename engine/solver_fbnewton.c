// fbnewton: the hard constraint problem of solver.h by a non-smooth (semismooth) Newton method
// on a Fischer-Burmeister reformulation, reduced to the impulses by the Schur complement, with
// best-iterate backtracking (Ostrich, reference/003, sections III-B and III-C; the problem
// statement is CRISP's, reference/000 appendix C).
//
// Reduction. The dynamics A v = b + J^T lambda are linear in v, so every iterate keeps them
// exactly: v(lambda) = v_free + Y^T lambda with Y = J A^-1 (row i = A^-1 J_i^T, one
// multi-right-hand-side solve with A's Cholesky factor). What is left is a system F(lambda) = 0
// in the impulses alone, whose Newton matrix is the Schur complement of the KKT system,
// G = B W + C with W = J A^-1 J^T (the Delassus matrix) and B, C block-diagonal per unit (the
// generalised derivatives of the row residuals below with respect to the row velocity
// u = J v + e and to lambda). G is built densely as (B J) Y^T, factored by LU with partial
// pivoting (tf_lu: G is not symmetric once friction slides) and v is back-substituted
// through Y. Dense is the right size here (a few hundred rows at most); the paper's
// matrix-free preconditioned conjugate residual pays off on a GPU with thousands of rows.
//
// Row residuals, each in row-velocity units (m/s, rad/s) and zero exactly at a solution; s_i
// is the Delassus diagonal W_ii, which turns an impulse into a velocity so that both halves
// of a complementarity pair weigh alike whatever the masses (a 100 kg block on a 10 g one):
//   equality                     F = u                                 (lambda free)
//   limit, frictionless normal   F = phi_FB(u, s lambda),  phi_FB(a, b) = a + b - sqrt(a^2 + b^2)
//                                (zero iff a >= 0, b >= 0, a b = 0: Signorini / the limit's
//                                complementarity; no smoothing: the generalised Jacobian at
//                                a = b = 0 takes the direction (1, 1), and the product form
//                                2 a b / (a + b + sqrt(a^2 + b^2)) avoids the cancellation of
//                                a + b - sqrt(...) when both are positive)
//   joint dry friction           F = s (lambda - clamp(lambda - u / s, -bound, bound))
//                                (the natural map of the box: u while stuck, s (lambda -+
//                                bound) once saturated)
//   contact with friction        normal row: phi_FB(u_n, s_n lambda_n); tangential rows: in
//                                the scaled variables l_k = lambda_k / mu_k, w_k = mu_k u_k
//                                (where the elliptic cone is circular), with z = l - w / s_t
//                                and P the projection onto the disc |l| <= lambda_n,
//                                F_k = s_t (l_k - P_k(z)) / mu_k, s_t the mean of mu_k^2 W_kk.
//                                Zero iff the friction is inside the disc with no slip, or on
//                                its rim opposing the slip: Coulomb with maximal dissipation.
// Signorini on the normal with Coulomb on the tangents is the same solution set as solver.h's
// De Saxce cone complementarity (on the rim the De Saxce term mu |u_t| lambda_n cancels
// lambda_t . u_t, leaving lambda_n u_n), so no De Saxce term enters and nothing is held fixed
// between iterations. Frictionless tangential rows (mu = 0) carry F = s lambda (lambda = 0).
//
// Robust friction projection: the friction residual projects onto the disc of radius
// max(lambda_n, 0), so the friction it asks for is admissible at every iterate. The iterates
// the best is chosen from ("eligible") are the Newton iterates clamped into their sets
// (fb_admissible: lambda_n and limits >= 0, friction scaled radially into its ellipse, joint
// friction into [-bound, bound]); so is the warm start. A converged answer then takes the
// residual's own projections (fb_polish: the tangential impulse mu P(z), on the rim whenever
// the contact slides; joint friction clamp(lambda - u / s)), a change at the tolerance's
// scale that makes the friction law hold to rounding. Choosing the best among those
// projected iterates instead cost more than it gave: 97 capped solves on hull_stack and 88 on
// stack_ratio10 against 0 and 22, validate 1.69 s against 0.31 s. The Newton iterates
// themselves are not clamped: clamping them after every step (measured on stack_ratio100,
// the 100 kg block landing) cut Newton's steps short, |F| wandered between 0.9 and 179 and
// the solve hit its cap of 100; unclamped it converged in 45 steps.
//
// Newton step: G dlambda = -F with G regularised by rho s_i on its diagonal, rho = 3e-11 +
// min(1e-7, |F| / u_ref) (u_ref the largest free row velocity): a box resting on four corners
// has 12 rows on 6 dofs, W is singular and so is G once all of them are active; the
// regularisation picks one of the equivalent impulse distributions. It must stay far below
// the spread of W's eigenvalues: with a ceiling of 1e-3 the 1:100 stack crawled linearly
// (|F| 4.47e-3 to 4.23e-3 in 75 steps). Within that, the resting stacks are chaotic in it:
// the step along W's null space is rounding amplified by 1 / rho, and whether a 1:100 stack
// at 1 ms or a 1:10 stack at 10 ms settles or caps its solves from the landing on changes
// from one setting to its neighbour (docs/measured.md, "fbnewton"). These two values hold
// every gate, as do their neighbours 1e-11 and 3e-7; the earlier 1e-12 and 1e-8 lost the
// 1:100 stack at 1 ms.
// Stagnation floor (Levenberg-Marquardt's adaptive damping, applied to the Newton matrix):
// where the solution is far from unique, rounding amplified by 1 / rho sends the full step
// far along W's null space, the residual jumps by orders of magnitude and the halved steps
// crawl. A gear train on its shafts is that case: about 170 rows on 18 dofs, every tooth
// and bore contact sliding, and with the floor above alone two thirds of its solves ended at
// the cap with rows up to 0.03 m/s off. So each backtrack raises a floor under rho
// (FB_STALL_REG_START, then 10x per backtrack up to FB_STALL_REG_MAX), and each new anchor
// halves it: the step then stays in the range of W and the iteration descends. No floor
// exists until the first backtrack, so a solve that never backtracks is unchanged. A fixed
// rho of 1e-4 or more instead lost the 1:100 stack's landing (its rows differ 100x in
// Delassus scale), as did a floor that only grew; gears at 100 and 50 Hz over the gate's
// 21 speeds went from 19 and 6 holding to 21 and 21 (docs/measured.md, "fbnewton").
//
// Best-iterate backtracking (the paper's replacement for a line search at large steps): the
// full Newton step is always taken, even when it raises the residual (a semismooth step may
// have to cross a kink). Two iterates are remembered: the Newton iterate with the smallest
// |F| (the anchor) and the eligible (clamped) iterate with the smallest |F| (the answer). After
// FB_PATIENCE steps without a new anchor the iteration returns to the anchor and halves its
// step length (doubled again after each new anchor, up to 1). Resuming from the best
// eligible iterate instead stalled the 1:10 stack when eligibility meant fb_polish's
// projection (Jacobi-like friction steps far from the solution): 100-step caps from the
// landing on. At the budget
// (settings->iterations Newton steps) or once |F| <= settings->tolerance the best iterate is
// returned, never the last one (polished by fb_polish only when converged; no dissipation
// guard: the best of the iterates is the safeguard, and a rescaled answer would no longer be
// the iterate the budget chose).
// stats->iterations counts Newton steps (0: the warm start met the tolerance); the reported
// residuals come from tf_constraint_residuals.
// Warm start: the given lambda, clamped into its sets.
//
// Scratch: one arena block of nefc^2 + (nefc + maxdim) nv + nv + 12 nefc doubles plus nefc
// LU pivots; the dense algebra allocates nothing. No threads, fixed loop order.
#include <math.h>
#include <string.h>

#include "linalg_dense.h"
#include "model_internal.h"
#include "solver.h"
#include "solver_util.h"

#define FB_MAX_UNIT 6            // largest contact block (normal + up to 5 friction rows)
#define FB_PATIENCE 3            // Newton steps without a new best before backtracking
#define FB_REG_MIN 3e-11         // floor of the Newton matrix's relative regularisation
#define FB_REG_MAX 1e-7          // its ceiling far from the solution
#define FB_STALL_REG_START 1e-6  // the stagnation floor of rho at the first backtrack
#define FB_STALL_REG_MAX 1e-2    // its ceiling
#define FB_STALL_REG_GROW 10     // its growth per backtrack (halved per new anchor)

// everything one solve needs, carved from a single arena block
typedef struct fb_work {
  const tf_constraint_problem* p;
  double* Y;             // (nefc x nv) row i = A^-1 J_i^T
  double* G;             // (nefc x nefc) Newton matrix, column-major, then its LU
  double* BJ;            // (maxdim x nv) one unit's B times its rows of J
  double* v;             // (nv) velocity at the iterate
  double* s;             // (nefc) Delassus diagonal per row (friction rows: s_t of their unit)
  double* lam;           // (nefc) current iterate
  double* lam_best;      // (nefc) lowest-residual eligible iterate so far: the answer
  double* lam_anchor;    // (nefc) lowest-residual Newton iterate: where backtracking resumes
  double* lam_step;      // (nefc) Newton step, then the trial iterate
  double* u;             // (nefc) row velocities J v + e at the iterate
  double* F;             // (nefc) residual at the iterate
  double* F_try;         // (nefc) residual at the trial iterate
  double* u_try;         // (nefc) row velocities at the trial iterate
  double* lam_eligible;  // (nefc) the trial iterate clamped into the impulse sets
  double* u_eligible;    // (nefc) row velocities there
  double* F_eligible;    // (nefc) residual there
  int* ipiv;             // (nefc) LU pivots
} fb_work;

// plain dot product (BLAS would cost more than it saves at these sizes)
static double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

// a contact block carries friction when some tangential row has a positive coefficient
static int contact_has_friction(const tf_constraint_problem* p, int blk) {
  if (p->block_type[blk] != TF_EFC_CONTACT) return 0;
  int adr = p->block_adr[blk];
  for (int k = 1; k < p->block_dim[blk]; k++) {
    if (p->mu[adr + k] > 0) return 1;
  }
  return 0;
}

// a unit is a whole contact block with friction (the disc couples its rows), else one row
static int unit_dim(const tf_constraint_problem* p, int blk) {
  return contact_has_friction(p, blk) ? p->block_dim[blk] : 1;
}

// phi_FB(a, b) and its generalised gradient (da, db); b >= 0 on admissible iterates
static double fischer_burmeister(double a, double b, double* da, double* db) {
  double r = hypot(a, b);
  if (r == 0) {
    // the kink: any convex combination is a generalised gradient; (1, 1) / sqrt 2 is the
    // limit along a = b, which keeps both derivatives positive
    *da = *db = 1 - M_SQRT1_2;
    return 0;
  }
  *da = 1 - a / r;
  *db = 1 - b / r;
  // a + b - r = 2 a b / (a + b + r) when a + b > 0, without the cancellation
  return a + b > 0 ? 2 * a * b / (a + b + r) : a + b - r;
}

// residual of one unit (global rows row .. row + ud - 1 of block blk); u, lam and F point
// at the unit's first row. With B and C (ud x ud, row-major) its derivatives
// dF = B du + C dlambda
static void fb_unit(const fb_work* w, int blk, int row, int ud, const double* u, const double* lam,
                    double* F, double* B, double* C) {
  const tf_constraint_problem* p = w->p;
  const double* s = w->s + row;
  if (B) {
    memset(B, 0, sizeof(double) * (size_t)(ud * ud));
    memset(C, 0, sizeof(double) * (size_t)(ud * ud));
  }
  int type = p->block_type[blk];
  if (ud == 1) {
    double f, b = 1, c = 0;
    switch (type) {
      case TF_EFC_EQUALITY:
        f = u[0];
        break;
      case TF_EFC_FRICTION: {
        double bound = fmax(p->bound[row], 0), z = lam[0] - u[0] / s[0];
        if (fabs(z) < bound) {  // stuck: the row velocity must vanish
          f = u[0];
        } else {  // saturated: the impulse must sit on the bound
          f = s[0] * (lam[0] - copysign(bound, z));
          b = 0;
          c = s[0];
        }
        break;
      }
      case TF_EFC_CONTACT:
        if (row != p->block_adr[blk]) {  // tangential row of a frictionless contact
          f = s[0] * lam[0];
          b = 0;
          c = s[0];
          break;
        }
        f = fischer_burmeister(u[0], s[0] * lam[0], &b, &c);
        c *= s[0];
        break;
      case TF_EFC_LIMIT:
      default:
        f = fischer_burmeister(u[0], s[0] * lam[0], &b, &c);
        c *= s[0];
        break;
    }
    F[0] = f;
    if (B) {
      B[0] = b;
      C[0] = c;
    }
    return;
  }
  // contact with friction: normal by FB, tangents by the natural map of the disc
  const double* mu = p->mu + row;
  double da, db;
  F[0] = fischer_burmeister(u[0], s[0] * lam[0], &da, &db);
  if (B) {
    B[0] = da;
    C[0] = db * s[0];
  }
  double st = s[1], radius = fmax(lam[0], 0);
  double z[FB_MAX_UNIT], zn2 = 0;
  for (int k = 1; k < ud; k++) {
    z[k] = mu[k] > 0 ? lam[k] / mu[k] - mu[k] * u[k] / st : 0;
    zn2 += z[k] * z[k];
  }
  double zn = sqrt(zn2);
  int inside = zn <= radius;
  double ratio = inside ? 1 : (zn > 0 ? radius / zn : 0);
  for (int k = 1; k < ud; k++) {
    if (!(mu[k] > 0)) {  // a frictionless direction of a cone: no impulse
      F[k] = s[k] * lam[k];
      if (B) C[k * ud + k] = s[k];
      continue;
    }
    F[k] = st * (lam[k] / mu[k] - ratio * z[k]) / mu[k];
    if (!B) continue;
    // dP/dz = M: I inside, (radius / |z|) (I - zhat zhat^T) outside; dP/dradius = zhat
    // outside. dz_l = dlambda_l / mu_l - mu_l du_l / st, so
    //   dF_k = (st / mu_k) (dlambda_k / mu_k - sum_l M_kl (dlambda_l / mu_l - mu_l du_l / st)
    //          - zhat_k dlambda_n)
    for (int l = 1; l < ud; l++) {
      if (!(mu[l] > 0)) continue;
      double Mkl = inside ? (k == l ? 1 : 0) : ratio * ((k == l ? 1 : 0) - z[k] * z[l] / zn2);
      B[k * ud + l] = Mkl * mu[l] / mu[k];
      C[k * ud + l] = (st / mu[k]) * ((k == l ? 1 / mu[k] : 0) - Mkl / mu[l]);
    }
    if (!inside && zn > 0) C[k * ud] = -(st / mu[k]) * z[k] / zn;
  }
}

// v = v_free + Y^T lam and u = J v + e
static void fb_velocities(fb_work* w, const double* lam, double* u) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv;
  memcpy(w->v, p->v_free, sizeof(double) * (size_t)nv);
  for (int i = 0; i < p->nefc; i++) {
    if (lam[i] == 0) continue;
    const double* y = w->Y + (size_t)i * (size_t)nv;
    for (int k = 0; k < nv; k++) w->v[k] += lam[i] * y[k];
  }
  tf_mul_J(p, u, w->v);
  for (int i = 0; i < p->nefc; i++) u[i] += p->e[i];
}

// the residual F at lam (u and v left at lam); returns |F|
static double fb_residual(fb_work* w, const double* lam, double* u, double* F) {
  const tf_constraint_problem* p = w->p;
  fb_velocities(w, lam, u);
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], ud = unit_dim(p, blk);
    for (int row = adr; row < adr + p->block_dim[blk]; row += ud) {
      fb_unit(w, blk, row, ud, u + row, lam + row, F + row, NULL, NULL);
    }
  }
  return sqrt(dot(F, F, p->nefc));
}

// clamps lam into the impulse sets (the robust friction projection of the design note)
static void fb_admissible(const tf_constraint_problem* p, double* lam) {
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    switch (p->block_type[blk]) {
      case TF_EFC_LIMIT:
        lam[adr] = fmax(lam[adr], 0);
        break;
      case TF_EFC_FRICTION: {
        double bound = fmax(p->bound[adr], 0);
        lam[adr] = fmin(fmax(lam[adr], -bound), bound);
        break;
      }
      case TF_EFC_CONTACT: {
        double n = fmax(lam[adr], 0), t2 = 0;
        lam[adr] = n;
        for (int k = 1; k < dim; k++) {
          double mk = p->mu[adr + k];
          if (mk > 0) {
            t2 += (lam[adr + k] / mk) * (lam[adr + k] / mk);
          } else {
            lam[adr + k] = 0;
          }
        }
        double t = sqrt(t2);
        if (t > n) {
          double scale = t > 0 ? n / t : 0;
          for (int k = 1; k < dim; k++) lam[adr + k] *= scale;
        }
        break;
      }
      default:
        break;
    }
  }
}

// the converged answer's projection of lam (u its row velocities): impulses put where the
// residual's own projections put them, so that friction obeys its law exactly and the answer
// lies in its sets. lambda_n and limits clamped at 0; a friction unit's tangential impulse replaced
// by mu P(z), on the disc's rim whenever the contact slides; joint friction by clamp(lambda - u /
// s, -bound, bound). At a solution this moves nothing beyond rounding; a merely clamped impulse
// strictly inside its disc but sliding would read as a stuck contact that slips
// (tf_constraint_residuals' primal residual up to 1e-6 on random problems)
static void fb_polish(const fb_work* w, const double* lam, const double* u, double* out) {
  const tf_constraint_problem* p = w->p;
  memcpy(out, lam, sizeof(double) * (size_t)p->nefc);
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    const double* s = w->s + adr;
    switch (p->block_type[blk]) {
      case TF_EFC_LIMIT:
        out[adr] = fmax(lam[adr], 0);
        break;
      case TF_EFC_FRICTION: {
        double bound = fmax(p->bound[adr], 0);
        out[adr] = fmin(fmax(lam[adr] - u[adr] / s[0], -bound), bound);
        break;
      }
      case TF_EFC_CONTACT: {
        const double* mu = p->mu + adr;
        double radius = fmax(lam[adr], 0), z[FB_MAX_UNIT], zn2 = 0;
        out[adr] = radius;
        for (int k = 1; k < dim; k++) {
          z[k] = mu[k] > 0 ? lam[adr + k] / mu[k] - mu[k] * u[adr + k] / s[1] : 0;
          zn2 += z[k] * z[k];
        }
        double zn = sqrt(zn2), ratio = zn <= radius ? 1 : radius / zn;
        for (int k = 1; k < dim; k++) out[adr + k] = mu[k] > 0 ? mu[k] * ratio * z[k] : 0;
        break;
      }
      default:
        break;
    }
  }
}

// row scales: W_ii per row; a friction unit's tangential rows share s_t = mean mu_k^2 W_kk
// (the disc is circular in the scaled variables only with one scale)
static void fb_row_scales(fb_work* w) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv;
  for (int i = 0; i < p->nefc; i++) {
    double wii = dot(p->J + (size_t)i * (size_t)nv, w->Y + (size_t)i * (size_t)nv, nv);
    w->s[i] = wii > 0 ? wii : 1;
  }
  for (int blk = 0; blk < p->nblock; blk++) {
    if (!contact_has_friction(p, blk)) continue;
    int adr = p->block_adr[blk], dim = p->block_dim[blk], n = 0;
    double sum = 0;
    for (int k = 1; k < dim; k++) {
      double mk = p->mu[adr + k];
      if (mk > 0) sum += mk * mk * w->s[adr + k], n++;
    }
    double st = n > 0 && sum > 0 ? sum / n : 1;
    for (int k = 1; k < dim; k++) {
      if (p->mu[adr + k] > 0) w->s[adr + k] = st;
    }
  }
}

// G = B W + C + rho diag(s) at w->lam (u and F current there), column-major
static void fb_newton_matrix(fb_work* w, double rho) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv, nefc = p->nefc;
  double B[FB_MAX_UNIT * FB_MAX_UNIT], C[FB_MAX_UNIT * FB_MAX_UNIT], Fu[FB_MAX_UNIT];
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], ud = unit_dim(p, blk);
    for (int row = adr; row < adr + p->block_dim[blk]; row += ud) {
      fb_unit(w, blk, row, ud, w->u + row, w->lam + row, Fu, B, C);
      // an open unit (B = 0: an open contact, a saturated friction row, a frictionless
      // tangent) has rows of B W that are zero: no products to form (a third of the gears')
      int open = 1;
      for (int k = 0; k < ud * ud; k++) open &= B[k] == 0;
      for (int j = 0; j < ud; j++) {
        double* bj = w->BJ + (size_t)j * (size_t)nv;
        memset(bj, 0, sizeof(double) * (size_t)nv);
        for (int k = 0; k < ud; k++) {
          double coef = B[j * ud + k];
          if (coef == 0) continue;
          const double* jrow = p->J + (size_t)(row + k) * (size_t)nv;
          for (int c = 0; c < nv; c++) bj[c] += coef * jrow[c];
        }
        for (int col = 0; col < nefc; col++) {
          w->G[(size_t)col * (size_t)nefc + (size_t)(row + j)] =
              open ? 0 : dot(bj, w->Y + (size_t)col * (size_t)nv, nv);
        }
        for (int k = 0; k < ud; k++) {
          w->G[(size_t)(row + k) * (size_t)nefc + (size_t)(row + j)] += C[j * ud + k];
        }
        w->G[(size_t)(row + j) * (size_t)nefc + (size_t)(row + j)] += rho * w->s[row + j];
      }
    }
  }
}

// carves the work arrays from one arena block
static void fb_carve(fb_work* w, double* base, int nv, int nefc, int maxdim) {
  size_t nvs = (size_t)nv, nc = (size_t)nefc;
  w->G = base;
  base += nc * nc;
  w->Y = base;
  base += nc * nvs;
  w->BJ = base;
  base += (size_t)maxdim * nvs;
  w->v = base;
  base += nvs;
  double** nc_arrays[] = {&w->s,          &w->lam_eligible, &w->lam,        &w->lam_best,
                          &w->lam_anchor, &w->lam_step,     &w->u,          &w->F,
                          &w->F_try,      &w->u_try,        &w->u_eligible, &w->F_eligible};
  for (size_t k = 0; k < sizeof(nc_arrays) / sizeof(nc_arrays[0]); k++) {
    *nc_arrays[k] = base;
    base += nc;
  }
  // the pivots are ints, stored in doubles the arena hands out (never read as doubles)
  w->ipiv = (int*)(void*)base;
}

// doubles of scratch tf_solve_fbnewton takes from the arena for a problem of this shape
static size_t fb_scratch_doubles(int nv, int nefc, int maxdim) {
  size_t nvs = (size_t)nv, nc = (size_t)nefc;
  return nc * nc + (nc + (size_t)maxdim) * nvs + nvs + 12 * nc +
         (nc * sizeof(int) + sizeof(double) - 1) / sizeof(double);
}

int tf_solve_fbnewton(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                      const tf_solver_settings* s, double* v, double* lambda,
                      tf_solver_stats* stats) {
  (void)m;
  int nv = p->nv, nefc = p->nefc;
  tf_solver_stats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof(*stats));
  memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
  if (nefc == 0 || nv == 0) {
    if (nefc > 0) memset(lambda, 0, sizeof(double) * (size_t)nefc);
    tf_constraint_residuals(p, v, lambda, stats);
    stats->converged = 1;
    return 0;
  }
  int maxdim = 1;
  for (int blk = 0; blk < p->nblock; blk++) {
    int ud = unit_dim(p, blk);
    if (ud > FB_MAX_UNIT) {  // no contact has more than 6 rows (solver.h): a caller's bug
      memset(lambda, 0, sizeof(double) * (size_t)nefc);
      tf_constraint_residuals(p, v, lambda, stats);
      return -1;
    }
    if (ud > maxdim) maxdim = ud;
  }
  size_t mark = tf_arena_mark(d);
  fb_work w = {.p = p};
  fb_carve(&w, tf_arena_doubles(d, fb_scratch_doubles(nv, nefc, maxdim)), nv, nefc, maxdim);
  // Y: column-major nv x nefc with column i = J_i^T is row-major J itself
  memcpy(w.Y, p->J, sizeof(double) * (size_t)nefc * (size_t)nv);
  tf_cholesky_solve(nv, nefc, p->A_factor, w.Y);
  fb_row_scales(&w);

  // the velocity scale of the regularisation: the largest free row velocity
  memset(w.lam, 0, sizeof(double) * (size_t)nefc);
  fb_velocities(&w, w.lam, w.u);
  double u_ref = 0;
  for (int i = 0; i < nefc; i++) u_ref = fmax(u_ref, fabs(w.u[i]));
  if (!(u_ref > 0)) u_ref = 1;

  for (int i = 0; i < nefc; i++) w.lam[i] = isfinite(lambda[i]) ? lambda[i] : 0;
  fb_admissible(p, w.lam);
  double res = fb_residual(&w, w.lam, w.u, w.F);
  double res_best = res, res_anchor = res, alpha = 1, tol = s->tolerance, stall_reg = 0;
  memcpy(w.lam_best, w.lam, sizeof(double) * (size_t)nefc);
  memcpy(w.lam_anchor, w.lam, sizeof(double) * (size_t)nefc);
  int failed = !isfinite(res), it = 0, since_anchor = 0;
  for (; !failed && res_best > tol && it < s->iterations; it++) {
    double rho = fmax(stall_reg, FB_REG_MIN + fmin(FB_REG_MAX, res / u_ref));
    fb_newton_matrix(&w, rho);
    for (int i = 0; i < nefc; i++) w.lam_step[i] = -w.F[i];
    int info = tf_lu(nefc, w.G, w.ipiv);
    if (info == 0) tf_lu_solve(nefc, w.G, w.ipiv, w.lam_step);
    int usable = info == 0;
    for (int i = 0; i < nefc && usable; i++) usable = isfinite(w.lam_step[i]);
    double res_try = INFINITY;
    if (usable) {
      for (int i = 0; i < nefc; i++) w.lam_step[i] = w.lam[i] + alpha * w.lam_step[i];
      res_try = fb_residual(&w, w.lam_step, w.u_try, w.F_try);
    }
    if (isfinite(res_try)) {
      // the step is taken even when it raises |F|: the best iterates are kept apart
      memcpy(w.lam, w.lam_step, sizeof(double) * (size_t)nefc);
      memcpy(w.u, w.u_try, sizeof(double) * (size_t)nefc);
      memcpy(w.F, w.F_try, sizeof(double) * (size_t)nefc);
      res = res_try;
      memcpy(w.lam_eligible, w.lam, sizeof(double) * (size_t)nefc);
      fb_admissible(p, w.lam_eligible);
      double res_eligible = fb_residual(&w, w.lam_eligible, w.u_eligible, w.F_eligible);
      if (res_eligible < res_best) {
        res_best = res_eligible;
        memcpy(w.lam_best, w.lam_eligible, sizeof(double) * (size_t)nefc);
      }
    }
    if (res_try < res_anchor) {
      res_anchor = res_try;
      memcpy(w.lam_anchor, w.lam, sizeof(double) * (size_t)nefc);
      since_anchor = 0;
      alpha = fmin(1, 2 * alpha);
      stall_reg *= 0.5;
    } else if (++since_anchor >= FB_PATIENCE || !isfinite(res_try)) {
      // backtrack: from the best Newton iterate, with a shorter step
      memcpy(w.lam, w.lam_anchor, sizeof(double) * (size_t)nefc);
      res = fb_residual(&w, w.lam, w.u, w.F);
      alpha *= 0.5;
      since_anchor = 0;
      stall_reg = stall_reg > 0 ? fmin(FB_STALL_REG_MAX, FB_STALL_REG_GROW * stall_reg)
                                : FB_STALL_REG_START;
      if (alpha < 1e-6) break;  // no step length helps: the best is as good as it gets
    }
  }
  stats->iterations = it;
  if (failed) {
    memset(lambda, 0, sizeof(double) * (size_t)nefc);
    tf_constraint_residuals(p, v, lambda, stats);
    tf_arena_release(d, mark);
    return -1;
  }
  stats->converged = res_best <= tol;
  memcpy(lambda, w.lam_best, sizeof(double) * (size_t)nefc);
  if (stats->converged) {
    fb_velocities(&w, lambda, w.u);
    fb_polish(&w, w.lam_best, w.u, lambda);
  }
  fb_velocities(&w, lambda, w.u);
  memcpy(v, w.v, sizeof(double) * (size_t)nv);
  tf_constraint_residuals(p, v, lambda, stats);
  tf_arena_release(d, mark);
  return 0;
}

double tf_fbnewton_residual(tf_data* d, const tf_constraint_problem* p, const double* lambda) {
  int nv = p->nv, nefc = p->nefc, maxdim = 1;
  if (nefc == 0 || nv == 0) return 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int ud = unit_dim(p, blk);
    if (ud > FB_MAX_UNIT) return NAN;
    if (ud > maxdim) maxdim = ud;
  }
  size_t mark = tf_arena_mark(d);
  fb_work w = {.p = p};
  fb_carve(&w, tf_arena_doubles(d, fb_scratch_doubles(nv, nefc, maxdim)), nv, nefc, maxdim);
  memcpy(w.Y, p->J, sizeof(double) * (size_t)nefc * (size_t)nv);
  tf_cholesky_solve(nv, nefc, p->A_factor, w.Y);
  fb_row_scales(&w);
  double res = fb_residual(&w, lambda, w.u, w.F);
  tf_arena_release(d, mark);
  return res;
}
