// `tightfit list`: what exists, read from the same registries the engine and tests use.
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gates.h"
#include "scenes.h"
#include "task.h"
#include "task_gates.h"
#include "tightfit.h"
#include "json_exact.h"

static const char* const joint_names[TF_JOINT_NTYPE] = {"free", "ball", "hinge", "slide"};
static const char* const actuator_names[TF_ACT_NTYPE] = {"motor", "position", "velocity"};

// a task's (or a mode's) parameters, one a line
static void print_params(const tf_task_info* t) {
  for (int k = 0; k < t->nparam; k++) {
    const tf_param_spec* p = &t->params[k];
    if (p->choices) {
      printf("      %-16s %-24s %s\n", p->key, p->choices, p->help);
    } else if (p->text) {
      printf("      %-16s %-24s %s\n", p->key, "PATH", p->help);
    } else if (p->list > 0) {
      printf("      %-16s %-24s %s (list, default %s)\n", p->key, p->unit, p->help,
             p->list_default ? p->list_default : "");
    } else {
      char range[64];
      snprintf(range, sizeof(range), "%g [%g, %g] %s", p->value, p->lo, p->hi, p->unit);
      printf("      %-16s %-24s %s\n", p->key, range, p->help);
    }
  }
}

// the same as a "params" array of o
static void add_params(cJSON* o, const tf_task_info* t) {
  cJSON* params = cJSON_AddArrayToObject(o, "params");
  for (int k = 0; k < t->nparam; k++) {
    const tf_param_spec* p = &t->params[k];
    cJSON* q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "key", p->key);
    if (p->choices) {
      cJSON_AddStringToObject(q, "choices", p->choices);
    } else if (p->text) {
      cJSON_AddStringToObject(q, "default", "");
      cJSON_AddStringToObject(q, "text", p->unit);
    } else if (p->list > 0) {
      cJSON_AddStringToObject(q, "default", p->list_default ? p->list_default : "");
      cJSON_AddNumberToObject(q, "list", p->list);
    } else {
      cJSON_AddNumberToObject(q, "default", p->value);
      cJSON_AddNumberToObject(q, "min", p->lo);
      cJSON_AddNumberToObject(q, "max", p->hi);
      cJSON_AddStringToObject(q, "unit", p->unit);
    }
    cJSON_AddStringToObject(q, "help", p->help ? p->help : "");
    cJSON_AddItemToArray(params, q);
  }
}

