// Batched environments (see vec_env.h): the batch's slots, their builds and resets, the
// policy step of each environment, and the calls that hand the environments to the pool.
//
// A slot is one environment: its tf_env (model, data, task state), its probes and its policy
// state, built as the runner's env_run_start builds one (task_run.c) and stepped as
// tf_env_run_step steps one, with the policy's control in place of the task's. Every job the
// pool runs (reset, step, scripted actions) touches slot i and row i of the outputs only, so
// the numbers do not depend on which thread ran which slot. Builds (reset, auto-reset) run
// slot i on thread i mod T, so a slot's memory stays in one malloc arena across rebuilds;
// steps, which allocate nothing, go to whichever thread is free, so the threads finish
// together. The calls check what they can before handing out work (actions, built slots) and
// report a slot's failure afterwards by its index, the lowest first, as a serial loop would.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task_policy.h"
#include "vec_env.h"
#include "vec_env_pool.h"

#define ERR_LEN 256
#define STATE_ALIGN 64  // each slot's policy state starts on its own cache line
// the stream of an environment's auto-reset seeds: far from the build streams (its index)
#define AUTORESET_STREAM 0x8000000000000000ull
// batches up to this size hand out their steps costliest first (insertion sort); larger ones
// balance by their numbers alone
#define SORT_MAX 1024

typedef struct vec_slot {
  tf_env env;
  tf_probe_set probes;
  int built;      // env and probes hold a built environment
  void* ps;       // the policy's state (the batch's allocation)
  uint64_t seed;  // the episode's run: seed and environment index
  int index;
  tf_rng episodes;  // the seeds of the auto-resets
  long control;     // control steps of the episode
  long steps;       // policy steps of the episode
  int done;         // the episode ended (terminated or truncated)
  int diverged;
  int failed;  // the last build failed (err says why)
  char err[ERR_LEN];
  double cost;  // s: wall time of its last policy step (the order steps go out in)
} vec_slot;

struct tf_vec_env {
  const tf_task_info* task;  // the mode's entry
  const tf_task_policy* policy;
  tf_run_options options;  // set[] into `strings`
  char* strings;           // the task name and the set[] strings, copied
  double values[TF_TASK_MAX_PARAMS];
  tf_physics physics;
  double duration;
  long ncontrol;  // control steps of an episode
  tf_vec_env_settings settings;
  tf_policy_settings policy_settings;
  int n;
  tf_pool* pool;
  vec_slot* slot;        // (n)
  int* order;            // (n) the slots by the cost of their last step, costliest first
  unsigned char* state;  // (n x stride) the policy states
  double* obs;           // (n x obs_dim)
  double* rewards;       // (n)
  uint8_t* terminated;   // (n)
  uint8_t* truncated;    // (n)
  uint8_t* success;      // (n)
  tf_metrics* scratch;   // one environment's metrics (tf_vec_env_metric)
  // the job being run: its inputs
  const double* actions;
  double* scripted;
  const uint64_t* reset_seeds;
  const uint8_t* reset_mask;
  uint64_t reset_seed;
};

// ---------------------------------------------------------------- one slot

static void slot_free(tf_vec_env* v, vec_slot* s) {
  if (!s->built) return;
  tf_probes_free(&s->probes);
  tf_env_free(v->task, &s->env);
  s->built = 0;
}

// the observation row i, non-finite values (a diverged state) as 0
static void slot_observe(tf_vec_env* v, int i) {
  vec_slot* s = &v->slot[i];
  double* obs = v->obs + (size_t)i * (size_t)v->policy->obs_dim;
  v->policy->observation(v->policy, s->ps, &s->env, obs);
  for (int k = 0; k < v->policy->obs_dim; k++) {
    if (!isfinite(obs[k])) obs[k] = 0;
  }
}

