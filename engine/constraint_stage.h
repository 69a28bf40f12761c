// The constraint-row stage of the pipeline (private).
#ifndef TF_CONSTRAINT_STAGE_H
#define TF_CONSTRAINT_STAGE_H

#include "tightfit.h"

// assembles this step's rows (equality, joint friction, limits, contacts) into d->efc_*;
// v_predicted is the unconstrained end-of-step velocity, for speculative limit rows
void tf_constraint_rows(const tf_model* m, tf_data* d, const double* v_predicted, double h);

// rows assembled at an iterate q1 = q0 + h v1 of the step (re-linearisation, step.c) turned
// into rows of the step from q0: each position error p1 measured at q1 becomes the start
// value its linearisation implies, p0 = p1 - h J v1, and e = p0 / h: the rows ask the step to
// end at a gap >= 0 (tf_constraint_rows_close_overlaps), with the geometry of q1
void tf_constraint_rows_from_iterate(const tf_model* m, tf_data* d, const double* v1, double h);

// contact and limit rows that overlap ask the step to remove the overlap: e = pos / h, so the
// step ends at a gap >= 0 to first order, where by default (e = 0) an overlap is only kept
// from growing and left to the position pass (step.c). Under re-linearisation (step.c),
// whose passes end each step at a configuration that overlaps by at most relinearize_tol:
// an overlap a step starts with is one its collision found there and the last step's did
// not, and the position pass pushing a gear's teeth 171 um apart tilted it onto its
// shoulder and lifted it 20-40 um
void tf_constraint_rows_close_overlaps(tf_data* d, double h);

// rows of contacts c0 .. ncon - 1 appended to the step's, with d's kinematics and the
// contacts' positions; when v1 is not NULL those are the iterate q1 = q0 + h v1's, turned
// into start values as above (the step's rows keep theirs, and a solve sees both)
void tf_constraint_rows_append(const tf_model* m, tf_data* d, int c0, const double* v1, double h);

#endif  // TF_CONSTRAINT_STAGE_H
