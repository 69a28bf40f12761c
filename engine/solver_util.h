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

#endif  // TF_SOLVER_UTIL_H