// builds slot i as environment `index` of a run with `seed` (env_run_start's steps), its
// policy begun, its first observation written and its outputs zeroed; on failure the slot is
// left unbuilt with its message
static void slot_build(tf_vec_env* v, int i, uint64_t seed, int index) {
  vec_slot* s = &v->slot[i];
  slot_free(v, s);
  s->seed = seed;
  s->index = index;
  s->control = s->steps = 0;
  s->done = s->diverged = 0;
  s->failed = 1;
  v->rewards[i] = 0;
  v->terminated[i] = v->truncated[i] = v->success[i] = 0;
  tf_env* env = &s->env;
  memset(env, 0, sizeof(*env));
  env->values = v->values;
  env->set = v->options.set;
  env->nset = v->options.nset;
  env->index = index;
  tf_probe_spec_default(&env->probe);
  tf_rng rng;
  tf_rng_seed(&rng, seed, (uint64_t)index);
  if (v->task->build(env, v->values, &v->physics, &rng, s->err, sizeof(s->err)) || !env->model ||
      !env->data) {
    tf_env_free(v->task, env);
    return;
  }
  if (tf_probes_init(&s->probes, env->model, &env->probe, v->physics.dt, s->err, sizeof(s->err))) {
    tf_env_free(v->task, env);
    return;
  }
  s->built = 1;
  tf_kinematics(env->model, env->data);
  tf_probes_observe_control(&s->probes, env->model, env->data);
  memset(s->ps, 0, v->policy->state_size);
  if (v->policy->begin(v->policy, s->ps, env, &s->probes, &v->policy_settings, s->err,
                       sizeof(s->err))) {
    slot_free(v, s);
    return;
  }
  s->failed = 0;
  s->err[0] = 0;
  slot_observe(v, i);
}

// one control step of slot s: the policy's control, the physics steps with the probes, the
// task's observe (tf_env_run_step's, the policy's control in place of the task's)
static void slot_control_step(tf_vec_env* v, vec_slot* s) {
  tf_env* env = &s->env;
  const tf_model* m = env->model;
  tf_data* d = env->data;
  v->policy->control(v->policy, s->ps, env);
  s->diverged = tf_env_physics_steps(env, v->physics.substeps, &s->probes);
  s->control++;
  if (s->diverged) return;
  if (v->task->observe) v->task->observe(env);
  tf_probes_observe_control(&s->probes, m, d);
  v->policy->observe(v->policy, s->ps, env, &s->probes);
}

// one policy step of slot i with its row of actions
static void slot_step(tf_vec_env* v, int i) {
  vec_slot* s = &v->slot[i];
  int na = v->policy->action_dim;
  double a[TF_POLICY_MAX_ACTION];
  const double* row = v->actions + (size_t)i * (size_t)na;
  for (int k = 0; k < na; k++) a[k] = row[k] < -1 ? -1 : row[k] > 1 ? 1 : row[k];
  v->policy->act(v->policy, s->ps, &s->env, a);
  for (int k = 0; k < v->settings.decimation && !s->diverged && s->control < v->ncontrol; k++) {
    slot_control_step(v, s);
  }
  s->steps++;
  int success = 0;
  double reward = v->policy->reward(v->policy, s->ps, &s->env, &s->probes, &success);
  slot_observe(v, i);
  success = success && !s->diverged;
  v->rewards[i] = s->diverged || !isfinite(reward) ? 0 : reward;
  v->success[i] = (uint8_t)success;
  v->terminated[i] = (uint8_t)(s->diverged || (success && v->settings.terminate_on_success));
  v->truncated[i] = (uint8_t)(!v->terminated[i] && s->control >= v->ncontrol);
  s->done = v->terminated[i] || v->truncated[i];
}

// ---------------------------------------------------------------- jobs (one slot each)

static void job_reset(void* ctx, int i) {
  tf_vec_env* v = ctx;
  if (v->reset_mask && !v->reset_mask[i]) return;
  // reset(seed): the runner's environment i; reset_seeds: environment 0 of its own seed
  uint64_t seed = v->reset_seeds ? v->reset_seeds[i] : v->reset_seed;
  int index = v->reset_seeds ? 0 : i;
  tf_rng_seed(&v->slot[i].episodes, seed, AUTORESET_STREAM | (uint64_t)index);
  slot_build(v, i, seed, index);
}

