// The runner: builds a task's environments, steps each one with the task's control and the
// probes, and merges their metrics into one row (see task.h). Environments run one after
// another in the calling thread: a sweep runs whole runs side by side instead, which keeps
// every run's numbers independent of the thread count.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "task.h"

#define MAX_ENVS 256
#define MAX_PARAMS 64

void tf_run_options_default(tf_run_options* o) {
  memset(o, 0, sizeof(*o));
  o->mode = TF_MODE_RIG;
  o->physics.dt = 0;
  o->physics.substeps = 1;
  o->physics.solver = TF_SOLVER_AL;
  o->physics.iterations = 0;
  o->duration = 0;
  o->envs = 1;
  o->seed = 0;
}

static double wall_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char* mode_name(tf_task_mode mode) { return mode == TF_MODE_ROBOT ? "robot" : "rig"; }

// the task, its parsed parameters and the effective settings, or -1 with a message
static int resolve(const tf_run_options* o, const tf_task_info** task, double* values,
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
  if (o->mode != TF_MODE_RIG) {
    snprintf(err, errlen, "task '%s': mode '%s' is not available yet (only rig)", (*task)->name,
             mode_name(o->mode));
    return -1;
  }
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
  *duration = o->duration > 0 ? o->duration : (*task)->default_duration;
  if (!isfinite(*duration) || *duration > 3600) {
    snprintf(err, errlen, "duration must be in (0, 3600] s (got %g)", *duration);
    return -1;
  }
  if (o->envs < 1 || o->envs > MAX_ENVS) {
    snprintf(err, errlen, "envs must be in [1, %d] (got %d)", MAX_ENVS, o->envs);
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

// builds and runs environment `index`; the built env is left for the caller. Returns 0, or
// -1 when the environment did not build (message in err)
static int run_one(const tf_task_info* task, const double* values, const tf_run_options* o,
                   const tf_physics* physics, double duration, int index, tf_env* env,
                   tf_metrics* out, char* err, size_t errlen) {
  memset(env, 0, sizeof(*env));
  env->values = values;
  env->set = o->set;
  env->nset = o->nset;
  env->index = index;
  tf_probe_spec_default(&env->probe);
  tf_rng rng;
  tf_rng_seed(&rng, o->seed, (uint64_t)index);
  if (task->build(env, values, physics, &rng, err, errlen) || !env->model || !env->data) {
    tf_env_free(task, env);
    return -1;
  }
  tf_probe_set probes;
  if (tf_probes_init(&probes, env->model, &env->probe, physics->dt, err, errlen)) {
    tf_env_free(task, env);
    return -1;
  }
  const tf_model* m = env->model;
  tf_data* d = env->data;
  // the control step count: duration / dt rounded to the nearest step (no half steps)
  long ncontrol = lround(duration / physics->dt);
  if (ncontrol < 1) ncontrol = 1;
  tf_kinematics(m, d);
  // the initial state is the first observation: a part that covers its whole approach in
  // the first control step (30 mm at 8 m/s and dt = 10 ms) still counts that travel
  tf_probes_observe_control(&probes, m, d);
  int diverged = 0;
  for (long c = 0; c < ncontrol && !diverged; c++) {
    if (task->control) task->control(env);
    for (int s = 0; s < physics->substeps && !diverged; s++) {
      double t0 = wall_clock();
      int failed = tf_step(m, d) != 0;
      double wall = wall_clock() - t0;
      // probes read poses after the step (tf_step leaves the kinematics of its start)
      tf_kinematics(m, d);
      tf_probes_observe_step(&probes, m, d, wall, failed);
      diverged = tf_divergence_diverged(&probes.divergence);
    }
    if (diverged) break;
    if (task->observe) task->observe(env);
    tf_probes_observe_control(&probes, m, d);
  }
  tf_metrics_clear(out);
  tf_metrics_set_text(out, "status", diverged ? "diverged" : "ok");
  tf_probes_finish(&probes, out);
  tf_probes_free(&probes);
  if (task->finish) task->finish(env, out);
  // a diverged environment did not succeed, whatever its last state looked like
  if (diverged) tf_metrics_set_bool(out, "success", 0);
  return 0;
}

int tf_task_run_env(const tf_run_options* o, int index, tf_env* env, tf_metrics* out, char* err,
                    size_t errlen) {
  const tf_task_info* task;
  double values[MAX_PARAMS];
  tf_physics physics;
  double duration;
  if (resolve(o, &task, values, &physics, &duration, err, errlen)) return -1;
  int rc = run_one(task, values, o, &physics, duration, index, env, out, err, errlen);
  // the values live on this stack: the caller inspects model, data and state only
  env->values = NULL;
  return rc;
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

int tf_task_run(const tf_run_options* o, tf_metrics* out, char* err, size_t errlen) {
  const tf_task_info* task;
  double values[MAX_PARAMS];
  tf_physics physics;
  double duration;
  if (resolve(o, &task, values, &physics, &duration, err, errlen)) return -1;
  tf_metrics* per_env = malloc(sizeof(tf_metrics) * (size_t)o->envs);
  tf_metrics* merged = malloc(sizeof(tf_metrics));
  if (!per_env || !merged) {
    free(per_env);
    free(merged);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  char build_err[256] = "";
  int built = 1, ndiverged = 0, nsuccess = 0;
  for (int i = 0; i < o->envs && built; i++) {
    tf_env env;
    if (run_one(task, values, o, &physics, duration, i, &env, &per_env[i], build_err,
                sizeof(build_err))) {
      built = 0;
      break;
    }
    tf_env_free(task, &env);
    const char* status = tf_metrics_text(&per_env[i], "status");
    if (status && strcmp(status, "diverged") == 0) ndiverged++;
    if (tf_metrics_get(&per_env[i], "success") == 1) nsuccess++;
  }
  tf_metrics_clear(out);
  run_columns(out, o, task, values, &physics, duration);
  if (!built) {
    // a configuration the task cannot build (e.g. parts that do not fit): a row that says so
    tf_metrics_set_text(out, "status", "failed");
    tf_metrics_set_bool(out, "success", 0);
    tf_metrics_set_text(out, "error", build_err);
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
  }
  free(per_env);
  free(merged);
  return 0;
}
