// The problems found in a config file, collected instead of stopping at the first, so that a
// file with several mistakes is fixed in one edit rather than one run per mistake. The first
// TF_CONFIG_MAX_ERRORS are kept in full, the rest only counted ("... and 5 more"). Checks call
// tf_config_fail and carry on with whatever does not depend on the bad part; the caller joins
// the messages into one line each for the user.
#ifndef TF_CONFIG_ERRORS_H
#define TF_CONFIG_ERRORS_H

#include <stddef.h>

#define TF_CONFIG_MAX_ERRORS 20   // problems listed in full; more are only counted
#define TF_CONFIG_ERROR_LEN 1024  // bytes of one problem's message
// an err buffer that holds every line tf_config_errors_join writes (a longer prefix or
// message only moves lines into the "... and N more" count)
#define TF_CONFIG_ERRORS_TEXT ((TF_CONFIG_MAX_ERRORS + 1) * (TF_CONFIG_ERROR_LEN + 512))

typedef struct tf_config_errors {
  int n;      // messages kept in msg
  int more;   // problems found after msg was full
  int fatal;  // out of memory: checking stopped there (what was half built is not checked)
  char msg[TF_CONFIG_MAX_ERRORS][TF_CONFIG_ERROR_LEN];
} tf_config_errors;

// records one problem ("JSON.PATH: what is wrong"); returns -1 so that a check can
// `return tf_config_fail(...)`
int tf_config_fail(tf_config_errors* e, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// records "out of memory" and sets e->fatal; returns -1
int tf_config_oom(tf_config_errors* e);

// the problems as lines, each the prefix followed by the message, joined by newlines (no
// trailing one), then the prefix and "... and N more" when some were only counted; a line that does
// not fit in err is counted too, so that the count stays true whatever errlen is
void tf_config_errors_join(const tf_config_errors* e, const char* prefix, char* err, size_t errlen);

#endif  // TF_CONFIG_ERRORS_H
