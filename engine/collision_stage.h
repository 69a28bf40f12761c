// The collision stage of the pipeline (private).
#ifndef TF_COLLISION_STAGE_H
#define TF_COLLISION_STAGE_H

#include "collision.h"

// finds this step's contacts into d->contact; v_predicted (nv) is the velocity the bodies
// are expected to move with over the step (the unconstrained v_free), used for the
// speculative reach and the time-of-impact queries over the step h
void tf_collision(const tf_model* m, tf_data* d, const double* v_predicted, double h);

// 1 if geoms g1, g2 may collide (filtering rules of the collision stage)
int tf_collision_filter(const tf_model* m, int g1, int g2);

// the narrow-phase view of geom g at the pose in d
void tf_geom_shape(const tf_model* m, const tf_data* d, int g, tf_shape* s);

#endif  // TF_COLLISION_STAGE_H
