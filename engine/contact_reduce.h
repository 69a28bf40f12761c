// Contact reduction per geom pair (private): many candidate points of one pair (SDF and mesh
// pairs give thousands) reduced to a few well-spread rows, deterministically. Candidates stream
// in one at a time, so a pair never stores them: the reducer keeps a fixed-size summary.
#ifndef TF_CONTACT_REDUCE_H
#define TF_CONTACT_REDUCE_H

#include "collision.h"

#define TF_REDUCE_NBIN 30   // fixed normal directions (the icosidodecahedron's vertices)
#define TF_REDUCE_NAXIS 4   // tangent axes per bin, 45 degrees apart: 8 extreme directions
#define TF_REDUCE_NSLAB 16  // slab rows per bin (deepest candidate per slab of offset)
#define TF_REDUCE_PER_BIN (1 + TF_REDUCE_NSLAB + 2 * TF_REDUCE_NAXIS)
// the most points a reduction keeps: deepest, slab rows and 8 extremes in every bin
#define TF_REDUCE_MAX_KEEP (TF_REDUCE_NBIN * TF_REDUCE_PER_BIN)
// kept points of one bin closer than this (m), with the same normal, count once
#define TF_REDUCE_MERGE_DIST 1e-8

// what a bin has seen: its deepest candidate, the deepest per slab of offset along the bin's
// direction, and its extreme one along +-each tangent axis
typedef struct tf_reduce_bin {
  int count;      // candidates that fell in this bin
  int nslab;      // slab entries in use
  unsigned used;  // bit i: slab entry i in use (open addressing on the key, linear probing)
  long long slab_key[TF_REDUCE_NSLAB];  // floor(offset / slab width)
  tf_contact_point slab[TF_REDUCE_NSLAB];
  tf_contact_point deepest;
  tf_contact_point extreme[2 * TF_REDUCE_NAXIS];  // +axis k at 2k, -axis k at 2k + 1
  double offset[2 * TF_REDUCE_NAXIS];  // the extremes' offsets along their axes: max, min
  double facing[2 * TF_REDUCE_NAXIS];  // their normals . the bin's direction (ties)
} tf_reduce_bin;

typedef struct tf_contact_reducer {
  double frame[9];   // the bins' frame (world orientation)
  double origin[3];  // its origin (world; local reducers only)
  int local;         // candidates come in the bins' frame (tf_reduce_init_local), else world
  double axis[TF_REDUCE_NBIN][TF_REDUCE_NAXIS][3];  // tangent axes of occupied bins (as points)
  double dir[TF_REDUCE_NBIN][3];                    // directions of occupied bins (as points)
  double slab_width;                                // m; 0: no slab rows
  double inv_slab_width;                            // 1 / slab_width (0: none)
  tf_reduce_bin bin[TF_REDUCE_NBIN];
  // the step's speculative test (tf_reduce_set_approach; margin INFINITY after init: none)
  tf_approach approach;
  int ncandidate;  // candidates added, the non-finite ones included
  double time_s;   // seconds its callers spent in it (they time their blocks of adds)
} tf_contact_reducer;

typedef struct tf_reduce_counts {
  int candidates;  // points added
  int kept;        // points written
  int dropped;     // candidates - kept
  int bins;        // occupied normal bins
} tf_reduce_counts;

// direction of bin b (0 <= b < TF_REDUCE_NBIN) in the reducer's frame
void tf_reduce_bin_direction(double dir[3], int b);

// an empty reducer whose bins are fixed in the frame with world orientation frame (row-major,
// columns are the frame's axes; NULL: the world frame), e.g. the SDF's geom frame so that bins
// move with the part; slab_width (m, >= 0; 0: none) splits each bin into slabs of offset along
// its direction, each keeping its deepest candidate, e.g. half a thread's pitch so that every
// turn of a flank keeps rows
void tf_reduce_init(tf_contact_reducer* r, const double frame[9], double slab_width);

// the same, for candidates given in the bins' frame itself (rotation frame, origin at world
// point origin): the sampling pairs measure in a field's geom frame, and handing their points
// over as they are saves three rotations a candidate; tf_reduce_finish writes world points.
// Slabs are then fixed in that frame too (offsets from its origin)
void tf_reduce_init_local(tf_contact_reducer* r, const double frame[9], const double origin[3],
                          double slab_width);

// the step's speculative test (collision.h) for the reduction over the cap
void tf_reduce_set_approach(tf_contact_reducer* r, const tf_approach* approach);

// one candidate (world, or the bins' frame for a local reducer); non-finite ones are counted
// and ignored
void tf_reduce_add(tf_contact_reducer* r, const tf_contact_point* c);

// writes at most cap (>= 1) points into out (room for min(cap, TF_REDUCE_MAX_KEEP)): per
// occupied bin in bin order the deepest candidate, then the slab rows (by key), then the
// extremes; over the cap, points that do not close within the step (tf_reduce_set_approach)
// go first (farthest first), then extremes (from the bins holding the most points; ties: more
// candidates first), then slab rows (from the bin holding the most, its shallowest first), and last
// the bins' deepest (shallowest first). Returns the count; counts may be NULL.
int tf_reduce_finish(tf_contact_point* out, const tf_contact_reducer* r, int cap,
                     tf_reduce_counts* counts);

// the same over an array: reduces n candidates to at most cap (no slab rows)
int tf_contact_reduce(tf_contact_point* out, const tf_contact_point* in, int n, int cap,
                      const double frame[9], tf_reduce_counts* counts);

#endif  // TF_CONTACT_REDUCE_H
