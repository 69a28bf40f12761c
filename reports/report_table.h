// The report's summary table: one row per run, coloured by outcome, with the command that
// reproduces it. Private to the reports layer (report.c is its user).
#ifndef TF_REPORT_TABLE_H
#define TF_REPORT_TABLE_H

#include <cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "results_load.h"

// how a run went, as the table colours it
typedef enum tf_run_outcome {
  TF_RUN_PASS = 0,  // status ok and success true, nothing tunnelled
  TF_RUN_MISS,      // ran cleanly but the task was not achieved (success false)
  TF_RUN_FAIL,      // status failed or diverged, or an environment tunnelled
  TF_RUN_UNKNOWN,   // ran, but the row says nothing about success
  TF_RUN_NOUTCOME
} tf_run_outcome;

tf_run_outcome tf_report_outcome(const cJSON* row);

// what did not pass, in words, into buf (empty for a pass): the status and error of a failed or
// diverged run, the tunnelled environments, else the task's "why" metric
void tf_report_why(char* buf, size_t n, const cJSON* row);

// the row class for an outcome: "pass", "miss", "fail", "unknown"
const char* tf_report_outcome_name(tf_run_outcome o);

// writes the counts line, the colour key and the <table id="runs">; counts[TF_RUN_NOUTCOME]
// receives the number of runs of each outcome when not NULL
void tf_report_table_write(FILE* f, const tf_results* r, int counts[TF_RUN_NOUTCOME]);

#endif  // TF_REPORT_TABLE_H