// a step's first pass, item k of `order`: environments that go on step (they allocate nothing,
// and differ in cost: handed out dynamically); an ended one gets reward 0 and, with autoreset,
// waits for the second pass
static void job_step(void* ctx, int k) {
  tf_vec_env* v = ctx;
  int i = v->order[k];
  vec_slot* s = &v->slot[i];
  if (!s->done) {
    double t0 = tf_clock();
    slot_step(v, i);
    s->cost = tf_clock() - t0;
  } else {
    v->rewards[i] = 0;
  }
}

// the order the next step hands out its slots in: the costliest last time first, so that the
// threads finish together (longest processing time first); the order changes no number
static void sort_by_cost(tf_vec_env* v) {
  if (v->n > SORT_MAX) return;
  for (int k = 1; k < v->n; k++) {
    int i = v->order[k], j = k;
    for (; j > 0 && v->slot[v->order[j - 1]].cost < v->slot[i].cost; j--) {
      v->order[j] = v->order[j - 1];
    }
    v->order[j] = i;
  }
}

// the second pass, when an episode ended at the last step and autoreset is on: this step
// starts the next one, its action ignored (on thread i mod T, as the reset built it, so its
// memory goes back to and comes from one malloc arena)
static void job_autoreset(void* ctx, int i) {
  tf_vec_env* v = ctx;
  vec_slot* s = &v->slot[i];
  if (s->done && s->built) slot_build(v, i, tf_rng_bits(&s->episodes), s->index);
}

static void job_scripted(void* ctx, int i) {
  tf_vec_env* v = ctx;
  vec_slot* s = &v->slot[i];
  int na = v->policy->action_dim;
  double* row = v->scripted + (size_t)i * (size_t)na;
  if (s->done) {
    memset(row, 0, sizeof(double) * (size_t)na);
  } else {
    v->policy->scripted(v->policy, s->ps, &s->env, row);
  }
}

// the lowest slot whose build failed, as "env i: message"; 0 when none
static int report_failed(const tf_vec_env* v, char* err, size_t errlen) {
  for (int i = 0; i < v->n; i++) {
    if (v->slot[i].failed) {
      snprintf(err, errlen, "env %d: %s", i, v->slot[i].err);
      return -1;
    }
  }
  return 0;
}

// -1 naming the lowest slot that is not built (and was not asked to build)
static int check_built(const tf_vec_env* v, char* err, size_t errlen) {
  for (int i = 0; i < v->n; i++) {
    if (!v->slot[i].built && !(v->slot[i].done && v->settings.autoreset)) {
      if (v->slot[i].failed) {
        snprintf(err, errlen, "env %d is not built (its reset failed: %s)", i, v->slot[i].err);
      } else {
        snprintf(err, errlen, "env %d is not built: reset the batch first", i);
      }
      return -1;
    }
  }
  return 0;
}

// ---------------------------------------------------------------- the batch

// the run's strings copied into one allocation: the task's name and each set[] pair
static int copy_strings(tf_vec_env* v, const tf_run_options* o) {
  size_t total = strlen(o->task) + 1;
  for (int k = 0; k < o->nset; k++) {
    total += strlen(o->set[k].key ? o->set[k].key : "") + 1;
    total += strlen(o->set[k].value ? o->set[k].value : "") + 1;
  }
  char* at = v->strings = malloc(total);
  if (!at) return -1;
  size_t n = strlen(o->task) + 1;
  memcpy(at, o->task, n);
  v->options.task = at;
  at += n;
  for (int k = 0; k < o->nset; k++) {
    const char* key = o->set[k].key ? o->set[k].key : "";
    const char* value = o->set[k].value ? o->set[k].value : "";
    n = strlen(key) + 1;
    memcpy(at, key, n);
    v->options.set[k].key = at;
    at += n;
    n = strlen(value) + 1;
    memcpy(at, value, n);
    v->options.set[k].value = at;
    at += n;
  }
  return 0;
}

