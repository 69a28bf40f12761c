// CANAL: the hard constraint problem of solver.h by an augmented Lagrangian (AL) outer loop
// around a semismooth Newton inner loop (CRISP, reference/000, sections V-A, V-B, appendix C).
//
// The problem (CRISP eq. 1):  A v = b + J^T lambda,  (J v + e, lambda) in S.
// Splitting z = J v (eq. 2) and eliminating z in closed form (eqs. 6, 8) leaves, for a fixed
// multiplier estimate lambda_bar (= -u in the paper's notation), the semismooth equation (eq. 3)
//
//   r(v) = A v - b - J^T lambda(v),   lambda(v) = Pi(lambda_bar - beta W (J v + e + s))
//
// where s is the De Saxce correction mu |J_t v + e_t| added to each contact's normal row and
// W a per-row penalty weight (below). s depends on v, but the inner loop holds it fixed (the
// "cascade"). With s fixed and Pi a projection onto a closed convex set C per unit, r is the
// gradient of the strongly convex potential
//
//   phi(v) = 1/2 v^T A v - b^T v + sum_units 1/(2 beta) (|y|^2 - dist(y, C)^2)
//
// in the scaled ("hat") variables y below, because d/dy 1/2 (|y|^2 - dist(y, C)^2) = Pi_C(y)
// (Moreau). Its generalised Hessian H = A + beta (cJ)^T D (cJ), D = dPi/dy, is symmetric
// with 0 <= D <= I, so Newton steps H dv = -r (dense Cholesky) with a line search on phi
// converge, locally quadratically once the active set settles. After each inner solve the
// multiplier takes eq. 7, lambda_bar <- lambda(v) (u <- u + beta (J v - z)).
//
// Sets, per unit (solver.h): equality C = R (lambda = y), joint friction C = [-bound, bound],
// limit and frictionless contact C = [0, inf), one row each; a contact with friction is one
// unit with C = K = {sum_k (lambda_k / mu_k)^2 <= lambda_n^2}. Eq. 8 writes the contact
// projection as "normal onto >= 0, then tangential into the disc of radius mu lambda_n"; read
// literally that map has a non-symmetric Jacobian (the disc depends on the normal, not the
// reverse), so it is the gradient of nothing and Cholesky cannot factor its H. We project
// onto the whole cone instead, in the metric that makes it circular: a contact's rows are
// scaled by c = (1, mu_1, mu_2, ...) / sqrt(mu_max), the hat variables are lambda / c and
// y = lambda_bar / c - beta c (J v + e + s), the hat cone is the unit second-order cone and
// the projection there is Euclidean (back in lambda it is tf_project_cone's projection; the
// row weights are W = c^2). Its fixed points lambda = Pi(lambda - beta W (J v + e + s)) are
// exactly lambda in K, J v + e + s in K*, the two orthogonal: with the De Saxce term,
// Signorini-Coulomb with maximal dissipation (De Saxce & Feng's bipotential).
//
// The line search is exact: along dv, phi'(alpha) = dv . r(v + alpha dv) is monotone (phi is
// convex) and cheap (J dv once, then O(nefc) per trial), so a safeguarded 1-D Newton on phi'
// finds its root.
//
// De Saxce terms between inner solves: plain cascading (s <- mu |J_t v + e_t| of the last
// inner solution) contracts by only about mu^2 / (1 + mu^2) per outer iteration on a sliding
// contact (0.18 at mu = 0.47, 0.69 at 1.5, 0.96 at 5), so s takes a Newton step on the fixed
// point s = F(s) instead, its derivative through the inner solution by the implicit function
// theorem (al_desaxce_newton): one nonsymmetric LU per outer iteration, only while something
// slides, and a plain step after any Newton step that did not cut |F(s) - s| by 10 %.
//
// Penalty: settings->penalty, or AL_PENALTY_SCALE / mean_i (J A^-1 J^T)_ii (the AL step then
// removes about 1 - 1e-5 of a typical row's violation per outer iteration; per-unit
// equilibration in al_default_penalty); multiplied by 10
// whenever an outer iteration's multiplier change (the AL step J v - z) is not 20 times
// smaller than the previous one, e.g. a heavy body on a light one (slow modes of
// J A^-1 J^T), up to AL_PENALTY_GROWTH_MAX times and only while the roundoff it amplifies
// (eps beta |J|^2 |v| in r) stays far below the tolerance.
//
// Coulomb friction makes the problem nonconvex and the outer map can cycle (seen on random
// problems with strongly coupled normal and friction rows, and on a gear train's sliding
// teeth, whose natural residual circled at 3.2e-8 m/s from the 28th outer iteration to the
// cap): when the natural residual has not halved for AL_STALL_RELAX outer iterations
// the multiplier and De Saxce updates are averaged with their old values (Krasnoselskii-Mann),
// and after AL_STALL_SHRINK the penalty shrinks tenfold (smaller, more proximal steps).
// Under re-linearisation (settings->relinearize > 0), once the penalty has reached its floor
// (AL_PENALTY_SHRINK_MIN) and AL_GIVE_UP more outer iterations (one shrink-and-grow period)
// have not cut the natural residual by 10 %, the solve stops unconverged: from there the map
// only cycles through the same residuals to the cap (shrink, grow back, stall, shrink), two
// thirds of a capped gear-train solve's iterations, and each pass's collision and solve start
// again from its answer. Without the passes the cap stays: stopping there too moved two
// checks past their limits (a hybrid force controller's open-loop sideways drift to 1.47 mm,
// limit 1 mm; a loaded mesh gear pair's teeth overlap from 17.4 to 30.7 um, tolerance
// 30.5 um), whose runs the cycling's last iterations still steer.
//
// Stopping: before each outer iteration the natural residual of the NCP,
// |lambda - Pi(lambda - beta W (J v + e + s(v)))| / (beta W) with a fresh De Saxce term
// (row-velocity units: it covers feasibility, the friction law and complementarity, and
// vanishes exactly at solutions), and the dual residual |A v - b - J^T lambda| of
// tf_constraint_residuals (or its roundoff floor) must be under settings->tolerance. The
// reported primal residual and complementarity come from tf_constraint_residuals.
// stats->iterations counts outer iterations, each one inner solve of at most
// settings->inner_iterations Newton steps; 0 means the warm start already met the tolerance.
// Warm start: lambda_bar = the given lambda, and v = p->v_warm when given, else
// v = A^-1 (b + J^T lambda_bar). A re-linearisation pass gives the previous pass's answer:
// its rows are the same contacts measured a few microns away, so that v nearly meets them,
// while A^-1 (b + J^T lambda_bar) of impulses carried across a changed row set misses a gear
// train's rows by 0.1-0.3 m/s (natural residual; about 1e-3 from v_warm), as far from the
// answer as a cold start.
//
// Scratch: one arena block of nv^2 + (5 + maxdim) nv + 7 nefc + 2 nblock doubles plus nv
// LU pivots, maxdim the largest cone (1 without friction); the dense algebra
// (linalg_dense.h) allocates nothing.
#include <float.h>
#include <math.h>
#include <string.h>

