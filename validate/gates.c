// The gate registry, read by `tightfit validate`, the gate suite and the docs.
#include "gates.h"

#include <stdio.h>
#include <string.h>

#include "gates_internal.h"

static const tf_gate gates[] = {
    {"oblique_slide",
     "1 kg cube on a 30 deg incline: slides at g(sin30 - tan25 cos30), sticks at tan30",
     tf_gate_oblique_slide, tf_gate_oblique_slide_at},
    {"stack_ratio10", "three cubes, masses 0.1 / 1 / 10 kg, mu 5: the top stays at 0.25 m",
     tf_gate_stack_ratio10, tf_gate_stack_ratio10_at},
    {"stack_ratio100", "three cubes, masses 0.01 / 1 / 100 kg, mu 5: the top stays at 0.25 m",
     tf_gate_stack_ratio100, tf_gate_stack_ratio100_at},
    {"door_handle", "hinge with dry friction 0.06 N m and +-40 deg limits under a torque ramp",
     tf_gate_door_handle, tf_gate_door_handle_at},
    {"rest_box", "cube dropped 1 mm onto a plane: no penetration, no drift, no energy gain",
     tf_gate_rest_box},
    {"no_tunnel", "5 mm sphere at 8 m/s onto a 5 mm plate at dt = 10 ms: no tunnelling",
     tf_gate_no_tunnel},
    {"isotropy", "puck sliding at 30 deg keeps its direction (elliptic friction cone)",
     tf_gate_isotropy},
    {"hull_slide", "qhull hull of a cube slides like the box and rests on 4+ contacts",
     tf_gate_hull_slide},
    {"hull_stack", "five hexagonal-prism hulls stacked face to face stay put", tf_gate_hull_stack},
    {"box_on_box", "a box on a box stays flat for 5 s", tf_gate_box_on_box},
    {"ghost_edge", "sphere passing a plate edge with 0.5 mm clearance is not braked",
     tf_gate_ghost_edge},
};

int tf_gate_count(void) { return (int)(sizeof(gates) / sizeof(gates[0])); }

const tf_gate* tf_gate_at(int index) {
  return index >= 0 && index < tf_gate_count() ? &gates[index] : NULL;
}

const tf_gate* tf_gate_find(const char* name) {
  for (int i = 0; name && i < tf_gate_count(); i++) {
    if (strcmp(gates[i].name, name) == 0) return &gates[i];
  }
  return NULL;
}

int tf_gate_run_at(const tf_gate* gate, tf_solver_type solver, const tf_gate_step* step,
                   tf_gate_result* r) {
  if (!step) {
    gate->run(solver, r);
    return 0;
  }
  if (!gate->run_at || !(step->dt > 0)) {
    snprintf(r->error, sizeof(r->error), "gate %s runs only at its own timestep", gate->name);
    return -1;
  }
  gate->run_at(solver, step, r);
  return 0;
}

int tf_gate_passed(const tf_gate_result* r) {
  if (r->diverged || r->error[0] || r->nmetric == 0) return 0;
  for (int i = 0; i < r->nmetric; i++) {
    if (!r->metric[i].pass) return 0;
  }
  return 1;
}
