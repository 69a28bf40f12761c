// Narrow phase: shapes at given poses, contact points between pairs, distances and times of
// impact (private to the engine; tests include it).
//
// Every pair function works on tf_shape values (a shape's geometry plus a world pose), so
// the same code serves the current configuration and the advanced poses of a time-of-impact
// query. Contact normals point from the first shape to the second; a contact's dist is the
// signed gap along that normal (negative = overlap), pos the midpoint between the surfaces.
#ifndef TF_COLLISION_H
#define TF_COLLISION_H

#include "tightfit.h"

// a convex hull's geometry, read-only views into the model's hull arrays
typedef struct tf_hull_view {
  int nvert;
  const double* vert;  // (nvert x 3) in the geom frame
  int nface;
  const double* face_plane;  // (nface x 4) outward unit normal n and offset d: n . x <= d inside
  const int* face_vertadr;   // (nface) first index into face_vert
  const int* face_vertnum;   // (nface)
  const int* face_vert;      // vertex indices of each face, counter-clockwise seen from outside
  double rbound;             // largest vertex distance from the geom origin
} tf_hull_view;

// a triangle mesh, read-only views into the model's mesh arrays (geom frame)
typedef struct tf_mesh_view {
  int nvert;
  const double* vert;  // (nvert x 3)
  int nface;
  const int* face;  // (nface x 3)
  double rbound;
} tf_mesh_view;

// a signed distance field: analytic (fn, params) or a grid (fn NULL); see engine/sdf.h
typedef struct tf_sdf_view {
  tf_sdf_fn fn;
  const void* params;
  const float* grid;  // res[0] x res[1] x res[2], x fastest
  int res[3];
  double origin[3];
  double cell;
  double aabb[6];  // lo[3], hi[3] of the solid, geom frame
  double error_bound;
  double feature_size;  // m: repeated features' spacing (a thread's pitch), 0 = none
  int unit_gradient;    // fn's gradient is unit to rounding: checked, not normalised again
} tf_sdf_view;

typedef struct tf_shape {
  int type;           // tf_geom_type
  double size[3];     // sphere r; capsule r, half-length; box half-sizes; cylinder r, half-length
  double pos[3];      // world position of the geom frame
  double mat[9];      // world orientation, row-major; columns are the geom axes
  tf_hull_view hull;  // for TF_GEOM_HULL
  tf_mesh_view mesh;  // TF_GEOM_MESH, or the surface samples of a TF_GEOM_SDF (nvert 0: none)
  tf_sdf_view sdf;    // TF_GEOM_SDF, or a baked SDF of a TF_GEOM_MESH (fn and grid NULL: none)
  // a primitive's tessellation as its model holds it (tf_primitive_mesh of its size); nvert 0:
  // made where it is needed
  tf_mesh_view tess;
} tf_shape;

typedef struct tf_contact_point {
  double pos[3];     // midpoint between the two surfaces
  double normal[3];  // unit, from shape a to shape b
  double dist;       // signed gap along normal
  // set by tf_collide_n: whose surface the point was sampled on, in the other's field, where a
  // pair samples both ways (collision_sdf.c): -1 a's, +1 b's; 0 for every other pair, whose
  // sampled side (if any) the pair's types imply
  int side;
} tf_contact_point;

// the maximum number of points a convex pair function writes
#define TF_MAX_PAIR_CONTACTS 8
// the most points any pair writes (SDF and mesh pairs, after their reduction): the size of
// the buffer tf_collide_n needs
#define TF_COLLIDE_MAX 128

// all points of a and b whose gap is below margin (at most TF_MAX_PAIR_CONTACTS); returns the
// count. The pair table dispatches by type and swaps arguments (and normals) as needed.
int tf_collide(const tf_shape* a, const tf_shape* b, double margin, tf_contact_point* out);
// the same with a per-pair cap on the points written (1..TF_COLLIDE_MAX): pairs that find
// many candidates (SDF, mesh) reduce them to at most cap; writes the candidate count before
// reduction into *candidates when it is not NULL
int tf_collide_n(const tf_shape* a, const tf_shape* b, double margin, int cap,
                 tf_contact_point* out, int* candidates);

// the step's speculative test (collision_driver.c), for a reduction over its cap: the first
// shape's velocity field relative to the second's, v(p) = lin + ang x p (world), over a step
// of h, and the gap under which a pair touches (margin > 0; 0: no test). A point with
// dist - h v(p) . normal > margin does not close within the step, so it will not be a row
typedef struct tf_approach {
  double lin[3], ang[3];
  double h, margin;
} tf_approach;

// what one tf_collide_n_stats call did: candidates before reduction, and the seconds spent
// reducing them (the rest of the call is the search; 0 with the timers compiled out)
typedef struct tf_collide_stats {
  // in: nwarm world points where the pair touched last step, which a pair searched by
  // descent (SDF x SDF) also starts from (NULL / 0: none)
  const double* warm;
  int nwarm;
  // in: 1 when the step re-measures the pair where it moves (re-linearisation): a pair
  // searched by descent then keeps only what touches and the ring around it
  // (collision_sdf_descent.c); 0: every minimiser under margin
  int touching;
  // in: the step's speculative test; over the cap the points it rejects go before any it
  // may keep (contact_reduce.h)
  tf_approach approach;
  // out:
  int candidates;
  double reduce_s;
  // a lower bound of the gap between the pair's sampled surfaces (the least value or bound
  // the search took or skipped a sample by; -INFINITY where the pair gives none): while the
  // parts move by less than clear - margin relative to each other, a search finds nothing
  double clear;
} tf_collide_stats;

// tf_collide_n, reporting its candidates and reduction time into *stats (not NULL; its warm
// starts are read)
int tf_collide_n_stats(const tf_shape* a, const tf_shape* b, double margin, int cap,
                       tf_contact_point* out, tf_collide_stats* stats);

// whether tf_collide has a function for this pair of tf_geom_type values, in either order
// (plane x plane has none)
int tf_collide_supported(int type1, int type2);

// the farthest surface point of a shape from its geom origin: tf_shape_bound is INFINITY
// for planes (unbounded), tf_shape_extent 0 for them (a size scale for tolerances)
double tf_shape_bound(const tf_shape* s);
double tf_shape_extent(const tf_shape* s);

// farthest point of a convex shape in direction dir (world); planes are not convex shapes here
void tf_support(double out[3], const tf_shape* s, const double dir[3]);

// signed distance between two convex shapes (GJK, EPA when overlapping), with the witness
// points on each surface and the unit normal from a to b. Plane x convex is handled too.
double tf_shape_distance(const tf_shape* a, const tf_shape* b, double pa[3], double pb[3],
                         double normal[3]);

// the rigid motion of a shape over a step: linear velocity of its frame origin and angular
// velocity, both in world axes
typedef struct tf_shape_motion {
  double vel[3];
  double omega[3];
} tf_shape_motion;

// moves a shape by its motion for time t (rotation by the exponential map)
void tf_shape_advance(tf_shape* out, const tf_shape* s, const tf_shape_motion* motion, double t);

// first time in [0, horizon] at which the shapes come within tolerance of touching under
// their motions (conservative advancement on tf_shape_distance); returns horizon + 1 when the
// paths never meet. Writes the witness normal and points at that time when they do.
double tf_time_of_impact(const tf_shape* a, const tf_shape_motion* ma, const tf_shape* b,
                         const tf_shape_motion* mb, double horizon, double tolerance,
                         double normal[3], double pa[3], double pb[3]);

#endif  // TF_COLLISION_H
