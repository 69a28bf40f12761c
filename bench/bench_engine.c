// Engine step benchmark: the chain7 scene (7 hinges plus a free body, no contacts), euler
// and rk4. Prints one JSON object: microseconds per step (min and median over batches, each
// batch timed by one clock so the per-stage timers' own cost is included), the mean
// per-stage split, and LAPACK's Cholesky against a plain in-process Cholesky as a baseline.
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "scenes.h"
#include "tightfit.h"

enum { BATCHES = 25, BATCH_STEPS = 2000 };

typedef struct step_timing {
  double min_us, median_us;
  double stage_us[TF_TIMER_N];
} step_timing;

// runs BATCHES batches from the scene's initial state; returns 0 or -1 on a failed step
static int time_steps(const tf_model* m, tf_data* d, const tf_scene* scene, step_timing* t) {
  double per_step[BATCHES];
  memset(t, 0, sizeof(*t));
  long counted = 0;
  for (int b = -2; b < BATCHES; b++) {  // two warm-up batches
    tf_data_reset(m, d);
    scene->init(m, d);
    double t0 = bench_now();
    for (int s = 0; s < BATCH_STEPS; s++) {
      if (tf_step(m, d)) return -1;
      if (b >= 0) {
        for (int k = 0; k < TF_TIMER_N; k++) t->stage_us[k] += d->timer[k];
      }
    }
    if (b >= 0) {
      per_step[b] = 1e6 * (bench_now() - t0) / BATCH_STEPS;
      counted += BATCH_STEPS;
    }
  }
  bench_sort_doubles(per_step, BATCHES);
  t->min_us = per_step[0];
  t->median_us = per_step[BATCHES / 2];
  for (int k = 0; k < TF_TIMER_N; k++) t->stage_us[k] *= 1e6 / (double)counted;
  return 0;
}

// textbook lower Cholesky + two triangular solves: the baseline for LAPACK's call overhead
static void plain_cholesky_solve(int n, double* a, double* x) {
  for (int j = 0; j < n; j++) {
    double s = a[j * n + j];
    for (int k = 0; k < j; k++) s -= a[j * n + k] * a[j * n + k];
    double ljj = sqrt(s);
    a[j * n + j] = ljj;
    for (int i = j + 1; i < n; i++) {
      double t = a[i * n + j];
      for (int k = 0; k < j; k++) t -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = t / ljj;
    }
  }
  for (int i = 0; i < n; i++) {
    double t = x[i];
    for (int k = 0; k < i; k++) t -= a[i * n + k] * x[k];
    x[i] = t / a[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double t = x[i];
    for (int k = i + 1; k < n; k++) t -= a[k * n + i] * x[k];
    x[i] = t / a[i * n + i];
  }
}

// microseconds per factor + solve of M, for LAPACK and for the plain baseline
static void time_factor(const tf_model* m, tf_data* d, double* lapack_us, double* plain_us) {
  int n = m->nv, reps = 20000;
  tf_forward(m, d);
  double* a = malloc(sizeof(double) * (size_t)(n * n));
  double* x = malloc(sizeof(double) * (size_t)n);
  double best_lapack = INFINITY, best_plain = INFINITY;
  for (int round = 0; round < 5; round++) {
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) {
      memcpy(a, d->qM, sizeof(double) * (size_t)(n * n));
      memcpy(x, d->qfrc_bias, sizeof(double) * (size_t)n);
      LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, n);
      LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, 1, a, n, x, n);
    }
    best_lapack = fmin(best_lapack, 1e6 * (bench_now() - t0) / reps);
    t0 = bench_now();
    for (int r = 0; r < reps; r++) {
      memcpy(a, d->qM, sizeof(double) * (size_t)(n * n));
      memcpy(x, d->qfrc_bias, sizeof(double) * (size_t)n);
      plain_cholesky_solve(n, a, x);
    }
    best_plain = fmin(best_plain, 1e6 * (bench_now() - t0) / reps);
  }
  free(a);
  free(x);
  *lapack_us = best_lapack;
  *plain_us = best_plain;
}

static void print_timing(const char* name, const step_timing* t, int last) {
  printf("  \"%s\": {\"us_per_step_min\": %.4f, \"us_per_step_median\": %.4f, \"stages_us\": {",
         name, t->min_us, t->median_us);
  for (int k = 0; k < TF_TIMER_N; k++) {
    printf("%s\"%s\": %.4f", k ? ", " : "", tf_timer_name(k), t->stage_us[k]);
  }
  printf("}}%s\n", last ? "" : ",");
}

int main(void) {
  tf_engine_init();
  const tf_scene* scene = tf_scene_find("chain7");
  step_timing timing[TF_INTEGRATOR_N];
  int nv = 0;
  double lapack_us = 0, plain_us = 0;
  for (int integrator = 0; integrator < TF_INTEGRATOR_N; integrator++) {
    char err[256];
    tf_model* m = scene->build(1e-3, integrator, err, sizeof(err));
    if (!m) {
      fprintf(stderr, "bench_engine: %s\n", err);
      return 1;
    }
    tf_data* d = tf_data_create(m);
    nv = m->nv;
    if (time_steps(m, d, scene, &timing[integrator])) {
      fprintf(stderr, "bench_engine: a step failed\n");
      return 1;
    }
    if (integrator == TF_INTEGRATOR_EULER) time_factor(m, d, &lapack_us, &plain_us);
    tf_data_destroy(d);
    tf_model_destroy(m);
  }
  printf("{\n  \"bench\": \"engine_step\",\n  \"model\": \"chain7 (7 hinges + free body)\",\n");
  printf("  \"nv\": %d,\n  \"batches\": %d,\n  \"steps_per_batch\": %d,\n", nv, BATCHES,
         BATCH_STEPS);
  print_timing("euler", &timing[TF_INTEGRATOR_EULER], 0);
  print_timing("rk4", &timing[TF_INTEGRATOR_RK4], 0);
  printf(
      "  \"factor_solve\": {\"lapack_us\": %.4f, \"plain_cholesky_us\": %.4f, "
      "\"lapack_over_plain\": %.3f}\n}\n",
      lapack_us, plain_us, lapack_us / plain_us);
  return 0;
}
