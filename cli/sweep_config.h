// A sweep configuration (the JSON file of `tightfit sweep CONFIG.json`) and its expansion into
// runs. The file:
//
//   {
//     "task": "gears",                  one task, or a list: ["peg", "gears"]
//     "mode": "rig",                    "rig" (default) or "robot"
//     "duration": 1.0,                  s per run, 1e-6 to 3600; default: each task's own
//     "envs": 4,                        environments per run, 1 to 256 (default 1)
//     "seeds": [1, 2],                  seeds, or a count: 3 means 0, 1, 2 (default [0])
//     "grid": {                         every combination of these values is a run
//       "solver": ["al", "newton", "pgs"],
//       "dt": [0.001, 0.01],            control step (s), in [1e-7, 1]
//       "substeps": [1, 4],             physics steps per control step, 1 to 1000
//       "iterations": [50],             solver iteration cap, 0 (engine default) to 100000
//       "relinearize": [0, 3],          extra collision and solve passes per step, 0 to 100
//       "clearance_um": [50, 100]       any task parameter: a number, a choice name ("round"),
//     },                                or a list parameter's numbers ([60, 40, 60])
//     "set": {"mu": 0.01},              fixed values: the same keys as grid, one value each
//     "video": {...},                   videos after the runs (sweep_video.h): checked here
//     "record": {"runs": [0, 3]},       runs recorded step by step (sweep_record.h)
//     "description": "..."              free text
//   }
//
// A task parameter must belong to at least one listed task; it applies to the tasks that
// have it and leaves the others alone (their runs are not multiplied by its values).
// Expansion order (deterministic): tasks as listed, then the grid keys as written with the
// last one varying fastest, then the seeds. Each run has a stable id: 16 hex digits hashing
// its canonical parameter string (keys sorted, so reordering or extending the grid keeps the
// ids of existing runs, which is what lets `--resume` pick up an extended sweep), and the
// exact `tightfit run --task ...` command that reproduces it.
//
// Every problem is found before any run starts and named by its JSON path, one line each, all
// of them in one pass: "grid.dt[2]: must be > 0 (got -0.001)", "grid.solvr: unknown key
// (valid: ...)". Past TF_CONFIG_MAX_ERRORS lines the rest are counted: "... and 5 more".
#ifndef TF_SWEEP_CONFIG_H
#define TF_SWEEP_CONFIG_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "config_errors.h"
#include "task.h"

#define TF_SWEEP_MAX_RUNS 100000  // a bigger grid is almost surely a typo (and GBs of rows)
#define TF_SWEEP_MAX_TASKS 16
#define TF_SWEEP_MAX_CONFIG (16u << 20)  // bytes of JSON
#define TF_RUN_ID_LEN 17                 // 16 hex digits and the NUL

typedef enum tf_sweep_key_kind {
  TF_SWEEP_SOLVER = 0,  // the physics keys: they go into tf_physics, not --set
  TF_SWEEP_DT,
  TF_SWEEP_SUBSTEPS,
  TF_SWEEP_ITERATIONS,
  TF_SWEEP_RELINEARIZE,
  TF_SWEEP_PERSIST_TOL,
  TF_SWEEP_PARAM,  // a task parameter, passed as key=value
} tf_sweep_key_kind;

// one swept (grid) or fixed (set) key with its values
typedef struct tf_sweep_key {
  char* name;
  tf_sweep_key_kind kind;
  int grid;  // 1: from "grid" (values are alternatives), 0: from "set" (one value)
  int nvalue;
  char** text;     // (nvalue) the value as `--set` / `--dt` takes it (shortest exact digits)
  double* number;  // (nvalue) physics keys: the value (solver: its tf_solver_type)
  unsigned tasks;  // bit t: applies to plan task t
} tf_sweep_key;

// one run: indices into its plan
typedef struct tf_sweep_run {
  char id[TF_RUN_ID_LEN];
  int task;  // index into plan->task
  uint64_t seed;
  int* choice;  // (nkey) value index per key, -1 where the key does not apply to the task
} tf_sweep_run;

typedef struct tf_sweep_plan {
  int ntask;
  const tf_task_info* task[TF_SWEEP_MAX_TASKS];
  tf_task_mode mode;
  double duration;  // s; 0: each task's default
  int envs;
  int nseed;
  uint64_t* seed;
  int nkey;
  tf_sweep_key* key;  // grid keys in file order, then set keys in file order
  cJSON* video;       // the "video" value as given, or NULL
  cJSON* record;      // the "record" value as given, or NULL
  // (nrun) 1: the run is recorded (sweep_record.h); NULL when none is
  unsigned char* recorded;
  char* description;  // or NULL
  char* source;       // the config file as read (tf_sweep_plan_load), for DIR/config.json
  size_t source_len;
  int nrun;
  tf_sweep_run* run;  // in expansion order
  int* choices;       // (nrun x nkey) storage behind run[i].choice
} tf_sweep_plan;

// parses and expands a config (NUL-terminated JSON text) against a task table (production:
// the registry; tests: their own tasks); validates every run's task parameters with
// tf_param_parse. Returns 0, or -1 with one line "JSON.PATH: problem" per problem, joined
// by newlines (no trailing one), at most TF_CONFIG_MAX_ERRORS and then "... and N more"
// (malformed JSON: the one line "line L, column C: ..."), and an empty plan that is safe to
// free. An err of TF_CONFIG_ERRORS_TEXT bytes holds them all; a shorter one keeps the lines
// that fit and counts the others in the last line.
int tf_sweep_plan_parse(tf_sweep_plan* plan, const char* text, const tf_task_info* const* tasks,
                        int ntasks, char* err, size_t errlen);

// the same as the file config_path holds it (its relative "assembly" path is taken from that
// file's folder, as tf_sweep_plan_load does), with no "PATH: " before the lines; NULL
// config_path: tf_sweep_plan_parse
int tf_sweep_plan_parse_at(tf_sweep_plan* plan, const char* text, const char* config_path,
                           const tf_task_info* const* tasks, int ntasks, char* err, size_t errlen);

// the same from a file; every line starts with "PATH: "
int tf_sweep_plan_load(tf_sweep_plan* plan, const char* path, const tf_task_info* const* tasks,
                       int ntasks, char* err, size_t errlen);

void tf_sweep_plan_free(tf_sweep_plan* plan);

// the tf_task_run options of run i; its strings point into the plan
void tf_sweep_run_options(const tf_sweep_plan* plan, int i, tf_run_options* o);

// the canonical parameter string whose hash is the run id ("task=gears;mode=rig;...");
// returns the length it needs (like snprintf)
size_t tf_sweep_run_canonical(const tf_sweep_plan* plan, int i, char* out, size_t n);

// the shell command that reproduces run i (malloc'd; NULL when out of memory)
char* tf_sweep_run_command(const tf_sweep_plan* plan, int i);

// the parameter columns every run of the plan may have (each task's schema keys, first
// appearance order), for a results header that does not depend on which task finishes
// first; returns the count written to out (at most max)
int tf_sweep_plan_param_columns(const tf_sweep_plan* plan, const char** out, int max);

#endif  // TF_SWEEP_CONFIG_H