#include "linalg_dense.h"
#include "model_internal.h"
#include "solver.h"
#include "solver_util.h"

#define AL_PENALTY_SCALE 1e5        // default beta times the mean Delassus diagonal
#define AL_PENALTY_GROWTH_MAX 1e3   // the adaptive penalty never exceeds beta0 times this
#define AL_PENALTY_SHRINK_MIN 1e-4  // nor falls under beta0 times this
#define AL_DESAXCE_PROGRESS 0.9     // a De Saxce Newton step must cut |F(s) - s| by 10 %
#define AL_STALL_RELAX 2            // outer iterations without progress before averaging
#define AL_STALL_SHRINK 4           // ... before the penalty shrinks
#define AL_GIVE_UP 5  // outer iterations at the penalty's floor without a 10 % better residual
#define AL_LINE_SEARCH_ITERS 60
#define AL_MAX_UNIT 6  // largest contact block (normal + up to 5 friction rows)

// everything one solve needs, carved from a single arena block
typedef struct al_work {
  const tf_constraint_problem* p;
  double beta;
  double* H;         // (nv x nv) Newton matrix, then its Cholesky factor (column-major 'L')
  double* DJ;        // (maxdim x nv) projection Jacobian times the block's scaled rows
  double* dv;        // (nv) Newton step
  double* r;         // (nv) inner residual A v - b - J^T lambda(v)
  double* Av;        // (nv) A v, then A dv in the line search
  double* JTl;       // (nv) J^T lambda(v)
  double* tmp;       // (nv)
  double* scale;     // (nefc) row scale c (0: row carries no impulse)
  double* lam_bar;   // (nefc) multiplier estimate, original units
  double* lamh;      // (nefc) hat projection Pi(y) at the current v
  double* y;         // (nefc) hat argument of the projection at the current v
  double* jd;        // (nefc) c * (J dv)
  double* desaxce;   // (nefc) De Saxce term on each cone contact's normal row, else 0
  double* lamh_try;  // (nefc) hat projection at a trial step of the line search
  double* s_blk;     // (nblock) De Saxce terms the inner problem holds fixed
  double* g_blk;     // (nblock) F(s): the terms recomputed from an inner solution
  int* ipiv;         // (nv) pivots of the De Saxce Newton step's LU
  double floor;      // roundoff floor of the last inner residual
  double fix_prev;   // |F(s) - s| at the previous outer iteration (De Saxce safeguard)
} al_work;

