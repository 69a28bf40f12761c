// Robot-mode gates' seed loop (see task_robot_gate.h): two worker threads take seeds in
// turn from a shared counter and record each run's values; the summary is then taken in
// seed order.
#include "task_robot_gate.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKERS 2

// what one seed's run left: its success, status and the keys' values
typedef struct seed_result {
  int done;
  int success;
  int diverged;
  double max[TF_ROBOT_GATE_MAX_KEYS];
  double min[TF_ROBOT_GATE_MAX_KEYS];
  double mean;
  char error[200];
} seed_result;

typedef struct seed_pool {
  const tf_run_options* options;
  const tf_robot_gate_seeds* seeds;
  seed_result* results;
  int next;  // the next seed to run (under lock)
  pthread_mutex_t lock;
} seed_pool;

static void run_seed(const seed_pool* pool, int seed, tf_metrics* m, seed_result* out) {
  tf_run_options o = *pool->options;
  o.seed = (uint64_t)seed;
  o.envs = 1;
  const tf_robot_gate_seeds* s = pool->seeds;
  tf_env_run* run = tf_env_run_begin(&o, 0, out->error, sizeof(out->error));
  if (!run) return;
  while (tf_env_run_step(run)) {
    if (s->stop && s->stop(tf_env_run_env(run))) break;
  }
  tf_env_run_finish(run, m);
  tf_env_run_end(run);
  const char* status = tf_metrics_text(m, "status");
  out->diverged = !status || strcmp(status, "ok") != 0;
  out->success = tf_metrics_get(m, "success") == 1;
  for (int k = 0; k < s->nkey; k++) out->max[k] = tf_metrics_get(m, s->max_key[k]);
  for (int k = 0; k < s->nmin; k++) out->min[k] = tf_metrics_get(m, s->min_key[k]);
  out->mean = s->mean_key ? tf_metrics_get(m, s->mean_key) : NAN;
  out->done = 1;
}

static void* worker(void* arg) {
  seed_pool* pool = arg;
  tf_metrics* m = malloc(sizeof(tf_metrics));
  for (;;) {
    pthread_mutex_lock(&pool->lock);
    int seed = pool->next < pool->seeds->nseed ? pool->next++ : -1;
    pthread_mutex_unlock(&pool->lock);
    if (seed < 0) break;
    if (!m) {
      snprintf(pool->results[seed].error, sizeof(pool->results[seed].error), "out of memory");
      continue;
    }
    run_seed(pool, seed, m, &pool->results[seed]);
  }
  free(m);
  return NULL;
}

int tf_robot_gate_run_seeds(const tf_run_options* o, tf_robot_gate_seeds* s, char* err,
                            size_t errlen) {
  if (s->nseed < 1 || s->nseed > TF_ROBOT_GATE_MAX_SEEDS || s->nkey < 0 ||
      s->nkey > TF_ROBOT_GATE_MAX_KEYS) {
    snprintf(err, errlen, "robot gate: %d seeds and %d keys (1 to %d, 0 to %d)", s->nseed, s->nkey,
             TF_ROBOT_GATE_MAX_SEEDS, TF_ROBOT_GATE_MAX_KEYS);
    return -1;
  }
  seed_result results[TF_ROBOT_GATE_MAX_SEEDS];
  memset(results, 0, sizeof(results));
  seed_pool pool = {o, s, results, 0, PTHREAD_MUTEX_INITIALIZER};
  pthread_t threads[WORKERS];
  int started = 0;
  for (; started < WORKERS; started++) {
    if (pthread_create(&threads[started], NULL, worker, &pool) != 0) break;
  }
  if (started == 0) worker(&pool);  // no thread to be had: run them here
  for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
  pthread_mutex_destroy(&pool.lock);

  s->succeeded = s->diverged = s->nmean = 0;
  s->mean = 0;
  for (int k = 0; k < s->nkey; k++) s->max[k] = NAN;
  for (int k = 0; k < s->nmin; k++) s->min[k] = NAN;
  for (int seed = 0; seed < s->nseed; seed++) {
    const seed_result* r = &results[seed];
    if (!r->done) {
      snprintf(err, errlen, "seed %d: %s", seed, r->error[0] ? r->error : "did not run");
      return -1;
    }
    s->succeeded += r->success;
    s->diverged += r->diverged;
    // fmax skips a NaN (a key the run did not report stays NaN only if every seed lacks it)
    for (int k = 0; k < s->nkey; k++) s->max[k] = fmax(s->max[k], r->max[k]);
    for (int k = 0; k < s->nmin; k++) s->min[k] = fmin(s->min[k], r->min[k]);
    if (isfinite(r->mean)) s->mean += r->mean, s->nmean++;
  }
  if (s->nmean) s->mean /= s->nmean;
  return 0;
}
