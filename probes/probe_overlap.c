// Overlap probe: the deepest penetration of one part's surface samples into the other part's
// SDF, per control step. Only steps in contact enter the mean, so a part that spends most of
// the run in the air does not dilute its penetration (CRISP's penetration metric). The floor
// (sampling plus SDF error) travels with the numbers: a peak below it is not a measurement.
#include <math.h>

#include "probes.h"

void tf_overlap_init(tf_overlap_probe* p, double contact_m, double floor) {
  p->contact_m = contact_m;
  p->floor = floor;
  p->nstep = 0;
  p->ncontact = 0;
  p->peak = 0;
  p->sum = 0;
  p->last = INFINITY;
}

void tf_overlap_observe(tf_overlap_probe* p, double deepest) {
  p->nstep++;
  p->last = deepest;
  // NaN (a state gone bad) is no measurement; the divergence probe reports it
  if (!(deepest < p->contact_m)) return;
  double depth = fmax(0.0, -deepest);
  p->ncontact++;
  p->sum += depth;
  p->peak = fmax(p->peak, depth);
}

void tf_overlap_finish(const tf_overlap_probe* p, tf_metrics* out) {
  int seen = p->nstep > 0;
  tf_metrics_set(out, "overlap.peak_m", seen ? p->peak : NAN);
  double mean = p->ncontact > 0 ? p->sum / (double)p->ncontact : 0.0;
  tf_metrics_set(out, "overlap.mean_m", seen ? mean : NAN);
  tf_metrics_set(out, "overlap.floor_m", p->floor);
  tf_metrics_set_int(out, "overlap.contact_steps", p->ncontact);
}
