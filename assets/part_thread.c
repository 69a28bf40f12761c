// ISO metric bolts and nuts: M4, M8, M12, M16, M20 coarse threads.
//
// Frames, z along the thread axis. Bolt: a hex head below z = 0 (-k <= z <= 0), the threaded
// shank from the head's top face z = 0 up to z = length, ending in a 45 deg chamfer down to a
// tip face of radius just under the minor radius. Nut: a hex prism 0 <= z <= m, frame origin on
// the axis at its bottom face, with a 90 deg countersink of diameter 1.05 D at both ends. Hex
// flats face +-x (and every 60 deg). Both threads are right-handed and share one phase: at
// angle theta a thread point at profile position zeta sits at z = zeta + pitch theta / 2 pi.
// A nut whose frame is at height z0 and turned by theta0 about the axis is centred on the
// bolt's thread (equal play on both flanks) when z0 - pitch theta0 / 2 pi is a multiple of
// the pitch.
//
// Profile (ISO 68-1 basic profile): fundamental triangle height H = sqrt(3) / 2 P, 60 deg
// flanks; per period a crest flat of P / 8 at the major radius d / 2, a root flat of P / 4 at
// the minor radius d / 2 - 5 H / 8 (the crest of the nut), the crest centred at zeta = 0. The
// nut is the basic profile (6H at its maximum material limit). The bolt is the basic profile
// moved radially inwards by delta, the allowance: its pitch diameter is 2 delta smaller, each
// flank's normal gap to a centred nut is delta sin 30 = delta / 2, the axial play is
// 2 delta tan 30 deg, and the crest and root clear by delta. delta comes from the fit:
// 6H/6g takes the 6g fundamental deviation |es| = 15 + 11 P um (ISO 965-1, on diameters) so
// delta = |es| / 2; 6H/6g-mid centres both pitch diameters in their tolerance bands
// (Td2 for 6g, TD2 for 6H) so delta = (|es| + Td2 / 2 + TD2 / 2) / 2; none takes clearance_um.
// Hex across flats s and nut height m from ISO 4032, head height k from ISO 4017.
//
// Distance: exact, through the meridional section and a screw-invariant feature table
// (thread_sdf.c says how).
//
// Mesh. The thread surface is swept over stations around the axis (sdf_profile.c), with a
// station wherever a thread corner meets the chamfer, a countersink or the head face, so
// every crease is an edge; the flanks are split so that their twist between stations stays
// under half the chord budget. Head, faces and hex sides are rings on the same stations.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parts_internal.h"
#include "sdf_profile.h"
#include "thread_sdf.h"

#define ERROR_BOUND 1e-11  // m: see thread_sdf.c (the search rarely stops ~1e-12 m short)

// ---------------------------------------------------------------- ISO tables

typedef struct iso_thread {
  double d, pitch;  // nominal diameter, pitch (mm)
  double s, k, m;   // across flats, head height (ISO 4017), nut height (ISO 4032) (mm)
  double es;        // 6g fundamental deviation (um, on diameters)
  double td2, tD2;  // pitch diameter tolerances 6g and 6H (um)
} iso_thread;

static const iso_thread iso_sizes[] = {
    {4, 0.7, 7, 2.8, 3.2, 22, 90, 118},      {8, 1.25, 13, 5.3, 6.8, 28, 118, 160},
    {12, 1.75, 18, 7.5, 10.8, 34, 150, 200}, {16, 2.0, 24, 10, 14.8, 38, 160, 212},
    {20, 2.5, 30, 12.5, 18.0, 42, 170, 224},
};
#define SIZE_CHOICES "M4|M8|M12|M16|M20"
#define NSIZE 5

enum { FIT_6G = 0, FIT_6G_MID, FIT_NONE, FIT_N };

// the allowance delta (m) of a fit for a size; clearance_um for FIT_NONE
static double thread_delta(const iso_thread* iso, int fit, double clearance_um) {
  switch (fit) {
    case FIT_6G:
      return 0.5 * iso->es * 1e-6;
    case FIT_6G_MID:
      return 0.5 * (iso->es + 0.5 * iso->td2 + 0.5 * iso->tD2) * 1e-6;
    default:
      return clearance_um * 1e-6;
  }
}

