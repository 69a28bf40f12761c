// Named metrics of a run: what probes and tasks report, in the order they were set. Plain
// fixed-size storage (no allocation), so a run's results can be copied between threads and
// written as a CSV row or a JSON object by the reports layer.
#ifndef TF_METRICS_H
#define TF_METRICS_H

#define TF_METRICS_MAX 160
#define TF_METRIC_NAME 48
#define TF_METRIC_TEXT_LEN 192  // texts hold error messages and commands

typedef enum tf_metric_kind {
  TF_METRIC_NUMBER = 0,  // a real number; NaN means "does not apply" (JSON null, empty CSV)
  TF_METRIC_INT,         // a count
  TF_METRIC_BOOL,        // 0 or 1 (JSON true / false)
  TF_METRIC_TEXT,        // a short string (status, task, solver ...)
} tf_metric_kind;

typedef struct tf_metric {
  char name[TF_METRIC_NAME];  // "tunnel.through", "overlap.peak_m", ...
  tf_metric_kind kind;
  double value;
  char text[TF_METRIC_TEXT_LEN];  // TF_METRIC_TEXT only
} tf_metric;

typedef struct tf_metrics {
  int n;
  int overflow;  // metrics that did not fit (a programming error, reported by the writers)
  tf_metric item[TF_METRICS_MAX];
} tf_metrics;

void tf_metrics_clear(tf_metrics* m);

// set (or replace, keeping its place) a metric; names longer than TF_METRIC_NAME - 1 are cut
void tf_metrics_set(tf_metrics* m, const char* name, double value);
void tf_metrics_set_int(tf_metrics* m, const char* name, long value);
void tf_metrics_set_bool(tf_metrics* m, const char* name, int value);
void tf_metrics_set_text(tf_metrics* m, const char* name, const char* text);

// the metric of that name, or NULL
const tf_metric* tf_metrics_find(const tf_metrics* m, const char* name);
// its value, or NaN when absent (texts: NaN)
double tf_metrics_get(const tf_metrics* m, const char* name);
// its text, or NULL when absent or not a text
const char* tf_metrics_text(const tf_metrics* m, const char* name);

#endif  // TF_METRICS_H
