// newton: MuJoCo's soft convex formulation of the constraint problem, solved in the primal
// by Newton's method with an exact line search (MuJoCo documentation, Computation chapter:
// "Soft constraints", "Solver parameters" (solref / solimp) and "Newton" with its elliptic
// cones; Todorov, "Convex and analytically-invertible dynamics with contacts and
// constraints", ICRA 2014). Written here at the velocity level of solver.h.
//
// Every row i gets a soft reference. Its impedance d in (0, 1) comes from solimp (d0, dwidth,
// width) at the distance r: the overlap -pos of a contact or limit (its normal's for every
// row of a contact), |pos| of a joint friction row, the norm of pos over an equality block;
// d0 at r = 0 rising to dwidth at r >= width along MuJoCo's smooth curve (power 2, midpoint
// 0.5), clamped to [1e-4, 0.9999]. solref (timeconst, dampratio) sets a mass-normalised
// spring-damper
//   k = 1 / (dmax^2 timeconst^2 dampratio^2),  b = 2 / (dmax timeconst),  dmax = dwidth
// (timeconst at least 2 h, MuJoCo's refsafe; negative solref gives k = -solref[0] / dmax^2,
// b = -solref[1] / dmax directly), and the reference row acceleration
//   aref = -b (J v0) - k d pos,   so the row's target velocity is t = J v0 + h aref
// (J v at the end of the step is J v0 + h J a, MuJoCo's J a = aref). A contact or limit
// still short of its surface (pos > 0: a speculative row, which MuJoCo never makes) has no
// spring yet: its target is t = -pos / h, the step may close the gap but not pass it, and
// it is soft as at the touch (d0). (aref there would ask for J v >= J v0 (1 - h b) -
// h k d pos, far above -pos / h (h k d ~ 26 / s against 1 / h = 100 / s at h = 10 ms): the
// body was braked short of the surface and hovered.) step.c then lands such a body at the
// surface; its position pass leaves the overlap of resting contacts to the soft model.
// The regulariser R_i = (1 - d) / d * Ahat_ii, Ahat_ii = (J A^-1 J^T)_ii (exact here, one
// solve with A's factor per row), makes a row's impulse -(J_i v - t_i) / R_i: the softness.
// MuJoCo takes an approximation instead, the bodies' translational inverse masses (body
// invweight0) for a contact, which leaves out the lever arm: at a box's corner the exact
// value is about 4 times larger, so these contacts are softer and sink deeper than MuJoCo's.
// For a friction cone the tangential rows take R_k = R_n mu^2 / mu_k^2 (mu = the block's
// largest coefficient; MuJoCo with impratio = 1), which is what makes the cone circular in
// the scaled variables below.
//
// v minimises the strictly convex, piecewise quadratic (quadratic-with-a-cone for friction)
//   f(v) = 1/2 (v - v_free)^T A (v - v_free) + sum_units s(y),   y = -R^-1/2 (J v - t)
// per unit (one row, or a whole contact block with friction), s(y) = 1/2 (|y|^2 -
// dist(y, C)^2), the Moreau envelope form whose gradient is Pi_C(y):
//   equality       C = R: always quadratic
//   joint friction C = [-bound, bound] / sqrt(R): quadratic while stuck, linear once the
//                  impulse saturates at frictionloss * h (Huber)
//   limit, frictionless contact  C = [0, inf): quadratic only while J v < t
//   contact        C = {|y_t| <= mu y_n}: the three zones of MuJoCo's elliptic cone: inside
//                  (stuck: every row quadratic), the polar cone (separating: no cost), and
//                  between them the cone surface, cost 1/2 (y_n + mu |y_t|)^2 / (1 + mu^2)
// The impulse is lambda = R^-1/2 Pi_C(y), inside the friction cone by construction, and
// grad f = A (v - v_free) - J^T lambda = A v - b - J^T lambda, the dual residual.
//
// Newton: H = A + (R^-1/2 J)^T D (R^-1/2 J) with D = dPi/dy (0 or 1 per scalar row, the
// cone's projection Jacobian on the surface), factored densely each iteration (tf_cholesky,
// which allocates nothing); the exact line search is a safeguarded 1-D
// Newton on f'(alpha) along the step (monotone, O(nefc) per trial once J dv is known).
// Stops when |grad f| <= settings->tolerance (or its roundoff floor), at most
// settings->iterations Newton steps. Warm start: v = A^-1 (b + J^T lambda) from the given
// lambda when that costs less than v_free (as MuJoCo compares its warm start with the
// smooth acceleration).
//
// tf_constraint_residuals reports the hard-constraint violation of the soft answer: nonzero
// by design (a body settles into a steady overlap, stuck contacts creep, and a sliding
// contact lifts off: the cone's relaxation, MuJoCo's too).
//
// Scratch: one arena block of nv^2 + (5 + maxdim) nv + 6 nefc doubles.
#include <float.h>
#include <math.h>
#include <string.h>