// the basic profile moved inwards by delta, with each flank split into `split` pieces
static void basic_profile(tf_profile_thread* t, const iso_thread* iso, double delta, int split) {
  double p = iso->pitch * 1e-3, h = 0.5 * sqrt(3.0) * p;
  double rmaj = 0.5 * iso->d * 1e-3 - delta, rmin = rmaj - 0.625 * h;
  t->pitch = p;
  t->nkink = 0;
  const double corner[4][2] = {
      {rmaj, p / 16}, {rmin, 3 * p / 8}, {rmin, 5 * p / 8}, {rmaj, 15 * p / 16}};
  for (int c = 0; c < 4; c++) {
    t->kink[t->nkink][0] = corner[c][0], t->kink[t->nkink][1] = corner[c][1];
    t->nkink++;
    if (c == 0 || c == 2) {  // the flank that follows
      for (int j = 1; j < split; j++) {
        double f = (double)j / split;
        t->kink[t->nkink][0] = corner[c][0] + f * (corner[c + 1][0] - corner[c][0]);
        t->kink[t->nkink][1] = corner[c][1] + f * (corner[c + 1][1] - corner[c][1]);
        t->nkink++;
      }
    }
  }
}

// ---------------------------------------------------------------- mesh

// station spacing and flank split for a chord budget: the polygon chord at the largest
// radius and the twist of a flank piece between two stations take half each
static void mesh_resolution(double* dmax, int* split, const tf_profile_thread* t, double rout,
                            double chord) {
  double x = 1 - 0.5 * chord / rout;
  *dmax = x <= -1 ? 1.0 : fmin(1.0, 2 * acos(x));
  double rmin = INFINITY, rmax = -INFINITY;
  for (int k = 0; k < t->nkink; k++) {
    rmin = fmin(rmin, t->kink[k][0]), rmax = fmax(rmax, t->kink[k][0]);
  }
  // a flank piece of radial extent dr at radius >= rmin twists by dr cos30 lead / rmin per rad
  double lead = t->pitch / TWO_PI, twist = (rmax - rmin) * 0.8660254 * lead / rmin;
  int k = (int)ceil(twist * *dmax / 4 / (0.5 * chord));
  *split = k < 1 ? 1 : (k > 6 ? 6 : k);
  if (twist * *dmax / 4 / *split > 0.5 * chord) *dmax = 2 * chord * *split / twist;
}

// the chord error of a thread mesh with the given largest station gap
static double mesh_chord(const tf_profile_thread* t, double rout, double gap, int split) {
  double rmin = INFINITY, rmax = -INFINITY;
  for (int k = 0; k < t->nkink; k++) {
    rmin = fmin(rmin, t->kink[k][0]), rmax = fmax(rmax, t->kink[k][0]);
  }
  double lead = t->pitch / TWO_PI, twist = (rmax - rmin) * 0.8660254 * lead / rmin;
  return rout * (1 - cos(0.5 * gap)) + twist * gap / 4 / split;
}

typedef struct thread_mesh {
  tf_profile_mesh m;
  double* theta;
  int nt;
  int *first, *last;  // per station: the envelope's end vertices
  double chord;
} thread_mesh;

// releases the station arrays (the mesh itself is handed over or freed apart)
static void thread_mesh_free(thread_mesh* tm) {
  free(tm->theta), free(tm->first), free(tm->last);
  tm->theta = NULL, tm->first = tm->last = NULL;
}

// sweeps the thread (a copy of t with split flanks) over stations for the chord budget
static int thread_mesh_sweep(thread_mesh* tm, const tf_profile_thread* t, const iso_thread* iso,
                             double delta, double rout, double chord, int flip) {
  double dmax;
  int split;
  mesh_resolution(&dmax, &split, t, rout, chord);
  tf_profile_thread fine = *t;
  basic_profile(&fine, iso, delta, split);
  double events[4096];
  int ne = tf_profile_thread_events(events, 4096, &fine);
  if (ne < 0) return -1;
  int cap = (int)ceil(TWO_PI / (0.95 * dmax)) + ne + 8;
  tm->theta = malloc(sizeof(double) * (size_t)cap);
  tm->first = malloc(sizeof(int) * (size_t)cap);
  tm->last = malloc(sizeof(int) * (size_t)cap);
  if (!tm->theta || !tm->first || !tm->last) return -1;
  tm->nt = tf_profile_stations(tm->theta, cap, dmax, events, ne);
  if (tm->nt < 3) return -1;
  tf_profile_mesh_thread(&tm->m, tm->first, tm->last, &fine, tm->theta, tm->nt, flip);
  double gap = tm->theta[0] + TWO_PI - tm->theta[tm->nt - 1];
  for (int i = 1; i < tm->nt; i++) gap = fmax(gap, tm->theta[i] - tm->theta[i - 1]);
  tm->chord = mesh_chord(&fine, rout, gap, split);
  return tm->m.failed ? -1 : 0;
}

