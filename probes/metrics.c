// Named metrics of a run (see metrics.h).
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void tf_metrics_clear(tf_metrics* m) {
  m->n = 0;
  m->overflow = 0;
}

// the slot for name: the existing one, or a new one at the end; NULL when full
static tf_metric* slot(tf_metrics* m, const char* name) {
  for (int i = 0; i < m->n; i++) {
    if (strncmp(m->item[i].name, name, TF_METRIC_NAME - 1) == 0) return &m->item[i];
  }
  if (m->n >= TF_METRICS_MAX) {
    m->overflow++;
    return NULL;
  }
  tf_metric* s = &m->item[m->n++];
  memset(s, 0, sizeof(*s));
  snprintf(s->name, sizeof(s->name), "%s", name);
  return s;
}

static void set_kind(tf_metrics* m, const char* name, tf_metric_kind kind, double value) {
  tf_metric* s = slot(m, name);
  if (!s) return;
  s->kind = kind;
  s->value = value;
  s->text[0] = 0;
}

void tf_metrics_set(tf_metrics* m, const char* name, double value) {
  set_kind(m, name, TF_METRIC_NUMBER, value);
}

void tf_metrics_set_int(tf_metrics* m, const char* name, long value) {
  set_kind(m, name, TF_METRIC_INT, (double)value);
}

void tf_metrics_set_bool(tf_metrics* m, const char* name, int value) {
  set_kind(m, name, TF_METRIC_BOOL, value ? 1 : 0);
}

void tf_metrics_set_text(tf_metrics* m, const char* name, const char* text) {
  tf_metric* s = slot(m, name);
  if (!s) return;
  s->kind = TF_METRIC_TEXT;
  s->value = NAN;
  snprintf(s->text, sizeof(s->text), "%s", text ? text : "");
}

const tf_metric* tf_metrics_find(const tf_metrics* m, const char* name) {
  for (int i = 0; i < m->n; i++) {
    if (strncmp(m->item[i].name, name, TF_METRIC_NAME - 1) == 0) return &m->item[i];
  }
  return NULL;
}

double tf_metrics_get(const tf_metrics* m, const char* name) {
  const tf_metric* s = tf_metrics_find(m, name);
  return s && s->kind != TF_METRIC_TEXT ? s->value : NAN;
}

const char* tf_metrics_text(const tf_metrics* m, const char* name) {
  const tf_metric* s = tf_metrics_find(m, name);
  return s && s->kind == TF_METRIC_TEXT ? s->text : NULL;
}
