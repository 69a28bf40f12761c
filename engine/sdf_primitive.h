// Exact signed distances of the primitive shapes (private): the closed-form fields that mesh
// samples are measured against (mesh x primitive), and the plane field of plane x SDF.
#ifndef TF_SDF_PRIMITIVE_H
#define TF_SDF_PRIMITIVE_H

#include "collision.h"

// signed distance (negative inside) at p in the geom frame of a plane, sphere, capsule, box or
// cylinder of the given size, with its unit gradient; exact everywhere. Other types return
// INFINITY with a zero gradient.
double tf_primitive_sdf(int type, const double size[3], const double p[3], double grad[3]);

// a box in the geom frame holding the primitive's solid (planes: unbounded but for z <= 0)
void tf_primitive_aabb(double lo[3], double hi[3], int type, const double size[3]);

// a convex hull's face-plane bound max_i (n_i . p - d_i): exact inside the hull and wherever the
// nearest point lies inside a face; below the true distance near edges and corners outside
double tf_hull_sdf_bound(const tf_hull_view* hull, const double p[3], double grad[3]);

#endif  // TF_SDF_PRIMITIVE_H
