// The peg gates (issue 5 acceptance), asked of al:
//
// peg_crisp: CRISP's peg insertion (the task's defaults: 50 mm x 100 mm peg dropped with a
//   0.5 deg tilt, mu 0.01, mesh_sdf) at dt = 2 ms seats at 200, 100 and 50 um clearance, with
//   the mean penetration (overlap.mean_m: per control step the deepest overlap of the exact
//   surfaces, averaged over the steps in contact, CRISP's measure) under 25 um at each (CRISP's
//   best published figure: 25.6 um at 100 um). The probe's own error floor must be under 1 um
//   for the numbers to mean anything.
//
// peg_tunnel: the forced-insertion proxy. The peg starts with its tip 30 mm above its seat,
//   fired at 0.5, 2 and 8 m/s with no drive; 4 environments (0 centred and untilted, 1..3 with
//   a lateral offset within +-clearance/2 and a tilt within +-0.2 deg); dt = 1 ms and 10 ms.
//   Per timestep, over the three speeds: no environment through the hole's floor or flying
//   through it, every environment travelling at least the 30 mm (a frozen peg is no pass), and
//   in environment 0 the speed on reaching the seat within 2 % of sqrt(v0^2 + 2 g d) (nothing
//   braked it on the way in; peg_seat.c says how that speed is measured).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peg.h"
#include "task_gates.h"

#define TUNNEL_ENVS 4
#define TUNNEL_DURATION 0.1  // s: the slowest case lands at 45 ms; the rest shows it stays
#define TUNNEL_GAP 0.03      // m from the tip to its seat at the start

// runs environments 0..envs-1 of the peg task one by one (so environment 0's own row is
// kept) and merges them; 0, or -1 with the message in the result
static int run_envs(tf_gate_result* r, const tf_run_options* o, int envs, tf_metrics* per_env,
                    tf_metrics* merged) {
  const tf_task_info* task = tf_task_find("peg");
  for (int i = 0; i < envs; i++) {
    tf_env env;
    char err[160];
    if (tf_task_run_env(o, i, &env, &per_env[i], err, sizeof(err))) {
      snprintf(r->error, sizeof(r->error), "%s", err);
      return -1;
    }
    tf_env_free(task, &env);
    const char* status = tf_metrics_text(&per_env[i], "status");
    if (!status || strcmp(status, "ok") != 0) r->diverged = 1;
  }
  tf_metrics_merge_envs(merged, per_env, envs);
  return 0;
}

static void set(tf_run_options* o, const char* key, const char* value) {
  o->set[o->nset].key = key;
  o->set[o->nset].value = value;
  o->nset++;
}

static void run_crisp(const tf_task_gate_settings* gs, tf_gate_result* r) {
  memset(r, 0, sizeof(*r));
  static const char* const clearance[3] = {"200", "100", "50"};
  // metric names are literals (the result keeps the pointers)
  static const char* const success[3] = {"c200.success", "c100.success", "c50.success"};
  static const char* const mean[3] = {"c200.overlap_mean_m", "c100.overlap_mean_m",
                                      "c50.overlap_mean_m"};
  static const char* const floor_name[3] = {"c200.overlap_floor_m", "c100.overlap_floor_m",
                                            "c50.overlap_floor_m"};
  tf_metrics* m = malloc(2 * sizeof(tf_metrics));
  if (!m) {
    snprintf(r->error, sizeof(r->error), "out of memory");
    return;
  }
  for (int k = 0; k < 3; k++) {
    tf_run_options o;
    tf_run_options_default(&o);
    tf_task_gate_apply(gs, &o);
    o.task = "peg";
    o.physics.solver = TF_SOLVER_AL;
    o.physics.dt = 0.002;
    set(&o, "clearance_um", clearance[k]);
    if (run_envs(r, &o, 1, &m[0], &m[1])) break;
    tf_gate_add(r, success[k], tf_metrics_get(&m[1], "success"), 1, 0);
    tf_gate_add(r, mean[k], tf_metrics_get(&m[1], "overlap.mean_m"), 25e-6, 1);
    tf_gate_add(r, floor_name[k], tf_metrics_get(&m[1], "overlap.floor_m"), 1e-6, 1);
  }
  free(m);
}

// the speed error of environment 0 against free fall from the start: |v / sqrt(v0^2 +
// 2 g d) - 1|, NaN when it never reached the seat
static double seat_speed_error(const tf_metrics* env0) {
  double v = tf_metrics_get(env0, "peg.seat_speed_mps");
  double free_fall = tf_metrics_get(env0, "peg.seat_speed_free_fall_mps");
  return fabs(v / free_fall - 1);
}

