// Engine-private helpers shared across the engine's files (tests may include this too).
#ifndef TF_MODEL_INTERNAL_H
#define TF_MODEL_INTERNAL_H

#include <stddef.h>

#include "tightfit.h"

int tf_joint_nq(int type);
int tf_joint_nv(int type);

// bytes of scratch a tf_data needs for one step of model m
size_t tf_arena_size(const tf_model* m);

// scratch stack in tf_data: allocations are released together back to a mark
size_t tf_arena_mark(const tf_data* d);
void tf_arena_release(tf_data* d, size_t mark);
// never fails for sizes accounted for in tf_arena_size (it aborts on a programmer error)
double* tf_arena_doubles(tf_data* d, size_t n);

// counts a warning in d, remembering the step it first happened at
void tf_warn(tf_data* d, tf_warning w);

// per-dof damping and stiffness that enter the implicit velocity solve: joint damping and
// stiffness plus the gains of unsaturated servos (needs tf_actuation of the current state)
void tf_implicit_gains(const tf_model* m, const tf_data* d, double* damping, double* stiffness);

// Cholesky of the symmetric (nv x nv) matrix a into d->qLD, then x <- a^-1 x; 0 on success
int tf_factor_solve(const tf_model* m, tf_data* d, const double* a, double* x);

// tf_forward with an explicit timestep for the implicit terms (substeps use h / n); leaves
// A = M + h D + h^2 K in d->qA and its factor in d->qLD
int tf_forward_h(const tf_model* m, tf_data* d, double h);

// one rk4 step (integrate.c); 0, -1 singular M, -2 non-finite state (restored)
int tf_step_rk4(const tf_model* m, tf_data* d);

#endif  // TF_MODEL_INTERNAL_H
