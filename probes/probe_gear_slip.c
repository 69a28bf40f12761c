// Gear slip probe: how far each follower of a driven gear train falls short of the turn its
// tooth counts demand.
//
// With gear 0 driving and follower f meshing through the train, f should turn by
// r_f = sign_f N_0 / N_f times the input's turn (the sign alternates along the chain). Two
// measures, both from the unwrapped angles a_f(t):
//   - the angle error since the measurement starts at t0 (spin-up excluded),
//       e_f(t) = (a_f(t) - a_f(t0)) - r_f (a_0(t) - a_0(t0)),
//     whose worst |e_f| in units of the follower's tooth pitch 2 pi / N_f is skipped_teeth:
//     1 or more means a tooth jumped, whatever the mean ratio says afterwards;
//   - the mean speed ratio over the last `window` seconds, (da_f / da_0) / r_f - 1, which is
//     the steady slip a velocity-servoed train shows (the reference's "slip under 5 %").
// Both need the input to turn: over that window it must turn by min_input_turn, else the
// ratio is 0 / 0 and a dead drive would read as a perfect train, so max and skipped_teeth
// become NaN and ok false.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes.h"

static const double two_pi = 6.283185307179586476925286766559;

// the demanded turn of follower f per radian of the input
static double demanded_ratio(const tf_gear_slip_probe* p, int f) {
  return p->sign[f] * (double)p->teeth[0] / (double)p->teeth[f];
}

int tf_gear_slip_init(tf_gear_slip_probe* p, int ngear, const int* teeth, const int* sign,
                      double t0, double window, double min_input_turn, long window_steps) {
  memset(p, 0, sizeof(*p));
  if (ngear < 1 || ngear > TF_PROBE_MAX_GEARS) return -1;
  p->ngear = ngear;
  for (int g = 0; g < ngear; g++) {
    p->teeth[g] = teeth[g];
    p->sign[g] = sign ? sign[g] : 1;
  }
  p->t0 = t0;
  p->window = window;
  p->min_input_turn = min_input_turn;
  // window_steps intervals need one sample more, and a spare absorbs rounding of the times
  if (window_steps < 1) window_steps = 1;
  p->hist_cap = (int)window_steps + 2;
  p->hist = malloc(sizeof(double) * (size_t)p->hist_cap * (size_t)(1 + ngear));
  if (!p->hist) return -1;
  p->t_last = NAN;
  return 0;
}

void tf_gear_slip_observe(tf_gear_slip_probe* p, double t, const double* angles) {
  int n = p->ngear;
  if (p->nstep == 0) memcpy(p->angle_first, angles, sizeof(double) * (size_t)n);
  memcpy(p->angle_last, angles, sizeof(double) * (size_t)n);
  p->t_last = t;
  p->nstep++;
  if (t < p->t0) return;
  if (!p->started) {
    memcpy(p->start, angles, sizeof(double) * (size_t)n);
    p->started = 1;
  }
  double input = angles[0] - p->start[0];
  for (int f = 1; f < n; f++) {
    double e = (angles[f] - p->start[f]) - demanded_ratio(p, f) * input;
    p->err_max[f] = fmax(p->err_max[f], fabs(e));
  }
  // the ring keeps the newest hist_cap samples: the oldest is overwritten when full
  int slot;
  if (p->nhist < p->hist_cap) {
    slot = (p->hist_head + p->nhist) % p->hist_cap;
    p->nhist++;
  } else {
    slot = p->hist_head;
    p->hist_head = (p->hist_head + 1) % p->hist_cap;
  }
  double* row = p->hist + (size_t)slot * (size_t)(1 + n);
  row[0] = t;
  memcpy(row + 1, angles, sizeof(double) * (size_t)n);
}

double tf_gear_slip_error(const tf_gear_slip_probe* p, int f) {
  // the expression tf_gear_slip_observe takes |e_f| of, so that the two agree to the bit
  if (f < 1 || f >= p->ngear || !p->started || !(p->t_last >= p->t0)) return NAN;
  double input = p->angle_last[0] - p->start[0];
  return (p->angle_last[f] - p->start[f]) - demanded_ratio(p, f) * input;
}

// the ring's i-th oldest sample
static const double* hist_row(const tf_gear_slip_probe* p, int i) {
  int slot = (p->hist_head + i) % p->hist_cap;
  return p->hist + (size_t)slot * (size_t)(1 + p->ngear);
}

void tf_gear_slip_finish(const tf_gear_slip_probe* p, tf_metrics* out) {
  int n = p->ngear;
  const double* newest = NULL;
  const double* oldest = NULL;
  if (p->nhist >= 2) {
    newest = hist_row(p, p->nhist - 1);
    // the oldest sample inside the window; sample times are sums of steps, so a sample
    // exactly one window back may read a hair earlier
    double from = newest[0] - p->window - (1e-9 + 1e-6 * p->window);
    for (int i = 0; i < p->nhist - 1 && !oldest; i++) {
      if (hist_row(p, i)[0] >= from) oldest = hist_row(p, i);
    }
  }
  double input_turn = oldest ? fabs(newest[1] - oldest[1]) : NAN;
  int turns = oldest && input_turn >= p->min_input_turn;

  double worst_ratio = 0, worst_teeth = 0;
  char name[TF_METRIC_NAME];
  for (int f = 1; f < n; f++) {
    double err = NAN;
    if (turns) {
      double ratio = (newest[1 + f] - oldest[1 + f]) / (newest[1] - oldest[1]);
      err = fabs(ratio / demanded_ratio(p, f) - 1);
      // a NaN error (a state gone bad) must win over finite ones, so no fmax here
      if (!(err <= worst_ratio)) worst_ratio = err;
      double teeth = p->err_max[f] * p->teeth[f] / two_pi;
      if (!(teeth <= worst_teeth)) worst_teeth = teeth;
    }
    snprintf(name, sizeof(name), "gear_slip.f%d", f);
    tf_metrics_set(out, name, err);
  }
  tf_metrics_set(out, "gear_slip.max", turns ? worst_ratio : NAN);
  tf_metrics_set(out, "gear_slip.skipped_teeth", turns ? worst_teeth : NAN);
  tf_metrics_set(out, "gear_slip.input_turn_rad", input_turn);
  tf_metrics_set_bool(out, "gear_slip.input_turns", turns);
  tf_metrics_set_bool(out, "gear_slip.ok", turns && worst_teeth < 1);
}

void tf_gear_slip_free(tf_gear_slip_probe* p) {
  free(p->hist);
  p->hist = NULL;
  p->hist_cap = p->nhist = p->hist_head = 0;
}
