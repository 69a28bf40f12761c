// One run's metrics as a JSON object or CSV cells: the single place that decides how a
// number, a count, a boolean, a text and a missing value are written, so that `tightfit run
// --json`, results.jsonl and results.csv agree.
#ifndef TF_METRICS_FORMAT_H
#define TF_METRICS_FORMAT_H

#include <cJSON.h>
#include <stddef.h>

#include "metrics.h"

// a flat JSON object, keys in the metrics' order: numbers (print it with tf_json_print, not
// cJSON_Print, to keep every digit), NaN and inf as null, booleans as true / false, texts as
// strings
cJSON* tf_metrics_to_json(const tf_metrics* m);

// the object as one line (no newline), numbers exact (tf_number_text); malloc'd, NULL when
// out of memory
char* tf_metrics_json_line(const tf_metrics* m);

// one CSV cell for metric value mi: numbers and counts as tf_number_text writes them (the
// JSONL's digits), NaN / inf empty, booleans true / false,
// texts quoted when they hold a comma, quote or newline (quotes doubled); returns the length
// written (truncated to n - 1)
size_t tf_metric_csv_cell(const tf_metric* mi, char* out, size_t n);

#endif  // TF_METRICS_FORMAT_H
