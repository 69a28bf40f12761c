// `tightfit validate`: runs the physics gates for every solver (or the ones named) and
// prints a table, or with --json an array with one object per (gate, solver). The limits
// are the al solver's; the other solvers report their values against the same limits.
// With --tasks it runs the task gates instead (tasks/task_gates.h: the assembly tasks'
// physics questions, each with its own solver and timestep). Exit status 1 when a gate fails
// (under al for the contact gates), 0 otherwise.
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gates.h"
#include "task_gates.h"
#include "tightfit.h"
#include "json_exact.h"

static void list_names(FILE* f, int gates) {
  int n = gates ? tf_gate_count() : TF_SOLVER_N;
  for (int i = 0; i < n; i++) {
    fprintf(f, "%s%s", i ? ", " : "", gates ? tf_gate_at(i)->name : tf_solver_name(i));
  }
}

static cJSON* number_or_null(double x) {
  return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

// the metric that decides a gate's line: the first failing one, else the first
static int decisive_metric(const tf_gate_result* r) {
  for (int i = 0; i < r->nmetric; i++) {
    if (!r->metric[i].pass) return i;
  }
  return 0;
}

static cJSON* result_json(const char* gate, const char* solver, const tf_gate_result* r) {
  cJSON* o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "gate", gate);
  cJSON_AddStringToObject(o, "solver", solver);
  if (r->nmetric > 0) {
    const tf_gate_metric* g = &r->metric[decisive_metric(r)];
    cJSON_AddStringToObject(o, "metric", g->name);
    cJSON_AddItemToObject(o, "value", number_or_null(g->value));
    cJSON_AddItemToObject(o, "limit", number_or_null(g->limit));
  } else {
    cJSON_AddNullToObject(o, "metric");
    cJSON_AddNullToObject(o, "value");
    cJSON_AddNullToObject(o, "limit");
  }
  cJSON_AddBoolToObject(o, "pass", tf_gate_passed(r));
  cJSON_AddBoolToObject(o, "diverged", r->diverged);
  if (r->error[0]) cJSON_AddStringToObject(o, "error", r->error);
  cJSON* all = cJSON_AddArrayToObject(o, "metrics");
  for (int i = 0; i < r->nmetric; i++) {
    const tf_gate_metric* g = &r->metric[i];
    cJSON* item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "metric", g->name);
    cJSON_AddItemToObject(item, "value", number_or_null(g->value));
    cJSON_AddItemToObject(item, "limit", number_or_null(g->limit));
    cJSON_AddStringToObject(item, "kind", g->at_most ? "at_most" : "at_least");
    cJSON_AddBoolToObject(item, "pass", g->pass);
    cJSON_AddItemToArray(all, item);
  }
  return o;
}

static void print_row(const char* gate, const char* solver, const tf_gate_result* r) {
  if (r->error[0]) {
    printf("%-16s %-7s %-28s %s\n", gate, solver, "-", r->error);
    return;
  }
  for (int i = 0; i < r->nmetric; i++) {
    const tf_gate_metric* g = &r->metric[i];
    printf("%-16s %-7s %-28s %12.4g %s %-10.4g %s%s\n", gate, solver, g->name, g->value,
           g->at_most ? "<=" : ">=", g->limit, g->pass ? "pass" : "FAIL",
           r->diverged ? " (diverged)" : "");
  }
}

// the task gates (each runs its own settings); 1 when one failed
static int validate_tasks(const char* gate_name, const tf_task_gate_settings* settings, int json) {
  const tf_task_gate* only = NULL;
  if (gate_name && !(only = tf_task_gate_find(gate_name))) {
    fprintf(stderr, "tightfit validate: unknown task gate '%s' (valid:", gate_name);
    for (int i = 0; i < tf_task_gate_count(); i++) {
      fprintf(stderr, " %s", tf_task_gate_at(i)->name);
    }
    fprintf(stderr, ")\n");
    return -1;
  }
  cJSON* array = cJSON_CreateArray();
  int failed = 0;
  if (!json)
    printf("%-16s %-7s %-28s %12s    %-10s %s\n", "gate", "", "metric", "value", "limit", "");
  for (int g = 0; g < tf_task_gate_count(); g++) {
    const tf_task_gate* gate = tf_task_gate_at(g);
    if (only && gate != only) continue;
    tf_gate_result r;
    memset(&r, 0, sizeof(r));
    gate->run(settings, &r);
    if (!tf_gate_passed(&r)) failed = 1;
    if (json) {
      cJSON_AddItemToArray(array, result_json(gate->name, "task", &r));
    } else {
      print_row(gate->name, "", &r);
      fflush(stdout);
    }
  }
  if (json) {
    tf_json_puts(stdout, array);
  }
  cJSON_Delete(array);
  return failed;
}

