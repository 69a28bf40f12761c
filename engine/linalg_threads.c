// OpenBLAS runs single-threaded inside the engine: the matrices here are small (nv up to
// ~40), and parallelism comes from stepping environments side by side, which OpenBLAS's own
// thread pool would only oversubscribe. LAPACKE's NaN check is a process-wide flag that its
// first call initialises lazily, a data race when several threads build models at once;
// setting it here, before any thread starts, removes the race (the engine checks its
// inputs for NaN itself).
#include <cblas.h>
#include <lapacke.h>

#include "tightfit.h"

void tf_engine_init(void) {
  openblas_set_num_threads(1);
  LAPACKE_set_nancheck(0);
}
