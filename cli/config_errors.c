// A config's problems, collected (see config_errors.h).
#include "config_errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int tf_config_fail(tf_config_errors* e, const char* fmt, ...) {
  if (e->n >= TF_CONFIG_MAX_ERRORS) {
    e->more++;
    return -1;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg[e->n++], TF_CONFIG_ERROR_LEN, fmt, ap);
  va_end(ap);
  return -1;
}

int tf_config_oom(tf_config_errors* e) {
  e->fatal = 1;
  return tf_config_fail(e, "out of memory");
}

void tf_config_errors_join(const tf_config_errors* e, const char* prefix, char* err,
                           size_t errlen) {
  if (errlen == 0) return;
  const size_t tail = 32 + strlen(prefix);  // room kept for the "... and N more" line
  size_t at = 0;
  int more = e->more;
  err[0] = 0;
  for (int i = 0; i < e->n; i++) {
    size_t need = (at ? 1 : 0) + strlen(prefix) + strlen(e->msg[i]);
    int last = i == e->n - 1 && more == 0;
    // the first line is always written (cut short if it must): an empty err would say nothing
    if (i > 0 && at + need + (last ? 0 : tail) >= errlen) {
      more += e->n - i;
      break;
    }
    at += (size_t)snprintf(err + at, errlen - at, "%s%s%s", at ? "\n" : "", prefix, e->msg[i]);
    if (at >= errlen) at = errlen - 1;
  }
  if (more > 0 && at + 1 < errlen) {
    snprintf(err + at, errlen - at, "%s%s... and %d more", at ? "\n" : "", prefix, more);
  }
}
