// Per-stage timers (private): each stage of a step adds its seconds to d->timer[]. Building
// with TF_TIMERS=0 (`make TIMERS=0`) compiles the stages' clock reads out, for measuring
// what the timers themselves cost; the whole step's time (TF_TIMER_STEP) stays, since the
// throughput probe's steps per second are made of it.
#ifndef TF_STAGE_TIMER_H
#define TF_STAGE_TIMER_H

#include "tightfit.h"

#ifndef TF_TIMERS
#define TF_TIMERS 1
#endif

// the clock at a stage's start (0 with the timers compiled out)
static inline double tf_stage_start(void) { return TF_TIMERS ? tf_clock() : 0; }

// seconds since t0 from tf_stage_start (0 with the timers compiled out)
static inline double tf_stage_since(double t0) { return TF_TIMERS ? tf_clock() - t0 : 0; }

// adds the seconds since t0 to stage k of d's timers
static inline void tf_stage_add(tf_data* d, tf_timer k, double t0) {
  if (TF_TIMERS) d->timer[k] += tf_clock() - t0;
}

#endif  // TF_STAGE_TIMER_H
