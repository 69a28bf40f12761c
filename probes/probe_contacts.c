// Contacts probe: contact counts before and after per-pair reduction, and the contacts the
// buffer could not hold. An overflow drops contacts and lets parts sink through one another,
// so it is summed over the run and reported, never left silent.
#include <math.h>

#include "probes.h"

void tf_contacts_init(tf_contacts_probe* p) {
  p->nstep = 0;
  p->sum_after = p->sum_before = 0;
  p->max_after = p->max_before = 0;
  p->overflow = p->merged = 0;
  p->pairs_searched = p->pairs_recalled = 0;
}

void tf_contacts_observe(tf_contacts_probe* p, int after, int before, int merged, int overflow) {
  p->nstep++;
  p->sum_after += after;
  p->sum_before += before;
  if (after > p->max_after) p->max_after = after;
  if (before > p->max_before) p->max_before = before;
  p->merged += merged;
  p->overflow += overflow;
}

void tf_contacts_observe_pairs(tf_contacts_probe* p, int searched, int recalled) {
  p->pairs_searched += searched;
  p->pairs_recalled += recalled;
}

void tf_contacts_finish(const tf_contacts_probe* p, tf_metrics* out) {
  double n = (double)p->nstep;
  tf_metrics_set(out, "contacts.mean", p->nstep > 0 ? p->sum_after / n : NAN);
  tf_metrics_set_int(out, "contacts.max", p->max_after);
  tf_metrics_set(out, "contacts.candidates_mean", p->nstep > 0 ? p->sum_before / n : NAN);
  tf_metrics_set_int(out, "contacts.candidates_max", p->max_before);
  tf_metrics_set_int(out, "contacts.merged", p->merged);
  tf_metrics_set_int(out, "contacts.overflow", p->overflow);
  long pairs = p->pairs_searched + p->pairs_recalled;
  tf_metrics_set(out, "contacts.recalled", pairs > 0 ? (double)p->pairs_recalled / pairs : NAN);
}