int tf_cmd_list(int argc, char** argv) {
  int json = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else {
      fprintf(stderr, "tightfit list: unknown option '%s' (see tightfit list --help)\n", argv[i]);
      return TF_EXIT_USAGE;
    }
  }
  if (!json) {
    printf("scenes:\n");
    for (int i = 0; i < tf_scene_count(); i++) {
      const tf_scene* s = tf_scene_at(i);
      printf("  %-16s %s (default dt %g s, %g s)\n", s->name, s->description, s->dt, s->duration);
    }
    printf("tasks (tightfit run --task NAME --set key=value):\n");
    for (int i = 0; i < tf_task_count(); i++) {
      const tf_task_info* t = tf_task_at(i);
      printf("  %-16s %s (default dt %g s, %g s)\n", t->name, t->description, t->default_dt,
             t->default_duration);
      print_params(t);
      if (t->robot) {
        printf("    --mode robot: %s (default dt %g s, %g s)\n", t->robot->description,
               t->robot->default_dt, t->robot->default_duration);
        print_params(t->robot);
      }
    }
    printf("task gates (tightfit validate --tasks):\n");
    for (int i = 0; i < tf_task_gate_count(); i++) {
      printf("  %-16s %s\n", tf_task_gate_at(i)->name, tf_task_gate_at(i)->description);
    }
    printf("gates:\n");
    for (int i = 0; i < tf_gate_count(); i++) {
      printf("  %-16s %s\n", tf_gate_at(i)->name, tf_gate_at(i)->description);
    }
    printf("solvers:");
    for (int i = 0; i < TF_SOLVER_N; i++) printf(" %s", tf_solver_name(i));
    printf("\ngeoms:");
    for (int i = 0; i < TF_GEOM_NTYPE; i++) printf(" %s", tf_geom_type_name(i));
    printf("\nintegrators:");
    for (int i = 0; i < TF_INTEGRATOR_N; i++) printf(" %s", tf_integrator_name(i));
    printf("\njoints:");
    for (int i = 0; i < TF_JOINT_NTYPE; i++) printf(" %s", joint_names[i]);
    printf("\nactuators:");
    for (int i = 0; i < TF_ACT_NTYPE; i++) printf(" %s", actuator_names[i]);
    printf("\n");
    return TF_EXIT_OK;
  }
  cJSON* root = cJSON_CreateObject();
  cJSON* scenes = cJSON_AddArrayToObject(root, "scenes");
  for (int i = 0; i < tf_scene_count(); i++) {
    const tf_scene* s = tf_scene_at(i);
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "description", s->description);
    cJSON_AddNumberToObject(o, "dt", s->dt);
    cJSON_AddNumberToObject(o, "duration", s->duration);
    cJSON_AddItemToArray(scenes, o);
  }
  cJSON* tasks = cJSON_AddArrayToObject(root, "tasks");
  for (int i = 0; i < tf_task_count(); i++) {
    const tf_task_info* t = tf_task_at(i);
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", t->name);
    cJSON_AddStringToObject(o, "description", t->description);
    cJSON_AddNumberToObject(o, "dt", t->default_dt);
    cJSON_AddNumberToObject(o, "duration", t->default_duration);
    add_params(o, t);
    if (t->robot) {
      // robot mode: its own description, defaults and schema
      cJSON* r = cJSON_AddObjectToObject(o, "robot");
      cJSON_AddStringToObject(r, "description", t->robot->description);
      cJSON_AddNumberToObject(r, "dt", t->robot->default_dt);
      cJSON_AddNumberToObject(r, "duration", t->robot->default_duration);
      add_params(r, t->robot);
    }
    cJSON_AddItemToArray(tasks, o);
  }
  cJSON* task_gates = cJSON_AddArrayToObject(root, "task_gates");
  for (int i = 0; i < tf_task_gate_count(); i++) {
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", tf_task_gate_at(i)->name);
    cJSON_AddStringToObject(o, "description", tf_task_gate_at(i)->description);
    cJSON_AddItemToArray(task_gates, o);
  }
  cJSON* gates = cJSON_AddArrayToObject(root, "gates");
  for (int i = 0; i < tf_gate_count(); i++) {
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", tf_gate_at(i)->name);
    cJSON_AddStringToObject(o, "description", tf_gate_at(i)->description);
    cJSON_AddItemToArray(gates, o);
  }
  cJSON* solvers = cJSON_AddArrayToObject(root, "solvers");
  for (int i = 0; i < TF_SOLVER_N; i++) {
    cJSON_AddItemToArray(solvers, cJSON_CreateString(tf_solver_name(i)));
  }
  cJSON* geoms = cJSON_AddArrayToObject(root, "geoms");
  for (int i = 0; i < TF_GEOM_NTYPE; i++) {
    cJSON_AddItemToArray(geoms, cJSON_CreateString(tf_geom_type_name(i)));
  }
  cJSON* integrators = cJSON_AddArrayToObject(root, "integrators");
  for (int i = 0; i < TF_INTEGRATOR_N; i++) {
    cJSON_AddItemToArray(integrators, cJSON_CreateString(tf_integrator_name(i)));
  }
  cJSON_AddItemToObject(root, "joints", cJSON_CreateStringArray(joint_names, TF_JOINT_NTYPE));
  cJSON_AddItemToObject(root, "actuators", cJSON_CreateStringArray(actuator_names, TF_ACT_NTYPE));
  int status = tf_json_puts(stdout, root) == 0 ? TF_EXIT_OK : TF_EXIT_FAIL;
  cJSON_Delete(root);
  return status;
}
