// General convex pairs (private): GJK / EPA contact plus a multi-point manifold, used by the
// pair table for every pair without a closed form (hulls, cylinders against boxes, capsules
// and cylinders, ...). Same conventions as collision.h.
#ifndef TF_COLLISION_CONVEX_H
#define TF_COLLISION_CONVEX_H

#include "collision.h"

// any two convex shapes (sphere, capsule, box, cylinder, hull): up to TF_MAX_PAIR_CONTACTS
// points under margin, by GJK / EPA for the deepest point and face clipping (or small
// rotations of the separating direction) for the rest of the manifold
int tf_collide_convex(const tf_shape* a, const tf_shape* b, double margin, tf_contact_point* out);

// a plane (a) against a convex shape (b): every hull vertex / box corner / rim point below
// margin, reduced to at most TF_MAX_PAIR_CONTACTS spread over the support polygon
int tf_collide_plane_convex(const tf_shape* plane, const tf_shape* b, double margin,
                            tf_contact_point* out);

#endif  // TF_COLLISION_CONVEX_H
