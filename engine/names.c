// Names of the engine's enumerations, for the CLI, JSON output and error messages.
#include <string.h>

#include "tightfit.h"

static const char* const integrator_names[TF_INTEGRATOR_N] = {"euler", "rk4"};
static const char* const timer_names[TF_TIMER_N] = {
    "step",        "kinematics",  "crba",       "rnea",   "passive",
    "factor",      "collision",   "broadphase", "search", "reduce",
    "speculative", "persistence", "constraint", "solve",  "integrate"};
static const char* const solver_names[TF_SOLVER_N] = {"pgs", "newton", "al", "admm", "fbnewton"};
static const char* const geom_names[TF_GEOM_NTYPE] = {"plane",    "sphere", "capsule", "box",
                                                      "cylinder", "hull",   "mesh",    "sdf"};

const char* tf_integrator_name(tf_integrator integrator) {
  return (int)integrator >= 0 && integrator < TF_INTEGRATOR_N ? integrator_names[integrator]
                                                              : "unknown";
}

int tf_integrator_from_name(const char* name) {
  for (int i = 0; name && i < TF_INTEGRATOR_N; i++) {
    if (strcmp(name, integrator_names[i]) == 0) return i;
  }
  return -1;
}

const char* tf_timer_name(tf_timer timer) {
  return (int)timer >= 0 && timer < TF_TIMER_N ? timer_names[timer] : "unknown";
}

const char* tf_solver_name(tf_solver_type solver) {
  return (int)solver >= 0 && solver < TF_SOLVER_N ? solver_names[solver] : "unknown";
}

int tf_solver_from_name(const char* name) {
  for (int i = 0; name && i < TF_SOLVER_N; i++) {
    if (strcmp(name, solver_names[i]) == 0) return i;
  }
  return -1;
}

const char* tf_geom_type_name(tf_geom_type type) {
  return (int)type >= 0 && type < TF_GEOM_NTYPE ? geom_names[type] : "unknown";
}
