// One run's metrics as JSON or CSV cells (see metrics_format.h).
#include "metrics_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_exact.h"

cJSON* tf_metrics_to_json(const tf_metrics* m) {
  cJSON* o = cJSON_CreateObject();
  if (!o) return NULL;
  for (int i = 0; i < m->n; i++) {
    const tf_metric* mi = &m->item[i];
    cJSON* v = NULL;
    switch (mi->kind) {
      case TF_METRIC_TEXT:
        v = cJSON_CreateString(mi->text);
        break;
      case TF_METRIC_BOOL:
        v = cJSON_CreateBool(mi->value != 0);
        break;
      default:
        v = isfinite(mi->value) ? cJSON_CreateNumber(mi->value) : cJSON_CreateNull();
        break;
    }
    if (!v) {
      cJSON_Delete(o);
      return NULL;
    }
    cJSON_AddItemToObject(o, mi->name, v);
  }
  return o;
}

char* tf_metrics_json_line(const tf_metrics* m) {
  cJSON* o = tf_metrics_to_json(m);
  if (!o) return NULL;
  // cJSON's own printer rounds to 15 digits when that is "close enough": exact digits instead
  char* s = tf_json_print(o, 0);
  cJSON_Delete(o);
  return s;
}

size_t tf_metric_csv_cell(const tf_metric* mi, char* out, size_t n) {
  if (n == 0) return 0;
  int w = 0;
  switch (mi->kind) {
    case TF_METRIC_TEXT: {
      int quote = strpbrk(mi->text, ",\"\n\r") != NULL;
      size_t at = 0;
      if (quote && at + 1 < n) out[at++] = '"';
      for (const char* c = mi->text; *c && at + 1 < n; c++) {
        if (*c == '"' && at + 2 < n) out[at++] = '"';
        out[at++] = *c;
      }
      if (quote && at + 1 < n) out[at++] = '"';
      out[at] = 0;
      return at;
    }
    case TF_METRIC_BOOL:
      w = snprintf(out, n, "%s", mi->value != 0 ? "true" : "false");
      break;
    default: {
      // counts and numbers alike: the digits results.jsonl carries, so the files agree
      if (!isfinite(mi->value)) {
        w = snprintf(out, n, "%s", "");
        break;
      }
      char text[TF_NUMBER_TEXT];
      tf_number_text(text, mi->value);
      w = snprintf(out, n, "%s", text);
      break;
    }
  }
  if (w < 0) w = 0;
  return (size_t)w < n ? (size_t)w : n - 1;
}