#include "linalg_dense.h"
#include "model_internal.h"
#include "solver.h"
#include "solver_util.h"

#define NT_MIN_IMP 1e-4
#define NT_MAX_IMP 0.9999
#define NT_MIN_R 1e-15
#define NT_LINE_SEARCH_ITERS 60
#define NT_MAX_UNIT 6  // largest contact block (normal + up to 5 friction rows)

// everything one solve needs, carved from a single arena block
typedef struct nt_work {
  const tf_constraint_problem* p;
  double* H;         // (nv x nv) Newton matrix, then its Cholesky factor (column-major 'L')
  double* DJ;        // (maxdim x nv) projection Jacobian times the unit's scaled rows
  double* dv;        // (nv) Newton step
  double* grad;      // (nv) A v - b - J^T lambda
  double* Av;        // (nv) A v, then A dv in the line search
  double* JTl;       // (nv) J^T lambda
  double* tmp;       // (nv)
  double* isr;       // (nefc) R^-1/2 (0: row carries no impulse)
  double* target;    // (nefc) reference row velocity J v0 + h aref
  double* y;         // (nefc) -R^-1/2 (J v - target)
  double* lamh;      // (nefc) Pi_C(y) at the current v
  double* jd;        // (nefc) R^-1/2 J dv
  double* lamh_try;  // (nefc) Pi_C at a trial step of the line search
} nt_work;

// plain dot product (BLAS would cost more than it saves at nv ~ 40)
static double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

// the friction cone's aperture: the largest tangential coefficient, 0 = frictionless
static double contact_mu(const tf_constraint_problem* p, int blk) {
  if (p->block_type[blk] != TF_EFC_CONTACT) return 0;
  double mu = 0;
  int adr = p->block_adr[blk];
  for (int k = 1; k < p->block_dim[blk]; k++) mu = fmax(mu, p->mu[adr + k]);
  return mu;
}

// a unit is a whole contact block with friction (the cone couples its rows), else one row
static int unit_dim(const tf_constraint_problem* p, int blk) {
  return contact_mu(p, blk) > 0 ? p->block_dim[blk] : 1;
}

// impedance stays inside (0, 1): d = 1 would make R zero (hard), d = 0 infinite
static double clamp_imp(double d) { return fmin(fmax(d, NT_MIN_IMP), NT_MAX_IMP); }

// MuJoCo's impedance curve: d0 at r = 0, dwidth from r = width on, in between
// d0 + y(r / width) (dwidth - d0) with y(x) = 2 x^2 below 1/2 and 1 - 2 (1 - x)^2 above
static double impedance(const double solimp[3], double r) {
  double d0 = clamp_imp(solimp[0]), dw = clamp_imp(solimp[1]), width = solimp[2];
  if (d0 == dw || width <= 0) return 0.5 * (d0 + dw);
  double x = r / width;
  if (x >= 1) return dw;
  double y = x <= 0.5 ? 2 * x * x : 1 - 2 * (1 - x) * (1 - x);
  return d0 + y * (dw - d0);
}

