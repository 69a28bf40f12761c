// Scene-building helpers shared by the gate files (private to tasks/).
#ifndef TF_GATE_UTIL_H
#define TF_GATE_UTIL_H

#include "gates.h"

// a builder with timestep, solver and gravity along -z (g may be 0)
tf_builder* tf_gate_builder(double dt, tf_solver_type solver, double g);
// the same at a chosen step (timestep and re-linearisation)
tf_builder* tf_gate_builder_step(const tf_gate_step* step, tf_solver_type solver, double g);

// a static plane through the origin, tilted about the world y axis by tilt (rad)
int tf_gate_plane(tf_builder* b, const char* name, double tilt, double mu);

// a free body carrying one geom of the given type and size, with uniform-density inertia;
// returns the body id
int tf_gate_free_geom(tf_builder* b, const char* name, tf_geom_type type, const double size[3],
                      double mass, const double pos[3], const double quat[4], double mu, int hull);

// compiles (destroying the builder); on failure writes the message into result->error
tf_model* tf_gate_compile(tf_builder* b, tf_gate_result* result);

// appends a metric to result
void tf_gate_metric_add(tf_gate_result* result, const char* name, double value, double limit,
                        int at_most);

#endif  // TF_GATE_UTIL_H
