// A sweep's results.jsonl read back for the report: every line that is a JSON object becomes a
// row; a line that is not (a run cut short mid-write, a hand edit) is skipped and remembered
// with its line number and reason, never fatal, so one bad line cannot hide a day of runs.
#ifndef TF_RESULTS_LOAD_H
#define TF_RESULTS_LOAD_H

#include <cJSON.h>
#include <stddef.h>

#define TF_RESULTS_SKIP_MAX 32  // skipped lines described one by one; the rest only counted

// what a report reads, so that a file that never ends (a link to /dev/zero, a line gigabytes
// long, a runaway writer) is an error and not memory without end: a run's row is a few KB
// (at most TF_METRICS_MAX metrics), a sweep a few thousand rows
#define TF_RESULTS_LINE_MAX (1 << 20)           // bytes in one line
#define TF_RESULTS_ROWS_MAX 100000              // rows in the file
#define TF_RESULTS_BYTES_MAX ((size_t)1 << 30)  // bytes in the file

typedef struct tf_results_skip {
  int line;      // 1-based line number in the file
  char why[96];  // "not valid JSON at column 17", "not a JSON object", ...
} tf_results_skip;

typedef struct tf_results {
  int nrow;
  cJSON** row;     // (nrow) one JSON object per run, in file order (owned)
  int* line;       // (nrow) the line each row came from
  int nskipped;    // lines skipped as corrupt
  int nskip_kept;  // of those, described in skip[] (at most TF_RESULTS_SKIP_MAX)
  tf_results_skip skip[TF_RESULTS_SKIP_MAX];
} tf_results;

// reads a JSON-lines file; blank lines are ignored, a line holding a NUL byte is skipped. 0 on
// success (even with no rows), -1 with a one-line message naming the file when it cannot be
// opened or read, is not a regular file (a FIFO, a device), passes one of the limits above,
// or memory runs out; then r holds no rows. r is always left safe to pass to tf_results_free.
int tf_results_load(tf_results* r, const char* path, char* err, size_t errlen);
void tf_results_free(tf_results* r);

// row[key] as a finite number (1), or 0 when absent, null, not a number or not finite
int tf_results_number(const cJSON* row, const char* key, double* out);
// row[key] as a string, or NULL
const char* tf_results_text(const cJSON* row, const char* key);
// row[key] as a boolean (1 true / 0 false) in *out; returns 0 when absent or not a boolean
int tf_results_bool(const cJSON* row, const char* key, int* out);

#endif  // TF_RESULTS_LOAD_H
