// Divergence probe: the first step at which the state stopped being a physical state (a
// NaN or inf, a runaway velocity, or a step the engine refused). Later steps change nothing:
// the first failure is the one to reproduce.
#include <math.h>

#include "probes.h"

enum { REASON_NONE = 0, REASON_NAN, REASON_RUNAWAY, REASON_STEP_FAILED };

static const char* const reason_names[] = {"none", "nan", "runaway", "step_failed"};

void tf_divergence_init(tf_divergence_probe* p, double runaway_speed) {
  p->runaway_speed = runaway_speed;
  p->nstep = 0;
  p->step = -1;
  p->time = NAN;
  p->reason = REASON_NONE;
}

void tf_divergence_observe(tf_divergence_probe* p, long step, double t, double speed_max,
                           int finite, int step_failed) {
  p->nstep++;
  if (p->step >= 0) return;
  int reason = REASON_NONE;
  if (!finite) {
    reason = REASON_NAN;
  } else if (step_failed) {
    reason = REASON_STEP_FAILED;
  } else if (!(speed_max <= p->runaway_speed)) {
    reason = REASON_RUNAWAY;
  }
  if (reason == REASON_NONE) return;
  p->step = step;
  p->time = t;
  p->reason = reason;
}

int tf_divergence_diverged(const tf_divergence_probe* p) { return p->step >= 0; }

void tf_divergence_finish(const tf_divergence_probe* p, tf_metrics* out) {
  int diverged = tf_divergence_diverged(p);
  tf_metrics_set_bool(out, "divergence.diverged", diverged);
  // numbers, not counts, so that "did not diverge" can be NaN (null) rather than a fake -1
  tf_metrics_set(out, "divergence.step", diverged ? (double)p->step : NAN);
  tf_metrics_set(out, "divergence.time_s", diverged ? p->time : NAN);
  int r = p->reason >= REASON_NONE && p->reason <= REASON_STEP_FAILED ? p->reason : REASON_NONE;
  tf_metrics_set_text(out, "divergence.reason", reason_names[r]);
}
