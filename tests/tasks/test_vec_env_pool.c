// The batch's worker threads (tasks/vec_env_pool.c): every item of every call runs once, item i
// on thread i mod T (tf_pool_run) or on any (tf_pool_run_dynamic), over many calls in a row
// (workers asleep in between), with fewer items than threads, none, and a pool of one thread
// (the caller alone).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>

#include "vec_env_pool.h"

#define MAX_ITEMS 64

typedef struct job {
  int runs[MAX_ITEMS];          // times each item ran
  pthread_t thread[MAX_ITEMS];  // the thread that ran it
} job;

static void count(void* ctx, int i) {
  job* j = ctx;
  j->runs[i]++;
  j->thread[i] = pthread_self();
}

static void test_items_once_on_their_thread(void** state) {
  (void)state;
  for (int threads = 1; threads <= 3; threads++) {
    char err[128];
    tf_pool* p = tf_pool_create(threads, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(tf_pool_threads(p), threads);
    job* j = test_malloc(sizeof(job));
    for (int call = 0; call < 200; call++) {
      int n = call % 7 == 0 ? call % 3 : MAX_ITEMS - call % 13;  // 0, 1, 2 and many items
      memset(j, 0, sizeof(*j));
      tf_pool_run_dynamic(p, n, count, j);
      for (int i = 0; i < MAX_ITEMS; i++) assert_int_equal(j->runs[i], i < n ? 1 : 0);
      memset(j, 0, sizeof(*j));
      tf_pool_run(p, n, count, j);
      for (int i = 0; i < MAX_ITEMS; i++) assert_int_equal(j->runs[i], i < n ? 1 : 0);
      // item i on thread i mod T: the caller runs items 0, T, 2T ...
      for (int i = 0; i < n; i++) {
        assert_true(pthread_equal(j->thread[i], j->thread[i % threads]));
        if (i % threads == 0) assert_true(pthread_equal(j->thread[i], pthread_self()));
        if (i < threads && i > 0) assert_false(pthread_equal(j->thread[i], pthread_self()));
      }
    }
    test_free(j);
    tf_pool_destroy(p);
  }
  tf_pool_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_items_once_on_their_thread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
