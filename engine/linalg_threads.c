// OpenBLAS runs single-threaded inside the engine: the matrices here are small (nv up to
// ~40), and parallelism comes from stepping environments side by side, which OpenBLAS's own
// thread pool would only oversubscribe, and whose split of a sum changes its last bits with
// the thread count. LAPACKE's NaN check is a process-wide flag that its first call
// initialises lazily, a data race when several threads build models at once; setting it
// once, before any model exists, removes the race (the engine checks its inputs for NaN
// itself).
//
// Results must not depend on the caller remembering tf_engine_init(): every builder and
// every data calls it, and it puts OpenBLAS back to one thread whenever a library the caller
// loaded (numpy, say) set more since.
#include <pthread.h>

#include <cblas.h>
#include <lapacke.h>

#include "tightfit.h"

static void init_once(void) { LAPACKE_set_nancheck(0); }

void tf_engine_init(void) {
  // pthread_once's control is the only process-wide state here, and it is written once
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_once);
  if (openblas_get_num_threads() != 1) openblas_set_num_threads(1);
}
