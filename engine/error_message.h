// One-line error messages into a caller's buffer. Every layer reports bad input the same way:
// a message naming the problem in err, and -1 returned, so one helper serves them all.
#ifndef TF_ERROR_MESSAGE_H
#define TF_ERROR_MESSAGE_H

#include <stddef.h>

// formats a one-line message into err (nothing when err is NULL or errlen 0) and returns -1
int tf_fail(char* err, size_t errlen, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

#endif  // TF_ERROR_MESSAGE_H
