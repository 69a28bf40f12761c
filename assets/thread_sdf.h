// The distance of an ISO bolt's or nut's threaded solid (thread_sdf.c) for the part builders in
// part_thread.c (assets-private): the parameters a builder fills, and the functions it calls.
#ifndef TF_THREAD_SDF_H
#define TF_THREAD_SDF_H

#include <stddef.h>

#include "sdf_profile.h"
#include "thread_table.h"

#define PI 3.141592653589793
#define TWO_PI 6.283185307179586
#define TAN30 0.5773502691896257

typedef struct thread_sdf {
  tf_profile_thread thread;  // the envelope of the threaded length
  int nut;                   // 1: material outside the envelope (on the section's right)
  int npre, npost;
  tf_profile_vertex pre[4], post[4];  // static section parts before / after the envelope
  double zlo, zhi;                    // the section's slab: bolt head (-k, 0); nut faces (0, m)
  double far;                         // bolt: the head slab's radius; nut: the slab's outer radius
  double apothem;                     // hex: half the across-flats size
  double hex_z0, hex_z1;
  double rmin;           // the smallest radius of a moving feature (the profile's minor radius)
  double speed;          // the fastest a feature's image moves in the section (m / rad)
  double rfloor, rceil;  // the envelope's radius h stays within [rfloor, rceil] everywhere
  // (r, z) boxes holding the static parts and the envelope's end between them, at every
  // angle: lower bounds that let a query skip the ends when they are out of reach
  int nbox[2];
  double box[2][5][4];  // [pre / post][segment]: r0, r1, z0, z1
  // the screw-invariant feature table (thread_table.c), its cells right after this struct in
  // the params blob; it answers where the section is the infinite thread within the
  // distance found: free_lo < z - |phi|, z + |phi| < free_hi (and inside far, for a nut)
  int use_table;
  double free_lo, free_hi;
  // the convex (r, z) polygon K (counter-clockwise) that cuts the infinite thread's solid T
  // to the section, T cut by K: a nut's slab between the faces, inside the outer wall,
  // outside both countersinks; a bolt's shank under the top face and the tip chamfer (down
  // to the head's bottom: above the head's top face T cut by K is the section; ncut 0: none,
  // the search answers where the table cannot)
  int ncut;
  double cut[5][2];
  tf_thread_table table;
} thread_sdf;

// rmin and speed of a thread (from t->thread and its static parts)
void tf_thread_feature_speeds(thread_sdf* t);
// the (r, z) boxes that hold a section's static parts and the envelope's end between them at
// every angle (before the envelope at z, or after it when post); returns their count
int tf_thread_end_boxes(double box[5][4], const tf_profile_vertex* v, int n, double far, double z,
                        int post);
// the signed distances (tf_sdf_def.fn) of a bolt and of a nut, params a thread_sdf
double tf_thread_sdf_bolt(const void* params, const double p[3], double grad[3]);
double tf_thread_sdf_nut(const void* params, const double p[3], double grad[3]);
// a vertex of the section that is there at every angle
void tf_thread_static_vertex(tf_profile_vertex* v, double r, double z);
// the free window and, when asked, the feature table (cells appended to the params blob);
// returns the (moved) params and their size, or NULL when out of memory (t freed)
thread_sdf* tf_thread_add_table(thread_sdf* t, int use, double rout, size_t* size);

#endif  // TF_THREAD_SDF_H
