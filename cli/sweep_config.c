// A sweep configuration and its expansion into runs (see sweep_config.h). Parsing checks one
// JSON path at a time so that every message can name where the problem is, and goes on past
// a problem so that one pass lists them all (up to TF_CONFIG_MAX_ERRORS); expansion then
// walks tasks x grid odometer x seeds; finally every run's parameters go through the task's
// own tf_param_parse, the same check tf_task_run makes, so a sweep never fails on bad options
// half way through.
#include "sweep_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_errors.h"
#include "file_io.h"
#include "json_keys.h"
#include "sweep_assembly.h"
#include "sweep_record.h"
#include "sweep_video.h"

// the limits of `tightfit run --task` and the runner, so that every command a sweep writes runs
#define MIN_DT 1e-7        // s
#define MAX_DT 1.0         // s
#define MIN_DURATION 1e-6  // s
#define MAX_SUBSTEPS 1000  // the runner's limit
#define MAX_ITERATIONS 100000
#define MAX_RELINEARIZE 100
#define MAX_PERSIST_TOL 1e-3  // m
#define MAX_DURATION 3600.0   // s
#define MAX_ENVS 256
#define MAX_SEED 9007199254740992.0  // 2^53: larger integers are not exact in JSON's doubles
#define MAX_PATH 160

static const char* const top_keys[] = {"task", "mode", "duration", "envs",        "seeds",
                                       "grid", "set",  "video",    "description", "record"};
static const char* const physics_keys[] = {"solver",     "dt",          "substeps",
                                           "iterations", "relinearize", "persist_tol"};
#define NTOP ((int)(sizeof(top_keys) / sizeof(top_keys[0])))
#define NPHYSICS ((int)(sizeof(physics_keys) / sizeof(physics_keys[0])))

// the shortest %g text that reads back as exactly x, so that 0.001 prints as "0.001" (not
// "0.0010000000000000000208") and the run id does not depend on how the JSON spelled it
static void number_text(double x, char* out, size_t n) {
  // -0 is 0: one physics, one text, one run id (and grid [0, -0] a duplicate)
  if (x == 0) x = 0;
  int digits = 1;
  for (; digits < 17; digits++) {
    snprintf(out, n, "%.*g", digits, x);
    if (strtod(out, NULL) == x) break;
  }
  // %g writes 50 as "5e+01" at one digit: give whole numbers their integer digits
  double magnitude = fabs(x) >= 1 ? floor(log10(fabs(x))) + 1 : 0;
  if (magnitude > digits && magnitude <= 17) digits = (int)magnitude;
  snprintf(out, n, "%.*g", digits, x);
}

