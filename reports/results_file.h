// A sweep's results on disk: DIR/results.jsonl holds one JSON object per finished run (the
// full record, and the file --resume trusts), DIR/results.csv the same runs as a tidy table
// (one row per run, one column per parameter and metric).
//
// Crash safety: each row is one write() of a whole line on an O_APPEND descriptor, JSONL
// first, so a crash or Ctrl-C leaves at most one partial last line; a short write is cut
// back off at once. tf_results_recover repairs what a crash can leave: it cuts a partial
// last JSONL line, and rewrites the CSV from the JSONL (temporary file + rename) when the two
// disagree, so the CSV never holds a half row nor misses a row the JSONL has.
//
// CSV columns are fixed once, by the first row that ran (a row with an error, a run that could
// not start or build, waits in memory until one did, so its few columns do not narrow the
// table): run_id, that row's
// metrics in order with the known parameter columns it lacks inserted before "status",
// command, error. A later row's metric outside that set goes to the JSONL only
// (tf_results_csv_missing names it), so every CSV row lines up with the header while the sweep
// runs; tf_results_widen adds those columns once it is over, and tf_results_recover when a
// resumed sweep starts (a killed sweep never got to widen).
#ifndef TF_RESULTS_FILE_H
#define TF_RESULTS_FILE_H

#include <stddef.h>

#include "metrics.h"

#define TF_RESULTS_ID_MAX 64  // longest run id the files carry, NUL included

// one finished run
typedef struct tf_results_row {
  const char* run_id;         // the run's stable id (column "run_id")
  const char* command;        // the command that reproduces it, or NULL
  const char* error;          // NULL, or why the run could not start (then metrics is partial)
  const tf_metrics* metrics;  // the row's parameters and metrics
} tf_results_row;

typedef struct tf_results_file tf_results_file;

// opens DIR/results.jsonl and DIR/results.csv for appending (creating them); an existing
// CSV's header fixes the columns. known: parameter columns the header must have even when the
// first row lacks them (another task's parameters). Not thread-safe: serialize appends.
// Returns 0, or -1 with "PATH: problem"
int tf_results_open(tf_results_file** out, const char* dir, const char* const* known, int nknown,
                    char* err, size_t errlen);

// appends one row to both files; returns 0, or -1 with "PATH: problem" (the files are left
// as they were before the call)
int tf_results_append(tf_results_file* f, const tf_results_row* row, char* err, size_t errlen);

// metric names seen in rows that the CSV header had no column for (written to the JSONL
// only): their count, and the first of them in *first (NULL when none)
int tf_results_csv_missing(const tf_results_file* f, const char** first);

// writes out any rows still waiting for the header, fsyncs both files and the folder, closes
// and frees; returns 0, or -1 with a message (f is freed either way)
int tf_results_close(tf_results_file* f, char* err, size_t errlen);

// after a sweep whose later rows brought metrics the CSV had no column for (another task's,
// say): rewrites DIR/results.csv from DIR/results.jsonl (temporary file + rename) with a
// column for each of them, before command and error, so that the finished table holds every
// metric; *added gets their count (0: nothing to do, the file is left alone). Returns 0, or
// -1 with a message (the CSV is then as it was)
int tf_results_widen(const char* dir, int* added, char* err, size_t errlen);

// what a previous sweep finished, for --resume
typedef struct tf_results_done {
  int n;
  char (*id)[TF_RESULTS_ID_MAX];  // (n) finished run ids, sorted, unique
  long dropped_bytes;             // partial last line cut from results.jsonl
  int bad_lines;                  // complete JSONL lines that were not a row (ignored)
  int csv_rebuilt;                // results.csv was rewritten from results.jsonl
  int csv_added;                  // of its columns, those the old header lacked
} tf_results_done;

// reads DIR/results.jsonl (missing: nothing done), cuts a partial last line away, and makes
// DIR/results.csv agree with it (known as for tf_results_open): the same rows, and a column
// for every key of every row (the old header's columns in place, then the keys it lacked, as
// tf_results_widen writes them), so the columns of rows written before a crash are never lost
// to the narrower header the resumed sweep would otherwise keep. Returns 0, or -1 with a
// message
int tf_results_recover(const char* dir, const char* const* known, int nknown, tf_results_done* done,
                       char* err, size_t errlen);

// 1 when id is among the finished runs
int tf_results_done_has(const tf_results_done* done, const char* id);

void tf_results_done_free(tf_results_done* done);

#endif  // TF_RESULTS_FILE_H
