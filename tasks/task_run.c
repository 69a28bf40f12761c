// The runner: builds a task's environments, steps each one with the task's control and the
// probes, and merges their metrics into one row (see task.h).
//
// Environments share nothing mutable (each has its own model, data, task state and probes;
// the engine keeps no global state), so a run with `threads` > 1 hands environment indices
// to a small pool of workers, the calling thread one of them, each stepping its own copy of
// the resolved run and writing environment i's metrics into slot i. The slots are merged
// in index order afterwards, exactly as a serial run merges them, so the row does not depend
// on the thread count or on which worker ran what. Indices go out in increasing order, so
// when environment i fails to build every lower index has been handed out and runs to the
// end: the lowest failure, the one a serial run stops at, is always among those seen. By
// default a run takes one thread: a sweep runs whole runs side by side instead.
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task.h"

#define MAX_ENVS 256
#define MAX_PARAMS TF_TASK_MAX_PARAMS

void tf_run_options_default(tf_run_options* o) {
  memset(o, 0, sizeof(*o));
  o->mode = TF_MODE_RIG;
  o->physics.dt = 0;
  o->physics.substeps = 1;
  o->physics.solver = TF_SOLVER_AL;
  o->physics.iterations = 0;
  o->physics.relinearize = 0;
  o->physics.persist_tol = tf_option_default().persist_tol;
  o->duration = 0;
  o->envs = 1;
  o->threads = 1;
  o->seed = 0;
}

static const char* mode_name(tf_task_mode mode) { return mode == TF_MODE_ROBOT ? "robot" : "rig"; }

// the task, its parsed parameters and the effective settings, or -1 with a message
int tf_run_resolve(const tf_run_options* o, const tf_task_info** task, double* values,
                   tf_physics* physics, double* duration, char* err, size_t errlen) {
  *task = tf_task_find(o->task);
  if (!*task) {
    size_t at = (size_t)snprintf(err, errlen, "unknown task '%s' (valid:", o->task ? o->task : "");
    for (int i = 0; i < tf_task_count() && at < errlen; i++) {
      at += (size_t)snprintf(err + at, errlen - at, " %s", tf_task_at(i)->name);
    }
    if (at < errlen) snprintf(err + at, errlen - at, ")");
    return -1;
  }
  const tf_task_info* moded = tf_task_for_mode(*task, o->mode);
  if (!moded) {
    // name the tasks that have the mode, so the message says what would run
    size_t at = (size_t)snprintf(
        err, errlen, "task '%s': mode '%s' is not available (tasks with it:", (*task)->name,
        mode_name(o->mode));
    int any = 0;
    for (int i = 0; i < tf_task_count() && at < errlen; i++) {
      if (!tf_task_for_mode(tf_task_at(i), o->mode)) continue;
      at += (size_t)snprintf(err + at, errlen - at, " %s", tf_task_at(i)->name);
      any = 1;
    }
    if (at < errlen) snprintf(err + at, errlen - at, "%s)", any ? "" : " none yet");
    return -1;
  }
  // from here on the mode's own entry: its schema, defaults and functions
  *task = moded;
  if ((*task)->nparam > MAX_PARAMS) {
    snprintf(err, errlen, "task '%s': too many parameters", (*task)->name);
    return -1;
  }
  *physics = o->physics;
  if (!(physics->dt <= 0) && !(isfinite(physics->dt) && physics->dt <= 1)) {
    snprintf(err, errlen, "dt must be in (0, 1] s (got %g)", physics->dt);
    return -1;
  }
  if (physics->dt <= 0) physics->dt = (*task)->default_dt;
  if (physics->substeps < 1 || physics->substeps > 1000) {
    snprintf(err, errlen, "substeps must be in [1, 1000] (got %d)", physics->substeps);
    return -1;
  }
  if ((int)physics->solver < 0 || physics->solver >= TF_SOLVER_N) {
    snprintf(err, errlen, "unknown solver");
    return -1;
  }
  if (physics->iterations < 0 || physics->iterations > 100000) {
    snprintf(err, errlen, "iterations must be in [0, 100000] (got %d)", physics->iterations);
    return -1;
  }
  if (physics->relinearize < 0 || physics->relinearize > 100) {
    snprintf(err, errlen, "relinearize must be in [0, 100] (got %d)", physics->relinearize);
    return -1;
  }
  if (!isfinite(physics->persist_tol) || physics->persist_tol < 0 || physics->persist_tol > 1e-3) {
    snprintf(err, errlen, "persist_tol must be in [0, 1e-3] m (got %g)", physics->persist_tol);
    return -1;
  }
  *duration = o->duration > 0 ? o->duration : (*task)->default_duration;
  if (!isfinite(*duration) || *duration > 3600) {
    snprintf(err, errlen, "duration must be in (0, 3600] s (got %g)", *duration);
    return -1;
  }
  if (*duration / physics->dt > TF_TASK_MAX_STEPS) {
    snprintf(err, errlen,
             "duration %g s / dt %g s is %.3g control steps per environment (at most %.0e); "
             "raise dt or shorten duration",
             *duration, physics->dt, *duration / physics->dt, TF_TASK_MAX_STEPS);
    return -1;
  }
  if (o->envs < 1 || o->envs > MAX_ENVS) {
    snprintf(err, errlen, "envs must be in [1, %d] (got %d)", MAX_ENVS, o->envs);
    return -1;
  }
  if (o->threads < 1 || o->threads > TF_TASK_MAX_THREADS) {
    snprintf(err, errlen, "threads must be in [1, %d] (got %d)", TF_TASK_MAX_THREADS, o->threads);
    return -1;
  }
  if (o->nset < 0 || o->nset > TF_TASK_MAX_SET) {
    snprintf(err, errlen, "at most %d task parameters", TF_TASK_MAX_SET);
    return -1;
  }
  return tf_param_parse("task", (*task)->name, (*task)->params, (*task)->nparam, o->set, o->nset,
                        values, err, errlen);
}

