// The contact physics gates in `make test`: every gate passes its limits under al; the
// pipeline gates (no_tunnel, ghost_edge) pass under every solver; and every solver runs
// every gate to the end without NaN, reporting finite values.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "gates.h"

// runs one gate under one solver and prints every metric
static tf_gate_result run_gate(const tf_gate* gate, tf_solver_type solver) {
  tf_gate_result r;
  memset(&r, 0, sizeof(r));
  gate->run(solver, &r);
  if (r.error[0]) print_message("%s / %s: %s\n", gate->name, tf_solver_name(solver), r.error);
  for (int i = 0; i < r.nmetric; i++) {
    const tf_gate_metric* g = &r.metric[i];
    print_message("%-15s %-7s %-26s %12.4g %s %-9.3g %s%s\n", gate->name, tf_solver_name(solver),
                  g->name, g->value, g->at_most ? "<=" : ">=", g->limit, g->pass ? "pass" : "FAIL",
                  r.diverged ? " diverged" : "");
  }
  return r;
}

// the gate named in state passes under al, and every solver finishes it with finite values
static void test_gate(void** state) {
  const tf_gate* gate = tf_gate_find((const char*)*state);
  assert_non_null(gate);
  int pipeline_gate = strcmp(gate->name, "no_tunnel") == 0 || strcmp(gate->name, "ghost_edge") == 0;
  for (int s = 0; s < TF_SOLVER_N; s++) {
    tf_gate_result r = run_gate(gate, (tf_solver_type)s);
    assert_int_equal(r.error[0], 0);
    assert_false(r.diverged);
    assert_true(r.nmetric > 0);
    for (int i = 0; i < r.nmetric; i++) assert_true(isfinite(r.metric[i].value));
    if (s == TF_SOLVER_AL || pipeline_gate) assert_true(tf_gate_passed(&r));
  }
}

int main(void) {
  tf_engine_init();
  struct CMUnitTest tests[32];
  int n = 0;
  for (int i = 0; i < tf_gate_count() && n < 32; i++) {
    struct CMUnitTest t = {tf_gate_at(i)->name, test_gate, NULL, NULL, (void*)tf_gate_at(i)->name};
    tests[n++] = t;
  }
  return _cmocka_run_group_tests("gates", tests, (size_t)n, NULL, NULL);
}
