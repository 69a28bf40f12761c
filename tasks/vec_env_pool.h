// The worker threads a batch of environments is stepped on (vec_env.c), private to the tasks
// layer: started once with the batch, woken for each call, and stopped with it, so a step
// creates no thread and allocates nothing. A call runs items 0 .. n - 1 on the T threads (the
// calling thread is thread 0) and returns once every item is done. An item's work must depend
// on nothing but the item (each environment has its own model, data and state; the engine
// keeps no shared mutable state), which keeps results the same bits at any thread count and
// any split of the items over threads.
#ifndef TF_VEC_ENV_POOL_H
#define TF_VEC_ENV_POOL_H

#include <stddef.h>

typedef struct tf_pool tf_pool;
typedef void (*tf_pool_fn)(void* ctx, int item);

// a pool of `threads` threads in all: threads - 1 workers and the caller (threads >= 1); NULL
// with a one-line message when memory or threads cannot be had
tf_pool* tf_pool_create(int threads, char* err, size_t errlen);
// runs fn(ctx, i) for every i in [0, n) on the pool, item i on thread i mod T (so an item's
// allocations always come from one thread's malloc arena); returns when all have returned
void tf_pool_run(tf_pool* p, int n, tf_pool_fn fn, void* ctx);
// the same with the items handed out in increasing order to whichever thread asks next (work
// that allocates nothing and whose items differ in cost: the threads finish together)
void tf_pool_run_dynamic(tf_pool* p, int n, tf_pool_fn fn, void* ctx);
int tf_pool_threads(const tf_pool* p);
// stops and joins the workers (NULL: nothing)
void tf_pool_destroy(tf_pool* p);

#endif  // TF_VEC_ENV_POOL_H