void tf_env_free(const tf_task_info* task, tf_env* env) {
  if (task && task->destroy && env->state) task->destroy(env);
  env->state = NULL;
  tf_data_destroy(env->data);
  tf_model_destroy(env->model);
  env->data = NULL;
  env->model = NULL;
}

struct tf_env_run {
  const tf_task_info* task;
  double values[MAX_PARAMS];
  tf_physics physics;
  double duration;
  tf_run_options options;  // a copy: the caller's set[] strings must outlive the run
  tf_env env;
  tf_probe_set probes;
  long ncontrol, control;
  int diverged;
  const tf_run_observer* observer;  // or NULL (tf_task_run_observed)
  int stopped;                      // the observer stopped the run
};

// builds environment `index` of a resolved run into r (probes started on its initial state);
// 0, or -1 with the task's message (r's env freed)
static int env_run_start(tf_env_run* r, int index, char* err, size_t errlen) {
  tf_env* env = &r->env;
  memset(env, 0, sizeof(*env));
  env->values = r->values;
  env->set = r->options.set;
  env->nset = r->options.nset;
  env->index = index;
  tf_probe_spec_default(&env->probe);
  tf_rng rng;
  tf_rng_seed(&rng, r->options.seed, (uint64_t)index);
  if (r->task->build(env, r->values, &r->physics, &rng, err, errlen) || !env->model || !env->data) {
    tf_env_free(r->task, env);
    return -1;
  }
  if (tf_probes_init(&r->probes, env->model, &env->probe, r->physics.dt, err, errlen)) {
    tf_env_free(r->task, env);
    return -1;
  }
  // the control step count: duration / dt rounded to the nearest step (no half steps)
  r->ncontrol = lround(r->duration / r->physics.dt);
  if (r->ncontrol < 1) r->ncontrol = 1;
  r->control = 0;
  r->diverged = 0;
  tf_kinematics(env->model, env->data);
  // the initial state is the first observation: a part that covers its whole approach in
  // the first control step (30 mm at 8 m/s and dt = 10 ms) still counts that travel
  tf_probes_observe_control(&r->probes, env->model, env->data);
  return 0;
}

int tf_env_physics_steps(const tf_env* env, int substeps, tf_probe_set* probes) {
  const tf_model* m = env->model;
  tf_data* d = env->data;
  for (int s = 0; s < substeps; s++) {
    double t0 = tf_clock();
    int failed = tf_step(m, d) != 0;
    double wall = tf_clock() - t0;
    // probes read poses after the step (tf_step leaves the kinematics of its start)
    tf_kinematics(m, d);
    tf_probes_observe_step(probes, m, d, wall, failed);
    if (tf_divergence_diverged(&probes->divergence)) return 1;
  }
  return 0;
}

