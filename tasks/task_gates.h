// The task gates: the physics questions of the assembly tasks (seating, thread advance,
// gear ratios, tunnelling), each a set of tf_task_run calls whose metrics are compared with
// analytic answers or published numbers. One registry serves `tightfit validate --tasks`,
// the gate suite in `make test` and the README. Each gate names its own solver and timestep
// (the questions are asked of al; other solvers' values are reported by sweeps).
#ifndef TF_TASK_GATES_H
#define TF_TASK_GATES_H

#include "gates.h"
#include "task.h"

// what every run of a task gate takes from its caller (the gates name everything else)
typedef struct tf_task_gate_settings {
  double persist_tol;  // m: contacts kept while parts rest (tf_option.persist_tol); 0: search
                       // every pair every step, to show the gates do not depend on it
} tf_task_gate_settings;

// the engine's defaults
tf_task_gate_settings tf_task_gate_settings_default(void);
// settings into a gate's run options (after tf_run_options_default)
void tf_task_gate_apply(const tf_task_gate_settings* settings, tf_run_options* o);

typedef struct tf_task_gate {
  const char* name;  // "peg_crisp", "boltnut_servo", ...
  const char* description;
  // runs the gate with settings; fills result (metric names "case.metric"), never aborts
  void (*run)(const tf_task_gate_settings* settings, tf_gate_result* result);
} tf_task_gate;

int tf_task_gate_count(void);
const tf_task_gate* tf_task_gate_at(int index);
const tf_task_gate* tf_task_gate_find(const char* name);

// appends a metric to a gate result (ignored past TF_GATE_MAX_METRICS)
void tf_gate_add(tf_gate_result* r, const char* name, double value, double limit, int at_most);

#endif  // TF_TASK_GATES_H