int tf_cmd_validate(int argc, char** argv) {
  const char* gate_name = NULL;
  const char* solver_name = NULL;
  int json = 0, tasks = 0, persist_set = 0;
  tf_task_gate_settings settings = tf_task_gate_settings_default();
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--tasks") == 0) {
      tasks = 1;
    } else if (strcmp(argv[i], "--persist-tol") == 0 && i + 1 < argc) {
      if (tf_cli_parse_number("--persist-tol", argv[++i], 0, 1e-3, &settings.persist_tol)) {
        return TF_EXIT_USAGE;
      }
      persist_set = 1;
    } else if ((strcmp(argv[i], "--gate") == 0 || strcmp(argv[i], "--solver") == 0) &&
               i + 1 < argc) {
      if (strcmp(argv[i], "--gate") == 0) {
        gate_name = argv[++i];
      } else {
        solver_name = argv[++i];
      }
    } else {
      fprintf(stderr,
              "tightfit validate: unknown option or missing value '%s' (see tightfit validate "
              "--help)\n",
              argv[i]);
      return TF_EXIT_USAGE;
    }
  }
  if (persist_set && !tasks) {
    fprintf(stderr, "tightfit validate: --persist-tol needs --tasks (the contact gates name it)\n");
    return TF_EXIT_USAGE;
  }
  if (tasks) {
    int rc = validate_tasks(gate_name, &settings, json);
    return rc < 0 ? TF_EXIT_USAGE : rc ? TF_EXIT_FAIL : TF_EXIT_OK;
  }
  const tf_gate* only_gate = NULL;
  if (gate_name && !(only_gate = tf_gate_find(gate_name))) {
    fprintf(stderr, "tightfit validate: unknown gate '%s' (valid: ", gate_name);
    list_names(stderr, 1);
    fprintf(stderr, ")\n");
    return TF_EXIT_USAGE;
  }
  int only_solver = -1;
  if (solver_name && (only_solver = tf_solver_from_name(solver_name)) < 0) {
    fprintf(stderr, "tightfit validate: unknown solver '%s' (valid: ", solver_name);
    list_names(stderr, 0);
    fprintf(stderr, ")\n");
    return TF_EXIT_USAGE;
  }
  cJSON* array = cJSON_CreateArray();
  int al_failed = 0;
  if (!json)
    printf("%-16s %-7s %-28s %12s    %-10s %s\n", "gate", "solver", "metric", "value", "limit", "");
  for (int g = 0; g < tf_gate_count(); g++) {
    const tf_gate* gate = tf_gate_at(g);
    if (only_gate && gate != only_gate) continue;
    for (int s = 0; s < TF_SOLVER_N; s++) {
      if (only_solver >= 0 && s != only_solver) continue;
      tf_gate_result r;
      memset(&r, 0, sizeof(r));
      gate->run((tf_solver_type)s, &r);
      if (s == TF_SOLVER_AL && !tf_gate_passed(&r)) al_failed = 1;
      if (json) {
        cJSON_AddItemToArray(array, result_json(gate->name, tf_solver_name(s), &r));
      } else {
        print_row(gate->name, tf_solver_name(s), &r);
        fflush(stdout);
      }
    }
  }
  if (json) {
    tf_json_puts(stdout, array);
  }
  cJSON_Delete(array);
  return al_failed ? TF_EXIT_FAIL : TF_EXIT_OK;
}
