// The velocity-level constraint problem every solver receives, and the solver interface.
//
//   A v = b + J^T lambda,   (J v + e, lambda) in the constraint sets      (CRISP eq. 1)
//
// A is M plus the implicit damping / stiffness terms (h D + h^2 K), b = A v_free with
// v_free the unconstrained velocity at the end of the step, so v is the constrained velocity
// at the end of the step. Rows are grouped in blocks; per block type the set is:
//   TF_EFC_EQUALITY  J v + e = 0, lambda free
//   TF_EFC_FRICTION  joint dry friction: |lambda| <= bound, lambda opposes J v (maximal
//                    dissipation: |lambda| < bound only if J v = 0)
//   TF_EFC_LIMIT     0 <= lambda  perp  J v + e >= 0
//   TF_EFC_CONTACT   rows [normal, t1, t2(, torsion)]: lambda in the elliptic cone
//                    sum_k (lambda_k / mu_k)^2 <= lambda_n^2, and with the De Saxce term
//                    J v + e + [s; 0...] in the dual cone, s = sqrt(sum_k (mu_k (J v)_k)^2)
//                    (Signorini-Coulomb with maximal dissipation). dim 1 = frictionless.
// The hard solvers (pgs, al, admm, fbnewton) use e; newton, MuJoCo's soft formulation, uses
// the row positions pos, the current row velocities and the block's solref / solimp instead.
#ifndef TF_SOLVER_H
#define TF_SOLVER_H

#include "tightfit.h"

typedef enum tf_efc_type {
  TF_EFC_EQUALITY = 0,
  TF_EFC_FRICTION,
  TF_EFC_LIMIT,
  TF_EFC_CONTACT,
  TF_EFC_NTYPE
} tf_efc_type;

typedef struct tf_constraint_problem {
  int nv;
  int nefc;  // rows
  int nblock;
  double h;                // timestep (s)
  const double* A;         // (nv x nv) symmetric, row-major
  const double* A_factor;  // (nv x nv) Cholesky factor of A (column-major lower, tf_cholesky)
  const double* b;         // (nv) A v_free
  const double* v_free;    // (nv)
  const double* v0;        // (nv) velocity at the start of the step
  const double* J;         // (nefc x nv) row-major
  const double* e;         // (nefc) row error for the hard solvers (see above)
  const double* pos;       // (nefc) row position error: contact gap (normal row, 0 for the
                           // tangential rows), distance past a limit, equality violation
  const double* mu;        // (nefc) friction coefficient of each tangential contact row
  const double* bound;     // (nefc) friction rows: the largest impulse (frictionloss * h)
  const int* block_type;   // (nblock) tf_efc_type
  const int* block_adr;    // (nblock) first row
  const int* block_dim;    // (nblock) number of rows
  const double* solref;    // (nblock x 2) newton: time constant (s), damping ratio
  const double* solimp;    // (nblock x 3) newton: d0, dwidth, width (m)
  const double* v_warm;    // (nv) or NULL: a velocity near the answer to start from (al)
} tf_constraint_problem;

typedef struct tf_solver_stats {
  int iterations;
  double primal_residual;  // ||J v + e - z||: violation of the row sets (hard solvers)
  double dual_residual;    // ||A v - b - J^T lambda||
  double complementarity;  // |lambda . (J v + e)| over the unilateral rows
  int converged;           // 1 if the tolerance was met before the iteration cap
} tf_solver_stats;

// solve writes v (nv) and lambda (nefc); lambda holds a warm start on entry (zeros if none).
// Scratch comes from d's arena (tf_arena_doubles). Returns 0, or -1 on a numerical failure
// (then v = v_free and lambda = 0).
typedef int (*tf_solve_fn)(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                           const tf_solver_settings* s, double* v, double* lambda,
                           tf_solver_stats* stats);

int tf_solve_pgs(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                 const tf_solver_settings* s, double* v, double* lambda, tf_solver_stats* stats);
int tf_solve_newton(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                    const tf_solver_settings* s, double* v, double* lambda, tf_solver_stats* stats);
int tf_solve_al(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                const tf_solver_settings* s, double* v, double* lambda, tf_solver_stats* stats);
int tf_solve_admm(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                  const tf_solver_settings* s, double* v, double* lambda, tf_solver_stats* stats);
int tf_solve_fbnewton(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                      const tf_solver_settings* s, double* v, double* lambda,
                      tf_solver_stats* stats);

// shared by the solvers: residuals of a candidate (v, lambda) as defined above
void tf_constraint_residuals(const tf_constraint_problem* p, const double* v, const double* lambda,
                             tf_solver_stats* stats);

#endif  // TF_SOLVER_H
