// Robot-mode gates' common loop (issue 7: "succeed on at least 9 of 10 seeds with randomised
// start poses"): one run's options on seeds 0..n-1, one environment each, summarised into
// the counts and worst values a gate reports. Seeds run two at a time on threads; each run
// is independent of the others and the summary is taken in seed order, so the numbers do
// not depend on the threads.
#ifndef TF_TASK_ROBOT_GATE_H
#define TF_TASK_ROBOT_GATE_H

#include "task.h"

#define TF_ROBOT_GATE_MAX_SEEDS 32
#define TF_ROBOT_GATE_MAX_KEYS 8

typedef struct tf_robot_gate_seeds {
  // in
  int nseed;  // seeds 0..nseed-1 (at most MAX_SEEDS)
  int nkey;   // metrics whose largest value is kept
  const char* max_key[TF_ROBOT_GATE_MAX_KEYS];
  int nmin;  // metrics whose smallest value is kept
  const char* min_key[TF_ROBOT_GATE_MAX_KEYS];
  const char* mean_key;  // a metric averaged over the seeds where it is finite (NULL: none)
  // a run ends at its duration, or earlier once this says so after a control step (NULL:
  // never; e.g. once the script has withdrawn the arm, when runs differ in length)
  int (*stop)(const tf_env* env);
  // out
  int succeeded;                       // runs whose success is 1
  int diverged;                        // runs whose status is not "ok"
  double max[TF_ROBOT_GATE_MAX_KEYS];  // largest over the seeds (NaN values skipped)
  double min[TF_ROBOT_GATE_MAX_KEYS];  // smallest over the seeds (NaN values skipped)
  double mean;                         // mean of mean_key where finite (0: none)
  int nmean;                           // seeds mean_key was finite on
} tf_robot_gate_seeds;

// runs o (its seed replaced by each of seeds 0..nseed-1; one environment) and fills the
// summary; 0, or -1 with a message (bad options, out of memory)
int tf_robot_gate_run_seeds(const tf_run_options* o, tf_robot_gate_seeds* seeds, char* err,
                            size_t errlen);

#endif  // TF_TASK_ROBOT_GATE_H