int tf_env_run_step(tf_env_run* r) {
  if (r->diverged || r->control >= r->ncontrol) return 0;
  tf_env* env = &r->env;
  const tf_model* m = env->model;
  tf_data* d = env->data;
  if (r->task->control) r->task->control(env);
  r->diverged = tf_env_physics_steps(env, r->physics.substeps, &r->probes);
  r->control++;
  if (r->diverged) return 0;
  if (r->task->observe) r->task->observe(env);
  tf_probes_observe_control(&r->probes, m, d);
  return r->control < r->ncontrol;
}

// the environment's metrics so far: status, the probes, the task's own
static void env_run_metrics(tf_env_run* r, tf_metrics* out) {
  tf_metrics_clear(out);
  tf_metrics_set_text(out, "status", r->diverged ? "diverged" : "ok");
  tf_probes_finish(&r->probes, out);
  if (r->task->finish) r->task->finish(&r->env, out);
  // a diverged environment did not succeed, whatever its last state looked like
  if (r->diverged) tf_metrics_set_bool(out, "success", 0);
}

// builds and runs environment `index`; the built env is left for the caller. Returns 0, or
// -1 when the environment did not build (message in err)
static int run_one(tf_env_run* r, int index, tf_env* env, tf_metrics* out, char* err,
                   size_t errlen) {
  if (env_run_start(r, index, err, errlen)) return -1;
  const tf_run_observer* ob = r->observer;
  r->stopped = ob && ob->observe(ob->ctx, r);
  // the same steps with or without an observer: it only reads between them
  while (!r->stopped) {
    long before = r->control;
    int more = tf_env_run_step(r);
    if (ob && r->control > before) r->stopped = ob->observe(ob->ctx, r);
    if (!more) break;
  }
  env_run_metrics(r, out);
  tf_probes_free(&r->probes);
  *env = r->env;
  return 0;
}

// a run resolved from options (values parsed, settings checked), nothing built yet
static tf_env_run* env_run_resolve(const tf_run_options* o, char* err, size_t errlen) {
  tf_env_run* r = calloc(1, sizeof(*r));
  if (!r) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  r->options = *o;
  if (tf_run_resolve(o, &r->task, r->values, &r->physics, &r->duration, err, errlen)) {
    free(r);
    return NULL;
  }
  return r;
}

int tf_task_run_env(const tf_run_options* o, int index, tf_env* env, tf_metrics* out, char* err,
                    size_t errlen) {
  tf_env_run* r = env_run_resolve(o, err, errlen);
  if (!r) return -1;
  int rc = run_one(r, index, env, out, err, errlen);
  // the values live in r: the caller inspects model, data and state only
  env->values = NULL;
  free(r);
  return rc;
}

tf_env_run* tf_env_run_begin(const tf_run_options* o, int index, char* err, size_t errlen) {
  tf_env_run* r = env_run_resolve(o, err, errlen);
  if (!r) return NULL;
  if (index < 0 || index >= o->envs) {
    snprintf(err, errlen, "environment %d out of range [0, %d)", index, o->envs);
    free(r);
    return NULL;
  }
  if (env_run_start(r, index, err, errlen)) {
    free(r);
    return NULL;
  }
  return r;
}

const tf_env* tf_env_run_env(const tf_env_run* r) { return &r->env; }
const tf_probe_set* tf_env_run_probes(const tf_env_run* r) { return &r->probes; }
const tf_task_info* tf_env_run_task(const tf_env_run* r) { return r->task; }
const tf_physics* tf_env_run_physics(const tf_env_run* r) { return &r->physics; }
double tf_env_run_duration(const tf_env_run* r) { return r->duration; }
long tf_env_run_control(const tf_env_run* r) { return r->control; }

void tf_env_run_finish(tf_env_run* r, tf_metrics* out) { env_run_metrics(r, out); }

void tf_env_run_end(tf_env_run* r) {
  if (!r) return;
  tf_probes_free(&r->probes);
  tf_env_free(r->task, &r->env);
  free(r);
}

