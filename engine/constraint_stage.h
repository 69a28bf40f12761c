// The constraint-row stage of the pipeline (private).
#ifndef TF_CONSTRAINT_STAGE_H
#define TF_CONSTRAINT_STAGE_H

#include "tightfit.h"

// assembles this step's rows (equality, joint friction, limits, contacts) into d->efc_*;
// v_predicted is the unconstrained end-of-step velocity, for speculative limit rows
void tf_constraint_rows(const tf_model* m, tf_data* d, const double* v_predicted, double h);

// rows assembled at an iterate q1 = q0 + h v1 of the step (re-linearisation, step.c) turned
// into rows of the step from q0: each position error p1 measured at q1 becomes the start
// value its linearisation implies, p0 = p1 - h J v1, and e follows from p0 as at the step's
// start, so the rows ask of v what the start's rows ask, with the geometry of q1
void tf_constraint_rows_from_iterate(const tf_model* m, tf_data* d, const double* v1, double h);

// rows of contacts c0 .. ncon - 1 appended to the step's, with d's kinematics and the
// contacts' positions; when v1 is not NULL those are the iterate q1 = q0 + h v1's, turned
// into start values as above (the step's rows keep theirs, and a solve sees both)
void tf_constraint_rows_append(const tf_model* m, tf_data* d, int c0, const double* v1, double h);

#endif  // TF_CONSTRAINT_STAGE_H
