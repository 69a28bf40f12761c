// Assembly tasks: a registry of tasks, each an isolated physics question ("rig" mode) with a
// parameter schema, optionally a "robot" mode (a Panda arm picks and assembles the parts with
// a controller the run chooses), and the runner that steps a task's environments with its
// probes and returns one row of metrics (README.md, "Assembly tasks"). `tightfit run --task`,
// sweeps, the task gates and the benchmarks all go through tf_task_run.
#ifndef TF_TASK_H
#define TF_TASK_H

#include <stdint.h>

#include "metrics.h"
#include "parts.h"
#include "probes.h"
#include "tightfit.h"

#define TF_TASK_MAX_SET 32       // --set key=value pairs per run
#define TF_TASK_MAX_THREADS 256  // worker threads per run (--threads)
#define TF_TASK_MAX_PARAMS 64    // parameters in a task's schema
// control steps per environment (duration / dt): 1e8 is hours of wall time already; more is
// a typo (--dt 1e-7 --duration 3600) that would run for weeks
#define TF_TASK_MAX_STEPS 1e8

typedef enum tf_task_mode { TF_MODE_RIG = 0, TF_MODE_ROBOT, TF_MODE_N } tf_task_mode;

// deterministic random numbers (splitmix64): environments draw their perturbations here
typedef struct tf_rng {
  uint64_t state;
} tf_rng;

void tf_rng_seed(tf_rng* rng, uint64_t seed, uint64_t stream);
uint64_t tf_rng_bits(tf_rng* rng);
double tf_rng_uniform(tf_rng* rng, double lo, double hi);

// the physics settings a run asks for; a task's build puts them into its model's option
typedef struct tf_physics {
  double dt;     // control step (s)
  int substeps;  // physics steps per control step (model timestep = dt / substeps)
  tf_solver_type solver;
  int iterations;      // solver iteration cap; 0 = the engine's default
  int relinearize;     // extra collision and solve passes at the step's iterate (engine/step.c)
  double persist_tol;  // m: contacts kept while a pair moves less (0: search every step)
} tf_physics;

// one built environment of a task: its model, data, probe spec and the task's own state
typedef struct tf_env {
  tf_model* model;
  tf_data* data;
  tf_probe_spec probe;
  void* state;           // the task's private state (freed by the task's destroy)
  const double* values;  // the run's parsed task parameters (one per schema entry)
  const tf_kv* set;      // the run's raw key=value pairs (list parameters: tf_param_list)
  int nset;
  int index;  // environment index within the run (0 = the centred, unperturbed one)
} tf_env;

struct tf_task_policy;  // task_policy.h: a task's policy interface (vec_env.h)

typedef struct tf_task_info {
  const char* name;
  const char* description;
  const tf_param_spec* params;  // the task's parameters (common ones such as `collider` too)
  int nparam;
  double default_dt;        // s
  double default_duration;  // s
  // builds environment env->index of a run: the model (timestep dt / substeps, the solver),
  // the data at its initial state (perturbed from rng for index > 0), the probe spec and
  // the task state; returns 0, or -1 with a one-line message
  int (*build)(tf_env* env, const double* values, const tf_physics* physics, tf_rng* rng, char* err,
               size_t errlen);
  // before each control step at time d->time: drives, servos, scripted pushes
  void (*control)(tf_env* env);
  // after each control step: the task's own tracking (turns of the nut, seat time ...)
  void (*observe)(tf_env* env);
  // the task's metrics into out: "success" (bool: the task's success rule, README.md "Assembly
  // tasks") and "<task>.*"
  void (*finish)(tf_env* env, tf_metrics* out);
  // frees env->state (the runner frees model and data)
  void (*destroy)(tf_env* env);
  // The task's robot mode, NULL when it has none. Robot mode is a task entry of its own with
  // the same name: its own schema (the part keys it shares with the rig plus `controller`,
  // `grasp` and its perturbations), defaults and functions, so that neither mode's rows carry
  // the other's columns and the runner, sweeps and reports need no other change: a run that
  // asks for mode robot resolves to this entry (tf_task_for_mode) and goes on exactly as a rig
  // run does. Its own `robot` field is NULL.
  const struct tf_task_info* robot;
  // The mode's policy interface for batched environments (task_policy.h, vec_env.h): actions,
  // observations, reward and the script as a policy. NULL: the mode cannot be stepped by a
  // policy. A run (tf_task_run) never reads it.
  const struct tf_task_policy* policy;
  // 1: the scene comes from a user's file (the `assembly` task: assembly=FILE.json), so there
  // is no default run; the loops over the built-in tasks (benches) skip it
  int user_scene;
} tf_task_info;

int tf_task_count(void);
const tf_task_info* tf_task_at(int index);
// the built-in tasks come first: tf_task_at(0 .. tf_task_builtin_count() - 1); the tasks whose
// scene is a user's file (user_scene) follow
int tf_task_builtin_count(void);
const tf_task_info* tf_task_find(const char* name);
// the entry that runs task in mode: the task itself (rig), its robot entry (robot), or NULL
// when the task has no such mode
const tf_task_info* tf_task_for_mode(const tf_task_info* task, tf_task_mode mode);

// one run: a task, its parameters, the physics settings, environments and seed
typedef struct tf_run_options {
  const char* task;
  tf_task_mode mode;
  tf_physics physics;  // dt <= 0: the task's default
  double duration;     // s; <= 0: the task's default
  int envs;            // environments (>= 1)
  int threads;         // worker threads stepping the environments, 1 to TF_TASK_MAX_THREADS
                       // (default 1: a sweep runs whole runs side by side instead)
  uint64_t seed;
  int nset;
  tf_kv set[TF_TASK_MAX_SET];  // task parameters as key=value strings
} tf_run_options;

