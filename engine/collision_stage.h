// The collision stage of the pipeline (private).
#ifndef TF_COLLISION_STAGE_H
#define TF_COLLISION_STAGE_H

#include "collision.h"

// finds this step's contacts into d->contact; v_predicted (nv) is the velocity the bodies
// are expected to move with over the step (the unconstrained v_free), used for the
// speculative reach and the time-of-impact queries over the step h
void tf_collision(const tf_model* m, tf_data* d, const double* v_predicted, double h);

// the same, where a pair with a memory (collision_persist.h) recalls it while it moved by at
// most recall_tol since (opt.persist_tol when larger); returns how many of the contacts came
// from pairs that recalled
int tf_collision_recall(const tf_model* m, tf_data* d, const double* v_predicted, double h,
                        double recall_tol);

// whether a contact of d joins two SDF geoms, which meet by descent
int tf_collision_descent_contacts(const tf_model* m, const tf_data* d);

// at another configuration of the step (d's kinematics; contacts 0 .. ncon - 1 found at the
// step's start, v the step's velocity, h its length): for each pair of SDF geoms that meet
// by descent and moved by at most a quarter of their repeated features' spacing, the descent
// again from its contacts' two material points where the configuration puts them (and from
// the corners between rows of different normals); each point that overlaps by more than tol
// is appended as a contact measured there. Returns how many were
int tf_collision_at_iterate(const tf_model* m, tf_data* d, const double* v, double h, double tol);

// 1 when body b and all its ancestors have no dofs (it never moves)
int tf_body_is_static(const tf_model* m, int b);

// 1 if geoms g1, g2 may collide (filtering rules of the collision stage)
int tf_collision_filter(const tf_model* m, int g1, int g2);

// the narrow-phase view of geom g at the pose in d
void tf_geom_shape(const tf_model* m, const tf_data* d, int g, tf_shape* s);

#endif  // TF_COLLISION_STAGE_H