// plain dot product (BLAS would cost more than it saves at nv ~ 40)
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

// row scales c: identity except on friction cones, where c = (1, mu_k...) / sqrt(mu_max)
// turns the elliptic cone into the unit second-order cone (see the design note)
static void al_row_scales(const tf_constraint_problem* p, double* scale) {
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    for (int k = 0; k < dim; k++) scale[adr + k] = 1;
    if (p->block_type[blk] != TF_EFC_CONTACT) continue;
    if (!contact_has_friction(p, blk)) {
      for (int k = 1; k < dim; k++) scale[adr + k] = 0;
      continue;
    }
    double mu_max = 0;
    for (int k = 1; k < dim; k++) mu_max = fmax(mu_max, p->mu[adr + k]);
    double c = 1 / sqrt(mu_max);
    scale[adr] = c;
    for (int k = 1; k < dim; k++) scale[adr + k] = p->mu[adr + k] > 0 ? c * p->mu[adr + k] : 0;
  }
}

// De Saxce term s = sqrt(sum_k (mu_k (J_k v + e_k))^2) of each cone contact (0 for other
// blocks), from row velocities jv = J v
static void al_desaxce_blocks(const tf_constraint_problem* p, const double* jv, double* s_blk) {
  for (int blk = 0; blk < p->nblock; blk++) {
    s_blk[blk] = 0;
    if (!contact_has_friction(p, blk)) continue;
    int adr = p->block_adr[blk];
    double s2 = 0;
    for (int k = 1; k < p->block_dim[blk]; k++) {
      double u = p->mu[adr + k] * (jv[adr + k] + p->e[adr + k]);
      s2 += u * u;
    }
    s_blk[blk] = sqrt(s2);
  }
}

// puts each block's De Saxce term on its normal row, where J v + e + s enters the projection
static void al_spread_desaxce(const tf_constraint_problem* p, const double* s_blk,
                              double* desaxce) {
  memset(desaxce, 0, sizeof(double) * (size_t)p->nefc);
  for (int blk = 0; blk < p->nblock; blk++) desaxce[p->block_adr[blk]] = s_blk[blk];
}

// Euclidean projection onto the unit second-order cone {|y_t| <= y_n} and, if D is given,
// its Jacobian (dim x dim, row-major): identity inside, zero in the polar cone, and on the
// surface 1/2 [[1, t^T], [t, (1 + yn/T) I - (yn/T) t t^T]] with t = y_t / T
static void project_soc(double* out, double* D, const double* y, int dim) {
  double yn = y[0], T2 = 0;
  for (int k = 1; k < dim; k++) T2 += y[k] * y[k];
  double T = sqrt(T2);
  if (D) memset(D, 0, sizeof(double) * (size_t)(dim * dim));
  if (T <= yn) {
    for (int k = 0; k < dim; k++) out[k] = y[k];
    if (D) {
      for (int k = 0; k < dim; k++) D[k * dim + k] = 1;
    }
    return;
  }
  if (T <= -yn) {
    for (int k = 0; k < dim; k++) out[k] = 0;
    return;
  }
  double a = 0.5 * (yn + T);
  out[0] = a;
  for (int k = 1; k < dim; k++) out[k] = a * y[k] / T;
  if (!D) return;
  double ratio = yn / T;
  D[0] = 0.5;
  for (int k = 1; k < dim; k++) {
    double tk = y[k] / T;
    D[k] = D[k * dim] = 0.5 * tk;
    for (int l = 1; l < dim; l++) {
      double tl = y[l] / T;
      D[k * dim + l] = 0.5 * ((k == l ? 1 + ratio : 0) - ratio * tk * tl);
    }
  }
}

// The projection splits into independent units: a whole contact block when it carries
// friction (the cone couples its rows), otherwise single rows. unit_dim is a block's unit
// size, so its units start at adr, adr + unit_dim, ...
static int unit_dim(const tf_constraint_problem* p, int blk) {
  return contact_has_friction(p, blk) ? p->block_dim[blk] : 1;
}

// hat projection of the unit of block blk starting at global row `row`, ob = Pi(yb) (both
// point at that row), and optionally its Jacobian D (dim x dim, row-major)
static void al_project_unit(const tf_constraint_problem* p, int blk, int row, int dim,
                            const double* yb, double* ob, double* D) {
  if (dim > 1) {
    project_soc(ob, D, yb, dim);
    return;
  }
  double y = yb[0], out, slope;
  switch (p->block_type[blk]) {
    case TF_EFC_EQUALITY:
      out = y;
      slope = 1;
      break;
    case TF_EFC_FRICTION: {
      double bound = fmax(p->bound[row], 0);
      out = fmin(fmax(y, -bound), bound);
      slope = fabs(y) < bound ? 1 : 0;
      break;
    }
    case TF_EFC_CONTACT:
      if (row != p->block_adr[blk]) {  // tangential row of a frictionless contact
        out = slope = 0;
        break;
      }
      out = fmax(y, 0);
      slope = y > 0 ? 1 : 0;
      break;
    case TF_EFC_LIMIT:
    default:
      out = fmax(y, 0);
      slope = y > 0 ? 1 : 0;
      break;
  }
  ob[0] = out;
  if (D) D[0] = slope;
}

