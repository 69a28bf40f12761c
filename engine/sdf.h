// Signed distance fields in the engine (private): evaluation of analytic and grid SDFs.
// Grid SDFs are trilinear in their nodes, and the gradient returned is the gradient of that
// interpolant (so it is consistent with the value the solver sees, cell by cell).
#ifndef TF_SDF_H
#define TF_SDF_H

#include "collision.h"

// signed distance at p (geom frame) and its gradient; outside a grid's box the value is the
// boundary value plus the distance to the box (a continuous extension)
double tf_sdf_eval(const tf_sdf_view* sdf, const double p[3], double grad[3]);

// the same at a world point, with the gradient in world axes, for a shape carrying an SDF
double tf_shape_sdf(const tf_shape* s, const double world[3], double grad_world[3]);

#endif  // TF_SDF_H
