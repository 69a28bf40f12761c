// Physics gates: small contact scenes with analytic or published answers, run per solver.
// One registry serves `tightfit validate`, the cmocka gate suite and the README's table.
#ifndef TF_GATES_H
#define TF_GATES_H

#include "tightfit.h"

#define TF_GATE_MAX_METRICS 24

typedef struct tf_gate_metric {
  const char* name;  // "oblique_slide.accel_rel_error", ...
  double value;
  double limit;
  int at_most;  // 1: passes when value <= limit; 0: when value >= limit
  int pass;
} tf_gate_metric;

typedef struct tf_gate_result {
  int nmetric;
  tf_gate_metric metric[TF_GATE_MAX_METRICS];
  int diverged;     // a step failed (NaN, singular M): every metric fails
  char error[160];  // non-empty if the scene could not be built
} tf_gate_result;

typedef struct tf_gate {
  const char* name;
  const char* description;
  // runs the gate with the given solver; fills result (never aborts)
  void (*run)(tf_solver_type solver, tf_gate_result* result);
} tf_gate;

int tf_gate_count(void);
const tf_gate* tf_gate_at(int index);
const tf_gate* tf_gate_find(const char* name);

// 1 if every metric passed and nothing diverged or failed to build
int tf_gate_passed(const tf_gate_result* result);

#endif  // TF_GATES_H
