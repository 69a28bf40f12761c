// Pair functions for SDF and triangle-mesh shapes (private; the pair table in collision_table.c
// dispatches to them, tests call them directly). Shape a is of the lower tf_geom_type; normals
// point from a to b. Each finds its candidates (every point with dist < margin), reduces them
// to at most cap (1..TF_COLLIDE_MAX) with contact_reduce.h, writes them to out, and the
// candidate count before reduction and the reduction's seconds to *stats (when not NULL);
// returns the count written.
// Nothing is allocated: work buffers are fixed-size locals (about 200 KB of stack at most).
#ifndef TF_COLLISION_SDF_H
#define TF_COLLISION_SDF_H

#include "collision.h"

// sample spacing (m) of the primitives' tessellation when they are measured in an SDF
#define TF_SDF_SAMPLE_SPACING 1e-3
// vertices whose field values are kept for the triangle pass; vertices past it are evaluated
// again where their triangles need them
#define TF_SDF_VERT_CACHE 4096
// starts of the SDF x SDF descent: a lattice over the overlap box of at most this many points
#define TF_SDF_MAX_STARTS 64

// a (plane, sphere, capsule, box, cylinder) against a mesh: the mesh's vertices and its
// triangles' local minima measured in a's exact signed distance
int tf_collide_primitive_mesh(const tf_shape* a, const tf_shape* mesh, double margin, int cap,
                              tf_contact_point* out, tf_collide_stats* stats);
// a hull against a mesh: the hull's surface in the mesh's baked SDF when it carries one, else
// the mesh's surface against the hull's face-plane bound (tf_hull_sdf_bound)
int tf_collide_hull_mesh(const tf_shape* hull, const tf_shape* mesh, double margin, int cap,
                         tf_contact_point* out, tf_collide_stats* stats);
// two meshes: both baked, a's surface in b's SDF and b's in a's (two-way, unless a field has
// repeated features); one baked, the other's surface in it; neither baked: no points
int tf_collide_mesh_mesh(const tf_shape* a, const tf_shape* b, double margin, int cap,
                         tf_contact_point* out, tf_collide_stats* stats);
// a plane against an SDF: the SDF's surface mesh against the plane when it carries one, else
// descent on the two fields as for SDF x SDF
int tf_collide_plane_sdf(const tf_shape* plane, const tf_shape* sdf, double margin, int cap,
                         tf_contact_point* out, tf_collide_stats* stats);
// a sphere, capsule, box, cylinder, hull or mesh against an SDF: a's surface samples (its mesh,
// or its tessellation) in the SDF; a sphere in an exact SDF (error_bound 0) in closed form
int tf_collide_shape_sdf(const tf_shape* a, const tf_shape* sdf, double margin, int cap,
                         tf_contact_point* out, tf_collide_stats* stats);
// a mesh against an SDF: two-way sampling (the mesh's surface in the SDF, the SDF's surface
// mesh in the mesh's own SDF, one reducer) when the mesh carries an SDF and the SDF a surface
// mesh and neither field has repeated features; otherwise as tf_collide_shape_sdf
int tf_collide_mesh_sdf(const tf_shape* mesh, const tf_shape* sdf, double margin, int cap,
                        tf_contact_point* out, tf_collide_stats* stats);
// two SDFs: multi-start descent on phi1 + phi2 + |max(phi1, phi2)| over the overlap box
int tf_collide_sdf_sdf(const tf_shape* a, const tf_shape* b, double margin, int cap,
                       tf_contact_point* out, tf_collide_stats* stats);
// the same descent from the given starts (nstart world points) instead of a lattice: each
// start's point on the surfaces' midsurface (one balancing step) and, for the first ndescend,
// the minimiser its descent ends at; those whose gap is under below, each once, into out (at
// most cap); returns their count (0 when either shape carries no SDF)
int tf_sdf_descend_from(const tf_shape* a, const tf_shape* b, const double* starts, int nstart,
                        int ndescend, double below, tf_contact_point* out, int cap);

#endif  // TF_COLLISION_SDF_H
