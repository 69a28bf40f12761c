// The builder's private state, shared by builder.c and model_compile.c.
#ifndef TF_BUILDER_INTERNAL_H
#define TF_BUILDER_INTERNAL_H

#include "tightfit.h"

// a hull's source points until compile runs qhull on them
typedef struct tf_builder_hull {
  char* name;
  double* points;  // (npoints x 3)
  int npoints;
} tf_builder_hull;

// a mesh's copy until compile
typedef struct tf_builder_mesh {
  char* name;
  double* vert;  // (nvert x 3)
  int nvert;
  int* face;  // (nface x 3)
  int nface;
} tf_builder_mesh;

// an sdf's copy until compile (params and grid owned)
typedef struct tf_builder_sdf {
  tf_sdf_def def;  // name, params and grid point at the owned copies below
  char* name;
  void* params;
  float* grid;
} tf_builder_sdf;

struct tf_builder {
  tf_option opt;
  tf_body_def* bodies;  // user bodies; body id = index + 1
  int nbody, body_cap;
  tf_joint_def* joints;
  int njnt, joint_cap;
  tf_actuator_def* actuators;
  int nu, actuator_cap;
  tf_geom_def* geoms;
  int ngeom, geom_cap;
  tf_equality_def* equalities;
  int neq, eq_cap;
  tf_builder_hull* hulls;
  int nhull, hull_cap;
  tf_builder_mesh* meshes;
  int nmesh, mesh_cap;
  tf_builder_sdf* sdfs;
  int nsdf, sdf_cap;
  int* exclude;  // body pairs
  int nexclude, exclude_cap;
  int* include;  // geom pairs
  int ninclude, include_cap;
};

#endif  // TF_BUILDER_INTERNAL_H