static void run_tunnel(const tf_task_gate_settings* gs, tf_gate_result* r) {
  memset(r, 0, sizeof(*r));
  static const char* const speed[3] = {"0.5", "2", "8"};
  static const double dt[2] = {0.001, 0.01};
  static const char* const through[2] = {"dt1ms.through_envs", "dt10ms.through_envs"};
  static const char* const fly[2] = {"dt1ms.flythrough_envs", "dt10ms.flythrough_envs"};
  static const char* const travel[2] = {"dt1ms.travel_min_m", "dt10ms.travel_min_m"};
  static const char* const seat[2] = {"dt1ms.seat_speed_error_max", "dt10ms.seat_speed_error_max"};
  static const char* const braking[2] = {"dt1ms.seat_braking_max", "dt10ms.seat_braking_max"};
  tf_metrics* m = malloc((TUNNEL_ENVS + 1) * sizeof(tf_metrics));
  if (!m) {
    snprintf(r->error, sizeof(r->error), "out of memory");
    return;
  }
  tf_metrics* merged = &m[TUNNEL_ENVS];
  for (int j = 0; j < 2 && !r->error[0]; j++) {
    double n_through = 0, n_fly = 0, travel_min = INFINITY, seat_error = 0, brake = 0;
    for (int k = 0; k < 3; k++) {
      tf_run_options o;
      tf_run_options_default(&o);
      tf_task_gate_apply(gs, &o);
      o.task = "peg";
      o.physics.solver = TF_SOLVER_AL;
      o.physics.dt = dt[j];
      o.duration = TUNNEL_DURATION;
      set(&o, "impact_speed", speed[k]);
      set(&o, "tilt_deg", "0");
      set(&o, "gap_mm", "30");
      if (run_envs(r, &o, TUNNEL_ENVS, m, merged)) break;
      n_through += tf_metrics_get(merged, "tunnel.through");
      n_fly += tf_metrics_get(merged, "tunnel.flythrough");
      travel_min = fmin(travel_min, tf_metrics_get(merged, "tunnel.travel_m"));
      // NaN (never reached the seat) must fail: fmax would drop it
      double e = seat_speed_error(&m[0]);
      seat_error = isnan(e) || isnan(seat_error) ? NAN : fmax(seat_error, e);
      double b = fabs(tf_metrics_get(&m[0], "peg.seat_braking"));
      brake = isnan(b) || isnan(brake) ? NAN : fmax(brake, b);
    }
    if (r->error[0]) break;
    tf_gate_add(r, through[j], n_through, 0, 1);
    tf_gate_add(r, fly[j], n_fly, 0, 1);
    // the peg lands on its seat exactly 30 mm from its start: 1 nm of slack keeps the
    // comparison about travel, not about the last bit of a double
    tf_gate_add(r, travel[j], travel_min, TUNNEL_GAP - 1e-9, 0);
    // against sqrt(v0^2 + 2 g d): the 2 % holds at 1 ms; at 10 ms semi-implicit
    // Euler's own free fall from 0.5 m/s arrives 2.3 % slow (its positions run half a step
    // ahead of its velocities), contact or not, so there the number is reported, and the
    // braking question is asked against the integrator's own contact-free fall below
    tf_gate_add(r, seat[j], seat_error, j == 0 ? 0.02 : INFINITY, 1);
    // braking on the way in: the seat speed against the same integrator's contact-free fall
    tf_gate_add(r, braking[j], brake, 0.005, 1);
  }
  free(m);
}

const tf_task_gate tf_gate_peg_crisp = {
    "peg_crisp",
    "CRISP peg insertion (50 x 100 mm, 0.5 deg tilt, mu 0.01, dropped; al, dt 2 ms) seats at "
    "200 / 100 / 50 um clearance with mean penetration under 25 um",
    run_crisp,
};

const tf_task_gate tf_gate_peg_tunnel = {
    "peg_tunnel",
    "peg fired at 0.5 / 2 / 8 m/s from 30 mm above its seat, 4 perturbed environments, al at "
    "dt 1 and 10 ms: no through-penetration or fly-through, full travel, no braking on the way "
    "in (seat speed within 0.5 % of the integrator's free fall; within 2 % of sqrt(v0^2 + 2 g d) "
    "at 1 ms, reported at 10 ms where Euler's own free fall is 2.3 % slow)",
    run_tunnel,
};
