// Triangle meshes of the primitive shapes and of convex hulls (private): the surface samples
// that X x SDF collision measures when a shape carries no mesh of its own, and a mesh a
// renderer can draw. Vertices are in the geom frame, faces counter-clockwise seen from outside,
// every mesh closed. The resolution follows the shape's size (neighbouring vertices about
// `spacing` apart) within fixed limits, so fixed-size buffers always hold the result.
#ifndef TF_MESH_PRIMITIVE_H
#define TF_MESH_PRIMITIVE_H

#include "collision.h"

#define TF_PRIM_MIN_SEGMENTS 12  // around the axis of a round shape
#define TF_PRIM_MAX_SEGMENTS 48
#define TF_PRIM_MAX_PROFILE 40  // points of a round shape's profile, both poles included
#define TF_PRIM_MAX_BOX_DIV 8   // subdivisions of a box edge
// buffer sizes that hold any primitive mesh (the round shapes are the largest)
#define TF_PRIM_MESH_MAX_VERT (TF_PRIM_MAX_SEGMENTS * (TF_PRIM_MAX_PROFILE - 2) + 2)
#define TF_PRIM_MESH_MAX_FACE (2 * TF_PRIM_MAX_SEGMENTS * (TF_PRIM_MAX_PROFILE - 2))

// writes the mesh of a sphere, capsule, box or cylinder of the given size (tf_geom_type sizes)
// into vert (TF_PRIM_MESH_MAX_VERT x 3) and face (TF_PRIM_MESH_MAX_FACE x 3), with
// neighbouring vertices at most about spacing (m) apart where the limits allow; returns the
// vertex count and sets *nface. Planes, hulls, meshes and SDFs have none here: returns 0.
int tf_primitive_mesh(double* vert, int* face, int* nface, int type, const double size[3],
                      double spacing);

// the faces of a convex hull fanned into triangles (indices into hull->vert), at most maxface
// of them written; returns the number the hull has (more than maxface: the rest are missing)
int tf_hull_triangles(int* face, int maxface, const tf_hull_view* hull);

#endif  // TF_MESH_PRIMITIVE_H