// hat projection of every row: out = Pi(y)
static void al_project_all(const tf_constraint_problem* p, const double* y, double* out) {
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk], ud = unit_dim(p, blk);
    for (int row = adr; row < adr + dim; row += ud) {
      al_project_unit(p, blk, row, ud, y + row, out + row, NULL);
    }
  }
}

// hat argument y = lambda_bar / c - beta c (J v + e + s) for every row, given jv = J v
static void al_arguments(const al_work* w, const double* jv, const double* desaxce, double* y) {
  const tf_constraint_problem* p = w->p;
  for (int i = 0; i < p->nefc; i++) {
    double c = w->scale[i];
    y[i] = c > 0 ? w->lam_bar[i] / c - w->beta * c * (jv[i] + p->e[i] + desaxce[i]) : 0;
  }
}

// the inner residual at v: y, the hat projection lamh and r = A v - b - J^T lambda(v);
// returns |r| and writes the roundoff floor of r (what a computed r cannot go below): the
// rounding of A v, b and J^T lambda, plus that of lambda = Pi(lambda_bar - beta W (J v + e +
// s)) on rows whose impulse follows y (not projected to zero nor clipped to a bound), where
// the rounding of J v's terms is multiplied by the penalty: eps beta c^2 sum_k |J_ik v_k|.
// Under a stiff penalty that, not the tolerance, is what r can reach.
static double al_residual(al_work* w, const double* v, double* floor) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv;
  tf_mul_J(p, w->jd, v);  // jd doubles as J v here
  al_arguments(w, w->jd, w->desaxce, w->y);
  al_project_all(p, w->y, w->lamh);
  double amplified = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], friction = p->block_type[blk] == TF_EFC_FRICTION;
    for (int i = adr; i < adr + p->block_dim[blk]; i++) {
      double c = w->scale[i], lh = w->lamh[i];
      if (c == 0 || lh == 0 || (friction && fabs(lh) >= p->bound[i])) continue;
      const double* row = p->J + (size_t)i * (size_t)nv;
      double terms = fabs(p->e[i]) + w->desaxce[i], norm2 = 0;
      for (int k = 0; k < nv; k++) {
        terms += fabs(row[k] * v[k]);
        norm2 += row[k] * row[k];
      }
      amplified += w->beta * c * c * terms * sqrt(norm2);
    }
  }
  for (int i = 0; i < p->nefc; i++) w->jd[i] = w->scale[i] * w->lamh[i];  // lambda
  tf_mul_JT(p, w->JTl, w->jd);
  for (int i = 0; i < nv; i++) w->Av[i] = dot(p->A + (size_t)i * (size_t)nv, v, nv);
  double rn = 0, an = 0, bn = 0, jn = 0;
  for (int i = 0; i < nv; i++) {
    w->r[i] = w->Av[i] - p->b[i] - w->JTl[i];
    rn += w->r[i] * w->r[i];
    an += w->Av[i] * w->Av[i];
    bn += p->b[i] * p->b[i];
    jn += w->JTl[i] * w->JTl[i];
  }
  *floor = 32 * DBL_EPSILON * ((sqrt(an) + sqrt(bn) + sqrt(jn)) * sqrt((double)nv + 1) + amplified);
  return sqrt(rn);
}

// H = A + beta sum_units (c J)^T D (c J) at the current y: the generalised Hessian of phi
static void al_hessian(al_work* w) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv;
  memcpy(w->H, p->A, sizeof(double) * (size_t)nv * (size_t)nv);
  double D[AL_MAX_UNIT * AL_MAX_UNIT], out[AL_MAX_UNIT];
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], ud = unit_dim(p, blk);
    for (int row = adr; row < adr + p->block_dim[blk]; row += ud) {
      al_project_unit(p, blk, row, ud, w->y + row, out, D);
      int any = 0;
      for (int k = 0; k < ud * ud; k++) any |= D[k] != 0;
      if (!any) continue;
      // DJ = D (c J)_unit
      for (int j = 0; j < ud; j++) {
        double* dj = w->DJ + (size_t)j * (size_t)nv;
        memset(dj, 0, sizeof(double) * (size_t)nv);
        for (int k = 0; k < ud; k++) {
          double coef = D[j * ud + k] * w->scale[row + k];
          if (coef == 0) continue;
          const double* jrow = p->J + (size_t)(row + k) * (size_t)nv;
          for (int c = 0; c < nv; c++) dj[c] += coef * jrow[c];
        }
      }
      // H += beta (c J)_unit^T DJ
      for (int j = 0; j < ud; j++) {
        double cj = w->beta * w->scale[row + j];
        if (cj == 0) continue;
        const double* jrow = p->J + (size_t)(row + j) * (size_t)nv;
        const double* dj = w->DJ + (size_t)j * (size_t)nv;
        for (int a = 0; a < nv; a++) {
          double ra = cj * jrow[a];
          if (ra == 0) continue;
          double* h = w->H + (size_t)a * (size_t)nv;
          for (int c = 0; c < nv; c++) h[c] += ra * dj[c];
        }
      }
    }
  }
}

