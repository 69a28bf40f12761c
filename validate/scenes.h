// Reference scenes: small contact-free models with known answers, used by the conservation
// gates, `tightfit run --scene`, and the engine benchmark. One registry serves all three.
#ifndef TF_SCENES_H
#define TF_SCENES_H

#include <stdbool.h>

#include "tightfit.h"

typedef struct tf_scene {
  const char* name;
  const char* description;
  double dt;        // default timestep (s)
  double duration;  // default simulated time (s)
  // builds the model with the given timestep and integrator; NULL + message on failure
  tf_model* (*build)(double dt, tf_integrator integrator, char* err, size_t errlen);
  // sets the scene's initial state on a freshly reset data
  void (*init)(const tf_model* m, tf_data* d);
} tf_scene;

int tf_scene_count(void);
const tf_scene* tf_scene_at(int index);
const tf_scene* tf_scene_find(const char* name);

typedef struct tf_scene_result {
  long steps;
  double sim_time;   // s
  double wall_time;  // s
  double steps_per_s;
  double realtime_factor;  // simulated seconds per wall second
  int diverged;            // 1 if a step failed (NaN, singular M)
  double energy_initial;   // J
  double energy_final;
  double energy_drift_max;    // max |E(t) - E0| (J)
  double kinetic_max;         // largest kinetic energy reached (J)
  double momentum_drift_max;  // max |L(t) - L0| / |L0|, angular momentum about the origin
  // scene-specific (NaN where they do not apply)
  double period;           // pendulum: period from interpolated zero crossings (s)
  double period_analytic;  // 2 pi sqrt(L / g)
  double omega_y_min;      // spinning_body: smallest body-frame omega_y (rad/s)
  double omega_y_max;
  double stage_us[TF_TIMER_N];  // mean microseconds per step and stage
  int ncon_max;                 // most contacts in one step
  double penetration_max;       // deepest overlap of any contact after a step (m), 0 if none
} tf_scene_result;

// runs a scene from its initial state for `duration`; returns 0, or -1 if the model did not
// build (message in err). A diverged run still returns 0 with result->diverged set.
int tf_scene_run(const tf_scene* scene, double dt, double duration, tf_integrator integrator,
                 tf_scene_result* result, char* err, size_t errlen);

// runs an already built model (an MJCF file's) from its reset state for `duration` at its own
// timestep; the scene-specific fields stay NaN. Returns 0, or -1 out of memory (message in err)
int tf_scene_run_model(const tf_model* m, double duration, tf_scene_result* result, char* err,
                       size_t errlen);

// the pendulum scene's length and gravity, for the analytic period
#define TF_PENDULUM_LENGTH 1.0
#define TF_GRAVITY 9.81

#endif  // TF_SCENES_H
