// The assembly tasks' rig gates with every contact pair searched every step (persist_tol 0,
// engine/collision_persist.c): the gates hold whether or not contacts persist, so the
// persistence is not what makes them pass. Robot mode's gates run once, with the default
// (test_task_gates_robot.c): ten seeds of a whole robot script each, twice the suite's time.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gate_checks.h"
#include "task.h"
#include "task_gates.h"

int main(void) {
  enum { MAX_TESTS = 64 };
  struct CMUnitTest tests[MAX_TESTS];
  int n = gate_tests(tests, MAX_TESTS, GATE_RIG, test_task_gate_full_search);
  return _cmocka_run_group_tests("task_gates_full_search", tests, (size_t)n, NULL, NULL);
}