// the batch's settings in range (create_run takes them from C callers unchecked)
static int check_settings(const tf_vec_env_settings* s, char* err, size_t errlen) {
  if (s->decimation < 1 || s->decimation > 100000) {
    snprintf(err, errlen, "decimation must be in [1, 100000] (got %d)", s->decimation);
  } else if (!(s->max_speed > 0 && s->max_speed <= 100)) {
    snprintf(err, errlen, "max_speed must be in (0, 100] m/s (got %g)", s->max_speed);
  } else if (!(s->max_rot_speed > 0 && s->max_rot_speed <= 1000)) {
    snprintf(err, errlen, "max_rot_speed must be in (0, 1000] rad/s (got %g)", s->max_rot_speed);
  } else if (!isfinite(s->success_bonus) || !isfinite(s->overlap_weight)) {
    snprintf(err, errlen, "success_bonus and overlap_weight must be finite");
  } else {
    return 0;
  }
  return -1;
}

tf_vec_env* tf_vec_env_create_run(const tf_run_options* o, int num_envs,
                                  const tf_vec_env_settings* s, char* err, size_t errlen) {
  tf_vec_env_settings settings;
  if (s) {
    settings = *s;
  } else {
    tf_vec_env_settings_default(&settings);
  }
  // the runner's resolution checks the run (one environment: the batch checks its own count)
  tf_run_options one = *o;
  one.envs = 1;
  const tf_task_info* task;
  double values[TF_TASK_MAX_PARAMS];
  tf_physics physics;
  double duration;
  if (tf_run_resolve(&one, &task, values, &physics, &duration, err, errlen)) return NULL;
  if (num_envs < 1 || num_envs > TF_VEC_ENV_MAX_ENVS) {
    snprintf(err, errlen, "num_envs must be in [1, %d] (got %d)", TF_VEC_ENV_MAX_ENVS, num_envs);
    return NULL;
  }
  if (!task->policy) {
    snprintf(err, errlen, "task '%s': mode '%s' has no policy interface", task->name,
             o->mode == TF_MODE_ROBOT ? "robot" : "rig");
    return NULL;
  }
  if (check_settings(&settings, err, errlen)) return NULL;
  tf_vec_env* v = calloc(1, sizeof(*v));
  if (!v) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  v->task = task;
  v->policy = task->policy;
  v->options = *o;
  memcpy(v->values, values, sizeof(values));
  v->physics = physics;
  v->duration = duration;
  // the runner's episode: duration / dt rounded to the nearest control step
  v->ncontrol = lround(duration / physics.dt);
  if (v->ncontrol < 1) v->ncontrol = 1;
  v->settings = settings;
  v->policy_settings.decimation = settings.decimation;
  v->policy_settings.control_dt = physics.dt;
  v->policy_settings.max_speed = settings.max_speed;
  v->policy_settings.max_rot_speed = settings.max_rot_speed;
  v->policy_settings.success_bonus = settings.success_bonus;
  v->policy_settings.overlap_weight = settings.overlap_weight;
  v->n = num_envs;
  size_t n = (size_t)num_envs, stride = (v->policy->state_size + STATE_ALIGN - 1) / STATE_ALIGN;
  stride *= STATE_ALIGN;
  v->slot = calloc(n, sizeof(vec_slot));
  v->order = malloc(n * sizeof(int));
  v->state = aligned_alloc(STATE_ALIGN, n * stride);
  v->obs = calloc(n * (size_t)v->policy->obs_dim, sizeof(double));
  v->rewards = calloc(n, sizeof(double));
  v->terminated = calloc(n, 1);
  v->truncated = calloc(n, 1);
  v->success = calloc(n, 1);
  v->scratch = malloc(sizeof(tf_metrics));
  if (copy_strings(v, o) || !v->slot || !v->order || !v->state || !v->obs || !v->rewards ||
      !v->terminated || !v->truncated || !v->success || !v->scratch) {
    tf_vec_env_destroy(v);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    v->slot[i].ps = v->state + i * stride;
    v->order[i] = (int)i;
  }
  int threads = o->threads < num_envs ? o->threads : num_envs;
  v->pool = tf_pool_create(threads, err, errlen);
  if (!v->pool) {
    tf_vec_env_destroy(v);
    return NULL;
  }
  return v;
}