// releases everything and reports running out of memory
static int fail_oom(thread_mesh* tm, void* params, const char* part, char* err, size_t errlen) {
  thread_mesh_free(tm);
  tf_profile_mesh_free(&tm->m);
  free(params);
  snprintf(err, errlen, "part '%s': out of memory building the mesh", part);
  return -1;
}

// hands the mesh and its chord error to the geometry
static void take_mesh(tf_part_geometry* out, thread_mesh* tm) {
  out->vert = tm->m.vert, out->nvert = tm->m.nvert;
  out->face = tm->m.face, out->nface = tm->m.nface;
  out->chord_error = tm->chord;
  thread_mesh_free(tm);
}

// ---------------------------------------------------------------- bolt

#define SDF_HELP                                                                           \
  "distance away from the thread's ends: the screw-invariant feature table (fast) or the " \
  "section search everywhere (the reference); both exact"

enum { BOLT_SIZE, BOLT_LENGTH, BOLT_FIT, BOLT_CLEARANCE, BOLT_CHORD, BOLT_SDF, BOLT_N };

static const tf_param_spec bolt_params[BOLT_N] = {
    {"size", 1, 0, NSIZE - 1, "", SIZE_CHOICES, "ISO metric coarse thread"},
    {"length_mm", 20, 3, 200, "mm", NULL, "threaded shank, from under the head to the tip"},
    {"fit", 0, 0, FIT_N - 1, "", "6H/6g|6H/6g-mid|none",
     "thread allowance delta: 6g deviation (maximum material), both at mid-tolerance, or "
     "clearance_um"},
    {"clearance_um", 20, 0, 200, "um", NULL,
     "delta with fit=none: radial allowance, the bolt's pitch radius under the nut's"},
    {"chord_um", 2, 0.01, 1000, "um", NULL, "mesh: largest distance from the true surface"},
    {"sdf", 0, 0, 1, "", "table|search", SDF_HELP},
};

