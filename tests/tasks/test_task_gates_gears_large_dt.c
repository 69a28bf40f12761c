// The gears' large-step gate in `make test` (issue 18, tasks/task_gates_large_dt.c): the
// 60-40-60 train on shafts at 100 and 50 Hz, one substep, al with re-linearisation, over 21
// input speeds each (4.5 to 5.5 rad/s): no tooth skipped, ratio within 1 %, bores and lift
// under 10 um, tilt within the bore's allowance. A process of its own (42 runs, the longest
// gate suite), so that the test runner starts it first, beside the other gate suites.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gate_checks.h"
#include "task.h"

int main(void) {
  const struct CMUnitTest tests[] = {
      {"gears_large_dt", test_task_gate, NULL, NULL, (void*)"gears_large_dt"},
  };
  return _cmocka_run_group_tests("task_gates_gears_large_dt", tests, 1, NULL, NULL);
}