// the reference spring-damper of solref: writes stiffness k and damping b per unit mass
static void reference_gains(const double solref[2], const double solimp[3], double h, double* k,
                            double* b) {
  double dmax = clamp_imp(solimp[1]);
  if (solref[0] > 0) {
    double tc = fmax(solref[0], 2 * h), dr = solref[1];
    *k = dr > 0 ? 1 / (dmax * dmax * tc * tc * dr * dr) : 0;
    *b = 2 / (dmax * tc);
  } else {
    *k = -solref[0] / (dmax * dmax);
    *b = -solref[1] / dmax;
  }
}

// per row: R^-1/2 and the target velocity; Ahat_ii by one solve with A's factor per row
static void nt_soft_rows(nt_work* w) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], dim = p->block_dim[blk], type = p->block_type[blk];
    // MuJoCo's defaults when the caller leaves them out
    static const double solref_default[2] = {0.02, 1}, solimp_default[3] = {0.9, 0.95, 0.001};
    const double* solref = p->solref ? p->solref + 2 * blk : solref_default;
    const double* solimp = p->solimp ? p->solimp + 3 * blk : solimp_default;
    double k, bdamp;
    reference_gains(solref, solimp, p->h, &k, &bdamp);
    // the distance the impedance reads (one per block), and the gap of a contact or limit
    // still short of its surface: such a speculative row, which MuJoCo never makes, has no
    // reference yet; it only keeps the step from passing the gap, soft as at the touch
    double r = fabs(p->pos[adr]), gap = 0;
    if (type == TF_EFC_EQUALITY) {
      double s2 = 0;
      for (int j = 0; j < dim; j++) s2 += p->pos[adr + j] * p->pos[adr + j];
      r = sqrt(s2);
    } else if (type == TF_EFC_CONTACT || type == TF_EFC_LIMIT) {
      r = fmax(-p->pos[adr], 0);
      gap = fmax(p->pos[adr], 0);
    }
    double d = impedance(solimp, r);
    double mu = contact_mu(p, blk);
    double r_normal = 0;
    for (int j = 0; j < dim; j++) {
      int i = adr + j;
      const double* row = p->J + (size_t)i * (size_t)nv;
      double jv0 = dot(row, p->v0, nv);
      if (j == 0 && gap > 0) {
        w->target[i] = -gap / p->h;
      } else {
        double aref = -bdamp * jv0 - k * d * p->pos[i];
        w->target[i] = jv0 + p->h * aref;
      }
      double R;
      if (type == TF_EFC_CONTACT && j > 0) {
        // friction rows of a cone follow the normal; frictionless directions carry nothing
        double muk = p->mu[i];
        if (!(mu > 0 && muk > 0)) {
          w->isr[i] = 0;
          continue;
        }
        R = r_normal * mu * mu / (muk * muk);
      } else {
        memcpy(w->tmp, row, sizeof(double) * (size_t)nv);
        tf_solve_A(p, w->tmp);
        double ahat = dot(row, w->tmp, nv);
        R = fmax(NT_MIN_R, (1 - d) / d * ahat);
        if (type == TF_EFC_CONTACT) r_normal = R;
      }
      w->isr[i] = 1 / sqrt(R);
    }
  }
}

// Euclidean projection onto the cone {|y_t| <= mu y_n} and optionally its Jacobian D
// (dim x dim, row-major): identity inside (stuck), zero in the polar cone (separating), and
// on the surface, with g = y_n + mu T, t = y_t / T, c = 1 / (1 + mu^2),
//   Pi = c g (1, mu t),   D = c [(1, mu t)(1, mu t)^T + (g mu / T) (0 + (I - t t^T))]
// (D is also the Hessian of the middle-zone cost c g^2 / 2)
static void project_cone(double* out, double* D, const double* y, int dim, double mu) {
  double yn = y[0], T2 = 0;
  for (int k = 1; k < dim; k++) T2 += y[k] * y[k];
  double T = sqrt(T2);
  if (D) memset(D, 0, sizeof(double) * (size_t)(dim * dim));
  if (T <= mu * yn) {
    for (int k = 0; k < dim; k++) out[k] = y[k];
    if (D) {
      for (int k = 0; k < dim; k++) D[k * dim + k] = 1;
    }
    return;
  }
  if (mu * T <= -yn) {
    for (int k = 0; k < dim; k++) out[k] = 0;
    return;
  }
  double c = 1 / (1 + mu * mu), g = yn + mu * T;
  out[0] = c * g;
  for (int k = 1; k < dim; k++) out[k] = c * g * mu * y[k] / T;
  if (!D) return;
  double curv = g * mu / T;
  D[0] = c;
  for (int k = 1; k < dim; k++) {
    double tk = y[k] / T;
    D[k] = D[k * dim] = c * mu * tk;
    for (int l = 1; l < dim; l++) {
      double tl = y[l] / T;
      D[k * dim + l] = c * (mu * mu * tk * tl + curv * ((k == l ? 1 : 0) - tk * tl));
    }
  }
}

