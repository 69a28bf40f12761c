// Closed tessellations of simple solids (a UV sphere, a torus) whose exact signed distance is
// known in closed form: the reference meshes for testing and benchmarking mesh distance
// queries and baked SDFs. Faces are counter-clockwise seen from outside; vertices are shared.
#ifndef TF_MESH_REFERENCE_H
#define TF_MESH_REFERENCE_H

#include <stddef.h>

#include "mesh_io.h"

// sphere of the given radius about the origin: nlon >= 3 segments around z, nlat >= 2 bands
// from pole to pole; 2 + (nlat - 1) nlon vertices (on the sphere), 2 nlon (nlat - 1) triangles
int tf_mesh_sphere(tf_mesh* out, double radius, int nlon, int nlat, char* err, size_t errlen);

// torus about the z axis, tube centre at distance major, tube radius minor < major: nu >= 3
// segments around z, nv >= 3 around the tube; nu nv vertices (on the torus), 2 nu nv triangles
int tf_mesh_torus(tf_mesh* out, double major, double minor, int nu, int nv, char* err,
                  size_t errlen);

#endif  // TF_MESH_REFERENCE_H
