// The exact distance to an infinite screw thread from a table of candidate features per cell
// of (r, zeta) (private to assets/; see thread_table.c for the method and its proof).
//
// The thread is tf_profile_thread's periodic profile without its ends: at angle theta a
// profile point (r, zeta) sits at z = zeta + pitch theta / 2 pi. The table covers radii
// [rlo, rhi] and one period of zeta; a point there is answered exactly (to rounding) by
// following only the features its cell names. The caller decides where the infinite thread
// is the true surface (away from the thread's ends).
#ifndef TF_THREAD_TABLE_H
#define TF_THREAD_TABLE_H

#include <stddef.h>

#include "sdf_profile.h"

#define TF_THREAD_TABLE_SLOTS 15        // features one cell can name
#define TF_THREAD_TABLE_RECORD 16       // bytes per cell: the count, then the feature ids
#define TF_THREAD_TABLE_MAXFEATURE 160  // corners and faces over the periods a cell can reach
#define TF_THREAD_TABLE_COARSE 4        // radial cell size beyond rmid, in zeta cells

// a feature of the thread at the turn where the query point is: the helix swept by a profile
// corner, or the face swept by the profile segment that follows it, period offset included
typedef struct tf_thread_feature {
  int kind;          // TF_THREAD_CORNER, TF_THREAD_FLAT (constant r) or TF_THREAD_FLANK
  double r, zeta;    // corner: its (r, zeta); flat: its radius; flank: zeta = zeta + k r
  double k, k1;      // flank: d zeta / dr and 1 / (1 + k^2)
  double lo, hi;     // flat: the zeta it spans; flank: the radii it spans
  double normal[2];  // outward (r, zeta) normal of the solid (a corner: its faces' mean)
} tf_thread_feature;

enum { TF_THREAD_CORNER = 0, TF_THREAD_FLAT, TF_THREAD_FLANK };

typedef struct tf_thread_table {
  double pitch, lead;  // m, m / rad
  int nut;             // 1: the material is outside the profile (r > f(zeta))
  int nkink;
  double kink[TF_PROFILE_MAXKINK][2];  // the profile's corners (r, zeta), zeta in [0, pitch)
  double rlow, rhigh;                  // the profile's least and greatest radius
  int window;                          // features of periods -window..window, period-major
  int nfeature;
  tf_thread_feature feature[TF_THREAD_TABLE_MAXFEATURE];
  // cell (i, j): zeta in [j, j + 1] hz; r in r0 + [i, i + 1] hr for the nr1 rows near the
  // thread, r1 + [i - nr1, i - nr1 + 1] hr2 beyond (coarser: farther points are rare)
  double r0, r1, hr, hr2, hz;
  double inv_hr, inv_hr2, inv_hz, inv_pitch;
  double sq_min;  // the lower bound's zeta scale sqrt(q) at radius r0 (the least it takes)
  int nr1, nr, nz;
  int nfallback;  // cells naming too many features: the caller's search answers there
} tf_thread_table;

// lays the table out for thread t (material inside the profile, or outside for a nut) over
// radii [rlo, rhi], nz square cells per pitch up to rmid and cells TF_THREAD_TABLE_COARSE
// times as wide beyond; returns the bytes its cells need (0: the thread does not fit the
// table's limits)
size_t tf_thread_table_init(tf_thread_table* tab, const tf_profile_thread* t, int nut, double rlo,
                            double rmid, double rhi, int nz);
// fills the cells (tf_thread_table_init's size, records of a count and that many feature
// ids); sets tab->nfallback
void tf_thread_table_fill(tf_thread_table* tab, unsigned char* cells);
// the signed distance (negative in the material, no margin) at (rho, zeta) (the query point
// turned to angle 0: zeta = z - pitch theta / 2 pi, any real number) and the outward unit
// gradient in (e_r, e_theta, e_z); returns 0, writing nothing, where the table has no answer
int tf_thread_table_eval(double* phi, double grad[3], const tf_thread_table* tab,
                         const unsigned char* cells, double rho, double zeta);

#endif  // TF_THREAD_TABLE_H
