// The batch's settings from key=value strings (see vec_env.h): the run's keys as a sweep
// names them go into tf_run_options, the batch's own into tf_vec_env_settings, and every other
// key is a task parameter that the runner's resolution checks (tf_run_resolve), so a batch
// refuses what `tightfit run` refuses with the same message.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vec_env.h"

void tf_vec_env_settings_default(tf_vec_env_settings* s) {
  s->decimation = 8;
  s->autoreset = 1;
  s->terminate_on_success = 1;
  // the Panda's Cartesian limits (Franka's datasheet: 1.7 m/s, 2.5 rad/s), about what the
  // script's fastest moves need, so that the scripted policy's actions stay within [-1, 1]
  s->max_speed = 1.7;
  s->max_rot_speed = 2.6;
  s->success_bonus = 1;
  s->overlap_weight = 1;
}

// a finite number in [lo, hi] from the whole of text; 0, or -1 naming the key
static int number(const char* key, const char* text, double lo, double hi, double* out, char* err,
                  size_t errlen) {
  char* end = NULL;
  errno = 0;
  double x = text ? strtod(text, &end) : NAN;
  if (!text || end == text || *end || errno == ERANGE || !isfinite(x)) {
    snprintf(err, errlen, "%s: not a number (got '%s')", key, text ? text : "");
    return -1;
  }
  if (x < lo || x > hi) {
    snprintf(err, errlen, "%s must be in [%g, %g] (got %g)", key, lo, hi, x);
    return -1;
  }
  *out = x;
  return 0;
}

// an integer in [lo, hi]
static int integer(const char* key, const char* text, double lo, double hi, int* out, char* err,
                   size_t errlen) {
  double x;
  if (number(key, text, lo, hi, &x, err, errlen)) return -1;
  if (x != floor(x)) {
    snprintf(err, errlen, "%s must be an integer (got %s)", key, text);
    return -1;
  }
  *out = (int)x;
  return 0;
}

// 0 / 1, also false / true
static int flag(const char* key, const char* text, int* out, char* err, size_t errlen) {
  if (text && (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)) {
    *out = text[0] == 't';
    return 0;
  }
  return integer(key, text, 0, 1, out, err, errlen);
}

// one run or batch key into o or s: 1 when key is one of them (0 or -1 in *rc), 0 when it is
// a task parameter
static int run_key(const char* key, const char* value, tf_run_options* o, tf_vec_env_settings* s,
                   int* rc, char* err, size_t errlen) {
  *rc = 0;
  if (strcmp(key, "mode") == 0) {
    if (value && strcmp(value, "rig") == 0) {
      o->mode = TF_MODE_RIG;
    } else if (value && strcmp(value, "robot") == 0) {
      o->mode = TF_MODE_ROBOT;
    } else {
      snprintf(err, errlen, "unknown mode '%s' (valid: rig, robot)", value ? value : "");
      *rc = -1;
    }
  } else if (strcmp(key, "solver") == 0) {
    int solver = value ? tf_solver_from_name(value) : -1;
    if (solver < 0) {
      snprintf(err, errlen, "unknown solver '%s' (valid: pgs, newton, al, admm, fbnewton)",
               value ? value : "");
      *rc = -1;
    } else {
      o->physics.solver = (tf_solver_type)solver;
    }
  } else if (strcmp(key, "dt") == 0) {
    *rc = number(key, value, -INFINITY, INFINITY, &o->physics.dt, err, errlen);
  } else if (strcmp(key, "duration") == 0) {
    *rc = number(key, value, -INFINITY, INFINITY, &o->duration, err, errlen);
  } else if (strcmp(key, "persist_tol") == 0) {
    *rc = number(key, value, -INFINITY, INFINITY, &o->physics.persist_tol, err, errlen);
  } else if (strcmp(key, "substeps") == 0) {
    *rc = integer(key, value, -1e9, 1e9, &o->physics.substeps, err, errlen);
  } else if (strcmp(key, "iterations") == 0) {
    *rc = integer(key, value, -1e9, 1e9, &o->physics.iterations, err, errlen);
  } else if (strcmp(key, "relinearize") == 0) {
    *rc = integer(key, value, -1e9, 1e9, &o->physics.relinearize, err, errlen);
  } else if (strcmp(key, "threads") == 0) {
    *rc = integer(key, value, -1e9, 1e9, &o->threads, err, errlen);
  } else if (strcmp(key, "decimation") == 0) {
    *rc = integer(key, value, 1, 100000, &s->decimation, err, errlen);
  } else if (strcmp(key, "autoreset") == 0) {
    *rc = flag(key, value, &s->autoreset, err, errlen);
  } else if (strcmp(key, "terminate_on_success") == 0) {
    *rc = flag(key, value, &s->terminate_on_success, err, errlen);
  } else if (strcmp(key, "max_speed") == 0) {
    *rc = number(key, value, 1e-6, 100, &s->max_speed, err, errlen);
  } else if (strcmp(key, "max_rot_speed") == 0) {
    *rc = number(key, value, 1e-6, 1000, &s->max_rot_speed, err, errlen);
  } else if (strcmp(key, "success_bonus") == 0) {
    *rc = number(key, value, -1e6, 1e6, &s->success_bonus, err, errlen);
  } else if (strcmp(key, "overlap_weight") == 0) {
    *rc = number(key, value, -1e6, 1e6, &s->overlap_weight, err, errlen);
  } else {
    return 0;
  }
  return 1;
}

int tf_vec_env_parse_settings(const char* task, const char* const* keys, const char* const* values,
                              int nset, tf_run_options* o, tf_vec_env_settings* s, char* err,
                              size_t errlen) {
  tf_run_options_default(o);
  tf_vec_env_settings_default(s);
  o->task = task;
  if (nset < 0 || (nset > 0 && (!keys || !values))) {
    snprintf(err, errlen, "settings: %d keys without their arrays", nset);
    return -1;
  }
  for (int k = 0; k < nset; k++) {
    if (!keys[k] || !keys[k][0]) {
      snprintf(err, errlen, "settings: key %d is empty", k);
      return -1;
    }
    for (int j = 0; j < k; j++) {
      if (strcmp(keys[j], keys[k]) == 0) {
        snprintf(err, errlen, "%s: key given twice", keys[k]);
        return -1;
      }
    }
    int rc;
    if (run_key(keys[k], values[k], o, s, &rc, err, errlen)) {
      if (rc) return -1;
      continue;
    }
    if (o->nset >= TF_TASK_MAX_SET) {
      snprintf(err, errlen, "at most %d task parameters", TF_TASK_MAX_SET);
      return -1;
    }
    o->set[o->nset].key = keys[k];
    o->set[o->nset].value = values[k] ? values[k] : "";
    o->nset++;
  }
  return 0;
}
