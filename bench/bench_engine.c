// Engine step benchmark: the chain7 scene (7 hinges plus a free body, no contacts), euler
// and rk4. Prints one JSON object: microseconds per step (min and median over batches, each
// batch timed by one clock so the per-stage timers' own cost is included), the mean
// per-stage split, and the time of one Cholesky factor and solve of M.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "linalg_dense.h"
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

// microseconds per Cholesky factor + solve of M (the engine's tf_factor_solve without its
// timer), best of five rounds
static double time_factor(const tf_model* m, tf_data* d) {
  int n = m->nv, reps = 20000;
  double* a = malloc(sizeof(double) * (size_t)(n * n));
  double* x = malloc(sizeof(double) * (size_t)n);
  double best = INFINITY;
  for (int round = 0; round < 5; round++) {
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) {
      memcpy(a, d->qM, sizeof(double) * (size_t)(n * n));
      memcpy(x, d->qfrc_bias, sizeof(double) * (size_t)n);
      if (tf_cholesky(n, a) == 0) tf_cholesky_solve(n, 1, a, x);
    }
    best = fmin(best, 1e6 * (bench_now() - t0) / reps);
  }
  free(a);
  free(x);
  return best;
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
  const tf_scene* scene = tf_scene_find("chain7");
  step_timing timing[TF_INTEGRATOR_N];
  int nv = 0;
  double factor_us = 0;
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
    if (integrator == TF_INTEGRATOR_EULER) factor_us = time_factor(m, d);
    tf_data_destroy(d);
    tf_model_destroy(m);
  }
  printf("{\n  \"bench\": \"engine_step\",\n  \"model\": \"chain7 (7 hinges + free body)\",\n");
  printf("  \"nv\": %d,\n  \"batches\": %d,\n  \"steps_per_batch\": %d,\n", nv, BATCHES,
         BATCH_STEPS);
  print_timing("euler", &timing[TF_INTEGRATOR_EULER], 0);
  print_timing("rk4", &timing[TF_INTEGRATOR_RK4], 0);
  printf("  \"factor_solve_us\": %.4f\n}\n", factor_us);
  return 0;
}
