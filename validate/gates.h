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

// the step a gate runs at when not its own: the timestep and the passes of re-linearisation
// inside each step (tf_option's solver_opt.relinearize; 0: off)
typedef struct tf_gate_step {
  double dt;  // s
  int relinearize;
} tf_gate_step;

typedef struct tf_gate {
  const char* name;
  const char* description;
  // runs the gate with the given solver; fills result (never aborts)
  void (*run)(tf_solver_type solver, tf_gate_result* result);
  // the same scene and limits at another step than the gate's own; NULL where the scene has
  // no timestep to choose (its step is part of what it tests, e.g. no_tunnel's 10 ms)
  void (*run_at)(tf_solver_type solver, const tf_gate_step* step, tf_gate_result* result);
} tf_gate;

int tf_gate_count(void);
const tf_gate* tf_gate_at(int index);
const tf_gate* tf_gate_find(const char* name);

// runs gate at step (its own when step is NULL); 0, or -1 (result->error set) when the gate
// cannot choose its timestep or step->dt is not positive
int tf_gate_run_at(const tf_gate* gate, tf_solver_type solver, const tf_gate_step* step,
                   tf_gate_result* result);

// 1 if every metric passed and nothing diverged or failed to build
int tf_gate_passed(const tf_gate_result* result);

#endif  // TF_GATES_H
