// The end of every hand-built test model: compile the builder, print the compiler's message
// if it refused, free the builder, and fail the test on a refusal. Include after cmocka.h.
#ifndef TF_TEST_COMPILE_MODEL_H
#define TF_TEST_COMPILE_MODEL_H

#include "tightfit.h"

// the compiled model of b (b is destroyed either way); fails the test if it does not compile
static inline tf_model* compile_model(tf_builder* b) {
  char err[256];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  if (!m) print_message("compile: %s\n", err);
  tf_builder_destroy(b);
  assert_non_null(m);
  return m;
}

#endif  // TF_TEST_COMPILE_MODEL_H
