// A batch's step allocates nothing (tasks/vec_env.h, "Memory"): this binary puts its own
// malloc, calloc, realloc and the aligned allocators in front of glibc's (they count, then call
// glibc's __libc_* entry points), and counts the calls made while a batch steps with no
// environment ending, its parts in contact (the robot modes stepped by their script to 3.2 s,
// where the part is held and meets its seat; the rigs past their first contacts): none, for
// every robot mode (the peg under each controller) and every rig, on two threads, the scripted
// actions included. A reset, which builds, allocates; the count checks that it is seen at all.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "vec_env.h"

// glibc's own allocator entry points, which its malloc and friends are names for
extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t n, size_t size);
extern void* __libc_realloc(void* p, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);

static atomic_long allocations;

void* malloc(size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_malloc(size);
}

void* calloc(size_t n, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_calloc(n, size);
}

void* realloc(void* p, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_realloc(p, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_memalign(alignment, size);
}

void* memalign(size_t alignment, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  atomic_fetch_add(&allocations, 1);
  *out = __libc_memalign(alignment, size);
  return *out ? 0 : ENOMEM;
}

#define NENV 2
#define NSTEP 40
#define WARM_ROBOT 800  // policy steps of 4 ms: 3.2 s
#define WARM_RIG 20

// steps of one configuration: the allocations of NSTEP steps (the scripted actions) after
// `warm` steps
static long step_allocations(const char* task, const char* mode, const char* controller, int warm) {
  const char* keys[] = {"mode", "threads", "decimation", "terminate_on_success", "controller"};
  const char* values[] = {mode, "2", "2", "0", controller};
  char err[256] = "";
  tf_vec_env* v = tf_vec_env_create(task, NENV, keys, values, controller ? 5 : 4, err, sizeof(err));
  if (!v) print_message("create: %s\n", err);
  assert_non_null(v);
  long before_reset = atomic_load(&allocations);
  assert_int_equal(tf_vec_env_reset(v, 1, err, sizeof(err)), 0);
  assert_true(atomic_load(&allocations) > before_reset);  // the counting works
  double actions[NENV * 8];
  long before = 0;
  for (int t = 0; t < warm + NSTEP; t++) {
    if (t == warm) before = atomic_load(&allocations);
    assert_int_equal(tf_vec_env_scripted_actions(v, actions, err, sizeof(err)), 0);
    assert_int_equal(tf_vec_env_step(v, actions, err, sizeof(err)), 0);
    for (int i = 0; i < NENV; i++) {
      assert_int_equal(tf_vec_env_terminated(v)[i] + tf_vec_env_truncated(v)[i], 0);
    }
  }
  long n = atomic_load(&allocations) - before;
  print_message("%s %s%s%s: %ld allocations in %d steps of %d environments\n", task, mode,
                controller ? " " : "", controller ? controller : "", n, NSTEP, NENV);
  tf_vec_env_destroy(v);
  return n;
}

static void test_step_allocates_nothing(void** state) {
  (void)state;
  const char* controllers[] = {"osc", "impedance", "ik", "pd"};
  for (int k = 0; k < 4; k++) {
    assert_int_equal(step_allocations("peg", "robot", controllers[k], WARM_ROBOT), 0);
  }
  const char* tasks[] = {"connectors", "gears", "boltnut"};
  for (int k = 0; k < 3; k++) {
    assert_int_equal(step_allocations(tasks[k], "robot", NULL, WARM_ROBOT), 0);
  }
  const char* rigs[] = {"peg", "connectors", "gears", "boltnut"};
  for (int k = 0; k < 4; k++) assert_int_equal(step_allocations(rigs[k], "rig", NULL, WARM_RIG), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_step_allocates_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
