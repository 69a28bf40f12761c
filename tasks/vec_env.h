// Batched environments for training (issue 20, docs/train.md): N environments of one task
// configuration, reset and stepped together on a pool of worker threads, with a policy's
// actions in and observations, rewards and episode flags out, as Gymnasium's vector
// environments do (reset(seed) -> obs; step(actions) -> obs, rewards, terminated, truncated).
//
// Plain C types only, so that ctypes or cffi can call every function: the batch is an opaque
// pointer; settings are key=value strings; actions, observations and rewards are flat double
// arrays, flags flat uint8_t arrays, row-major with one row per environment; every function
// that can fail returns -1 (or NULL) and writes one line into err. The output arrays belong
// to the batch and stay where they are from create to destroy (wrap them without copying);
// each call that writes them overwrites them.
//
// Environments. Environment i is built exactly as a run builds one (the task's build, its
// perturbations drawn from a seed, the probes started on its first state) and stepped as the
// runner steps it (physics steps, the task's observe, the probes, the divergence check), with
// the policy's control (task_policy.h) in place of the task's own. A policy step runs
// `decimation` control steps. Every environment has its own model, data, task state and
// probes, and the engine keeps no shared mutable state and calls no threaded library, so each
// environment's numbers are the same bits at any thread count and any split of environments
// over threads, whatever the caller's other libraries (numpy's BLAS) do.
//
// Seeds. tf_vec_env_reset(seed) builds environment i as environment i of `tightfit run --seed
// seed --envs N` (the runner's index i and its random stream); tf_vec_env_reset_seeds builds
// environment i as environment 0 of `tightfit run --seed seeds[i]` (its start depends on its
// seed alone, as Gymnasium's per-environment seeds; a robot gate's seed k is
// environment 0 of seed k). tf_vec_env_seed and tf_vec_env_index say which run an
// environment's current episode is.
//
// Episodes end (Gymnasium's vector convention): terminated when the task's success rule
// holds after a policy step (with terminate_on_success, the default) or the environment
// diverged (a NaN, a runaway velocity or a refused step: the runner's divergence; that
// step's reward is 0 and the observation's non-finite values read 0); truncated when the
// episode's control steps reach duration / dt (the run's own length; ceil of that over
// decimation policy steps). With autoreset (the default, Gymnasium 1.x's "next step" mode)
// the next step rebuilds an environment that ended, ignoring its action: its observation is
// the new episode's first, its reward 0 and both flags 0; the new episode's seed is drawn from
// the environment's own stream of seeds (reproducible, independent of the other environments
// and of the thread count), at the same index. With autoreset=0 an environment that ended
// stays put until tf_vec_env_reset_seeds resets it: its observation and flags stay, its reward
// is 0. An ended environment's metrics (tf_vec_env_metrics) are its episode's until it is
// reset.
//
// Threads. The batch starts threads - 1 workers at create (16 MB stacks, as the runner's) and
// the calling thread steps environments too: call it from a thread with a run's main-thread
// stack (8 MB), and from one thread at a time. Environment i is built on thread i mod threads
// (its memory stays in one malloc arena across rebuilds); steps go to whichever is free.
//
// Memory. Create allocates the batch, its threads and every environment's policy state;
// reset builds the environments (allocations, as a run's build). A step allocates nothing
// unless an environment is rebuilt in it (autoreset): tests/tasks/test_vec_env_alloc.c counts.
#ifndef TF_VEC_ENV_H
#define TF_VEC_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "task.h"

#define TF_VEC_ENV_MAX_ENVS 65536

typedef struct tf_vec_env tf_vec_env;

// The batch's own settings (key=value names in brackets; the defaults hold when a key is not
// given)
typedef struct tf_vec_env_settings {
  int decimation;            // [decimation] control steps per policy step (8: Factory's)
  int autoreset;             // [autoreset] 1: Gymnasium's next-step auto-reset; 0: stay put
  int terminate_on_success;  // [terminate_on_success] 1: success ends the episode
  double max_speed;          // [max_speed] m/s: robot: the target's speed per axis at action 1
  double max_rot_speed;      // [max_rot_speed] rad/s: the same for its rotation vector
  double success_bonus;      // [success_bonus] reward when the success rule holds
  double overlap_weight;     // [overlap_weight] penalty per overlap allowance of depth
} tf_vec_env_settings;

void tf_vec_env_settings_default(tf_vec_env_settings* s);

// key=value strings into a run's options (the run's keys; every key that is neither the run's
// nor the batch's goes into o->set, pointing at the caller's strings) and the batch's settings
// (defaults first); 0, or -1 naming the key (not a number, out of range, given twice). The task
// parameters are checked later, by the runner's resolution.
int tf_vec_env_parse_settings(const char* task, const char* const* keys, const char* const* values,
                              int nset, tf_run_options* o, tf_vec_env_settings* s, char* err,
                              size_t errlen);