// phi'(alpha) = dv . r(v + alpha dv) given its value g0 at 0, and phi''(alpha); the hat
// arguments move linearly, y(alpha) = y - alpha beta c J dv
static void al_directional(al_work* w, double alpha, double g0, double dAd, double* g, double* gp) {
  const tf_constraint_problem* p = w->p;
  double D[AL_MAX_UNIT * AL_MAX_UNIT], yb[AL_MAX_UNIT];
  double sum = 0, curv = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], ud = unit_dim(p, blk);
    for (int row = adr; row < adr + p->block_dim[blk]; row += ud) {
      for (int k = 0; k < ud; k++) yb[k] = w->y[row + k] - alpha * w->beta * w->jd[row + k];
      al_project_unit(p, blk, row, ud, yb, w->lamh_try + row, D);
      for (int j = 0; j < ud; j++) {
        sum += w->jd[row + j] * (w->lamh_try[row + j] - w->lamh[row + j]);
        double dj = 0;
        for (int k = 0; k < ud; k++) dj += D[j * ud + k] * w->jd[row + k];
        curv += w->jd[row + j] * dj;
      }
    }
  }
  *g = g0 + alpha * dAd - sum;
  *gp = dAd + w->beta * curv;
}

// the line search's view of the objective along w's step (g0, dAd fixed for the step)
typedef struct al_line {
  al_work* w;
  double g0, dAd;
} al_line;

static void al_line_directional(void* ctx, double alpha, double* g, double* gp) {
  al_line* line = ctx;
  al_directional(line->w, alpha, line->g0, line->dAd, g, gp);
}

static double al_line_search(al_work* w, double g0, double dAd) {
  al_line line = {w, g0, dAd};
  return tf_line_search_root(al_line_directional, &line, g0, AL_LINE_SEARCH_ITERS);
}

// the inner semismooth Newton for fixed lambda_bar and De Saxce terms; v in/out. Stops at
// |r| <= tol (or r's roundoff floor), or once a step no longer halves |r| below outer_tol
// (roundoff has taken over). Returns the number of Newton steps, or -1 when the Newton
// matrix does not factor.
static int al_inner(al_work* w, double* v, int maxit, double tol, double outer_tol) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv;
  double rn_prev = INFINITY;
  for (int it = 0;; it++) {
    double floor;
    double rn = al_residual(w, v, &floor);
    w->floor = floor;
    if (!isfinite(rn)) return -1;
    if (rn <= fmax(tol, floor) || it >= maxit) return it;
    if (rn <= outer_tol && rn > 0.5 * rn_prev) return it;
    rn_prev = rn;
    al_hessian(w);
    if (tf_cholesky(nv, w->H) != 0) return -1;
    for (int i = 0; i < nv; i++) w->dv[i] = -w->r[i];
    tf_cholesky_solve(nv, 1, w->H, w->dv);
    // c * (J dv), A dv, and the slope at 0
    tf_mul_J(p, w->jd, w->dv);
    for (int i = 0; i < p->nefc; i++) w->jd[i] *= w->scale[i];
    for (int i = 0; i < nv; i++) w->Av[i] = dot(p->A + (size_t)i * (size_t)nv, w->dv, nv);
    double g0 = dot(w->dv, w->r, nv), dAd = dot(w->dv, w->Av, nv);
    if (!(g0 < 0)) return it;  // no descent left: r is at its roundoff floor
    double alpha = al_line_search(w, g0, dAd);
    for (int i = 0; i < nv; i++) v[i] += alpha * w->dv[i];
  }
}

