// The gate functions behind the registry (private to tasks/).
#ifndef TF_GATES_INTERNAL_H
#define TF_GATES_INTERNAL_H

#include "gates.h"

void tf_gate_oblique_slide(tf_solver_type solver, tf_gate_result* r);
void tf_gate_stack_ratio10(tf_solver_type solver, tf_gate_result* r);
void tf_gate_stack_ratio100(tf_solver_type solver, tf_gate_result* r);
void tf_gate_door_handle(tf_solver_type solver, tf_gate_result* r);
void tf_gate_rest_box(tf_solver_type solver, tf_gate_result* r);
void tf_gate_no_tunnel(tf_solver_type solver, tf_gate_result* r);
void tf_gate_isotropy(tf_solver_type solver, tf_gate_result* r);
void tf_gate_hull_slide(tf_solver_type solver, tf_gate_result* r);
void tf_gate_hull_stack(tf_solver_type solver, tf_gate_result* r);
void tf_gate_box_on_box(tf_solver_type solver, tf_gate_result* r);
void tf_gate_ghost_edge(tf_solver_type solver, tf_gate_result* r);

// the CRISP scenes at a chosen timestep (their gates above run them at CRISP's)
void tf_gate_oblique_slide_at(tf_solver_type solver, const tf_gate_step* step, tf_gate_result* r);
void tf_gate_stack_ratio10_at(tf_solver_type solver, const tf_gate_step* step, tf_gate_result* r);
void tf_gate_stack_ratio100_at(tf_solver_type solver, const tf_gate_step* step, tf_gate_result* r);
void tf_gate_door_handle_at(tf_solver_type solver, const tf_gate_step* step, tf_gate_result* r);

#endif  // TF_GATES_INTERNAL_H