// builds a bolt: section parameters, then the swept thread, head and tip meshes
static int build_bolt(const double* v, tf_part_geometry* out, char* err, size_t errlen) {
  const iso_thread* iso = &iso_sizes[(int)v[BOLT_SIZE]];
  double delta = thread_delta(iso, (int)v[BOLT_FIT], v[BOLT_CLEARANCE]);
  // mm * 1e-3: the tasks' own conversion, so tf_part_mm's value gives their length exactly
  double len = v[BOLT_LENGTH] * 1e-3, chord = v[BOLT_CHORD] * 1e-6;
  double apothem = 0.5 * iso->s * 1e-3, k = iso->k * 1e-3;
  thread_sdf* t = calloc(1, sizeof(*t));
  if (!t) {
    snprintf(err, errlen, "part 'bolt': out of memory");
    return -1;
  }
  basic_profile(&t->thread, iso, delta, 1);
  double rmaj = t->thread.kink[0][0], rmin = t->thread.kink[1][0];
  double rtip = rmin - t->thread.pitch / 8;
  if (len < rmaj - rtip + 2 * t->thread.pitch) {
    snprintf(err, errlen, "part 'bolt': length_mm must be at least %g for M%g (got %g)",
             1e3 * (rmaj - rtip + 2 * t->thread.pitch), iso->d, v[BOLT_LENGTH]);
    free(t);
    return -1;
  }
  t->thread.z0 = 0, t->thread.z1 = len;
  t->thread.nhi = 1;
  t->thread.hi[0][0] = rtip + len, t->thread.hi[0][1] = -1;  // the tip chamfer
  t->nut = 0;
  t->zlo = -k, t->zhi = 0;
  t->far = 0.5 * (0.5 * iso->d * 1e-3 + apothem);
  tf_thread_static_vertex(&t->pre[0], 0, -k);
  tf_thread_static_vertex(&t->pre[1], t->far, -k);
  tf_thread_static_vertex(&t->pre[2], t->far, 0);
  t->npre = 3;
  tf_thread_static_vertex(&t->post[0], 0, len);
  t->npost = 1;
  t->apothem = apothem, t->hex_z0 = -k, t->hex_z1 = 0;
  // K: the head's bottom out to the chamfer's line there, the chamfer up to the tip face's
  // edge, the tip face back to the axis, and the axis (the points' rho >= 0 never meet it
  // first: it only closes K)
  const double cut[4][2] = {{0, -k}, {rtip + len + k, -k}, {rtip, len}, {0, len}};
  memcpy(t->cut, cut, sizeof(cut));
  t->ncut = 4;
  tf_thread_feature_speeds(t);
  t->nbox[0] = tf_thread_end_boxes(t->box[0], t->pre, t->npre, t->far, 0, 0);
  t->nbox[1] = tf_thread_end_boxes(t->box[1], t->post, t->npost, t->far, len, 1);
  size_t size;
  // out to the corners of the part's box: what the field is asked about above the head (a
  // seated nut's hex vertices, SDF x SDF starts) lies within them (beside and under the head
  // the hex mostly answers alone: tf_thread_sdf_bolt)
  t = tf_thread_add_table(t, v[BOLT_SDF] == 0, sqrt(2) * apothem / cos(TWO_PI / 12), &size);
  if (!t) {
    snprintf(err, errlen, "part 'bolt': out of memory");
    return -1;
  }
  double corner = apothem / cos(TWO_PI / 12);
  out->aabb[0] = out->aabb[1] = -corner, out->aabb[2] = -k;
  out->aabb[3] = out->aabb[4] = corner, out->aabb[5] = len;
  out->error_bound = ERROR_BOUND;
  out->feature_size = t->thread.pitch;  // every turn of the thread needs rows
  out->unit_gradient = 1;               // offsets over their length, or unit section normals
  out->fn = tf_thread_sdf_bolt, out->params = t, out->params_size = size;

  thread_mesh tm;
  memset(&tm, 0, sizeof(tm));
  if (thread_mesh_sweep(&tm, &t->thread, iso, delta, rmaj, chord, 0)) {
    out->params = NULL;
    return fail_oom(&tm, t, "bolt", err, errlen);
  }
  tf_profile_mesh* m = &tm.m;
  int nt = tm.nt;
  int* top = malloc(sizeof(int) * (size_t)(nt + 6));
  int* bottom = malloc(sizeof(int) * (size_t)(nt + 6));
  double* ang = malloc(sizeof(double) * (size_t)(nt + 6));
  if (!top || !bottom || !ang) {
    free(top), free(bottom), free(ang);
    out->params = NULL;
    return fail_oom(&tm, t, "bolt", err, errlen);
  }
  int no = tf_profile_mesh_polygon_ring(m, top, ang, tm.theta, nt, 6, apothem, 0, 0);
  tf_profile_mesh_polygon_ring(m, bottom, ang, tm.theta, nt, 6, apothem, 0, -k);
  tf_profile_mesh_zip(m, tm.first, tm.theta, nt, top, ang, no, 1);
  tf_profile_mesh_strip(m, top, bottom, no, 0);
  tf_profile_mesh_fan(m, tf_profile_mesh_vertex(m, 0, 0, -k), bottom, no, 1);
  tf_profile_mesh_fan(m, tf_profile_mesh_vertex(m, 0, 0, len), tm.last, nt, 0);
  free(top), free(bottom), free(ang);
  if (m->failed) {
    out->params = NULL;
    return fail_oom(&tm, t, "bolt", err, errlen);
  }
  take_mesh(out, &tm);
  return 0;
}

const tf_part_info tf_part_bolt = {
    "bolt",
    "ISO metric hex bolt: head below z = 0, thread (ISO 68-1, minus the fit's allowance) "
    "up to z = length_mm",
    bolt_params,
    BOLT_N,
    build_bolt,
};

// ---------------------------------------------------------------- nut

enum { NUT_SIZE, NUT_CHORD, NUT_SDF, NUT_N };

static const tf_param_spec nut_params[NUT_N] = {
    {"size", 1, 0, NSIZE - 1, "", SIZE_CHOICES, "ISO metric coarse thread"},
    {"chord_um", 2, 0.01, 1000, "um", NULL, "mesh: largest distance from the true surface"},
    {"sdf", 0, 0, 1, "", "table|search", SDF_HELP},
};

