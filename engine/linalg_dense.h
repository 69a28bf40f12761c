// Dense linear algebra on the engine's small matrices: mass matrices (nv up to ~40), their
// factors applied to a constraint Jacobian (nv x nefc), and fbnewton's Newton matrix (nefc up
// to a few hundred). Matrices are column-major, as LAPACK stores them, so a lower factor's
// column is contiguous.
//
// Written here rather than taken from an optimised BLAS / LAPACK because results must be the
// same bits on every machine: OpenBLAS picks its kernels by CPU (AVX2 on one, AVX-512 on
// another), each with its own order of summation, and a contact run that is chaotic (a gear
// train at 10 ms, a stack under Newton) then ends differently on two machines from the same
// inputs. Compiled with -ffp-contract=off and no -march, these loops give one answer
// everywhere. At these sizes they are as fast as the library's call overhead.
#ifndef TF_LINALG_DENSE_H
#define TF_LINALG_DENSE_H

// Cholesky factor A = L L^T of a symmetric positive definite a (n x n), in place: the lower
// triangle becomes L, the strict upper triangle is not touched. Returns 0, or the 1-based
// column whose pivot is not positive (or NaN), as LAPACK's dpotrf reports it.
int tf_cholesky(int n, double* a);

// b (n x nrhs) <- A^-1 b, given l from tf_cholesky
void tf_cholesky_solve(int n, int nrhs, const double* l, double* b);

// x (n) <- L^-1 x, forward substitution with tf_cholesky's lower factor
void tf_lower_solve(int n, const double* l, double* x);

// LU factor P A = L U of a (n x n) with partial pivoting, in place: L's unit diagonal is
// implied, piv[k] is the row swapped with row k at column k. Returns 0, or the 1-based
// column of the first exactly zero pivot (the factor is then not usable).
int tf_lu(int n, double* a, int* piv);

// b (n) <- A^-1 b, given lu and piv from tf_lu
void tf_lu_solve(int n, const double* lu, const int* piv, double* b);

// eigen-decomposition of a symmetric 3 x 3 a (either storage order) by cyclic Jacobi
// rotations: values ascending in w, unit vectors as the columns of the row-major v, in the
// same order. Returns 0, or -1 if a is not finite.
int tf_sym3_eigen(double w[3], double v[9], const double a[9]);

#endif