// the row's leading columns: what was run
static void run_columns(tf_metrics* row, const tf_run_options* o, const tf_task_info* task,
                        const double* values, const tf_physics* physics, double duration) {
  tf_metrics_set_text(row, "task", task->name);
  tf_metrics_set_text(row, "mode", mode_name(o->mode));
  tf_metrics_set_text(row, "solver", tf_solver_name(physics->solver));
  tf_metrics_set(row, "dt", physics->dt);
  tf_metrics_set_int(row, "substeps", physics->substeps);
  tf_metrics_set_int(row, "iterations", physics->iterations);
  tf_metrics_set_int(row, "relinearize", physics->relinearize);
  tf_metrics_set(row, "persist_tol", physics->persist_tol);
  tf_metrics_set(row, "duration", duration);
  tf_metrics_set_int(row, "envs", o->envs);
  tf_metrics_set_int(row, "seed", (long)o->seed);
  for (int i = 0; i < task->nparam; i++) {
    const tf_param_spec* p = &task->params[i];
    if (p->choices) {
      // the choice's name, not its index
      char name[TF_METRIC_NAME];
      const char* c = p->choices;
      for (int k = 0; k < (int)values[i] && c; k++) {
        c = strchr(c, '|');
        if (c) c++;
      }
      size_t len = c ? strcspn(c, "|") : 0;
      if (len >= sizeof(name)) len = sizeof(name) - 1;
      memcpy(name, c ? c : "", len);
      name[len] = 0;
      tf_metrics_set_text(row, p->key, name);
    } else if (p->text) {
      // only when given: the rows of runs without it stay as they were
      const char* text = tf_param_text(p, o->set, o->nset);
      if (text) tf_metrics_set_text(row, p->key, text);
    } else if (p->list > 0) {
      // the whole list as written
      const char* text = p->list_default;
      for (int k = 0; k < o->nset; k++) {
        if (o->set[k].key && strcmp(o->set[k].key, p->key) == 0) text = o->set[k].value;
      }
      tf_metrics_set_text(row, p->key, text ? text : "");
    } else {
      tf_metrics_set(row, p->key, values[i]);
    }
  }
}

// ---- environments side by side

#define WORKER_STACK ((size_t)16 << 20)  // the runner and the tasks keep arrays on the stack
#define ERR_LEN 256

// what the workers of one run share; `next` and the failure fields are guarded by `lock`
typedef struct env_pool {
  tf_metrics* per_env;  // (envs) environment i's metrics, written by the worker that ran it
  long* ncontrol;       // (envs) control steps environment i ran
  int envs;
  pthread_mutex_t lock;
  int next;           // the next environment to hand out
  int failed;         // the lowest environment that did not build; envs when none
  char err[ERR_LEN];  // its message
  int stopped;        // an observer stopped the run
} env_pool;

// one worker: the pool and its own copy of the resolved run, stepped one environment at a
// time
typedef struct env_worker {
  env_pool* pool;
  tf_env_run* run;
} env_worker;

// takes environment indices until none are left (or one failed to build), running each
static void* env_worker_main(void* arg) {
  env_worker* w = arg;
  env_pool* p = w->pool;
  for (;;) {
    pthread_mutex_lock(&p->lock);
    int i = p->failed == p->envs && !p->stopped && p->next < p->envs ? p->next++ : -1;
    pthread_mutex_unlock(&p->lock);
    if (i < 0) break;
    char err[ERR_LEN] = "";
    tf_env env;
    if (run_one(w->run, i, &env, &p->per_env[i], err, sizeof(err))) {
      pthread_mutex_lock(&p->lock);
      if (i < p->failed) {
        p->failed = i;
        memcpy(p->err, err, sizeof(err));
      }
      pthread_mutex_unlock(&p->lock);
      continue;
    }
    p->ncontrol[i] = w->run->control;
    tf_env_free(w->run->task, &env);
    if (w->run->stopped) {
      pthread_mutex_lock(&p->lock);
      p->stopped = 1;
      pthread_mutex_unlock(&p->lock);
    }
  }
  return NULL;
}

// runs the workers' pool on up to nworker threads, the calling thread one of them (it
// runs alone when no thread can be started); returns the threads that ran
static int run_pool(env_worker* workers, int nworker) {
  pthread_t threads[TF_TASK_MAX_THREADS];
  pthread_attr_t attr;
  int started = 0;
  if (nworker > 1 && pthread_attr_init(&attr) == 0) {
    pthread_attr_setstacksize(&attr, WORKER_STACK);
    // too few threads to be had: the ones started and this one take the rest
    for (; started < nworker - 1; started++) {
      if (pthread_create(&threads[started], &attr, env_worker_main, &workers[started + 1]) != 0) {
        break;
      }
    }
    pthread_attr_destroy(&attr);
  }
  env_worker_main(&workers[0]);
  for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
  return started + 1;
}

int tf_task_run(const tf_run_options* o, tf_metrics* out, char* err, size_t errlen) {
  return tf_task_run_observed(o, NULL, out, err, errlen);
}