static char* dup_text(const char* s) {
  size_t n = strlen(s) + 1;
  char* d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

// ---- parsing
//
// Each check reports what it finds and returns -1, and its caller carries on with whatever
// does not depend on the bad part: a bad task name does not hide a bad dt, a bad grid.dt[0]
// does not hide a bad grid.dt[1]. What cannot be checked without the bad part is skipped
// rather than guessed at (a parameter key when a task name is wrong: it may be that task's).

// a number that must be an integer in [lo, hi]: 0, or -1 with the message
static int check_integer(const cJSON* v, double lo, double hi, const char* path,
                         tf_config_errors* e) {
  if (!cJSON_IsNumber(v)) return tf_config_fail(e, "%s: must be an integer", path);
  double x = v->valuedouble;
  if (!isfinite(x)) return tf_config_fail(e, "%s: number out of range (overflows a double)", path);
  if (x != floor(x) || x < lo || x > hi) {
    return tf_config_fail(e, "%s: must be an integer in [%.17g, %.17g] (got %g)", path, lo, hi, x);
  }
  return 0;
}

// an object, each of whose keys appears once: each repeated key named once (callers read the
// first copy and skip the others). Returns the members' repeat flags (tf_json_key_repeats:
// 2 on a repeat; free them), NULL when o is not an object, has no members or memory ran out
static unsigned char* check_object(const cJSON* o, const char* path, tf_config_errors* e) {
  if (!cJSON_IsObject(o)) {
    tf_config_fail(e, "%s: must be a JSON object", path);
    return NULL;
  }
  int n = 0;
  unsigned char* repeat = tf_json_key_repeats(o, &n);
  if (!repeat) {
    if (n > 0) tf_config_oom(e);
    return NULL;
  }
  int i = 0;
  for (const cJSON* a = o->child; a; a = a->next, i++) {
    if (repeat[i] == 1) {
      tf_config_fail(e, "%s%s%s: key given twice", path[0] ? path : "", path[0] ? "." : "",
                     a->string);
    }
  }
  return repeat;
}

// "valid: ..." for an unknown task: the registry's names
static void task_names(const tf_task_info* const* tasks, int ntasks, char* out, size_t n) {
  size_t at = 0;
  out[0] = 0;
  for (int i = 0; i < ntasks && at < n; i++) {
    at += (size_t)snprintf(out + at, n - at, "%s%s", i ? ", " : "", tasks[i]->name);
  }
  if (ntasks == 0) snprintf(out, n, "no tasks are registered");
}

// the listed tasks into plan->task: 0, or -1 when any is missing or unknown (then the task
// parameters cannot be told from typos)
static int parse_tasks(tf_sweep_plan* plan, const cJSON* root, const tf_task_info* const* tasks,
                       int ntasks, tf_config_errors* e) {
  char valid[512];
  task_names(tasks, ntasks, valid, sizeof(valid));
  const cJSON* t = cJSON_GetObjectItemCaseSensitive(root, "task");
  if (!t) return tf_config_fail(e, "task: missing (valid: %s)", valid);
  int n = cJSON_IsArray(t) ? cJSON_GetArraySize(t) : 1;
  if (!cJSON_IsArray(t) && !cJSON_IsString(t)) {
    return tf_config_fail(e, "task: must be a task name or a list of names (valid: %s)", valid);
  }
  if (n == 0) return tf_config_fail(e, "task: empty list (valid: %s)", valid);
  if (n > TF_SWEEP_MAX_TASKS)
    return tf_config_fail(e, "task: more than %d tasks", TF_SWEEP_MAX_TASKS);
  int rc = 0;
  for (int i = 0; i < n; i++) {
    const cJSON* name = cJSON_IsArray(t) ? cJSON_GetArrayItem(t, i) : t;
    char path[32];
    if (cJSON_IsArray(t)) {
      snprintf(path, sizeof(path), "task[%d]", i);
    } else {
      snprintf(path, sizeof(path), "task");
    }
    if (!cJSON_IsString(name)) {
      rc = tf_config_fail(e, "%s: must be a task name", path);
      continue;
    }
    const tf_task_info* found = NULL;
    for (int k = 0; k < ntasks && !found; k++) {
      if (strcmp(tasks[k]->name, name->valuestring) == 0) found = tasks[k];
    }
    if (!found) {
      rc = tf_config_fail(e, "%s: unknown task '%s' (valid: %s)", path, name->valuestring, valid);
      continue;
    }
    int twice = 0;
    for (int k = 0; k < plan->ntask && !twice; k++) twice = plan->task[k] == found;
    if (twice) {
      // the first copy stands, so the keys are still checked against the task
      tf_config_fail(e, "%s: task '%s' is listed twice", path, found->name);
      continue;
    }
    plan->task[plan->ntask++] = found;
  }
  return rc;
}

// 0, or -1 when "mode" is neither (then which schema the keys belong to is unknown)
static int parse_mode(tf_sweep_plan* plan, const cJSON* root, tf_config_errors* e) {
  const cJSON* mode = cJSON_GetObjectItemCaseSensitive(root, "mode");
  if (!mode) return 0;
  if (cJSON_IsString(mode) && strcmp(mode->valuestring, "rig") == 0) {
    plan->mode = TF_MODE_RIG;
  } else if (cJSON_IsString(mode) && strcmp(mode->valuestring, "robot") == 0) {
    plan->mode = TF_MODE_ROBOT;
  } else {
    return tf_config_fail(e, "mode: must be \"rig\" or \"robot\"");
  }
  return 0;
}

static int parse_duration(tf_sweep_plan* plan, const cJSON* root, tf_config_errors* e) {
  const cJSON* duration = cJSON_GetObjectItemCaseSensitive(root, "duration");
  if (!duration) return 0;
  if (!cJSON_IsNumber(duration)) return tf_config_fail(e, "duration: must be a number (s)");
  double x = duration->valuedouble;
  if (!isfinite(x)) return tf_config_fail(e, "duration: number out of range (overflows a double)");
  if (!(x > 0)) return tf_config_fail(e, "duration: must be > 0 (got %g)", x);
  if (x < MIN_DURATION) {
    return tf_config_fail(e, "duration: must be at least %g s (got %g)", MIN_DURATION, x);
  }
  if (x > MAX_DURATION) {
    return tf_config_fail(e, "duration: must be at most %g s (got %g)", MAX_DURATION, x);
  }
  plan->duration = x;
  return 0;
}

// envs and description, each checked whatever the other holds
static void parse_scalars(tf_sweep_plan* plan, const cJSON* root, tf_config_errors* e) {
  const cJSON* envs = cJSON_GetObjectItemCaseSensitive(root, "envs");
  if (envs && check_integer(envs, 1, MAX_ENVS, "envs", e) == 0) {
    plan->envs = (int)envs->valuedouble;
  }
  const cJSON* description = cJSON_GetObjectItemCaseSensitive(root, "description");
  if (description && !cJSON_IsString(description)) {
    tf_config_fail(e, "description: must be a string");
  } else if (description && !(plan->description = dup_text(description->valuestring))) {
    tf_config_oom(e);
  }
}

// the video settings: checked here with the rest (sweep_video.c knows them), so that their
// problems are listed with every other one and the video phase after the runs cannot refuse
// them; kept as given for that phase
static void parse_video(tf_sweep_plan* plan, const cJSON* root, tf_config_errors* e) {
  const cJSON* video = cJSON_GetObjectItemCaseSensitive(root, "video");
  if (!video) return;
  // a repeated key is refused like in any other object (the check reads the first copy)
  if (cJSON_IsObject(video)) free(check_object(video, "video", e));
  if (!e->fatal) tf_sweep_video_check(video, e);
  if (!e->fatal && !(plan->video = cJSON_Duplicate(video, 1))) tf_config_oom(e);
}

// the runs to record: the section's form is checked here with the rest; the run numbers
// against the run count once the grid has expanded (plan_parse)
static void parse_record(tf_sweep_plan* plan, const cJSON* root, tf_config_errors* e) {
  const cJSON* record = cJSON_GetObjectItemCaseSensitive(root, "record");
  if (!record) return;
  if (cJSON_IsObject(record)) free(check_object(record, "record", e));
  if (!e->fatal) tf_sweep_record_select(record, -1, NULL, e);
  if (!e->fatal && !(plan->record = cJSON_Duplicate(record, 1))) tf_config_oom(e);
}

static void parse_seeds(tf_sweep_plan* plan, const cJSON* root, tf_config_errors* e) {
  const cJSON* seeds = cJSON_GetObjectItemCaseSensitive(root, "seeds");
  int n = 1;
  if (cJSON_IsNumber(seeds)) {
    if (check_integer(seeds, 1, TF_SWEEP_MAX_RUNS, "seeds", e)) return;
    n = (int)seeds->valuedouble;
  } else if (cJSON_IsArray(seeds)) {
    n = cJSON_GetArraySize(seeds);
    if (n == 0) {
      tf_config_fail(e, "seeds: empty list");
      return;
    }
    if (n > TF_SWEEP_MAX_RUNS) {
      tf_config_fail(e, "seeds: more than %d", TF_SWEEP_MAX_RUNS);
      return;
    }
  } else if (seeds) {
    tf_config_fail(e, "seeds: must be a list of seeds or a count");
    return;
  }
  plan->seed = calloc((size_t)n, sizeof(*plan->seed));
  unsigned char* ok = calloc((size_t)n, 1);  // seed i passed its check
  if (!plan->seed || !ok) {
    free(ok);
    tf_config_oom(e);
    return;
  }
  plan->nseed = n;
  for (int i = 0; i < n; i++) {
    if (!cJSON_IsArray(seeds)) {
      plan->seed[i] = (uint64_t)i;
      continue;
    }
    char path[32];
    snprintf(path, sizeof(path), "seeds[%d]", i);
    const cJSON* s = cJSON_GetArrayItem(seeds, i);
    if (check_integer(s, 0, MAX_SEED, path, e)) continue;
    plan->seed[i] = (uint64_t)s->valuedouble;
    ok[i] = 1;
    for (int k = 0; k < i; k++) {
      if (ok[k] && plan->seed[k] == plan->seed[i]) {
        tf_config_fail(e, "%s: duplicate of seeds[%d] (%llu)", path, k,
                       (unsigned long long)plan->seed[i]);
        break;
      }
    }
  }
  free(ok);
}

static const tf_param_spec* find_spec(const tf_task_info* task, const char* key) {
  for (int i = 0; i < task->nparam; i++) {
    if (strcmp(task->params[i].key, key) == 0) return &task->params[i];
  }
  return NULL;
}

// "solver, dt, substeps, iterations, relinearize, persist_tol, <every listed task's parameters>"
static void valid_keys(const tf_sweep_plan* plan, char* out, size_t n) {
  size_t at = 0;
  out[0] = 0;
  for (int i = 0; i < NPHYSICS && at < n; i++) {
    at += (size_t)snprintf(out + at, n - at, "%s%s", i ? ", " : "", physics_keys[i]);
  }
  for (int t = 0; t < plan->ntask; t++) {
    const tf_task_info* task = plan->task[t];
    for (int i = 0; i < task->nparam && at < n; i++) {
      int seen = 0;
      for (int u = 0; u < t && !seen; u++)
        seen = find_spec(plan->task[u], task->params[i].key) != 0;
      if (!seen) at += (size_t)snprintf(out + at, n - at, ", %s", task->params[i].key);
    }
  }
}

// a task parameter's value as its key=value text: a number (shortest exact digits), a name,
// or a list of numbers joined by commas
static int param_text(const cJSON* v, const char* path, char** out, tf_config_errors* e) {
  char buf[64];
  if (cJSON_IsString(v)) {
    if (!(*out = dup_text(v->valuestring))) return tf_config_oom(e);
    return 0;
  }
  if (cJSON_IsNumber(v)) {
    if (!isfinite(v->valuedouble)) {
      return tf_config_fail(e, "%s: number out of range (overflows a double)", path);
    }
    number_text(v->valuedouble, buf, sizeof(buf));
    if (!(*out = dup_text(buf))) return tf_config_oom(e);
    return 0;
  }
  if (!cJSON_IsArray(v)) {
    return tf_config_fail(e, "%s: must be a number, a name or a list of numbers", path);
  }
  int n = cJSON_GetArraySize(v);
  if (n == 0) return tf_config_fail(e, "%s: empty list", path);
  size_t cap = (size_t)n * 26 + 1, at = 0;
  char* text = malloc(cap);
  if (!text) return tf_config_oom(e);
  for (int i = 0; i < n; i++) {
    const cJSON* el = cJSON_GetArrayItem(v, i);
    if (!cJSON_IsNumber(el) || !isfinite(el->valuedouble)) {
      free(text);
      return tf_config_fail(
          e, "%s[%d]: %s", path, i,
          cJSON_IsNumber(el) ? "number out of range (overflows a double)" : "must be a number");
    }
    number_text(el->valuedouble, buf, sizeof(buf));
    at += (size_t)snprintf(text + at, cap - at, "%s%s", i ? "," : "", buf);
  }
  *out = text;
  return 0;
}

// a task parameter's value (at path) against every task that has the key, with the task's
// own checks; key->text[at] is its text on success
static int parse_param_value(const tf_sweep_plan* plan, tf_sweep_key* key, int at, const cJSON* v,
                             const char* path, tf_config_errors* e) {
  // a list is one value only of a list parameter (teeth): elsewhere it is a mistake,
  // most likely alternatives written in "set" instead of "grid"
  for (int t = 0; cJSON_IsArray(v) && t < plan->ntask; t++) {
    const tf_param_spec* spec = find_spec(plan->task[t], key->name);
    if (spec && spec->list <= 0) {
      return tf_config_fail(e,
                            "%s: must be one value, not a list (%s takes one %s; alternatives "
                            "go in \"grid\")",
                            path, key->name, spec->choices ? "name" : "number");
    }
  }
  if (param_text(v, path, &key->text[at], e)) return -1;
  for (int t = 0; t < plan->ntask; t++) {
    const tf_task_info* task = plan->task[t];
    if (!(key->tasks & (1u << t))) continue;
    double* values = calloc((size_t)task->nparam + 1, sizeof(double));
    if (!values) return tf_config_oom(e);
    tf_kv kv = {key->name, key->text[at]};
    char why[512];
    int bad = tf_param_parse("task", task->name, task->params, task->nparam, &kv, 1, values, why,
                             sizeof(why));
    free(values);
    // one message per value: the first task that refuses it
    if (bad) return tf_config_fail(e, "%s: %s", path, why);
  }
  return 0;
}

// one value of key (at path): checked and stored as value index `at`; on failure
// key->text[at] stays NULL
static int parse_value(const tf_sweep_plan* plan, tf_sweep_key* key, int at, const cJSON* v,
                       const char* path, tf_config_errors* e) {
  char buf[64];
  double x = v && cJSON_IsNumber(v) ? v->valuedouble : NAN;
  switch (key->kind) {
    case TF_SWEEP_SOLVER: {
      int solver = cJSON_IsString(v) ? tf_solver_from_name(v->valuestring) : -1;
      if (solver < 0) {
        char names[256];
        size_t w = 0;
        names[0] = 0;
        for (int i = 0; i < TF_SOLVER_N && w < sizeof(names); i++) {
          w += (size_t)snprintf(names + w, sizeof(names) - w, "%s%s", i ? ", " : "",
                                tf_solver_name(i));
        }
        return tf_config_fail(e, "%s: must be a solver name (%s)", path, names);
      }
      key->number[at] = solver;
      snprintf(buf, sizeof(buf), "%s", tf_solver_name(solver));
      break;
    }
    case TF_SWEEP_DT:
      if (!cJSON_IsNumber(v)) return tf_config_fail(e, "%s: must be a number (s)", path);
      if (!isfinite(x))
        return tf_config_fail(e, "%s: number out of range (overflows a double)", path);
      if (!(x > 0)) return tf_config_fail(e, "%s: must be > 0 (got %g)", path, x);
      if (x < MIN_DT)
        return tf_config_fail(e, "%s: must be at least %g s (got %g)", path, MIN_DT, x);
      if (x > MAX_DT)
        return tf_config_fail(e, "%s: must be at most %g s (got %g)", path, MAX_DT, x);
      key->number[at] = x;
      number_text(x, buf, sizeof(buf));
      break;
    case TF_SWEEP_SUBSTEPS:
    case TF_SWEEP_ITERATIONS:
    case TF_SWEEP_RELINEARIZE: {
      double lo = key->kind == TF_SWEEP_SUBSTEPS ? 1 : 0;
      double hi = key->kind == TF_SWEEP_SUBSTEPS     ? MAX_SUBSTEPS
                  : key->kind == TF_SWEEP_ITERATIONS ? MAX_ITERATIONS
                                                     : MAX_RELINEARIZE;
      if (check_integer(v, lo, hi, path, e)) return -1;
      key->number[at] = x;
      number_text(x, buf, sizeof(buf));
      break;
    }
    case TF_SWEEP_PERSIST_TOL:
      if (!cJSON_IsNumber(v)) return tf_config_fail(e, "%s: must be a number (m)", path);
      if (!isfinite(x))
        return tf_config_fail(e, "%s: number out of range (overflows a double)", path);
      if (!(x >= 0) || x > MAX_PERSIST_TOL) {
        return tf_config_fail(e, "%s: must be in [0, %g] m (got %g)", path, MAX_PERSIST_TOL, x);
      }
      key->number[at] = x;
      number_text(x, buf, sizeof(buf));
      break;
    case TF_SWEEP_PARAM:
      if (parse_param_value(plan, key, at, v, path, e) == 0) return 0;
      free(key->text[at]);
      key->text[at] = NULL;
      return -1;
  }
  if (!(key->text[at] = dup_text(buf))) return tf_config_oom(e);
  return 0;
}

// the kind of key `name` and the plan tasks it applies to (0: none of them)
static void classify_key(const tf_sweep_plan* plan, const char* name, tf_sweep_key* key) {
  key->kind = TF_SWEEP_PARAM;
  for (int i = 0; i < NPHYSICS; i++) {
    if (strcmp(name, physics_keys[i]) == 0) key->kind = (tf_sweep_key_kind)i;
  }
  if (key->kind != TF_SWEEP_PARAM) {
    key->tasks = (1u << plan->ntask) - 1;
    return;
  }
  for (int t = 0; t < plan->ntask; t++) {
    if (find_spec(plan->task[t], name)) key->tasks |= 1u << t;
  }
}

// one key of "grid" or "set" (item, at path) into plan->key, which has room for it:
// 0, or -1 when it is not a key; problems in its values are reported one by one
static int parse_key(tf_sweep_plan* plan, const cJSON* item, int grid, const char* path,
                     int schema_known, tf_config_errors* e) {
  const char* section = grid ? "grid" : "set";
  const char* name = item->string;
  tf_sweep_key* key = &plan->key[plan->nkey];
  memset(key, 0, sizeof(*key));
  key->grid = grid;
  classify_key(plan, name, key);
  if (key->kind == TF_SWEEP_PARAM && !key->tasks) {
    for (int i = 0; i < NTOP; i++) {
      if (strcmp(name, top_keys[i]) == 0 || strcmp(name, "seed") == 0) {
        return tf_config_fail(e, "%s: not a %s key (\"%s\" belongs at the top level)", path,
                              section, strcmp(name, "seed") == 0 ? "seeds" : name);
      }
    }
    // with a task or the mode in doubt, a name no listed task has may be the missing task's
    if (!schema_known) return -1;
    char valid[1024];
    valid_keys(plan, valid, sizeof(valid));
    return tf_config_fail(e, "%s: unknown key (valid: %s)", path, valid);
  }
  for (int k = 0; k < plan->nkey; k++) {
    if (strcmp(plan->key[k].name, name) == 0) {
      return tf_config_fail(e, "%s: also in grid (a key is either swept or fixed)", path);
    }
  }
  int nvalue = 1;
  if (grid) {
    if (!cJSON_IsArray(item)) {
      return tf_config_fail(e, "%s: must be a list of values (a fixed value goes in \"set\")",
                            path);
    }
    nvalue = cJSON_GetArraySize(item);
    if (nvalue == 0) return tf_config_fail(e, "%s: empty list", path);
    if (nvalue > TF_SWEEP_MAX_RUNS) {
      return tf_config_fail(e, "%s: more than %d values", path, TF_SWEEP_MAX_RUNS);
    }
  }
  // the key is owned by the plan from here on, so that a failure below frees it
  key->name = dup_text(name);
  key->text = calloc((size_t)nvalue, sizeof(char*));
  key->number = calloc((size_t)nvalue, sizeof(double));
  plan->nkey++;
  if (!key->name || !key->text || !key->number) return tf_config_oom(e);
  key->nvalue = nvalue;
  int rc = 0;
  for (int i = 0; i < nvalue && !e->fatal; i++) {
    char vpath[MAX_PATH + 16];
    if (grid) {
      snprintf(vpath, sizeof(vpath), "%s[%d]", path, i);
    } else {
      snprintf(vpath, sizeof(vpath), "%s", path);
    }
    const cJSON* v = grid ? cJSON_GetArrayItem(item, i) : item;
    if (parse_value(plan, key, i, v, vpath, e)) {
      rc = -1;
      continue;
    }
    for (int k = 0; k < i; k++) {
      if (key->text[k] && strcmp(key->text[k], key->text[i]) == 0) {
        rc = tf_config_fail(e, "%s: duplicate of %s[%d] (%s)", vpath, path, k, key->text[i]);
        break;
      }
    }
  }
  return rc;
}

// the keys of "grid" (grid = 1) or "set" (grid = 0), appended to plan->key; schema_known: the
// tasks and the mode are certain, so a key none of them has is a mistake
static void parse_keys(tf_sweep_plan* plan, const cJSON* root, int grid, int schema_known,
                       tf_config_errors* e) {
  const char* section = grid ? "grid" : "set";
  const cJSON* obj = cJSON_GetObjectItemCaseSensitive(root, section);
  if (!obj) return;
  if (!cJSON_IsObject(obj)) {
    tf_config_fail(e, "%s: must be a JSON object", section);
    return;
  }
  unsigned char* repeat = check_object(obj, section, e);
  int n = cJSON_GetArraySize(obj);
  tf_sweep_key* more = realloc(plan->key, sizeof(*more) * (size_t)(plan->nkey + n + 1));
  if (!more) {
    free(repeat);
    tf_config_oom(e);
    return;
  }
  plan->key = more;
  int i = 0;
  for (const cJSON* item = obj->child; item && !e->fatal; item = item->next, i++) {
    if (repeat && repeat[i] == 2) continue;  // check_object named it
    char path[MAX_PATH];
    snprintf(path, sizeof(path), "%s.%s", section, item->string);
    parse_key(plan, item, grid, path, schema_known, e);
  }
  free(repeat);
}

static void parse_root(tf_sweep_plan* plan, const cJSON* root, const tf_task_info* const* tasks,
                       int ntasks, tf_config_errors* e) {
  if (!cJSON_IsObject(root)) {
    tf_config_fail(e, "(top level): must be a JSON object {\"task\": ..., \"grid\": ...}");
    return;
  }
  unsigned char* repeat = check_object(root, "", e);
  int index = 0;
  for (const cJSON* item = root->child; item; item = item->next, index++) {
    int known = 0;
    for (int i = 0; i < NTOP && !known; i++) known = strcmp(item->string, top_keys[i]) == 0;
    if (!known && !(repeat && repeat[index] == 2)) {
      char valid[256];
      size_t at = 0;
      for (int i = 0; i < NTOP; i++) {
        at += (size_t)snprintf(valid + at, sizeof(valid) - at, "%s%s", i ? ", " : "", top_keys[i]);
      }
      tf_config_fail(e, "%s: unknown key (valid: %s)", item->string, valid);
    }
  }
  free(repeat);
  int schema_known = parse_tasks(plan, root, tasks, ntasks, e) == 0;
  schema_known &= parse_mode(plan, root, e) == 0;
  parse_duration(plan, root, e);
  parse_scalars(plan, root, e);
  if (e->fatal) return;
  // mode robot: each task's robot entry, whose schema the keys are checked against; a task
  // without one keeps its rig entry, and the runner refuses its runs (a row says so)
  for (int t = 0; t < plan->ntask; t++) {
    const tf_task_info* moded = tf_task_for_mode(plan->task[t], plan->mode);
    if (moded) plan->task[t] = moded;
  }
  parse_seeds(plan, root, e);
  if (!e->fatal) parse_keys(plan, root, 1, schema_known, e);
  if (!e->fatal) parse_keys(plan, root, 0, schema_known, e);
  if (!e->fatal) parse_video(plan, root, e);
  if (!e->fatal) parse_record(plan, root, e);
}

// ---- expansion

// 64-bit FNV-1a, then the murmur3 finalizer: small, stable across machines and releases,
// plenty for thousands of runs. FNV alone leaves strings that differ near their end with ids
// that differ in a few digits (easy to misread); the finalizer spreads every bit over all.
static uint64_t run_hash(const char* s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001b3ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

// the canonical parameter string of run i (malloc'd): fixed fields, then key=value sorted by
// key so that the order keys are written in does not change the id
static char* canonical(const tf_sweep_plan* plan, int i) {
  const tf_sweep_run* r = &plan->run[i];
  char duration[32] = "default";
  if (plan->duration > 0) number_text(plan->duration, duration, sizeof(duration));
  char* text = NULL;
  size_t size = 0;
  FILE* f = open_memstream(&text, &size);
  if (!f) return NULL;
  fprintf(f, "task=%s;mode=%s;duration=%s;envs=%d;seed=%llu", plan->task[r->task]->name,
          plan->mode == TF_MODE_ROBOT ? "robot" : "rig", duration, plan->envs,
          (unsigned long long)r->seed);
  // insertion sort of the applicable keys by name (a few dozen at most)
  int index[TF_TASK_MAX_SET + NPHYSICS], n = 0;
  for (int k = 0; k < plan->nkey && n < TF_TASK_MAX_SET + NPHYSICS; k++) {
    if (r->choice[k] < 0) continue;
    int j = n++;
    while (j > 0 && strcmp(plan->key[index[j - 1]].name, plan->key[k].name) > 0) {
      index[j] = index[j - 1];
      j--;
    }
    index[j] = k;
  }
  for (int j = 0; j < n; j++) {
    fprintf(f, ";%s=%s", plan->key[index[j]].name, plan->key[index[j]].text[r->choice[index[j]]]);
  }
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    free(text);
    return NULL;
  }
  return text;
}

size_t tf_sweep_run_canonical(const tf_sweep_plan* plan, int i, char* out, size_t n) {
  char* text = canonical(plan, i);
  size_t len = text ? strlen(text) : 0;
  if (n > 0) snprintf(out, n, "%s", text ? text : "");
  free(text);
  return len;
}

static int set_run_id(tf_sweep_plan* plan, int i, tf_config_errors* e) {
  char* text = canonical(plan, i);
  if (!text) return tf_config_oom(e);
  snprintf(plan->run[i].id, TF_RUN_ID_LEN, "%016llx",
           (unsigned long long)run_hash(text, strlen(text)));
  free(text);
  return 0;
}

// runs of task t: the product of its grid keys' value counts and the seeds
static double task_runs(const tf_sweep_plan* plan, int t) {
  double n = plan->nseed;
  for (int k = 0; k < plan->nkey; k++) {
    if (plan->key[k].grid && (plan->key[k].tasks & (1u << t))) n *= plan->key[k].nvalue;
  }
  return n;
}

static int expand(tf_sweep_plan* plan, tf_config_errors* e) {
  double total = 0;
  int rc = 0;
  for (int t = 0; t < plan->ntask; t++) {
    int nset = 0;
    for (int k = 0; k < plan->nkey; k++) {
      nset += plan->key[k].kind == TF_SWEEP_PARAM && (plan->key[k].tasks & (1u << t));
    }
    if (nset > TF_TASK_MAX_SET) {
      rc = tf_config_fail(e, "grid: task '%s' gets %d parameters (at most %d)", plan->task[t]->name,
                          nset, TF_TASK_MAX_SET);
    }
    total += task_runs(plan, t);
  }
  if (total > TF_SWEEP_MAX_RUNS) {
    return tf_config_fail(e, "grid: expands to %.0f runs (at most %d); split the sweep", total,
                          TF_SWEEP_MAX_RUNS);
  }
  if (rc) return rc;
  int nrun = (int)total, nkey = plan->nkey;
  plan->run = calloc((size_t)nrun + 1, sizeof(*plan->run));
  plan->choices = calloc((size_t)nrun * (size_t)nkey + 1, sizeof(int));
  int* odometer = calloc((size_t)nkey + 1, sizeof(int));
  if (!plan->run || !plan->choices || !odometer) {
    free(odometer);
    return tf_config_oom(e);
  }
  for (int t = 0; t < plan->ntask; t++) {
    memset(odometer, 0, sizeof(int) * (size_t)(nkey + 1));
    for (int done = 0; !done;) {
      for (int s = 0; s < plan->nseed; s++) {
        tf_sweep_run* r = &plan->run[plan->nrun];
        r->task = t;
        r->seed = plan->seed[s];
        r->choice = plan->choices + (size_t)plan->nrun * (size_t)nkey;
        for (int k = 0; k < nkey; k++) {
          r->choice[k] = (plan->key[k].tasks & (1u << t)) ? odometer[k] : -1;
        }
        plan->nrun++;
      }
      // advance the odometer: the last applicable grid key turns fastest
      done = 1;
      for (int k = nkey - 1; k >= 0 && done; k--) {
        const tf_sweep_key* key = &plan->key[k];
        if (!key->grid || !(key->tasks & (1u << t))) continue;
        if (++odometer[k] < key->nvalue) {
          done = 0;
        } else {
          odometer[k] = 0;
        }
      }
    }
  }
  free(odometer);
  for (int i = 0; i < plan->nrun; i++) {
    if (set_run_id(plan, i, e)) return -1;
  }
  return 0;
}

static int compare_ids(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

// every run's parameters through its task's tf_param_parse (as tf_task_run will), and no
// two runs alike (they would share an id and --resume would skip one). A task's first bad run
// is reported, not every one: its other runs mostly repeat the same mistake
static int validate_runs(const tf_sweep_plan* plan, tf_config_errors* e) {
  int maxparam = 1;
  for (int t = 0; t < plan->ntask; t++) {
    if (plan->task[t]->nparam > maxparam) maxparam = plan->task[t]->nparam;
  }
  double* values = calloc((size_t)maxparam, sizeof(double));
  const char** ids = calloc((size_t)plan->nrun + 1, sizeof(char*));
  if (!values || !ids) {
    free(values);
    free(ids);
    return tf_config_oom(e);
  }
  unsigned reported = 0;  // bit t: task t has had a bad run
  for (int i = 0; i < plan->nrun; i++) {
    ids[i] = plan->run[i].id;
    int t = plan->run[i].task;
    if (reported & (1u << t)) continue;
    tf_run_options o;
    tf_sweep_run_options(plan, i, &o);
    const tf_task_info* task = plan->task[t];
    char why[512];
    // each text value (a file) was checked once where it was read (parse_value): not again
    // for every run that uses it
    if (tf_param_parse_texts("task", task->name, task->params, task->nparam, o.set, o.nset, 0,
                             values, why, sizeof(why))) {
      tf_config_fail(e, "run %d (task %s, seed %llu): %s", i, task->name,
                     (unsigned long long)o.seed, why);
      reported |= 1u << t;
      continue;
    }
    double dt = o.physics.dt > 0 ? o.physics.dt : task->default_dt;
    double duration = o.duration > 0 ? o.duration : task->default_duration;
    if (duration / dt > TF_TASK_MAX_STEPS) {
      tf_config_fail(e,
                     "run %d (task %s): duration %g s / dt %g s is %.3g control steps per "
                     "environment (at most %.0e); raise dt or shorten duration",
                     i, task->name, duration, dt, duration / dt, TF_TASK_MAX_STEPS);
      reported |= 1u << t;
    }
  }
  int rc = reported ? -1 : 0;
  if (rc == 0) {
    qsort(ids, (size_t)plan->nrun, sizeof(char*), compare_ids);
    for (int i = 1; i < plan->nrun && rc == 0; i++) {
      if (strcmp(ids[i - 1], ids[i]) == 0) {
        rc = tf_config_fail(e, "grid: two runs have the same parameters (run id %s)", ids[i]);
      }
    }
  }
  free(values);
  free(ids);
  return rc;
}

// ---- public

// 1-based line and column of byte offset `at` in text
static void line_column(const char* text, size_t at, int* line, int* column) {
  *line = 1;
  *column = 1;
  for (size_t i = 0; i < at && text[i]; i++) {
    if (text[i] == '\n') {
      (*line)++;
      *column = 1;
    } else {
      (*column)++;
    }
  }
}

// cJSON's parse error as its line and column (or an empty file: no JSON at all)
static void json_error(const char* text, const char* end, tf_config_errors* e) {
  size_t at = end && end >= text ? (size_t)(end - text) : 0;
  int line, column;
  line_column(text, at, &line, &column);
  if (text[strspn(text, " \t\r\n")] == 0) {
    tf_config_fail(e, "empty file (no JSON)");
  } else {
    tf_config_fail(e, "line %d, column %d: malformed JSON%s", line, column,
                   text[at] ? "" : " (ends too early)");
  }
}

// the whole check: every problem into e (a malformed JSON text is one problem, since nothing
// after the parse error can be read); 0 or -1, and on -1 an empty plan
static int plan_parse_text(tf_sweep_plan* plan, const char* text, const tf_task_info* const* tasks,
                           int ntasks, tf_config_errors* e) {
  memset(plan, 0, sizeof(*plan));
  plan->envs = 1;
  plan->mode = TF_MODE_RIG;
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithOpts(text, &end, 1);
  if (!root) {
    json_error(text, end, e);
    return -1;
  }
  parse_root(plan, root, tasks, ntasks, e);
  cJSON_Delete(root);
  // the runs need every key and value: they are checked only when those all passed
  int rc = e->n + e->more > 0 ? -1 : 0;
  if (rc == 0) rc = expand(plan, e);
  if (rc == 0) rc = validate_runs(plan, e);
  if (rc == 0 && plan->record) {
    plan->recorded = calloc((size_t)plan->nrun + 1, 1);
    rc = plan->recorded ? tf_sweep_record_select(plan->record, plan->nrun, plan->recorded, e)
                        : tf_config_oom(e);
  }
  if (rc) tf_sweep_plan_free(plan);
  return rc;
}

// "assembly": FILE.json as task assembly (sweep_assembly.h; config_path: the file's folder
// for a relative FILE, NULL: as given), then the config
static int plan_parse(tf_sweep_plan* plan, const char* text, const char* config_path,
                      const tf_task_info* const* tasks, int ntasks, tf_config_errors* e) {
  char* rewritten = NULL;
  char why[TF_CONFIG_ERROR_LEN];
  if (tf_sweep_assembly_rewrite(text, config_path, &rewritten, why, sizeof(why))) {
    memset(plan, 0, sizeof(*plan));
    return tf_config_fail(e, "%s", why);
  }
  int rc = plan_parse_text(plan, rewritten ? rewritten : text, tasks, ntasks, e);
  free(rewritten);
  return rc;
}

int tf_sweep_plan_parse(tf_sweep_plan* plan, const char* text, const tf_task_info* const* tasks,
                        int ntasks, char* err, size_t errlen) {
  return tf_sweep_plan_parse_at(plan, text, NULL, tasks, ntasks, err, errlen);
}

int tf_sweep_plan_parse_at(tf_sweep_plan* plan, const char* text, const char* config_path,
                           const tf_task_info* const* tasks, int ntasks, char* err, size_t errlen) {
  tf_config_errors* e = calloc(1, sizeof(*e));
  if (!e) {
    memset(plan, 0, sizeof(*plan));
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  int rc = plan_parse(plan, text, config_path, tasks, ntasks, e);
  if (rc) tf_config_errors_join(e, "", err, errlen);
  free(e);
  return rc;
}

int tf_sweep_plan_load(tf_sweep_plan* plan, const char* path, const tf_task_info* const* tasks,
                       int ntasks, char* err, size_t errlen) {
  memset(plan, 0, sizeof(*plan));
  unsigned char* data = NULL;
  size_t size = 0;
  char why[1024];
  if (tf_file_read(&data, &size, path, TF_SWEEP_MAX_CONFIG, why, sizeof(why))) {
    snprintf(err, errlen, "%s", why);
    return -1;
  }
  const char* text = (const char*)data;
  if (strlen(text) != size) {
    int line, column;
    line_column(text, strlen(text), &line, &column);
    free(data);
    snprintf(err, errlen, "%s: line %d, column %d: NUL byte (not a JSON text file)", path, line,
             column);
    return -1;
  }
  tf_config_errors* e = calloc(1, sizeof(*e));
  if (!e) {
    free(data);
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  int rc = plan_parse(plan, text, path, tasks, ntasks, e);
  if (rc) {
    char prefix[TF_CONFIG_ERROR_LEN];
    snprintf(prefix, sizeof(prefix), "%s: ", path);
    tf_config_errors_join(e, prefix, err, errlen);
    free(data);
  } else {
    plan->source = (char*)data;
    plan->source_len = size;
  }
  free(e);
  return rc;
}

void tf_sweep_plan_free(tf_sweep_plan* plan) {
  for (int k = 0; k < plan->nkey; k++) {
    for (int i = 0; plan->key[k].text && i < plan->key[k].nvalue; i++) free(plan->key[k].text[i]);
    free(plan->key[k].text);
    free(plan->key[k].number);
    free(plan->key[k].name);
  }
  free(plan->key);
  free(plan->seed);
  free(plan->run);
  free(plan->choices);
  free(plan->description);
  free(plan->source);
  cJSON_Delete(plan->video);
  cJSON_Delete(plan->record);
  free(plan->recorded);
  memset(plan, 0, sizeof(*plan));
}

void tf_sweep_run_options(const tf_sweep_plan* plan, int i, tf_run_options* o) {
  const tf_sweep_run* r = &plan->run[i];
  tf_run_options_default(o);
  o->task = plan->task[r->task]->name;
  o->mode = plan->mode;
  o->duration = plan->duration;
  o->envs = plan->envs;
  o->seed = r->seed;
  for (int k = 0; k < plan->nkey; k++) {
    const tf_sweep_key* key = &plan->key[k];
    int c = r->choice[k];
    if (c < 0) continue;
    switch (key->kind) {
      case TF_SWEEP_SOLVER:
        o->physics.solver = (tf_solver_type)key->number[c];
        break;
      case TF_SWEEP_DT:
        o->physics.dt = key->number[c];
        break;
      case TF_SWEEP_SUBSTEPS:
        o->physics.substeps = (int)key->number[c];
        break;
      case TF_SWEEP_ITERATIONS:
        o->physics.iterations = (int)key->number[c];
        break;
      case TF_SWEEP_RELINEARIZE:
        o->physics.relinearize = (int)key->number[c];
        break;
      case TF_SWEEP_PERSIST_TOL:
        o->physics.persist_tol = key->number[c];
        break;
      case TF_SWEEP_PARAM:
        // expand() checked the count against TF_TASK_MAX_SET
        if (o->nset < TF_TASK_MAX_SET) {
          o->set[o->nset].key = key->name;
          o->set[o->nset].value = key->text[c];
          o->nset++;
        }
        break;
    }
  }
}

// writes s as one shell word: bare when it is plainly safe, else in single quotes
static void shell_word(FILE* f, const char* s) {
  if (s[0] && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,=:/+-") ==
                  strlen(s)) {
    fputs(s, f);
    return;
  }
  fputc('\'', f);
  for (const char* c = s; *c; c++) {
    if (*c == '\'') {
      fputs("'\\''", f);
    } else {
      fputc(*c, f);
    }
  }
  fputc('\'', f);
}

char* tf_sweep_run_command(const tf_sweep_plan* plan, int i) {
  const tf_sweep_run* r = &plan->run[i];
  char* text = NULL;
  size_t size = 0;
  FILE* f = open_memstream(&text, &size);
  if (!f) return NULL;
  fputs("tightfit run --task ", f);
  shell_word(f, plan->task[r->task]->name);
  if (plan->mode != TF_MODE_RIG) fputs(" --mode robot", f);
  // the physics flags in a fixed order, whatever order the grid lists them in
  for (int kind = TF_SWEEP_SOLVER; kind <= TF_SWEEP_PERSIST_TOL; kind++) {
    for (int k = 0; k < plan->nkey; k++) {
      if ((int)plan->key[k].kind != kind || r->choice[k] < 0) continue;
      // the flag is the key with dashes (persist_tol: --persist-tol)
      fputs(" --", f);
      for (const char* c = plan->key[k].name; *c; c++) fputc(*c == '_' ? '-' : *c, f);
      fputc(' ', f);
      shell_word(f, plan->key[k].text[r->choice[k]]);
    }
  }
  char number[32];
  if (plan->duration > 0) {
    number_text(plan->duration, number, sizeof(number));
    fprintf(f, " --duration %s", number);
  }
  fprintf(f, " --envs %d", plan->envs);
  for (int k = 0; k < plan->nkey; k++) {
    if (plan->key[k].kind != TF_SWEEP_PARAM || r->choice[k] < 0) continue;
    fputs(" --set ", f);
    // key=value as one word: the key is a schema name, the value may need quotes
    char* kv = NULL;
    size_t kvsize = 0;
    FILE* g = open_memstream(&kv, &kvsize);
    if (g) {
      fprintf(g, "%s=%s", plan->key[k].name, plan->key[k].text[r->choice[k]]);
      fclose(g);
    }
    if (!g || !kv) {
      free(kv);
      fclose(f);
      free(text);
      return NULL;
    }
    shell_word(f, kv);
    free(kv);
  }
  fprintf(f, " --seed %llu --json", (unsigned long long)r->seed);
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    free(text);
    return NULL;
  }
  return text;
}

int tf_sweep_plan_param_columns(const tf_sweep_plan* plan, const char** out, int max) {
  int n = 0;
  for (int t = 0; t < plan->ntask; t++) {
    const tf_task_info* task = plan->task[t];
    for (int i = 0; i < task->nparam; i++) {
      int seen = 0;
      for (int j = 0; j < n && !seen; j++) seen = strcmp(out[j], task->params[i].key) == 0;
      if (!seen && n < max) out[n++] = task->params[i].key;
    }
  }
  return n;
}
