// Gates of the collision pipeline rather than the solver: a fast sphere must not tunnel
// through a thin plate (no_tunnel), and must not be braked by an edge it passes
// (ghost_edge). Both hold for every solver: the rows come from the pipeline.
#include <math.h>

#include "gate_util.h"
#include "gates_internal.h"

static const double identity[4] = {1, 0, 0, 0};

// a static plate 0.2 x 0.2 x 0.005 m centred at the origin, and a 10 g sphere of radius
// 5 mm at (x, 0, z) moving straight down at 8 m/s, no gravity
static tf_model* plate_and_sphere(tf_solver_type solver, double dt, double x, double z,
                                  tf_gate_result* r) {
  tf_builder* b = tf_gate_builder(dt, solver, 0);
  tf_geom_def plate = tf_geom_def_default();
  plate.name = "plate";
  plate.type = TF_GEOM_BOX;
  plate.size[0] = 0.1, plate.size[1] = 0.1, plate.size[2] = 0.0025;
  tf_builder_add_geom(b, &plate);
  double size[3] = {0.005, 0, 0}, pos[3] = {x, 0, z};
  tf_gate_free_geom(b, "ball", TF_GEOM_SPHERE, size, 0.01, pos, identity, 0.5, -1);
  return tf_gate_compile(b, r);
}

void tf_gate_no_tunnel(tf_solver_type solver, tf_gate_result* r) {
  tf_model* m = plate_and_sphere(solver, 0.01, 0, 0.040, r);
  if (!m) return;
  tf_data* d = tf_data_create(m);
  d->qvel[2] = -8.0;
  double lowest = d->qpos[2], travel = 0, prev[3] = {d->qpos[0], d->qpos[1], d->qpos[2]};
  for (int s = 0; s < 20; s++) {
    if (tf_step(m, d)) {
      r->diverged = 1;
      break;
    }
    lowest = fmin(lowest, d->qpos[2]);
    double dd[3] = {d->qpos[0] - prev[0], d->qpos[1] - prev[1], d->qpos[2] - prev[2]};
    travel += sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
    prev[0] = d->qpos[0], prev[1] = d->qpos[1], prev[2] = d->qpos[2];
  }
  // resting on the plate the centre is at 2.5 + 5 = 7.5 mm; 0.5 mm below that is the limit
  tf_gate_metric_add(r, "lowest_centre_m", lowest, 0.0025 + 0.005 - 0.0005, 0);
  // from 40 mm to the plate the centre can travel 32.5 mm: a frozen ball is not a pass
  tf_gate_metric_add(r, "travel_m", travel, 0.030, 0);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

void tf_gate_ghost_edge(tf_solver_type solver, tf_gate_result* r) {
  // the sphere's surface passes the plate's edge (x = 0.1) with 0.5 mm to spare
  tf_model* m = plate_and_sphere(solver, 0.001, 0.1 + 0.005 + 0.0005, 0.0025 + 0.030, r);
  if (!m) return;
  tf_data* d = tf_data_create(m);
  d->qvel[2] = -8.0;
  double change = 0;
  for (int s = 0; s < 12; s++) {  // 96 mm: well past the plate
    if (tf_step(m, d)) {
      r->diverged = 1;
      break;
    }
    double dv[3] = {d->qvel[0], d->qvel[1], d->qvel[2] + 8.0};
    change = fmax(change, sqrt(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]) / 8.0);
    for (int k = 3; k < 6; k++) change = fmax(change, fabs(d->qvel[k]));
  }
  tf_gate_metric_add(r, "velocity_change_rel", change, 1e-9, 1);
  tf_data_destroy(d);
  tf_model_destroy(m);
}
