// The task gate registry (see task_gates.h). Each task's folder defines its gates in
// gate_<task>.c, the large-step gates are in task_gates_large_dt.c; one declaration and one
// entry per gate below.
#include "task_gates.h"

#include <math.h>
#include <string.h>

extern const tf_task_gate tf_gate_peg_crisp;
extern const tf_task_gate tf_gate_peg_tunnel;
extern const tf_task_gate tf_gate_peg_robot;
extern const tf_task_gate tf_gate_boltnut_servo;
extern const tf_task_gate tf_gate_boltnut_gravity;
extern const tf_task_gate tf_gate_boltnut_robot;
extern const tf_task_gate tf_gate_gears_shaft_rates;
extern const tf_task_gate tf_gate_gears_tunnel;
extern const tf_task_gate tf_gate_gears_hull;
extern const tf_task_gate tf_gate_gears_robot;
extern const tf_task_gate tf_gate_connectors_dp;
extern const tf_task_gate tf_gate_connectors_types;
extern const tf_task_gate tf_gate_connectors_robot;
extern const tf_task_gate tf_gate_peg_large_dt;
extern const tf_task_gate tf_gate_boltnut_large_dt;
extern const tf_task_gate tf_gate_gears_large_dt;
extern const tf_task_gate tf_gate_gears_fbnewton_large_dt;
extern const tf_task_gate tf_gate_connectors_large_dt;

static const tf_task_gate* const gates[] = {
    &tf_gate_peg_crisp,
    &tf_gate_peg_tunnel,
    &tf_gate_peg_robot, /* peg */
    &tf_gate_boltnut_servo,
    &tf_gate_boltnut_gravity,
    &tf_gate_boltnut_robot, /* boltnut */
    &tf_gate_gears_shaft_rates,
    &tf_gate_gears_tunnel,
    &tf_gate_gears_hull,
    &tf_gate_gears_robot, /* gears */
    &tf_gate_connectors_dp,
    &tf_gate_connectors_types,
    &tf_gate_connectors_robot, /* connectors */
    &tf_gate_peg_large_dt,
    &tf_gate_boltnut_large_dt,
    &tf_gate_connectors_large_dt,
    &tf_gate_gears_large_dt,
    &tf_gate_gears_fbnewton_large_dt, /* large steps */
    NULL,
};

int tf_task_gate_count(void) { return (int)(sizeof(gates) / sizeof(gates[0])) - 1; }

const tf_task_gate* tf_task_gate_at(int index) {
  return index >= 0 && index < tf_task_gate_count() ? gates[index] : NULL;
}

const tf_task_gate* tf_task_gate_find(const char* name) {
  for (int i = 0; name && i < tf_task_gate_count(); i++) {
    if (strcmp(gates[i]->name, name) == 0) return gates[i];
  }
  return NULL;
}

tf_task_gate_settings tf_task_gate_settings_default(void) {
  tf_task_gate_settings s;
  tf_run_options o;
  tf_run_options_default(&o);
  s.persist_tol = o.physics.persist_tol;
  return s;
}

void tf_task_gate_apply(const tf_task_gate_settings* settings, tf_run_options* o) {
  o->physics.persist_tol = settings->persist_tol;
}

void tf_gate_add(tf_gate_result* r, const char* name, double value, double limit, int at_most) {
  if (r->nmetric >= TF_GATE_MAX_METRICS) return;
  tf_gate_metric* g = &r->metric[r->nmetric++];
  g->name = name;
  g->value = value;
  g->limit = limit;
  g->at_most = at_most;
  // NaN (a metric that was not measured) never passes
  g->pass = at_most ? value <= limit : value >= limit;
  if (isnan(value)) g->pass = 0;
}
