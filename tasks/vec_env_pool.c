// The batch's worker threads (see vec_env_pool.h). A call is a generation: the caller
// publishes the job (function, context, item count, how items are handed out) under the lock,
// bumps the generation and wakes the workers; every thread then runs its items, and the caller
// waits until every worker has reported the generation done. Workers sleep on a condition
// variable between calls, so an idle batch costs no processor time.
//
// Two ways to hand out items. By a fixed rule (thread k, the caller 0, runs items k, k + T,
// k + 2T ...) for work that allocates: an environment is then always built and rebuilt on the
// same thread, so its memory comes from and goes back to that thread's malloc arena and a
// batch that rebuilds its environments (auto-reset) keeps its footprint (handed out first come
// first served, each rebuild could land in another arena than the memory it freed, and the
// arenas grew by a good part of the batch). First come first served (an atomic counter) for
// steps, which allocate nothing and differ in cost: the threads finish together.
#include "vec_env_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKER_STACK ((size_t)16 << 20)  // the tasks keep arrays on the stack (as the runner)

// one worker: the pool and its place among the threads (1 .. nworker)
typedef struct pool_worker {
  struct tf_pool* pool;
  int id;
} pool_worker;

struct tf_pool {
  int nworker;
  pthread_t* thread;    // (nworker)
  pool_worker* worker;  // (nworker)
  pthread_mutex_t lock;
  pthread_cond_t wake;  // a new generation or stop
  pthread_cond_t done;  // a worker finished its part of the generation
  long generation;      // under lock
  int busy;             // workers still in the current generation (under lock)
  int stop;             // under lock
  // the current job: written under lock before the generation is bumped
  tf_pool_fn fn;
  void* ctx;
  int n;
  int dynamic;      // items to whichever thread asks next (else item i on thread i mod T)
  atomic_int next;  // dynamic: the next item to hand out
};

// thread id's items of the current job
static void drain(tf_pool* p, int id) {
  if (!p->dynamic) {
    for (int i = id; i < p->n; i += p->nworker + 1) p->fn(p->ctx, i);
    return;
  }
  for (int i = atomic_fetch_add(&p->next, 1); i < p->n; i = atomic_fetch_add(&p->next, 1)) {
    p->fn(p->ctx, i);
  }
}

static void* worker_main(void* arg) {
  const pool_worker* w = arg;
  tf_pool* p = w->pool;
  long seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->stop && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
    if (p->stop) break;
    seen = p->generation;
    pthread_mutex_unlock(&p->lock);
    drain(p, w->id);
    pthread_mutex_lock(&p->lock);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

tf_pool* tf_pool_create(int threads, char* err, size_t errlen) {
  tf_pool* p = calloc(1, sizeof(*p));
  int nworker = threads > 1 ? threads - 1 : 0;
  if (p && nworker) {
    p->thread = calloc((size_t)nworker, sizeof(pthread_t));
    p->worker = calloc((size_t)nworker, sizeof(pool_worker));
  }
  if (!p || (nworker && (!p->thread || !p->worker))) {
    if (p) {
      free(p->thread);
      free(p->worker);
    }
    free(p);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->next, 0);
  pthread_attr_t attr;
  if (nworker && pthread_attr_init(&attr) != 0) {
    snprintf(err, errlen, "threads: cannot start worker threads");
    tf_pool_destroy(p);
    return NULL;
  }
  if (nworker) pthread_attr_setstacksize(&attr, WORKER_STACK);
  for (; p->nworker < nworker; p->nworker++) {
    p->worker[p->nworker] = (pool_worker){p, p->nworker + 1};
    if (pthread_create(&p->thread[p->nworker], &attr, worker_main, &p->worker[p->nworker]) != 0) {
      break;
    }
  }
  if (nworker) pthread_attr_destroy(&attr);
  if (p->nworker < nworker) {
    // a batch asked for its threads: fewer would run, but slower than the caller was told
    snprintf(err, errlen, "threads: could start only %d of %d worker threads", p->nworker, nworker);
    tf_pool_destroy(p);
    return NULL;
  }
  return p;
}

// runs a job on the pool (see tf_pool_run and tf_pool_run_dynamic)
static void run(tf_pool* p, int n, tf_pool_fn fn, void* ctx, int dynamic) {
  if (n <= 0) return;
  pthread_mutex_lock(&p->lock);
  p->fn = fn;
  p->ctx = ctx;
  p->n = n;
  p->dynamic = dynamic;
  atomic_store(&p->next, 0);
  p->busy = p->nworker;
  p->generation++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  drain(p, 0);
  pthread_mutex_lock(&p->lock);
  while (p->busy > 0) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

void tf_pool_run(tf_pool* p, int n, tf_pool_fn fn, void* ctx) { run(p, n, fn, ctx, 0); }

void tf_pool_run_dynamic(tf_pool* p, int n, tf_pool_fn fn, void* ctx) { run(p, n, fn, ctx, 1); }

int tf_pool_threads(const tf_pool* p) { return p->nworker + 1; }

void tf_pool_destroy(tf_pool* p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stop = 1;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int t = 0; t < p->nworker; t++) pthread_join(p->thread[t], NULL);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  free(p->thread);
  free(p->worker);
  free(p);
}