int tf_task_run_observed(const tf_run_options* o, const tf_run_observer* observer, tf_metrics* out,
                         char* err, size_t errlen) {
  tf_env_run* r = env_run_resolve(o, err, errlen);
  if (!r) return -1;
  r->observer = observer;
  const tf_task_info* task = r->task;
  // an observer sees the environments in index order, so one worker runs them all
  int nworker = observer ? 1 : o->threads < o->envs ? o->threads : o->envs;
  tf_metrics* per_env = malloc(sizeof(tf_metrics) * (size_t)o->envs);
  tf_metrics* merged = malloc(sizeof(tf_metrics));
  long* ncontrol = calloc((size_t)o->envs, sizeof(long));
  env_worker* workers = malloc(sizeof(env_worker) * (size_t)nworker);
  // worker 0 steps r itself; the others step copies of the resolved run
  tf_env_run* copies = nworker > 1 ? malloc(sizeof(tf_env_run) * (size_t)(nworker - 1)) : NULL;
  if (!per_env || !merged || !ncontrol || !workers || (nworker > 1 && !copies)) {
    free(per_env);
    free(merged);
    free(ncontrol);
    free(workers);
    free(copies);
    free(r);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  env_pool pool;
  memset(&pool, 0, sizeof(pool));
  pool.per_env = per_env;
  pool.ncontrol = ncontrol;
  pool.envs = o->envs;
  pool.failed = o->envs;
  pthread_mutex_init(&pool.lock, NULL);
  for (int k = 0; k < nworker; k++) {
    workers[k].pool = &pool;
    workers[k].run = k == 0 ? r : &copies[k - 1];
    if (k > 0) copies[k - 1] = *r;
  }
  double t0 = tf_clock();
  int nthread = run_pool(workers, nworker);
  double wall = tf_clock() - t0;
  pthread_mutex_destroy(&pool.lock);
  if (pool.stopped) {
    free(per_env);
    free(merged);
    free(ncontrol);
    free(workers);
    free(copies);
    free(r);
    snprintf(err, errlen, "stopped");
    return -1;
  }

  int built = pool.failed == o->envs, ndiverged = 0, nsuccess = 0;
  long nsteps = 0;
  for (int i = 0; i < o->envs && built; i++) {
    const char* status = tf_metrics_text(&per_env[i], "status");
    if (status && strcmp(status, "diverged") == 0) ndiverged++;
    if (tf_metrics_get(&per_env[i], "success") == 1) nsuccess++;
    nsteps += ncontrol[i];
  }
  tf_metrics_clear(out);
  run_columns(out, o, task, r->values, &r->physics, r->duration);
  if (!built) {
    // a configuration the task cannot build (e.g. parts that do not fit): a row that says so
    tf_metrics_set_text(out, "status", "failed");
    tf_metrics_set_bool(out, "success", 0);
    tf_metrics_set_text(out, "error", pool.err);
  } else {
    tf_metrics_merge_envs(merged, per_env, o->envs);
    tf_metrics_set_text(out, "status", ndiverged ? "diverged" : "ok");
    tf_metrics_set_bool(out, "success", nsuccess == o->envs);
    tf_metrics_set_int(out, "success_envs", nsuccess);
    tf_metrics_set(out, "steps_per_s", tf_metrics_get(merged, "throughput.steps_per_s"));
    tf_metrics_set(out, "realtime_factor", tf_metrics_get(merged, "throughput.realtime_factor"));
    for (int i = 0; i < merged->n; i++) {
      const tf_metric* mi = &merged->item[i];
      if (strcmp(mi->name, "status") == 0 || strcmp(mi->name, "success") == 0) continue;
      if (mi->kind == TF_METRIC_TEXT) {
        tf_metrics_set_text(out, mi->name, mi->text);
      } else {
        tf_metric* slot = NULL;
        tf_metrics_set(out, mi->name, mi->value);
        for (int k = 0; k < out->n; k++) {
          if (strcmp(out->item[k].name, mi->name) == 0) slot = &out->item[k];
        }
        if (slot) slot->kind = mi->kind;
      }
    }
    // the run as a whole: measurements like the rest of throughput.*, so rows at different
    // thread counts still compare equal outside it
    tf_metrics_set_int(out, "throughput.threads", nthread);
    tf_metrics_set(out, "throughput.wall_s", wall);
    tf_metrics_set(out, "throughput.aggregate_env_steps_per_s",
                   wall > 0 ? (double)nsteps / wall : NAN);
  }
  free(per_env);
  free(merged);
  free(ncontrol);
  free(workers);
  free(copies);
  free(r);
  return 0;
}
