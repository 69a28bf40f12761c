// Robot mode's task gates in `make test` (issue 7: each task's robot mode succeeds on at
// least 9 of 10 seeds): every gate named "<task>_robot" passes its limits (gate_checks.h).
// A process of its own, so that `make test` runs it beside the rig gates.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gate_checks.h"
#include "task.h"

int main(void) {
  enum { MAX_TESTS = 16 };
  struct CMUnitTest tests[MAX_TESTS];
  int n = gate_tests(tests, MAX_TESTS, GATE_ROBOT, test_task_gate);
  return _cmocka_run_group_tests("task_gates_robot", tests, (size_t)n, NULL, NULL);
}
