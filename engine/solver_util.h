// Helpers shared by the solver files (private).
#ifndef TF_SOLVER_UTIL_H
#define TF_SOLVER_UTIL_H

#include "solver.h"

// x <- A^-1 x through the problem's Cholesky factor
void tf_solve_A(const tf_constraint_problem* p, double* x);
// out (nefc) = J v ; out (nv) = J^T lambda
void tf_mul_J(const tf_constraint_problem* p, double* out, const double* v);
void tf_mul_JT(const tf_constraint_problem* p, double* out, const double* lambda);
// projects one contact block's impulse [n, t1, t2(, torsion)] onto its elliptic friction
// cone; mu holds the block's per-row coefficients (mu[0] unused); dim 1 clamps n >= 0
void tf_project_cone(double* lambda, const double* mu, int dim);

// shared by pgs and admm: a block's projection onto its set (contacts in the cone's metric),
// the natural-map residual of (v, lambda) in velocity units (zero exactly at a solution),
// v = v_free + A^-1 J^T lambda, and the guard that scales an unconverged lambda so the answer
// does no net work
void tf_project_block(const tf_constraint_problem* p, int blk, double* x);
double tf_natural_residual(const tf_constraint_problem* p, const double* v, const double* lambda);
void tf_velocity_from_impulse(const tf_constraint_problem* p, const double* lambda, double* v);
void tf_dissipation_guard(const tf_constraint_problem* p, double* lambda, double* v);

// phi'(alpha) into *g and phi''(alpha) into *gp, for a solver's objective along its step
typedef void (*tf_directional_fn)(void* ctx, double alpha, double* g, double* gp);
// the step alpha > 0 where phi' (monotone, phi'(0) = g0 < 0) crosses zero, by bracketed 1-D
// Newton from alpha = 1 in at most maxit evaluations (solver_line_search.c)
double tf_line_search_root(tf_directional_fn directional, void* ctx, double g0, int maxit);

// fbnewton's residual |F(lambda)| at v = v_free + A^-1 J^T lambda (solver_fbnewton.c): the
// quantity its best-iterate backtracking minimises, for tests
double tf_fbnewton_residual(tf_data* d, const tf_constraint_problem* p, const double* lambda);

#endif  // TF_SOLVER_UTIL_H