// the De Saxce terms for the next inner solve, by one Newton step on s = F(s).
// F(s) = mu |J_t v(s) + e_t| per cone contact, v(s) the inner solution. Plain cascading
// (s <- F(s)) contracts only by about mu^2 / (1 + mu^2) per outer iteration on a sliding
// contact (the apex shift moves the projected velocity along the cone surface): 0.18 at
// mu = 0.47, 0.96 at mu = 5. Differentiating r(v(s), s) = 0 gives dv/ds_c = -H^-1 z_c with
// z_c = dr/ds_c = beta c_n (c J)_c^T D_c e_n, and dF_c/dv = w_c^T = sum_k mu_k^2 u_k J_k / F_c.
// The Newton step ds = d - W^T H^-1 Z ds (d = F - s) is, with q = H^-1 Z ds,
//   (H + Z W^T) q = Z d,   ds = d - W^T q,
// one nonsymmetric nv x nv LU (tf_lu) at the inner solution, only when some
// contact slides. v and y must still be those of the inner solve (lambda_bar not updated).
// Newton steps alternate with plain ones whenever |F(s) - s| stops halving (below).
static void al_desaxce_newton(al_work* w, const double* v, double relax) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv, nb = p->nblock;
  tf_mul_J(p, w->jd, v);  // J v
  al_desaxce_blocks(p, w->jd, w->g_blk);
  int sliding = 0;
  double fix = 0;
  for (int b = 0; b < nb; b++) {
    sliding |= w->g_blk[b] > 0;
    fix += (w->g_blk[b] - w->s_blk[b]) * (w->g_blk[b] - w->s_blk[b]);
  }
  // F is only piecewise smooth (contacts switch between sticking and sliding) and Newton
  // can cycle between two regimes: after a step that did not cut |F(s) - s| by
  // AL_DESAXCE_PROGRESS, the next one is plain
  fix = sqrt(fix);
  int plain = !sliding || fix > AL_DESAXCE_PROGRESS * w->fix_prev;
  w->fix_prev = fix;
  if (plain) {
    for (int b = 0; b < nb; b++) w->s_blk[b] += relax * (w->g_blk[b] - w->s_blk[b]);
    return;
  }
  al_hessian(w);  // H at the inner solution, row-major = column-major (symmetric)
  memset(w->r, 0, sizeof(double) * (size_t)nv);  // Z d
  double D[AL_MAX_UNIT * AL_MAX_UNIT], out[AL_MAX_UNIT];
  for (int b = 0; b < nb; b++) {
    if (!contact_has_friction(p, b)) continue;
    int adr = p->block_adr[b], dim = p->block_dim[b];
    al_project_unit(p, b, adr, dim, w->y + adr, out, D);
    // z = beta c_n sum_k c_k D[k][0] J_k (w->dv), w = sum_k mu_k^2 u_k J_k / F (w->tmp)
    memset(w->dv, 0, sizeof(double) * (size_t)nv);
    memset(w->tmp, 0, sizeof(double) * (size_t)nv);
    double F = w->g_blk[b];
    for (int k = 0; k < dim; k++) {
      const double* row = p->J + (size_t)(adr + k) * (size_t)nv;
      double zc = w->beta * w->scale[adr] * w->scale[adr + k] * D[k * dim];
      double u = w->jd[adr + k] + p->e[adr + k];
      double wc = k > 0 && F > 0 ? p->mu[adr + k] * p->mu[adr + k] * u / F : 0;
      for (int c = 0; c < nv; c++) {
        w->dv[c] += zc * row[c];
        w->tmp[c] += wc * row[c];
      }
    }
    double d = F - w->s_blk[b];
    for (int i = 0; i < nv; i++) {
      w->r[i] += w->dv[i] * d;
      if (w->dv[i] == 0) continue;
      for (int j = 0; j < nv; j++) w->H[(size_t)j * (size_t)nv + i] += w->dv[i] * w->tmp[j];
    }
  }
  int info = tf_lu(nv, w->H, w->ipiv);
  if (info == 0) tf_lu_solve(nv, w->H, w->ipiv, w->r);
  for (int b = 0; b < nb; b++) {
    double F = w->g_blk[b], ds = F - w->s_blk[b];
    if (info == 0 && F > 0) {
      // ds -= w_b . q
      int adr = p->block_adr[b];
      for (int k = 1; k < p->block_dim[b]; k++) {
        const double* row = p->J + (size_t)(adr + k) * (size_t)nv;
        double u = w->jd[adr + k] + p->e[adr + k];
        ds -= p->mu[adr + k] * p->mu[adr + k] * u / F * dot(row, w->r, nv);
      }
    }
    double next = w->s_blk[b] + relax * ds;
    // a failed or wild step falls back to plain cascading
    w->s_blk[b] = isfinite(next) && next >= 0 ? next : w->s_blk[b] + relax * (F - w->s_blk[b]);
  }
}