tf_vec_env* tf_vec_env_create(const char* task, int num_envs, const char* const* keys,
                              const char* const* values, int nset, char* err, size_t errlen) {
  tf_run_options o;
  tf_vec_env_settings s;
  if (tf_vec_env_parse_settings(task ? task : "", keys, values, nset, &o, &s, err, errlen)) {
    return NULL;
  }
  return tf_vec_env_create_run(&o, num_envs, &s, err, errlen);
}

void tf_vec_env_destroy(tf_vec_env* v) {
  if (!v) return;
  tf_pool_destroy(v->pool);
  for (int i = 0; v->slot && i < v->n; i++) slot_free(v, &v->slot[i]);
  free(v->slot);
  free(v->order);
  free(v->state);
  free(v->obs);
  free(v->rewards);
  free(v->terminated);
  free(v->truncated);
  free(v->success);
  free(v->scratch);
  free(v->strings);
  free(v);
}

int tf_vec_env_num_envs(const tf_vec_env* v) { return v->n; }
int tf_vec_env_action_dim(const tf_vec_env* v) { return v->policy->action_dim; }
int tf_vec_env_obs_dim(const tf_vec_env* v) { return v->policy->obs_dim; }
int tf_vec_env_threads(const tf_vec_env* v) { return tf_pool_threads(v->pool); }
int tf_vec_env_decimation(const tf_vec_env* v) { return v->settings.decimation; }
double tf_vec_env_policy_dt(const tf_vec_env* v) { return v->settings.decimation * v->physics.dt; }
long tf_vec_env_max_steps(const tf_vec_env* v) {
  return (v->ncontrol + v->settings.decimation - 1) / v->settings.decimation;
}
const char* tf_vec_env_action_names(const tf_vec_env* v) { return v->policy->action_names; }
const char* tf_vec_env_obs_names(const tf_vec_env* v) { return v->policy->obs_names; }
const char* tf_vec_env_task(const tf_vec_env* v) { return v->task->name; }
const char* tf_vec_env_mode(const tf_vec_env* v) {
  return v->options.mode == TF_MODE_ROBOT ? "robot" : "rig";
}
int tf_vec_env_has_script(const tf_vec_env* v) { return v->policy->scripted != NULL; }

int tf_vec_env_reset(tf_vec_env* v, uint64_t seed, char* err, size_t errlen) {
  v->reset_seed = seed;
  v->reset_seeds = NULL;
  v->reset_mask = NULL;
  tf_pool_run(v->pool, v->n, job_reset, v);
  return report_failed(v, err, errlen);
}

int tf_vec_env_reset_seeds(tf_vec_env* v, const uint64_t* seeds, const uint8_t* mask, char* err,
                           size_t errlen) {
  if (!seeds) {
    snprintf(err, errlen, "reset: no seeds");
    return -1;
  }
  v->reset_seeds = seeds;
  v->reset_mask = mask;
  tf_pool_run(v->pool, v->n, job_reset, v);
  v->reset_seeds = NULL;
  v->reset_mask = NULL;
  return report_failed(v, err, errlen);
}

