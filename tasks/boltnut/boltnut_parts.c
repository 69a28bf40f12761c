// The boltnut rig's parts: the nut and the bolt at the collider's resolution (`mesh_chord_um`)
// and again finer for the overlap probe, the bolt's threaded length from the travel and the
// engagement, and the thread allowance measured on the built bolt.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boltnut.h"

#define PROBE_CHORD_MAX_UM 1.0  // the overlap probe's floor must stay under 1 um (issue 5)
#define PROBE_DENSITY 4         // probe samples: at least 4x the collider mesh's vertices

static const char* const size_names[] = {"M4", "M8", "M12", "M16", "M20"};
static const double size_diameter[] = {4e-3, 8e-3, 12e-3, 16e-3, 20e-3};
static const double size_pitch[] = {0.7e-3, 1.25e-3, 1.75e-3, 2.0e-3, 2.5e-3};  // coarse series

// the collider meshes' chord (um): as asked, or a hundredth of the pitch (20 um for M16: a
// few thousand triangles; an M4 at 20 um wobbles 2.7 deg in its 50 um allowance)
static double collider_chord_um(const double* v) {
  return v[BN_MESH_CHORD] > 0 ? v[BN_MESH_CHORD] : 1e6 * size_pitch[(int)v[BN_SIZE]] / 100;
}
static const char* const fit_names[] = {"none", "6H/6g", "6H/6g-mid"};

// a bolt of the given threaded length and chord with the run's size and fit
static int build_bolt(tf_part_geometry* g, const double* v, double length, double chord_um,
                      char* err, size_t errlen) {
  char len_s[32], clr_s[32], chord_s[32];
  // in mm, the value the part turns back into exactly this length
  snprintf(len_s, sizeof(len_s), "%.17g", tf_part_mm(length));
  snprintf(clr_s, sizeof(clr_s), "%.17g", v[BN_CLEARANCE]);
  snprintf(chord_s, sizeof(chord_s), "%.17g", chord_um);
  tf_kv kv[] = {{"size", size_names[(int)v[BN_SIZE]]},
                {"length_mm", len_s},
                {"fit", fit_names[(int)v[BN_FIT]]},
                {"clearance_um", clr_s},
                {"chord_um", chord_s}};
  return tf_part_build("bolt", kv, 5, g, err, errlen);
}

static int build_nut(tf_part_geometry* g, const double* v, double chord_um, char* err,
                     size_t errlen) {
  char chord_s[32];
  snprintf(chord_s, sizeof(chord_s), "%.17g", chord_um);
  tf_kv kv[] = {{"size", size_names[(int)v[BN_SIZE]]}, {"chord_um", chord_s}};
  return tf_part_build("nut", kv, 2, g, err, errlen);
}

// the probe's mesh of a part: from PROBE_CHORD_MAX_UM down, halving the chord until it has
// PROBE_DENSITY times the collider mesh's vertices
static int build_fine(tf_part_geometry* fine, const tf_part_geometry* coarse, const double* v,
                      double length, int is_bolt, char* err, size_t errlen) {
  double chord = fmin(PROBE_CHORD_MAX_UM, collider_chord_um(v));
  for (int tries = 0; tries < 8; tries++, chord *= 0.5) {
    int rc = is_bolt ? build_bolt(fine, v, length, chord, err, errlen)
                     : build_nut(fine, v, chord, err, errlen);
    if (rc) return -1;
    if (fine->nvert >= PROBE_DENSITY * coarse->nvert) return 0;
    tf_part_geometry_free(fine);
  }
  snprintf(err, errlen, "task 'boltnut': mesh_chord_um %g leaves no finer probe mesh",
           collider_chord_um(v));
  return -1;
}

void tf_boltnut_parts_free(tf_boltnut_parts* p) {
  tf_part_geometry_free(&p->bolt);
  tf_part_geometry_free(&p->nut);
  tf_part_geometry_free(&p->bolt_fine);
  tf_part_geometry_free(&p->nut_fine);
}

int tf_boltnut_parts_build(tf_boltnut_parts* p, const double* v, char* err, size_t errlen) {
  memset(p, 0, sizeof(*p));
  // finer collider meshes would need probe meshes of millions of samples
  if (v[BN_MESH_CHORD] > 0 && v[BN_MESH_CHORD] < 1) {
    snprintf(err, errlen, "task 'boltnut': mesh_chord_um must be 0 (auto) or at least 1 (got %g)",
             v[BN_MESH_CHORD]);
    return -1;
  }
  // the nut first: its pitch and height size the bolt
  if (build_nut(&p->nut, v, collider_chord_um(v), err, errlen)) return -1;
  p->pitch = p->nut.feature_size;
  p->nut_height = p->nut.aabb[5];
  double engaged = v[BN_ENGAGED_TURNS], travel = v[BN_TRAVEL_TURNS];
  // the bolt's tip must start inside the nut with half a pitch of the nut's countersunk top
  // to spare (and the perturbed start half a turn higher)
  double max_engaged = floor(2 * (p->nut_height / p->pitch - 0.5)) / 2;
  if (engaged > max_engaged) {
    snprintf(err, errlen,
             "task 'boltnut': engaged_turns must be at most %g for %s (nut height %.3g mm, "
             "pitch %.3g mm; got %g)",
             max_engaged, size_names[(int)v[BN_SIZE]], 1e3 * p->nut_height, 1e3 * p->pitch,
             engaged);
    tf_boltnut_parts_free(p);
    return -1;
  }
  // the threaded length: the travel to the base plus the engagement at the start
  p->length = (travel + engaged) * p->pitch;
  if (build_bolt(&p->bolt, v, p->length, collider_chord_um(v), err, errlen) ||
      build_fine(&p->nut_fine, &p->nut, v, 0, 0, err, errlen) ||
      build_fine(&p->bolt_fine, &p->bolt, v, p->length, 1, err, errlen)) {
    tf_boltnut_parts_free(p);
    return -1;
  }
  // the allowance, measured on the built bolt rather than recomputed from the ISO tables:
  // at angle 0 the bolt's crest flat is centred at z = pitch (the schema's ranges keep the
  // tip chamfer above it) at radius d / 2 - delta, so a point at the nominal radius d / 2 is
  // delta outside it
  double at[3] = {0.5 * size_diameter[(int)v[BN_SIZE]], 0, p->pitch};
  p->delta = p->bolt.fn(p->bolt.params, at, NULL);
  return 0;
}
