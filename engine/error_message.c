// One-line error messages (see error_message.h).
#include "error_message.h"

#include <stdarg.h>
#include <stdio.h>

int tf_fail(char* err, size_t errlen, const char* fmt, ...) {
  if (err && errlen > 0) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, errlen, fmt, args);
    va_end(args);
  }
  return -1;
}