// projection of one unit of block blk starting at global row `row` (yb, ob point at it),
// optionally with its Jacobian D (dim x dim)
static void nt_project_unit(const nt_work* w, int blk, int row, int dim, const double* yb,
                            double* ob, double* D) {
  const tf_constraint_problem* p = w->p;
  if (dim > 1) {
    project_cone(ob, D, yb, dim, contact_mu(p, blk));
    return;
  }
  double y = yb[0], out, slope;
  switch (p->block_type[blk]) {
    case TF_EFC_EQUALITY:
      out = y;
      slope = 1;
      break;
    case TF_EFC_FRICTION: {
      // |lambda| = isr |Pi| <= bound
      double edge = w->isr[row] > 0 ? fmax(p->bound[row], 0) / w->isr[row] : 0;
      out = fmin(fmax(y, -edge), edge);
      slope = fabs(y) < edge ? 1 : 0;
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

// y, Pi(y) and the gradient A v - b - J^T lambda at v; returns |grad| and writes its
// roundoff floor and, if cost is given, f(v)
static double nt_evaluate(nt_work* w, const double* v, double* floor, double* cost) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv;
  tf_mul_J(p, w->jd, v);  // jd doubles as J v here
  for (int i = 0; i < p->nefc; i++) w->y[i] = -w->isr[i] * (w->jd[i] - w->target[i]);
  double s = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], ud = unit_dim(p, blk);
    for (int row = adr; row < adr + p->block_dim[blk]; row += ud) {
      nt_project_unit(w, blk, row, ud, w->y + row, w->lamh + row, NULL);
    }
  }
  for (int i = 0; i < p->nefc; i++) {
    s += w->y[i] * w->lamh[i] - 0.5 * w->lamh[i] * w->lamh[i];  // (|y|^2 - dist^2) / 2
    w->jd[i] = w->isr[i] * w->lamh[i];                          // lambda
  }
  tf_mul_JT(p, w->JTl, w->jd);
  for (int i = 0; i < nv; i++) w->Av[i] = dot(p->A + (size_t)i * (size_t)nv, v, nv);
  double gn = 0, an = 0, bn = 0, jn = 0;
  for (int i = 0; i < nv; i++) {
    w->grad[i] = w->Av[i] - p->b[i] - w->JTl[i];
    gn += w->grad[i] * w->grad[i];
    an += w->Av[i] * w->Av[i];
    bn += p->b[i] * p->b[i];
    jn += w->JTl[i] * w->JTl[i];
  }
  *floor = 32 * DBL_EPSILON * (sqrt(an) + sqrt(bn) + sqrt(jn)) * sqrt((double)nv + 1);
  if (cost) {
    // 1/2 (v - v_free)^T A (v - v_free) = 1/2 v^T A v - b^T v + 1/2 v_free^T b
    *cost = 0.5 * dot(v, w->Av, nv) - dot(p->b, v, nv) + 0.5 * dot(p->v_free, p->b, nv) + s;
  }
  return sqrt(gn);
}

