// The large-step task gates in `make test` (issue 18, tasks/task_gates_large_dt.c): the peg's
// and the bolt-nut's hold with one 20 ms step, and pass their limits here. Two do not hold
// yet and are not run here: connectors_large_dt (the RJ45-like plug tilts 1 deg and overlaps
// 357 um at 20 ms) and gears_large_dt (at 50 Hz one input speed of 21 lifts a gear 22 um off
// its shoulder; six minutes of runs); `tightfit validate --tasks --gate NAME` runs them and
// README.md says where they stand. A process of its own, beside the other gate suites.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gate_checks.h"
#include "task.h"

int main(void) {
  tf_engine_init();
  static const char* const holding[] = {"peg_large_dt", "boltnut_large_dt"};
  struct CMUnitTest tests[2];
  for (int i = 0; i < 2; i++) {
    struct CMUnitTest t = {holding[i], test_task_gate, NULL, NULL, (void*)holding[i]};
    tests[i] = t;
  }
  return _cmocka_run_group_tests("task_gates_large_dt", tests, 2, NULL, NULL);
}
