// `tightfit report DIR`: one self-contained DIR/report.html from a sweep's results
// (results.jsonl, plus config.json, machine.json and videos/ when present): a summary table
// with pass / fail colouring and each run's reproduce command, inline SVG plots, and the
// sweep's config and machine. No external scripts, styles or fonts: the file can be mailed,
// checked in or opened offline. The same inputs give the same bytes (no clock in the page).
//
// A missing or unreadable results.jsonl, or one with no valid run, is an error: a report with
// an empty table would hide a wrong directory or a sweep that never started. Corrupt lines are
// skipped, counted and listed (line number and reason) in the report and in tf_report_info.
#ifndef TF_REPORT_H
#define TF_REPORT_H

#include <stddef.h>

#include "results_load.h"

// what a report holds, for the CLI's summary
typedef struct tf_report_info {
  char path[4096];  // the report written: DIR/report.html
  int nrun;         // runs in the table
  int npass;        // ran, succeeded, nothing tunnelled
  int nmiss;        // ran but did not achieve the task
  int nfail;        // failed, diverged or tunnelled
  int nplot;        // plots drawn, of 4
  int nmedia;       // videos and thumbnails listed
  int nskipped;     // corrupt lines of results.jsonl skipped
  int nskip_kept;   // of those, described in skip[]
  tf_results_skip skip[TF_RESULTS_SKIP_MAX];
} tf_report_info;

// writes DIR/report.html atomically (temporary file, then rename: a reader never sees half a
// page); 0 on success, -1 with a one-line message in err naming the file at fault
int tf_report_write(const char* dir, char* err, size_t errlen);

// the same, also filling info (may be NULL)
int tf_report_write_info(const char* dir, tf_report_info* info, char* err, size_t errlen);

#endif  // TF_REPORT_H
