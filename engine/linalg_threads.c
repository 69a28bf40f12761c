// OpenBLAS runs single-threaded inside the engine: the matrices here are small (nv up to
// ~40), and parallelism comes from stepping environments side by side, which OpenBLAS's own
// thread pool would only oversubscribe.
#include <cblas.h>

#include "tightfit.h"

void tf_engine_init(void) { openblas_set_num_threads(1); }
