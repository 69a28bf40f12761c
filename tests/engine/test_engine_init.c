// The engine keeps OpenBLAS to one thread whether or not its caller called tf_engine_init():
// a library caller that never did, or that let another library raise OpenBLAS's thread count
// since, gets one-thread BLAS (and so the same bits) from the next builder or data it makes.
// This binary never calls tf_engine_init() itself.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cblas.h>

#include "state_hash.h"
#include "tightfit.h"

// a box dropped on a box floor, stepped 200 times at 2 ms: its state hash
static uint64_t drop_hash(void) {
  tf_builder* b = tf_builder_create();
  assert_non_null(b);
  tf_geom_def floor = tf_geom_def_default();
  floor.name = "floor";
  floor.type = TF_GEOM_BOX;
  floor.size[0] = floor.size[1] = 0.2, floor.size[2] = 0.01;
  floor.pos[2] = -0.01;
  tf_builder_add_geom(b, &floor);
  tf_body_def body = tf_body_def_default();
  body.name = "box";
  body.pos[2] = 0.03;
  body.mass = 0.1;
  body.inertia[0] = body.inertia[1] = body.inertia[2] = 1e-5;
  int id = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "box_free";
  joint.body = id;
  joint.type = TF_JOINT_FREE;
  tf_builder_add_joint(b, &joint);
  tf_geom_def g = tf_geom_def_default();
  g.name = "box";
  g.body = id;
  g.type = TF_GEOM_BOX;
  g.size[0] = g.size[1] = g.size[2] = 0.01;
  tf_builder_add_geom(b, &g);
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) print_error("compile: %s\n", err);
  assert_non_null(m);
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  for (int i = 0; i < 200; i++) assert_int_equal(tf_step(m, d), 0);
  uint64_t h = tf_state_hash(m, d);
  tf_data_destroy(d);
  tf_model_destroy(m);
  return h;
}

// OpenBLAS set to four threads, as a caller's other library might: building a model puts it
// back to one, and the run is the same bits as one made after that
static void test_one_thread_without_init(void** state) {
  (void)state;
  openblas_set_num_threads(4);
  tf_builder* b = tf_builder_create();
  assert_non_null(b);
  assert_int_equal(openblas_get_num_threads(), 1);
  tf_builder_destroy(b);
  uint64_t first = drop_hash();
  openblas_set_num_threads(4);
  uint64_t again = drop_hash();
  assert_int_equal(openblas_get_num_threads(), 1);
  assert_true(first == again);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_thread_without_init),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
