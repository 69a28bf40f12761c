// Grid signed distance fields baked from triangle meshes: exact distance to the mesh at every
// node (BVH, mesh_bvh.h), sign from pseudo-normals, in the engine's grid layout (x fastest,
// node (i, j, k) at origin + cell (i, j, k)), which the engine reads with trilinear
// interpolation and the gradient of the interpolant (engine/sdf.c).
#ifndef TF_SDF_BAKE_H
#define TF_SDF_BAKE_H

#include <stddef.h>

#include "tightfit.h"

typedef struct tf_sdf_bake_options {
  int nodes;       // nodes along the longest axis of the grid, padding included (>= 2 padding
                   // + 2); the cell is the mesh's longest side / (nodes - 1 - 2 padding); 64
  int padding;     // cells of margin on every side of the mesh bounds (>= 1); 3
  int threads;     // worker threads, 0 = one per online CPU (the result does not depend on it)
  int allow_open;  // 1: bake meshes that are not closed (signs from the winding number fallback
                   // may be wrong near holes); 0: refuse them with a message (default)
} tf_sdf_bake_options;

tf_sdf_bake_options tf_sdf_bake_options_default(void);

// a baked grid; free with tf_sdf_grid_free
typedef struct tf_sdf_grid {
  float* value;        // (res[2] x res[1] x res[0]) signed distance (m), x fastest, malloc'd
  int res[3];          // nodes per axis
  double origin[3];    // position of node (0, 0, 0), mesh frame
  double cell;         // node spacing (m)
  double aabb[6];      // lo[3], hi[3] of the mesh
  double error_bound;  // m: the trilinear interpolant is within this of the mesh's distance
} tf_sdf_grid;

// what a bake did
typedef struct tf_sdf_bake_stats {
  double seconds;          // wall time of the bake (BVH included)
  int threads;             // threads used
  long nodes;              // grid nodes evaluated
  long winding_fallbacks;  // nodes whose sign the winding number decided
  int open_edges;          // mesh edges with one triangle
  int nonmanifold_edges;   // mesh edges with more than two triangles or mismatched orientation
} tf_sdf_bake_stats;

// bakes the mesh; returns 0, or -1 with a message (invalid mesh or options, open mesh without
// allow_open, out of memory). stats may be NULL.
int tf_sdf_bake(tf_sdf_grid* out, tf_sdf_bake_stats* stats, const double* vert, int nvert,
                const int* face, int nface, const tf_sdf_bake_options* opt, char* err,
                size_t errlen);

void tf_sdf_grid_free(tf_sdf_grid* grid);

// the grid as a tf_sdf_def for tf_builder_add_sdf (which copies the values): grid, res,
// origin, cell, aabb and error_bound set, fn NULL, mesh as given (-1 if none)
void tf_sdf_grid_def(tf_sdf_def* out, const tf_sdf_grid* grid, const char* name, int mesh);

#endif  // TF_SDF_BAKE_H