// natural residual of the NCP at (v, lambda_bar) with a fresh De Saxce term (left in g_blk):
// the size of (lambda - Pi(lambda - beta W (J v + e + s(v)))) / (beta W), in row-velocity
// units
static double al_natural_residual(al_work* w, const double* v) {
  const tf_constraint_problem* p = w->p;
  tf_mul_J(p, w->jd, v);
  al_desaxce_blocks(p, w->jd, w->g_blk);
  al_spread_desaxce(p, w->g_blk, w->desaxce);
  al_arguments(w, w->jd, w->desaxce, w->y);
  al_project_all(p, w->y, w->lamh_try);
  double sum = 0;
  for (int i = 0; i < p->nefc; i++) {
    double c = w->scale[i];
    if (c == 0) continue;
    double e = (w->lam_bar[i] / c - w->lamh_try[i]) / (w->beta * c);
    sum += e * e;
  }
  return sqrt(sum);
}

// default penalty from the problem's scale: AL_PENALTY_SCALE over the mean diagonal of the
// Delassus matrix J A^-1 J^T (one solve with A's factor per row)
// Also equilibrates the units: a single penalty cannot suit a 100 kg block on a 10 g one
// (their Delassus diagonals differ by 1e4, so the light unit converges and the heavy one
// crawls), so every unit except joint friction (whose hat set depends on the scale) has its
// row scales multiplied by sqrt(mean / W_unit), W_unit its first row's Delassus diagonal:
// each unit's effective penalty beta c^2 is then AL_PENALTY_SCALE / W_unit. The sets are
// cones or lines, invariant under that positive scaling, so the solution does not change.
static double al_default_penalty(al_work* w) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv;
  double sum = 0;
  int count = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    const double* row = p->J + (size_t)p->block_adr[blk] * (size_t)nv;
    memcpy(w->tmp, row, sizeof(double) * (size_t)nv);
    tf_solve_A(p, w->tmp);
    w->desaxce[blk] = dot(row, w->tmp, nv);  // scratch until the first De Saxce update
    sum += w->desaxce[blk];
    count++;
  }
  double mean = count ? sum / count : 0;
  if (!(mean > 0)) return 1;
  for (int blk = 0; blk < p->nblock; blk++) {
    double diag = w->desaxce[blk];
    if (p->block_type[blk] == TF_EFC_FRICTION || !(diag > 0)) continue;
    double k = sqrt(mean / diag);
    int adr = p->block_adr[blk];
    for (int i = adr; i < adr + p->block_dim[blk]; i++) w->scale[i] *= k;
  }
  memset(w->desaxce, 0, sizeof(double) * (size_t)p->nblock);
  return AL_PENALTY_SCALE / mean;
}

// carves the work arrays from one arena block
static void al_carve(al_work* w, double* base, int nv, int nefc, int nblock, int maxdim) {
  size_t nvs = (size_t)nv, nc = (size_t)nefc, nb = (size_t)nblock;
  w->H = base;
  base += nvs * nvs;
  w->DJ = base;
  base += (size_t)maxdim * nvs;
  double** nv_arrays[] = {&w->dv, &w->r, &w->Av, &w->JTl, &w->tmp};
  for (size_t k = 0; k < sizeof(nv_arrays) / sizeof(nv_arrays[0]); k++) {
    *nv_arrays[k] = base;
    base += nvs;
  }
  double** nc_arrays[] = {&w->scale, &w->lam_bar, &w->lamh,    &w->y,
                          &w->jd,    &w->desaxce, &w->lamh_try};
  for (size_t k = 0; k < sizeof(nc_arrays) / sizeof(nc_arrays[0]); k++) {
    *nc_arrays[k] = base;
    base += nc;
  }
  w->s_blk = base;
  base += nb;
  w->g_blk = base;
  base += nb;
  // the pivots are ints, stored in doubles the arena hands out (never read as doubles)
  w->ipiv = (int*)(void*)base;
}

// doubles of scratch tf_solve_al takes from the arena for a problem of this shape
static size_t al_scratch_doubles(int nv, int nefc, int nblock, int maxdim) {
  return (size_t)nv * (size_t)nv + (size_t)(5 + maxdim) * (size_t)nv + 7 * (size_t)nefc +
         2 * (size_t)nblock + ((size_t)nv * sizeof(int) + sizeof(double) - 1) / sizeof(double);
}