// H = A + sum_units (R^-1/2 J)^T D (R^-1/2 J) at the current y
static void nt_hessian(nt_work* w) {
  const tf_constraint_problem* p = w->p;
  int nv = p->nv;
  memcpy(w->H, p->A, sizeof(double) * (size_t)nv * (size_t)nv);
  double D[NT_MAX_UNIT * NT_MAX_UNIT], out[NT_MAX_UNIT];
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], ud = unit_dim(p, blk);
    for (int row = adr; row < adr + p->block_dim[blk]; row += ud) {
      nt_project_unit(w, blk, row, ud, w->y + row, out, D);
      int any = 0;
      for (int k = 0; k < ud * ud; k++) any |= D[k] != 0;
      if (!any) continue;
      for (int j = 0; j < ud; j++) {
        double* dj = w->DJ + (size_t)j * (size_t)nv;
        memset(dj, 0, sizeof(double) * (size_t)nv);
        for (int k = 0; k < ud; k++) {
          double coef = D[j * ud + k] * w->isr[row + k];
          if (coef == 0) continue;
          const double* jrow = p->J + (size_t)(row + k) * (size_t)nv;
          for (int c = 0; c < nv; c++) dj[c] += coef * jrow[c];
        }
      }
      for (int j = 0; j < ud; j++) {
        double cj = w->isr[row + j];
        if (cj == 0) continue;
        const double* jrow = p->J + (size_t)(row + j) * (size_t)nv;
        const double* dj = w->DJ + (size_t)j * (size_t)nv;
        for (int a = 0; a < nv; a++) {
          double ra = cj * jrow[a];
          if (ra == 0) continue;
          double* hrow = w->H + (size_t)a * (size_t)nv;
          for (int c = 0; c < nv; c++) hrow[c] += ra * dj[c];
        }
      }
    }
  }
}

// f'(alpha) along dv given its value g0 at 0, and f''(alpha); y(alpha) = y - alpha jd
static void nt_directional(nt_work* w, double alpha, double g0, double dAd, double* g, double* gp) {
  const tf_constraint_problem* p = w->p;
  double D[NT_MAX_UNIT * NT_MAX_UNIT], yb[NT_MAX_UNIT];
  double sum = 0, curv = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->block_adr[blk], ud = unit_dim(p, blk);
    for (int row = adr; row < adr + p->block_dim[blk]; row += ud) {
      for (int k = 0; k < ud; k++) yb[k] = w->y[row + k] - alpha * w->jd[row + k];
      nt_project_unit(w, blk, row, ud, yb, w->lamh_try + row, D);
      for (int j = 0; j < ud; j++) {
        sum += w->jd[row + j] * (w->lamh_try[row + j] - w->lamh[row + j]);
        double dj = 0;
        for (int k = 0; k < ud; k++) dj += D[j * ud + k] * w->jd[row + k];
        curv += w->jd[row + j] * dj;
      }
    }
  }
  *g = g0 + alpha * dAd - sum;
  *gp = dAd + curv;
}

// the line search's view of the objective along w's step (g0, dAd fixed for the step)
typedef struct nt_line {
  nt_work* w;
  double g0, dAd;
} nt_line;

static void nt_line_directional(void* ctx, double alpha, double* g, double* gp) {
  nt_line* line = ctx;
  nt_directional(line->w, alpha, line->g0, line->dAd, g, gp);
}

static double nt_line_search(nt_work* w, double g0, double dAd) {
  nt_line line = {w, g0, dAd};
  return tf_line_search_root(nt_line_directional, &line, g0, NT_LINE_SEARCH_ITERS);
}

// carves the work arrays from one arena block
static void nt_carve(nt_work* w, double* base, int nv, int nefc, int maxdim) {
  size_t nvs = (size_t)nv, nc = (size_t)nefc;
  w->H = base;
  base += nvs * nvs;
  w->DJ = base;
  base += (size_t)maxdim * nvs;
  double** nv_arrays[] = {&w->dv, &w->grad, &w->Av, &w->JTl, &w->tmp};
  for (size_t k = 0; k < sizeof(nv_arrays) / sizeof(nv_arrays[0]); k++) {
    *nv_arrays[k] = base;
    base += nvs;
  }
  double** nc_arrays[] = {&w->isr, &w->target, &w->y, &w->lamh, &w->jd, &w->lamh_try};
  for (size_t k = 0; k < sizeof(nc_arrays) / sizeof(nc_arrays[0]); k++) {
    *nc_arrays[k] = base;
    base += nc;
  }
}

