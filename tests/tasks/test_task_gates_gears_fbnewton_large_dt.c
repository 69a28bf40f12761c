// The gears' large-step gate under fbnewton in `make test` (issue 18,
// tasks/task_gates_large_dt.c): the same 60-40-60 train on shafts, 21 input speeds (4.5 to
// 5.5 rad/s) at 100 and 50 Hz, one substep, re-linearisation, and the same limits as al's
// gate: no tooth skipped, ratio within 1 %, bores and lift under 10 um, tilt within the
// bore's allowance. A process of its own (42 runs), beside al's and the other gate suites.
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
      {"gears_fbnewton_large_dt", test_task_gate, NULL, NULL, (void*)"gears_fbnewton_large_dt"},
  };
  return _cmocka_run_group_tests("task_gates_gears_fbnewton_large_dt", tests, 1, NULL, NULL);
}
