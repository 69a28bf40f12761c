// Names of the engine's enumerations, for the CLI, JSON output and error messages.
#include <string.h>

#include "tightfit.h"

static const char* const integrator_names[TF_INTEGRATOR_N] = {"euler", "rk4"};
static const char* const timer_names[TF_TIMER_N] = {"step",    "kinematics", "crba",     "rnea",
                                                    "passive", "factor",     "integrate"};

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