void tf_run_options_default(tf_run_options* o);

// the options as a run resolves them before anything is built: the mode's task entry, its
// parsed parameters (values: TF_TASK_MAX_PARAMS, one per schema entry), the effective physics
// (dt <= 0: the task's default) and duration (<= 0: the task's default). 0, or -1 with the
// one-line message tf_task_run gives (unknown task or key, value out of range, mode not
// available)
int tf_run_resolve(const tf_run_options* o, const tf_task_info** task, double* values,
                   tf_physics* physics, double* duration, char* err, size_t errlen);

// runs every environment of the run to its duration (a diverged environment stops early
// and the run's status says so) and writes one row: task, mode, solver, dt, substeps,
// duration, envs, seed, every task parameter (by key), status ("ok" / "diverged" /
// "failed"), success, steps_per_s, realtime_factor, every probe metric and the task's
// metrics (merged over environments with tf_metrics_merge_envs). Returns 0 when the run
// happened (whatever its status), -1 with a one-line message for bad options (unknown task
// or key, value out of range, mode not supported) before anything runs.
//
// The environments run on min(threads, envs) threads, each built and stepped on its own and
// merged in index order, so the row is the same bits at any thread count (timings aside);
// when environments fail to build, the row names the lowest one's error, as a serial run
// would. throughput.* and steps_per_s / realtime_factor keep their meaning at any thread
// count: the mean over environments of each one's rate over its own tf_step time (one
// core's rate). The run adds throughput.threads (the threads that ran), throughput.wall_s
// (wall-clock seconds of building and running every environment) and
// throughput.aggregate_env_steps_per_s (every environment's control steps per wall second:
// the rate of the whole run, which threads raise).
int tf_task_run(const tf_run_options* o, tf_metrics* out, char* err, size_t errlen);

// A reader of a run as it goes (reports/record.h records it): called with environment r at
// its initial state (built, probes started) and after each control step it takes, the last
// one and a diverged one included. It reads r through the tf_env_run_* accessors below and
// must change nothing; a non-zero return stops the run.
typedef struct tf_env_run tf_env_run;
typedef struct tf_run_observer {
  int (*observe)(void* ctx, const tf_env_run* r);
  void* ctx;
} tf_run_observer;

// tf_task_run with an observer (NULL: tf_task_run itself). The observer sees environment 0's
// steps, then 1's, and so on: the environments run one after another on the calling thread
// whatever o->threads says, and the row is the same bits (throughput.* aside, which says 1
// thread). Returns -1 with "stopped" in err when the observer stopped the run (its own
// message says why), as well as for the options tf_task_run refuses.
int tf_task_run_observed(const tf_run_options* o, const tf_run_observer* observer, tf_metrics* out,
                         char* err, size_t errlen);

// the same for one environment, keeping it for inspection: builds, runs `duration` and
// leaves env built (free with tf_env_free); for tests that look at the final state
int tf_task_run_env(const tf_run_options* o, int index, tf_env* env, tf_metrics* out, char* err,
                    size_t errlen);
void tf_env_free(const tf_task_info* task, tf_env* env);

// for task scenes (task_env_build.c): the engine options of a run's physics (timestep dt /
// substeps, solver, iterations when set), and env's model and data compiled from b, 0 or -1
// with "task '<task>': ..." (env holds what was made; the runner frees it)
tf_option tf_physics_option(const tf_physics* physics);
int tf_env_compile(tf_env* env, tf_builder* b, const char* task, char* err, size_t errlen);

// stepping one environment control step by control step (videos): begin builds environment
// `index` of the run at its initial state (probes started); step advances one control step
// and returns 1 while the run goes on, 0 once its duration is reached or it diverged; finish
// writes its metrics so far (as tf_task_run's per-environment row); end frees it. The
// options' set[] strings must outlive the run.
tf_env_run* tf_env_run_begin(const tf_run_options* o, int index, char* err, size_t errlen);
int tf_env_run_step(tf_env_run* r);
// the physics steps of one control step (substeps of them), each observed by the probes; 1 as
// soon as the probes see it diverge (the remaining substeps are not taken), else 0. The
// runner's control step and the batched environments' (vec_env.c) share it.
int tf_env_physics_steps(const tf_env* env, int substeps, tf_probe_set* probes);
const tf_env* tf_env_run_env(const tf_env_run* r);
const tf_probe_set* tf_env_run_probes(const tf_env_run* r);
const tf_task_info* tf_env_run_task(const tf_env_run* r);
const tf_physics* tf_env_run_physics(const tf_env_run* r);
double tf_env_run_duration(const tf_env_run* r);
// control steps taken so far (0 at the initial state)
long tf_env_run_control(const tf_env_run* r);
void tf_env_run_finish(tf_env_run* r, tf_metrics* out);
void tf_env_run_end(tf_env_run* r);

// a run's "why" (task_why.c): appends one failed criterion of the success rule to why (an
// empty string first; criteria joined by "; ", the first ones kept when it fills up)
void tf_why_add(char why[TF_METRIC_TEXT_LEN], const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
// the overlap criterion every task has: nothing when peak <= allowed, else "overlap peak X um
// > Y um allowed" (or "overlap not measured" for NaN)
void tf_why_overlap(char why[TF_METRIC_TEXT_LEN], double peak, double allowed);

#endif  // TF_TASK_H
