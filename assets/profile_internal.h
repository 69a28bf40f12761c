// What the profile's queries (sdf_profile.c), thread sections (profile_thread.c) and meshes
// (profile_mesh.c) share (assets-private): ids, the envelope's lines and the kinks'
// positions. Small and on the distance's path, so inline.
#ifndef TF_PROFILE_INTERNAL_H
#define TF_PROFILE_INTERNAL_H

#include <math.h>

#include "sdf_profile.h"

#define TWO_PI 6.283185307179586
#define PHI_MAX 3.141592653589793  // rad: how far around a feature may be followed
#define KEY_OFF 65536              // keeps kink keys positive
#define END0 28                    // static-line ids of the two ends of a thread
#define END1 29

static inline double clampd(double x, double lo, double hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

static inline double maxd(double a, double b) { return a > b ? a : b; }

static inline double mind(double a, double b) { return a < b ? a : b; }

// a line of the envelope: r = a + b z; thread lines move up by lead per radian
typedef struct env_line {
  double a, b;
  int moving;  // 1 for the thread's segment g, 0 for static line sid
  long g;
  int sid;
} env_line;

static inline double lead_of(const tf_profile_thread* t) { return t->pitch / TWO_PI; }

static inline long floor_div(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// z of global kink g (kink g mod nkink of period floor(g / nkink)) at shift s
static inline double kink_z(const tf_profile_thread* t, double s, long g) {
  long per = floor_div(g, t->nkink);
  int k = (int)(g - per * t->nkink);
  return t->kink[k][1] + (double)per * t->pitch + s;
}

// radius of global kink g
static inline double kink_r(const tf_profile_thread* t, long g) {
  long per = floor_div(g, t->nkink);
  return t->kink[g - per * t->nkink][0];
}

// the static lines: lo first, then hi
static inline int static_lines(env_line* out, const tf_profile_thread* t) {
  int n = t->nlo + t->nhi;
  for (int j = 0; j < n; j++) {
    const double* l = j < t->nlo ? t->lo[j] : t->hi[j - t->nlo];
    out[j].a = l[0], out[j].b = l[1], out[j].moving = 0, out[j].g = 0, out[j].sid = j;
  }
  return n;
}

// h at z given the thread's line there; *which = index into lines (0 = thread)
static inline double envelope(const tf_profile_thread* t, const env_line* lines, double z,
                              int* which) {
  double v = lines[0].a + lines[0].b * z;
  int k = 0;
  for (int j = 1; j <= t->nlo + t->nhi; j++) {
    double x = lines[j].a + lines[j].b * z;
    if (j <= t->nlo ? x > v : x < v) v = x, k = j;
  }
  if (which) *which = k;
  return v;
}

// insertion sort: the lists are short or nearly sorted
static inline void sort_doubles(double* x, int n) {
  for (int i = 1; i < n; i++) {
    double v = x[i];
    int j = i - 1;
    for (; j >= 0 && x[j] > v; j--) x[j + 1] = x[j];
    x[j + 1] = v;
  }
}

#endif  // TF_PROFILE_INTERNAL_H
