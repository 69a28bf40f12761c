// The large-step task gates in `make test` (issue 18, tasks/task_gates_large_dt.c): the peg's,
// the bolt-nut's and the connectors' hold with one 20 ms step, and pass their limits here.
// The gears' gate has a suite of its own (test_task_gates_gears_large_dt.c). A process of its
// own, beside the other gate suites.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gate_checks.h"
#include "task.h"

int main(void) {
  static const char* const holding[] = {"peg_large_dt", "boltnut_large_dt", "connectors_large_dt"};
  enum { N = sizeof(holding) / sizeof(holding[0]) };
  struct CMUnitTest tests[N];
  for (int i = 0; i < N; i++) {
    struct CMUnitTest t = {holding[i], test_task_gate, NULL, NULL, (void*)holding[i]};
    tests[i] = t;
  }
  return _cmocka_run_group_tests("task_gates_large_dt", tests, N, NULL, NULL);
}