// the hard solve: AL outer iterations around the inner Newton (see the note at the top)
int tf_solve_al(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                const tf_solver_settings* s, double* v, double* lambda, tf_solver_stats* stats) {
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
    if (ud > AL_MAX_UNIT) {  // no contact has more than 6 rows (solver.h): a caller's bug
      memset(lambda, 0, sizeof(double) * (size_t)nefc);
      tf_constraint_residuals(p, v, lambda, stats);
      return -1;
    }
    if (ud > maxdim) maxdim = ud;
  }
  size_t mark = tf_arena_mark(d);
  al_work w = {.p = p, .fix_prev = INFINITY};
  size_t nscratch = al_scratch_doubles(nv, nefc, p->nblock, maxdim);
  al_carve(&w, tf_arena_doubles(d, nscratch), nv, nefc, p->nblock, maxdim);
  al_row_scales(p, w.scale);
  double beta0 = s->penalty > 0 ? s->penalty : al_default_penalty(&w);
  w.beta = beta0;
  double tol = s->tolerance;
  int inner = s->inner_iterations > 0 ? s->inner_iterations : 30;
  int failed = 0;

  // warm start: lambda_bar from the caller, v = v_warm or A^-1 (b + J^T lambda_bar)
  int warm = 0;
  for (int i = 0; i < nefc; i++) {
    w.lam_bar[i] = isfinite(lambda[i]) && w.scale[i] > 0 ? lambda[i] : 0;
    warm |= w.lam_bar[i] != 0;
  }
  if (p->v_warm) {
    memcpy(v, p->v_warm, sizeof(double) * (size_t)nv);
  } else if (warm) {
    tf_mul_JT(p, w.tmp, w.lam_bar);
    for (int i = 0; i < nv; i++) v[i] = p->b[i] + w.tmp[i];
    tf_solve_A(p, v);
  }

  double step_prev = INFINITY, nat_best = INFINITY, nat_min = INFINITY;
  int k = 0, stall = 0, k_min = 0, at_floor = 0;
  for (;; k++) {
    double nat = al_natural_residual(&w, v);  // also recomputes the De Saxce terms, g_blk
    if (nat < 0.5 * nat_best) {
      nat_best = nat;
      stall = 0;
    } else {
      stall++;
    }
    tf_constraint_residuals(p, v, w.lam_bar, stats);
    if (!isfinite(nat) || !isfinite(stats->dual_residual)) {
      failed = 1;
      break;
    }
    if (nat <= tol && stats->dual_residual <= fmax(tol, w.floor)) {
      stats->converged = 1;
      break;
    }
    if (nat < 0.9 * nat_min) nat_min = nat, k_min = k;
    // once the penalty has shrunk to its floor and the residual still makes no progress, the
    // outer map is cycling (Coulomb friction's nonconvexity): more iterations only repeat it
    if (s->relinearize > 0 && at_floor && k - k_min >= AL_GIVE_UP) break;
    if (k >= s->iterations) break;
    if (k == 0) memcpy(w.s_blk, w.g_blk, sizeof(double) * (size_t)p->nblock);
    al_spread_desaxce(p, w.s_blk, w.desaxce);
    int steps = al_inner(&w, v, inner, 1e-3 * tol, 0.1 * tol);
    if (steps < 0) {
      failed = 1;
      break;
    }
    // eq. 7: the new multiplier is the projection at the inner solution (al_residual's last
    // evaluation was at the final v); its change is the AL step J v - z. The De Saxce
    // terms' Newton step comes first, while y is still the inner solve's. Coulomb friction
    // makes the problem nonconvex and the outer map can cycle: once the natural residual
    // has not halved for AL_STALL_RELAX iterations both updates are averaged with the old
    // values (a Krasnoselskii-Mann step), and after AL_STALL_SHRINK the penalty shrinks
    // (smaller, more proximal multiplier steps).
    double relax = stall >= AL_STALL_RELAX ? 0.5 : 1;
    for (int i = 0; i < nefc; i++) {
      w.lamh_try[i] = w.lam_bar[i] + relax * (w.scale[i] * w.lamh[i] - w.lam_bar[i]);
    }
    al_desaxce_newton(&w, v, relax);
    double step = 0;
    for (int i = 0; i < nefc; i++) {
      double c = w.scale[i], lam = w.lamh_try[i];
      if (c > 0) {
        step += (lam - w.lam_bar[i]) * (lam - w.lam_bar[i]) / (w.beta * w.beta * c * c * c * c);
      }
      w.lam_bar[i] = lam;
    }
    step = sqrt(step);
    if (stall >= AL_STALL_SHRINK && w.beta > beta0 * AL_PENALTY_SHRINK_MIN) {
      w.beta *= 0.1;
      stall = 0;
      nat_best = INFINITY;
      at_floor |= w.beta < 2 * beta0 * AL_PENALTY_SHRINK_MIN;  // its floor, to rounding
    } else if (stall == 0 && step > 0.05 * step_prev && w.beta < beta0 * AL_PENALTY_GROWTH_MAX &&
               w.floor < 1e-3 * tol) {
      // a stiffer penalty only while it can still pay: it multiplies r's roundoff floor
      w.beta *= 10;
    }
    step_prev = step;
  }
  stats->iterations = k;
  if (failed) {
    memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
    memset(lambda, 0, sizeof(double) * (size_t)nefc);
    tf_constraint_residuals(p, v, lambda, stats);
    stats->converged = 0;
  } else {
    memcpy(lambda, w.lam_bar, sizeof(double) * (size_t)nefc);
  }
  tf_arena_release(d, mark);
  return failed ? -1 : 0;
}
