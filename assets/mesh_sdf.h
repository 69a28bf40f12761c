// An exact signed distance field of a watertight triangle mesh, for the engine as a
// tf_sdf_def like an analytic part's: the value is the distance to the closest triangle
// (through the BVH of mesh_bvh.h), signed by the angle-weighted pseudo-normal of the closest
// feature, with no grid quantisation (error_bound 0: exact to the triangles). The mesh is
// checked first (mesh_validate.h) and refused when it does not bound a solid.
//
// tf_sdf_def.params must be plain bytes the model copies anywhere, so the BVH is flattened into
// one block (a header of counts and byte offsets, then the arrays); the evaluation rebuilds a
// view of it with pointers into wherever the block lives.
#ifndef TF_MESH_SDF_H
#define TF_MESH_SDF_H

#include <stddef.h>

#include "mesh_validate.h"
#include "tightfit.h"

// an exact mesh SDF's parameters; free with tf_mesh_sdf_free
typedef struct tf_mesh_sdf {
  void* params;  // the flattened BVH (malloc'd, 16-byte aligned), tf_sdf_def.params
  size_t params_size;
  double aabb[6];  // lo[3], hi[3] of the mesh
  int ntri;        // triangles
} tf_mesh_sdf;

// validates the mesh (defect, may be NULL, says why it was refused) and flattens its BVH;
// returns 0, or -1 with "NAME: problem" (the offending triangle and its vertices)
int tf_mesh_sdf_build(tf_mesh_sdf* out, tf_mesh_defect* defect, const double* vert, int nvert,
                      const int* face, int nface, const char* name, char* err, size_t errlen);
void tf_mesh_sdf_free(tf_mesh_sdf* sdf);

// the tf_sdf_fn: signed distance at p (mesh frame), negative inside; grad is the unit
// direction from the closest point (away from the solid), or the closest feature's
// pseudo-normal when p is on the surface
double tf_mesh_sdf_eval(const void* params, const double p[3], double grad[3]);

// the builder's definition: fn, params, aabb, error_bound 0, unit_gradient 1, mesh as given
// (-1 for none); name kept by pointer
void tf_mesh_sdf_def(tf_sdf_def* def, const tf_mesh_sdf* sdf, const char* name, int mesh);

#endif  // TF_MESH_SDF_H
