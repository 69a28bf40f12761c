// Test helpers shared by the mesh-distance and grid-SDF tests: a deterministic generator,
// analytic SDFs of the reference solids, and the near-surface comparison of a baked grid with
// an analytic SDF, read through the engine's own grid evaluation (engine/sdf.c) so the test
// also checks that the baked layout is the one the engine expects. Any mesh / analytic pair
// can be checked (the nut part's test passes its mesh and tf_sdf_fn the same way).
#ifndef TF_TEST_GRID_CHECK_H
#define TF_TEST_GRID_CHECK_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sdf.h"
#include "sdf_bake.h"

// splitmix64: a tiny deterministic generator, so every run sees the same numbers
typedef struct test_rng {
  uint64_t state;
} test_rng;

// next 64 random bits
static inline uint64_t rng_bits(test_rng* rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// uniform in [lo, hi)
static inline double rng_uniform(test_rng* rng, double lo, double hi) {
  return lo + (hi - lo) * (double)(rng_bits(rng) >> 11) * 0x1.0p-53;
}

// sphere about the origin; params: the radius
static inline double sdf_sphere(const void* params, const double p[3], double grad[3]) {
  double r = ((const double*)params)[0];
  double n = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  for (int k = 0; k < 3; k++) grad[k] = n > 0 ? p[k] / n : (k == 2);
  return n - r;
}

// torus about z; params: major, minor radius
static inline double sdf_torus(const void* params, const double p[3], double grad[3]) {
  const double* r = params;
  double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
  double q[2] = {rho - r[0], p[2]};
  double n = sqrt(q[0] * q[0] + q[1] * q[1]);
  double radial[2] = {rho > 0 ? p[0] / rho : 1, rho > 0 ? p[1] / rho : 0};
  double g0 = n > 0 ? q[0] / n : 1, g1 = n > 0 ? q[1] / n : 0;
  grad[0] = g0 * radial[0], grad[1] = g0 * radial[1], grad[2] = g1;
  return n - r[1];
}

// the engine's view of a baked grid
static inline tf_sdf_view grid_view(const tf_sdf_grid* g) {
  tf_sdf_view v;
  memset(&v, 0, sizeof(v));
  v.grid = g->value;
  memcpy(v.res, g->res, sizeof(v.res));
  memcpy(v.origin, g->origin, sizeof(v.origin));
  v.cell = g->cell;
  memcpy(v.aabb, g->aabb, sizeof(v.aabb));
  v.error_bound = g->error_bound;
  return v;
}

typedef struct grid_check {
  int samples;            // points compared
  double max_error;       // largest |grid - analytic| (m)
  double mean_error;      // mean of the same
  double max_grad_angle;  // largest angle between the gradients (rad), where both are smooth
} grid_check;

// compares the grid with the analytic SDF at random points whose analytic distance is under
// band (m), up to nsamples of them, drawn in the grid's box
static inline grid_check grid_check_near_surface(const tf_sdf_grid* g, tf_sdf_fn fn,
                                                 const void* params, double band, int nsamples,
                                                 uint64_t seed) {
  grid_check out = {0, 0, 0, 0};
  tf_sdf_view view = grid_view(g);
  test_rng rng = {seed};
  double hi[3];
  for (int a = 0; a < 3; a++) hi[a] = g->origin[a] + g->cell * (g->res[a] - 1);
  for (long tries = 0; out.samples < nsamples && tries < 400L * nsamples; tries++) {
    double p[3], ga[3], gg[3];
    for (int a = 0; a < 3; a++) p[a] = rng_uniform(&rng, g->origin[a], hi[a]);
    double exact = fn(params, p, ga);
    if (fabs(exact) >= band) continue;
    double value = tf_sdf_eval(&view, p, gg);
    double e = fabs(value - exact);
    out.max_error = fmax(out.max_error, e);
    out.mean_error += e;
    double ng = sqrt(gg[0] * gg[0] + gg[1] * gg[1] + gg[2] * gg[2]);
    if (ng > 0) {
      double c = (gg[0] * ga[0] + gg[1] * ga[1] + gg[2] * ga[2]) / ng;
      out.max_grad_angle = fmax(out.max_grad_angle, acos(fmax(-1.0, fmin(1.0, c))));
    }
    out.samples++;
  }
  if (out.samples) out.mean_error /= out.samples;
  return out;
}

#endif  // TF_TEST_GRID_CHECK_H
