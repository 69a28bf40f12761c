// Throughput probe: physics and control steps per wall second, the real-time factor, and the
// mean time per step of each engine stage (the engine's own timers), so a slow configuration
// shows where its time goes.
#include <math.h>
#include <stdio.h>

#include "probes.h"

void tf_throughput_init(tf_throughput_probe* p) {
  p->nstep = 0;
  p->ncontrol = 0;
  p->sim_time = 0;
  p->wall = 0;
  for (int k = 0; k < TF_TIMER_N; k++) p->stage[k] = 0;
}

void tf_throughput_observe(tf_throughput_probe* p, double dt, double wall,
                           const double timer[TF_TIMER_N]) {
  p->nstep++;
  p->sim_time += dt;
  p->wall += wall;
  for (int k = 0; k < TF_TIMER_N; k++) p->stage[k] += timer[k];
}

// a / b, NaN when b is not positive (a rate over no time means nothing)
static double rate(double a, double b) { return b > 0 ? a / b : NAN; }

void tf_throughput_finish(const tf_throughput_probe* p, tf_metrics* out) {
  tf_metrics_set(out, "throughput.steps_per_s", rate((double)p->nstep, p->wall));
  tf_metrics_set(out, "throughput.env_steps_per_s", rate((double)p->ncontrol, p->wall));
  tf_metrics_set(out, "throughput.realtime_factor", rate(p->sim_time, p->wall));
  tf_metrics_set(out, "throughput.us_per_step", 1e6 * rate(p->wall, (double)p->nstep));
  char name[TF_METRIC_NAME];
  for (int k = 0; k < TF_TIMER_N; k++) {
    snprintf(name, sizeof(name), "throughput.%s_us", tf_timer_name((tf_timer)k));
    tf_metrics_set(out, name, 1e6 * rate(p->stage[k], (double)p->nstep));
  }
}
