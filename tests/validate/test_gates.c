// The contact physics gates in `make test`: every gate passes its limits under al, and under
// fbnewton wherever al passes; the pipeline gates (no_tunnel, ghost_edge) pass under every
// solver; and every solver runs every gate to the end without NaN, reporting finite values.
// The CRISP scenes (stack 1:100 and 1:10, oblique slide, door handle) also run at dt = 10 ms
// under fbnewton and al with re-linearisation, against their gates' own limits (issue 18's
// large-step acceptance).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "gates.h"

// runs one gate under one solver at step (NULL: the gate's own) and prints every metric
static tf_gate_result run_gate_at(const tf_gate* gate, tf_solver_type solver,
                                  const tf_gate_step* step) {
  tf_gate_result r;
  memset(&r, 0, sizeof(r));
  tf_gate_run_at(gate, solver, step, &r);
  if (r.error[0]) print_message("%s / %s: %s\n", gate->name, tf_solver_name(solver), r.error);
  for (int i = 0; i < r.nmetric; i++) {
    const tf_gate_metric* g = &r.metric[i];
    print_message("%-15s %-8s %-26s %12.4g %s %-9.3g %s%s\n", gate->name, tf_solver_name(solver),
                  g->name, g->value, g->at_most ? "<=" : ">=", g->limit, g->pass ? "pass" : "FAIL",
                  r.diverged ? " diverged" : "");
  }
  return r;
}

static tf_gate_result run_gate(const tf_gate* gate, tf_solver_type solver) {
  return run_gate_at(gate, solver, NULL);
}

// the gate named in state passes under al, and under fbnewton too where al passes; every
// solver finishes it with finite values
static void test_gate(void** state) {
  const tf_gate* gate = tf_gate_find((const char*)*state);
  assert_non_null(gate);
  int pipeline_gate = strcmp(gate->name, "no_tunnel") == 0 || strcmp(gate->name, "ghost_edge") == 0;
  int al_passed = 0;
  for (int s = 0; s < TF_SOLVER_N; s++) {
    tf_gate_result r = run_gate(gate, (tf_solver_type)s);
    assert_int_equal(r.error[0], 0);
    assert_false(r.diverged);
    assert_true(r.nmetric > 0);
    for (int i = 0; i < r.nmetric; i++) assert_true(isfinite(r.metric[i].value));
    if (s == TF_SOLVER_AL) al_passed = tf_gate_passed(&r);
    if (s == TF_SOLVER_AL || pipeline_gate) assert_true(tf_gate_passed(&r));
    if (s == TF_SOLVER_FBNEWTON && al_passed) assert_true(tf_gate_passed(&r));
  }
}

// the CRISP scenes at dt = 10 ms under fbnewton and al, with their gates' limits. The oblique
// slide, the door handle and the 1:10 stack pass with the step's rows alone. The 1:100 stack
// needs re-linearisation (step.c): the collision stage predicts the landing with both blocks'
// free velocities, so the top block's speculative row (closing 1.96 mm of its 2.06 mm gap,
// where the supported middle block makes it 2.94 mm) is never made at the step's start, the
// block would end the step 0.89 mm deep in the middle one, and the position pass pushing it
// out drove the 10 g bottom block 0.8 mm into the floor. The collision at the step's iterate
// finds that overlap and the solve again holds it; so every scene runs with RELINEARIZE
// passes here (issue 18's large-step acceptance) and must pass
#define RELINEARIZE 4
static void test_crisp_scenes_at_10ms(void** state) {
  (void)state;
  static const char* const scenes[] = {"stack_ratio100", "stack_ratio10", "oblique_slide",
                                       "door_handle"};
  static const tf_solver_type solvers[2] = {TF_SOLVER_FBNEWTON, TF_SOLVER_AL};
  const tf_gate_step step = {0.01, RELINEARIZE};
  for (size_t k = 0; k < sizeof(scenes) / sizeof(scenes[0]); k++) {
    const tf_gate* gate = tf_gate_find(scenes[k]);
    assert_non_null(gate);
    for (int s = 0; s < 2; s++) {
      tf_gate_result r = run_gate_at(gate, solvers[s], &step);
      assert_int_equal(r.error[0], 0);
      assert_false(r.diverged);
      for (int i = 0; i < r.nmetric; i++) assert_true(isfinite(r.metric[i].value));
      assert_true(tf_gate_passed(&r));
    }
  }
}

int main(void) {
  struct CMUnitTest tests[33];
  int n = 0;
  for (int i = 0; i < tf_gate_count() && n < 32; i++) {
    struct CMUnitTest t = {tf_gate_at(i)->name, test_gate, NULL, NULL, (void*)tf_gate_at(i)->name};
    tests[n++] = t;
  }
  struct CMUnitTest at_10ms = {"crisp_scenes_at_10ms", test_crisp_scenes_at_10ms, NULL, NULL, NULL};
  tests[n++] = at_10ms;
  return _cmocka_run_group_tests("gates", tests, (size_t)n, NULL, NULL);
}