// N environments of a task configuration from key=value strings, the keys a sweep uses:
// mode (rig | robot), solver, dt, substeps, iterations, relinearize, persist_tol, duration,
// threads (worker threads, default 1), the batch's settings above, and every other key a task
// parameter (controller, clearance_um, ...), checked as `tightfit run` checks them (the same
// one-line messages: an unknown key is named with the valid ones). Environments are not built
// until tf_vec_env_reset. NULL with a one-line message.
tf_vec_env* tf_vec_env_create(const char* task, int num_envs, const char* const* keys,
                              const char* const* values, int nset, char* err, size_t errlen);
// the same from a run's options (o->envs and o->seed are not read; threads, physics, duration
// and the task parameters are) and the batch's settings (NULL: the defaults); o's strings are
// copied
tf_vec_env* tf_vec_env_create_run(const tf_run_options* o, int num_envs,
                                  const tf_vec_env_settings* s, char* err, size_t errlen);
void tf_vec_env_destroy(tf_vec_env* v);

// the batch's shape and settings
int tf_vec_env_num_envs(const tf_vec_env* v);
int tf_vec_env_action_dim(const tf_vec_env* v);
int tf_vec_env_obs_dim(const tf_vec_env* v);
int tf_vec_env_threads(const tf_vec_env* v);
int tf_vec_env_decimation(const tf_vec_env* v);
double tf_vec_env_policy_dt(const tf_vec_env* v);  // s: decimation x dt
long tf_vec_env_max_steps(const tf_vec_env* v);    // policy steps of a whole episode
// comma-separated names: one per action component; "name:count" groups of the observation
const char* tf_vec_env_action_names(const tf_vec_env* v);
const char* tf_vec_env_obs_names(const tf_vec_env* v);
const char* tf_vec_env_task(const tf_vec_env* v);
const char* tf_vec_env_mode(const tf_vec_env* v);  // "rig" or "robot"
int tf_vec_env_has_script(const tf_vec_env* v);    // 1: tf_vec_env_scripted_actions works

// Builds every environment (see Seeds above) and writes the first observations; rewards and
// flags are zeroed. 0, or -1 naming the lowest environment whose build failed (the batch
// cannot step until a reset succeeds).
int tf_vec_env_reset(tf_vec_env* v, uint64_t seed, char* err, size_t errlen);
// rebuilds the environments whose mask is non-zero (mask NULL: all) from seeds (N, read where
// the mask is set); the others keep their state, observation and flags
int tf_vec_env_reset_seeds(tf_vec_env* v, const uint64_t* seeds, const uint8_t* mask, char* err,
                           size_t errlen);
// One policy step of every environment: actions (N x action_dim) clipped to [-1, 1] per
// component. 0, or -1 before anything ran for a NaN or infinite action ("action[3][1] is
// NaN": environment 3's component 1, named) or an environment not built; or -1 naming an
// environment whose auto-reset failed (the others stepped).
int tf_vec_env_step(tf_vec_env* v, const double* actions, char* err, size_t errlen);
// The action each environment's task script would take now (N x action_dim; an ended
// environment's row is 0): stepping with them runs the scripted robot mode as a policy.
// 0, or -1 when the task has no script or an environment is not built.
int tf_vec_env_scripted_actions(tf_vec_env* v, double* actions, char* err, size_t errlen);

// the outputs of the last reset or step, owned by the batch
const double* tf_vec_env_obs(const tf_vec_env* v);          // (N x obs_dim)
const double* tf_vec_env_rewards(const tf_vec_env* v);      // (N)
const uint8_t* tf_vec_env_terminated(const tf_vec_env* v);  // (N) 0 / 1
const uint8_t* tf_vec_env_truncated(const tf_vec_env* v);   // (N) 0 / 1
const uint8_t* tf_vec_env_success(const tf_vec_env* v);     // (N) the success rule after the step
// the run of environment i's current episode: `tightfit run --seed <seed>` environment <index>
uint64_t tf_vec_env_seed(const tf_vec_env* v, int i);
int tf_vec_env_index(const tf_vec_env* v, int i);
// policy steps environment i has taken in its episode
long tf_vec_env_episode_steps(const tf_vec_env* v, int i);

// Environment i's metrics as a run's environment would report them now (status, every probe's
// metrics, the task's own: tightfit run's per-environment row). 0, or -1 when i is out of
// range or not built.
int tf_vec_env_metrics(tf_vec_env* v, int i, tf_metrics* out);
// one metric of every environment (N values; NaN where an environment lacks it or is not
// built); 0, or -1 for an unknown name (one that no environment reports)
int tf_vec_env_metric(tf_vec_env* v, const char* name, double* out, char* err, size_t errlen);
// the name of environment i's k-th metric (NULL past the last): to list them
const char* tf_vec_env_metric_name(tf_vec_env* v, int i, int k);

#endif  // TF_VEC_ENV_H
