// The constraint-row stage of the pipeline (private).
#ifndef TF_CONSTRAINT_STAGE_H
#define TF_CONSTRAINT_STAGE_H

#include "tightfit.h"

// assembles this step's rows (equality, joint friction, limits, contacts) into d->efc_*;
// v_predicted is the unconstrained end-of-step velocity, for speculative limit rows
void tf_constraint_rows(const tf_model* m, tf_data* d, const double* v_predicted, double h);

#endif  // TF_CONSTRAINT_STAGE_H
