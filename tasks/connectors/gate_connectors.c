// The connectors gates (issue 5 acceptance): the DisplayPort-like plug seats at 100 um
// clearance at dt = 2 ms with al and does not fall through the socket; the D-sub and RJ45-like
// plugs do the same at the task's default clearance. Each runs environment 0 (centred and
// straight) of the rig at its defaults otherwise: velocity servo at 0.1 m/s, mesh_sdf collider.
//
// "Seats" is the task's seat test (mating face within 0.2 mm of the socket floor at the end);
// "does not fall through" is the tunnel probe's through-penetration (final depth more than
// 2 mm below the seat) plus the seat error itself; travel shows the plug really made the trip
// from above the opening to the floor (a part that never moved is no pass).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "task.h"
#include "task_gates.h"

// one run of the rig: type and clearance as given, al at dt = 2 ms; 0, or -1 with the
// message in the result
static int run_type(const tf_task_gate_settings* gs, tf_gate_result* r, const char* type,
                    const char* clearance_um, tf_metrics* out) {
  tf_run_options o;
  tf_run_options_default(&o);
  tf_task_gate_apply(gs, &o);
  o.task = "connectors";
  o.physics.solver = TF_SOLVER_AL;
  o.physics.dt = 0.002;
  o.envs = 1;
  o.set[o.nset++] = (tf_kv){"type", type};
  if (clearance_um) o.set[o.nset++] = (tf_kv){"clearance_um", clearance_um};
  char err[160];
  if (tf_task_run(&o, out, err, sizeof(err))) {
    snprintf(r->error, sizeof(r->error), "%s", err);
    return -1;
  }
  const char* status = tf_metrics_text(out, "status");
  if (!status || strcmp(status, "ok") != 0) r->diverged = 1;
  if (tf_metrics_text(out, "error")) {
    snprintf(r->error, sizeof(r->error), "%s", tf_metrics_text(out, "error"));
    return -1;
  }
  return 0;
}

static void run_dp(const tf_task_gate_settings* gs, tf_gate_result* r) {
  memset(r, 0, sizeof(*r));
  tf_metrics out;
  if (run_type(gs, r, "dp", "100", &out)) return;
  double tol = tf_metrics_get(&out, "connectors.seat_tol_m");
  double mating = tf_metrics_get(&out, "connectors.mating_depth_m");
  tf_gate_add(r, "dp.seated", tf_metrics_get(&out, "connectors.seated"), 1, 0);
  tf_gate_add(r, "dp.seat_error_abs_m", fabs(tf_metrics_get(&out, "connectors.seat_error_m")), tol,
              1);
  tf_gate_add(r, "dp.through", tf_metrics_get(&out, "tunnel.through"), 0, 1);
  tf_gate_add(r, "dp.flythrough", tf_metrics_get(&out, "tunnel.flythrough"), 0, 1);
  tf_gate_add(r, "dp.travel_m", tf_metrics_get(&out, "tunnel.travel_m"), mating, 0);
}

static void run_other_types(const tf_task_gate_settings* gs, tf_gate_result* r) {
  memset(r, 0, sizeof(*r));
  tf_metrics out;
  // the task's default clearance (no clearance_um given)
  if (run_type(gs, r, "dsub", NULL, &out)) return;
  double tol = tf_metrics_get(&out, "connectors.seat_tol_m");
  tf_gate_add(r, "dsub.seated", tf_metrics_get(&out, "connectors.seated"), 1, 0);
  tf_gate_add(r, "dsub.seat_error_abs_m", fabs(tf_metrics_get(&out, "connectors.seat_error_m")),
              tol, 1);
  tf_gate_add(r, "dsub.through", tf_metrics_get(&out, "tunnel.through"), 0, 1);
  tf_gate_add(r, "dsub.travel_m", tf_metrics_get(&out, "tunnel.travel_m"),
              tf_metrics_get(&out, "connectors.mating_depth_m"), 0);
  if (run_type(gs, r, "rj45", NULL, &out)) return;
  tf_gate_add(r, "rj45.seated", tf_metrics_get(&out, "connectors.seated"), 1, 0);
  tf_gate_add(r, "rj45.seat_error_abs_m", fabs(tf_metrics_get(&out, "connectors.seat_error_m")),
              tol, 1);
  tf_gate_add(r, "rj45.through", tf_metrics_get(&out, "tunnel.through"), 0, 1);
  tf_gate_add(r, "rj45.travel_m", tf_metrics_get(&out, "tunnel.travel_m"),
              tf_metrics_get(&out, "connectors.mating_depth_m"), 0);
}

const tf_task_gate tf_gate_connectors_dp = {
    "connectors_dp",
    "DisplayPort-like plug pushed at 0.1 m/s seats at 100 um clearance (al, dt 2 ms) and does "
    "not fall through the socket",
    run_dp,
};

const tf_task_gate tf_gate_connectors_types = {
    "connectors_types",
    "D-sub and RJ45-like plugs seat at the default 100 um clearance (al, dt 2 ms) and do not "
    "fall through",
    run_other_types,
};