// doubles of scratch tf_solve_newton takes from the arena for a problem of this shape
static size_t nt_scratch_doubles(int nv, int nefc, int maxdim) {
  return (size_t)nv * (size_t)nv + (size_t)(5 + maxdim) * (size_t)nv + 6 * (size_t)nefc;
}

// the soft solve: Newton on MuJoCo's convex primal cost (see the note at the top)
int tf_solve_newton(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                    const tf_solver_settings* s, double* v, double* lambda,
                    tf_solver_stats* stats) {
  (void)m;
  int nv = p->nv, nefc = p->nefc;
  tf_solver_stats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof(*stats));
  memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
  int maxdim = 1, bad = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int ud = unit_dim(p, blk);
    bad |= ud > NT_MAX_UNIT;  // no contact has more than 6 rows (solver.h): a caller's bug
    if (ud > maxdim) maxdim = ud;
  }
  if (nefc == 0 || nv == 0 || bad) {
    if (nefc > 0) memset(lambda, 0, sizeof(double) * (size_t)nefc);
    tf_constraint_residuals(p, v, lambda, stats);
    stats->converged = !bad;
    return bad ? -1 : 0;
  }
  size_t mark = tf_arena_mark(d);
  nt_work w = {.p = p};
  nt_carve(&w, tf_arena_doubles(d, nt_scratch_doubles(nv, nefc, maxdim)), nv, nefc, maxdim);
  nt_soft_rows(&w);

  // warm start: v from the given impulses, kept only if it beats v_free
  int warm = 0;
  for (int i = 0; i < nefc; i++) warm |= isfinite(lambda[i]) && lambda[i] != 0;
  if (warm) {
    double floor, cost_free, cost_warm;
    nt_evaluate(&w, v, &floor, &cost_free);
    for (int i = 0; i < nefc; i++) w.jd[i] = isfinite(lambda[i]) ? lambda[i] : 0;
    tf_mul_JT(p, w.tmp, w.jd);
    for (int i = 0; i < nv; i++) w.dv[i] = p->b[i] + w.tmp[i];
    tf_solve_A(p, w.dv);
    nt_evaluate(&w, w.dv, &floor, &cost_warm);
    if (cost_warm < cost_free) memcpy(v, w.dv, sizeof(double) * (size_t)nv);
  }

  int failed = 0, it = 0, converged = 0;
  for (;; it++) {
    double floor;
    double gn = nt_evaluate(&w, v, &floor, NULL);
    if (!isfinite(gn)) {
      failed = 1;
      break;
    }
    if (gn <= fmax(s->tolerance, floor)) {
      converged = 1;
      break;
    }
    if (it >= s->iterations) break;
    nt_hessian(&w);
    if (tf_cholesky(nv, w.H) != 0) {
      failed = 1;
      break;
    }
    for (int i = 0; i < nv; i++) w.dv[i] = -w.grad[i];
    tf_cholesky_solve(nv, 1, w.H, w.dv);
    tf_mul_J(p, w.jd, w.dv);
    for (int i = 0; i < nefc; i++) w.jd[i] *= w.isr[i];
    for (int i = 0; i < nv; i++) w.Av[i] = dot(p->A + (size_t)i * (size_t)nv, w.dv, nv);
    double g0 = dot(w.dv, w.grad, nv), dAd = dot(w.dv, w.Av, nv);
    if (!(g0 < 0)) {
      converged = 1;  // no descent direction left: the gradient is roundoff
      break;
    }
    double alpha = nt_line_search(&w, g0, dAd);
    for (int i = 0; i < nv; i++) v[i] += alpha * w.dv[i];
  }
  if (failed) {
    memcpy(v, p->v_free, sizeof(double) * (size_t)nv);
    memset(lambda, 0, sizeof(double) * (size_t)nefc);
  } else {
    // nt_evaluate's last call was at the final v
    for (int i = 0; i < nefc; i++) lambda[i] = w.isr[i] * w.lamh[i];
  }
  tf_constraint_residuals(p, v, lambda, stats);
  stats->iterations = it;
  stats->converged = converged && !failed;
  tf_arena_release(d, mark);
  return failed ? -1 : 0;
}