int tf_vec_env_step(tf_vec_env* v, const double* actions, char* err, size_t errlen) {
  if (check_built(v, err, errlen)) return -1;
  if (!actions) {
    snprintf(err, errlen, "step: no actions");
    return -1;
  }
  int na = v->policy->action_dim;
  for (int i = 0; i < v->n; i++) {
    if (v->slot[i].done) continue;  // its action is not read
    for (int k = 0; k < na; k++) {
      double a = actions[(size_t)i * (size_t)na + (size_t)k];
      if (!isfinite(a)) {
        snprintf(err, errlen, "action[%d][%d] is %s (environment %d, component %d of %d)", i, k,
                 isnan(a) ? "NaN" : "infinite", i, k, na);
        return -1;
      }
    }
  }
  v->actions = actions;
  int rebuild = 0;
  for (int i = 0; i < v->n; i++) rebuild |= v->slot[i].done && v->settings.autoreset;
  sort_by_cost(v);
  tf_pool_run_dynamic(v->pool, v->n, job_step, v);
  if (rebuild) tf_pool_run(v->pool, v->n, job_autoreset, v);
  v->actions = NULL;
  return report_failed(v, err, errlen);
}

int tf_vec_env_scripted_actions(tf_vec_env* v, double* actions, char* err, size_t errlen) {
  if (!v->policy->scripted) {
    snprintf(err, errlen, "task '%s' (%s): no script to act on", v->task->name, tf_vec_env_mode(v));
    return -1;
  }
  if (check_built(v, err, errlen)) return -1;
  for (int i = 0; i < v->n; i++) {
    if (!v->slot[i].built) {
      snprintf(err, errlen, "env %d is not built: reset the batch first", i);
      return -1;
    }
  }
  v->scripted = actions;
  tf_pool_run_dynamic(v->pool, v->n, job_scripted, v);
  v->scripted = NULL;
  return 0;
}

const double* tf_vec_env_obs(const tf_vec_env* v) { return v->obs; }
const double* tf_vec_env_rewards(const tf_vec_env* v) { return v->rewards; }
const uint8_t* tf_vec_env_terminated(const tf_vec_env* v) { return v->terminated; }
const uint8_t* tf_vec_env_truncated(const tf_vec_env* v) { return v->truncated; }
const uint8_t* tf_vec_env_success(const tf_vec_env* v) { return v->success; }
uint64_t tf_vec_env_seed(const tf_vec_env* v, int i) {
  return i >= 0 && i < v->n ? v->slot[i].seed : 0;
}
int tf_vec_env_index(const tf_vec_env* v, int i) {
  return i >= 0 && i < v->n ? v->slot[i].index : -1;
}
long tf_vec_env_episode_steps(const tf_vec_env* v, int i) {
  return i >= 0 && i < v->n ? v->slot[i].steps : -1;
}

int tf_vec_env_metrics(tf_vec_env* v, int i, tf_metrics* out) {
  tf_metrics_clear(out);
  if (i < 0 || i >= v->n || !v->slot[i].built) return -1;
  vec_slot* s = &v->slot[i];
  // env_run_metrics (task_run.c): status, the probes, the task's own
  tf_metrics_set_text(out, "status", s->diverged ? "diverged" : "ok");
  tf_probes_finish(&s->probes, out);
  if (v->task->finish) v->task->finish(&s->env, out);
  if (s->diverged) tf_metrics_set_bool(out, "success", 0);
  return 0;
}

int tf_vec_env_metric(tf_vec_env* v, const char* name, double* out, char* err, size_t errlen) {
  int found = 0;
  for (int i = 0; i < v->n; i++) {
    out[i] = NAN;
    if (tf_vec_env_metrics(v, i, v->scratch)) continue;
    const tf_metric* m = name ? tf_metrics_find(v->scratch, name) : NULL;
    if (!m) continue;
    found = 1;
    if (m->kind != TF_METRIC_TEXT) out[i] = m->value;
  }
  if (!found) {
    snprintf(err, errlen, "unknown metric '%s' (tf_vec_env_metric_name lists them)",
             name ? name : "");
    return -1;
  }
  return 0;
}

const char* tf_vec_env_metric_name(tf_vec_env* v, int i, int k) {
  if (tf_vec_env_metrics(v, i, v->scratch) || k < 0 || k >= v->scratch->n) return NULL;
  return v->scratch->item[k].name;
}
