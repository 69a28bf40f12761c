// Merging the metrics of a run's environments into one row (see probes.h for the rules).
//
// A count (an integer metric that is not a maximum: contacts.overflow, contacts.merged,
// solver.capped, ...) adds up over the environments, as the README promises: a contact
// overflow in one of eight environments must read 1, not 0.125, or it would pass for none.
//
// NaN means "does not apply" (a gear probe whose input did not turn, a run that did not
// diverge), so worst and mean skip it and a metric is NaN only when no environment had a
// value. Every metric of any environment appears, in the order first seen.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probes.h"

typedef enum merge_rule {
  MERGE_COUNT = 0,  // environments where the flag is set
  MERGE_ALL,        // booleans: all of them
  MERGE_MAX,        // the worst is the largest
  MERGE_MIN,        // the worst is the smallest (deepest, least travelled)
  MERGE_SUM,        // counts of events: the run's total
  MERGE_MEAN,
  MERGE_FIRST,  // texts
  MERGE_WHY,    // "why": the first environment that missed, and how many others did
} merge_rule;

static int ends_with(const char* s, const char* suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static merge_rule rule_of(const tf_metric* m) {
  const char* name = m->name;
  if (m->kind == TF_METRIC_TEXT) return strcmp(name, "why") == 0 ? MERGE_WHY : MERGE_FIRST;
  // how many environments tunnelled or diverged is the number a sweep plots
  if (strcmp(name, "tunnel.through") == 0 || strcmp(name, "tunnel.flythrough") == 0 ||
      strcmp(name, "divergence.diverged") == 0) {
    return MERGE_COUNT;
  }
  if (m->kind == TF_METRIC_BOOL) return MERGE_ALL;
  // a part that barely moved must not hide behind one that travelled
  if (strcmp(name, "tunnel.travel_m") == 0 || ends_with(name, "depth_min_m")) return MERGE_MIN;
  if (ends_with(name, "peak_m") || ends_with(name, ".max") || ends_with(name, "_max") ||
      ends_with(name, "_max_m") || ends_with(name, "skipped_teeth") ||
      ends_with(name, "residual_max")) {
    return MERGE_MAX;
  }
  // an integer that is not a maximum counts events (contacts.overflow, solver.capped, ...)
  if (m->kind == TF_METRIC_INT) return MERGE_SUM;
  return MERGE_MEAN;
}

// a run's "why" over its environments: empty when none missed; one environment's reason as
// it is; else the first that missed, named, and how many more did ("env 3: not seated: ...
// (and 2 more envs)"), so a report reads the reason of any miss, not only environment 0's
static void merge_why(tf_metrics* out, const char* name, const tf_metrics* env, int n) {
  int first = -1, more = 0;
  for (int e = 0; e < n; e++) {
    const tf_metric* m = tf_metrics_find(&env[e], name);
    if (!m || m->kind != TF_METRIC_TEXT || !m->text[0]) continue;
    if (first < 0) {
      first = e;
    } else {
      more++;
    }
  }
  if (first < 0 || n == 1) {
    const tf_metric* m = first < 0 ? NULL : tf_metrics_find(&env[first], name);
    tf_metrics_set_text(out, name, m ? m->text : "");
    return;
  }
  char why[TF_METRIC_TEXT_LEN], tail[48] = "";
  if (more) snprintf(tail, sizeof tail, " (and %d more env%s)", more, more > 1 ? "s" : "");
  // the tail is kept whole; the reason gives way when the text fills up
  size_t at = (size_t)snprintf(why, sizeof why, "env %d: ", first);
  size_t room = sizeof why - 1 - strlen(tail);
  const char* text = tf_metrics_find(&env[first], name)->text;
  size_t len = strnlen(text, TF_METRIC_TEXT_LEN);
  if (at + len > room) len = room > at ? room - at : 0;
  memcpy(why + at, text, len);
  memcpy(why + at + len, tail, strlen(tail) + 1);
  tf_metrics_set_text(out, name, why);
}

static void merge_one(tf_metrics* out, const char* name, const tf_metric* first,
                      const tf_metrics* env, int n) {
  merge_rule rule = rule_of(first);
  if (rule == MERGE_FIRST) {
    tf_metrics_set_text(out, name, first->text);
    return;
  }
  if (rule == MERGE_WHY) {
    merge_why(out, name, env, n);
    return;
  }
  long count = 0, seen = 0;
  int all = 1;
  double sum = 0, worst = NAN;
  for (int e = 0; e < n; e++) {
    const tf_metric* m = tf_metrics_find(&env[e], name);
    if (!m || m->kind == TF_METRIC_TEXT) continue;
    double v = m->value;
    if (v == 1) count++;
    if (v != 1) all = 0;
    if (isnan(v)) continue;
    seen++;
    sum += v;
    if (isnan(worst) || (rule == MERGE_MIN ? v < worst : v > worst)) worst = v;
  }
  switch (rule) {
    case MERGE_COUNT:
      tf_metrics_set_int(out, name, count);
      break;
    case MERGE_ALL:
      tf_metrics_set_bool(out, name, all);
      break;
    case MERGE_MAX:
    case MERGE_MIN:
      // a count stays a count
      if (first->kind == TF_METRIC_INT && !isnan(worst)) {
        tf_metrics_set_int(out, name, (long)worst);
      } else {
        tf_metrics_set(out, name, worst);
      }
      break;
    case MERGE_SUM:
      // NaN only when no environment had a value, as for the others
      if (seen > 0) {
        tf_metrics_set_int(out, name, (long)sum);
      } else {
        tf_metrics_set(out, name, NAN);
      }
      break;
    default:
      // a mean of counts is a number, whatever the counts were
      tf_metrics_set(out, name, seen > 0 ? sum / (double)seen : NAN);
      break;
  }
}

void tf_metrics_merge_envs(tf_metrics* out, const tf_metrics* env, int n) {
  tf_metrics_clear(out);
  for (int e = 0; e < n; e++) {
    for (int i = 0; i < env[e].n; i++) {
      const tf_metric* m = &env[e].item[i];
      // already merged from an earlier environment that had it
      if (tf_metrics_find(out, m->name)) continue;
      merge_one(out, m->name, m, env, n);
    }
  }
  tf_metrics_set_int(out, "envs", n);
}
