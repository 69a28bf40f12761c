// A run's "why": the failed criteria of its task's success rule, in words, so that a report
// says what missed without its reader knowing the rule's thresholds.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "task.h"

void tf_why_add(char why[TF_METRIC_TEXT_LEN], const char* fmt, ...) {
  size_t n = strnlen(why, TF_METRIC_TEXT_LEN - 1);
  if (n > 0 && n + 2 < TF_METRIC_TEXT_LEN) {
    memcpy(why + n, "; ", 3);
    n += 2;
  }
  if (n + 1 >= TF_METRIC_TEXT_LEN) return;  // full: the first criteria are the ones kept
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why + n, TF_METRIC_TEXT_LEN - n, fmt, ap);
  va_end(ap);
}

void tf_why_overlap(char why[TF_METRIC_TEXT_LEN], double peak, double allowed) {
  if (peak <= allowed) return;
  if (peak != peak) {
    tf_why_add(why, "overlap not measured");
  } else {
    tf_why_add(why, "overlap peak %.0f um > %.0f um allowed", peak * 1e6, allowed * 1e6);
  }
}