// builds a nut: section parameters, then the swept thread, faces and hex meshes
static int build_nut(const double* v, tf_part_geometry* out, char* err, size_t errlen) {
  const iso_thread* iso = &iso_sizes[(int)v[NUT_SIZE]];
  double chord = v[NUT_CHORD] * 1e-6;
  double apothem = 0.5 * iso->s * 1e-3, height = iso->m * 1e-3;
  double rcs = 0.525 * iso->d * 1e-3;  // countersink: 1.05 D
  thread_sdf* t = calloc(1, sizeof(*t));
  if (!t) {
    snprintf(err, errlen, "part 'nut': out of memory");
    return -1;
  }
  basic_profile(&t->thread, iso, 0, 1);
  t->thread.z0 = 0, t->thread.z1 = height;
  t->thread.nlo = 2;
  t->thread.lo[0][0] = rcs, t->thread.lo[0][1] = -1;          // bottom countersink
  t->thread.lo[1][0] = rcs - height, t->thread.lo[1][1] = 1;  // top countersink
  t->nut = 1;
  t->zlo = 0, t->zhi = height;
  double corner = apothem / cos(TWO_PI / 12);
  t->far = 2 * corner + height;
  tf_thread_static_vertex(&t->pre[0], t->far, 0);
  t->npre = 1;
  tf_thread_static_vertex(&t->post[0], t->far, height);
  tf_thread_static_vertex(&t->post[1], t->far, 0);
  t->npost = 2;
  t->apothem = apothem, t->hex_z0 = 0, t->hex_z1 = height;
  // K: the faces' edges out to the wall, the wall, and the two countersinks' lines down to
  // where they cross (r = rcs - height / 2 at mid-height, off the axis for every size)
  double apex = rcs - 0.5 * height;
  if (apex > 0) {
    const double cut[5][2] = {
        {rcs, 0}, {t->far, 0}, {t->far, height}, {rcs, height}, {apex, 0.5 * height}};
    memcpy(t->cut, cut, sizeof(cut));
    t->ncut = 5;
  }
  tf_thread_feature_speeds(t);
  t->nbox[0] = tf_thread_end_boxes(t->box[0], t->pre, t->npre, t->far, 0, 0);
  t->nbox[1] = tf_thread_end_boxes(t->box[1], t->post, t->npost, t->far, height, 1);
  size_t size;
  // out to the hex's corners: beyond them the hex is the answer (tf_thread_sdf_nut)
  t = tf_thread_add_table(t, v[NUT_SDF] == 0, corner, &size);
  if (!t) {
    snprintf(err, errlen, "part 'nut': out of memory");
    return -1;
  }
  out->aabb[0] = out->aabb[1] = -corner, out->aabb[2] = 0;
  out->aabb[3] = out->aabb[4] = corner, out->aabb[5] = height;
  out->error_bound = ERROR_BOUND;
  out->feature_size = t->thread.pitch;  // every turn of the thread needs rows
  out->unit_gradient = 1;               // offsets over their length, or unit section normals
  out->fn = tf_thread_sdf_nut, out->params = t, out->params_size = size;

  thread_mesh tm;
  memset(&tm, 0, sizeof(tm));
  if (thread_mesh_sweep(&tm, &t->thread, iso, 0, rcs, chord, 1)) {
    out->params = NULL;
    return fail_oom(&tm, t, "nut", err, errlen);
  }
  tf_profile_mesh* m = &tm.m;
  int nt = tm.nt;
  int* top = malloc(sizeof(int) * (size_t)(nt + 6));
  int* bottom = malloc(sizeof(int) * (size_t)(nt + 6));
  double* ang = malloc(sizeof(double) * (size_t)(nt + 6));
  if (!top || !bottom || !ang) {
    free(top), free(bottom), free(ang);
    out->params = NULL;
    return fail_oom(&tm, t, "nut", err, errlen);
  }
  int no = tf_profile_mesh_polygon_ring(m, top, ang, tm.theta, nt, 6, apothem, 0, height);
  tf_profile_mesh_polygon_ring(m, bottom, ang, tm.theta, nt, 6, apothem, 0, 0);
  tf_profile_mesh_zip(m, tm.last, tm.theta, nt, top, ang, no, 1);
  tf_profile_mesh_zip(m, tm.first, tm.theta, nt, bottom, ang, no, 0);
  tf_profile_mesh_strip(m, top, bottom, no, 0);
  free(top), free(bottom), free(ang);
  if (m->failed) {
    out->params = NULL;
    return fail_oom(&tm, t, "nut", err, errlen);
  }
  take_mesh(out, &tm);
  return 0;
}

const tf_part_info tf_part_nut = {
    "nut",
    "ISO 4032 hex nut, basic ISO 68-1 internal thread (6H at maximum material), bottom face "
    "z = 0 on the axis",
    nut_params,
    NUT_N,
    build_nut,
};
