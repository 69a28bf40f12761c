// Runs a reference scene and measures what its gates need: energy and momentum drift, the
// pendulum period from interpolated zero crossings, the spinning body's omega_y range, and
// the throughput. Only tf_step is timed; the measurements in between are not.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenes.h"

// kinematics, velocities and M of the current state, then its energy and momentum
static void measure(const tf_model* m, tf_data* d, double energy[2], double momentum[6]) {
  tf_kinematics(m, d);
  tf_velocity(m, d);
  tf_crba(m, d);
  tf_energy(m, d, energy);
  tf_momentum(m, d, momentum);
}

// steps a model from d's state for `duration` and fills r (r's NaN defaults already set)
static void run_loop(const tf_model* m, tf_data* d, double duration, int is_pendulum,
                     int is_spinning, tf_scene_result* r) {
  double dt = m->opt.timestep;
  int zero_gravity = m->opt.gravity[0] == 0 && m->opt.gravity[1] == 0 && m->opt.gravity[2] == 0;

  double energy[2], momentum[6], momentum0[6];
  measure(m, d, energy, momentum0);
  r->energy_initial = energy[0] + energy[1];
  r->kinetic_max = energy[0];
  double l0 =
      sqrt(momentum0[0] * momentum0[0] + momentum0[1] * momentum0[1] + momentum0[2] * momentum0[2]);
  if (zero_gravity && l0 > 0) r->momentum_drift_max = 0;
  if (is_spinning) r->omega_y_min = r->omega_y_max = d->qvel[4];

  // zero crossings of the pendulum angle, linearly interpolated between steps
  double first_crossing = NAN, last_crossing = NAN;
  int crossings = 0;
  double q_prev = is_pendulum ? d->qpos[0] : 0, t_prev = d->time;

  long nsteps = (long)llround(duration / dt);
  double wall = 0;
  for (long s = 0; s < nsteps; s++) {
    if (tf_step(m, d) != 0) {
      r->diverged = 1;
      break;
    }
    wall += d->timer[TF_TIMER_STEP];
    r->ncon_max = d->ncon > r->ncon_max ? d->ncon : r->ncon_max;
    for (int c = 0; c < d->ncon; c++) {
      r->penetration_max = fmax(r->penetration_max, -d->contact[c].dist);
    }
    for (int k = 0; k < TF_TIMER_N; k++) r->stage_us[k] += d->timer[k];
    r->steps++;
    measure(m, d, energy, momentum);
    double e = energy[0] + energy[1];
    r->energy_drift_max = fmax(r->energy_drift_max, fabs(e - r->energy_initial));
    r->kinetic_max = fmax(r->kinetic_max, energy[0]);
    if (!isnan(r->momentum_drift_max)) {
      double dl[3] = {momentum[0] - momentum0[0], momentum[1] - momentum0[1],
                      momentum[2] - momentum0[2]};
      double drift = sqrt(dl[0] * dl[0] + dl[1] * dl[1] + dl[2] * dl[2]) / l0;
      r->momentum_drift_max = fmax(r->momentum_drift_max, drift);
    }
    if (is_pendulum) {
      double q = d->qpos[0];
      if ((q_prev > 0 && q <= 0) || (q_prev < 0 && q >= 0)) {
        double t = t_prev + (d->time - t_prev) * q_prev / (q_prev - q);
        if (crossings == 0) first_crossing = t;
        last_crossing = t;
        crossings++;
      }
      q_prev = q;
      t_prev = d->time;
    }
    if (is_spinning) {
      r->omega_y_min = fmin(r->omega_y_min, d->qvel[4]);
      r->omega_y_max = fmax(r->omega_y_max, d->qvel[4]);
    }
  }
  measure(m, d, energy, momentum);
  r->energy_final = energy[0] + energy[1];
  r->sim_time = d->time;
  r->wall_time = wall;
  r->steps_per_s = wall > 0 ? (double)r->steps / wall : 0;
  r->realtime_factor = wall > 0 ? d->time / wall : 0;
  for (int k = 0; k < TF_TIMER_N; k++) {
    r->stage_us[k] = r->steps ? 1e6 * r->stage_us[k] / (double)r->steps : 0;
  }
  if (is_pendulum) {
    r->period_analytic = 2 * M_PI * sqrt(TF_PENDULUM_LENGTH / TF_GRAVITY);
    // consecutive crossings are half a period apart
    if (crossings >= 3) r->period = 2 * (last_crossing - first_crossing) / (crossings - 1);
  }
}

static void result_init(tf_scene_result* r) {
  memset(r, 0, sizeof(*r));
  r->period = r->period_analytic = NAN;
  r->omega_y_min = r->omega_y_max = NAN;
  r->momentum_drift_max = NAN;
}

int tf_scene_run(const tf_scene* scene, double dt, double duration, tf_integrator integrator,
                 tf_scene_result* r, char* err, size_t errlen) {
  result_init(r);
  tf_model* m = scene->build(dt, integrator, err, errlen);
  if (!m) return -1;
  tf_data* d = tf_data_create(m);
  if (!d) {
    snprintf(err, errlen, "out of memory");
    tf_model_destroy(m);
    return -1;
  }
  scene->init(m, d);
  run_loop(m, d, duration, strcmp(scene->name, "pendulum") == 0,
           strcmp(scene->name, "spinning_body") == 0, r);
  tf_data_destroy(d);
  tf_model_destroy(m);
  return 0;
}

int tf_scene_run_model(const tf_model* m, double duration, tf_scene_result* r, char* err,
                       size_t errlen) {
  result_init(r);
  tf_data* d = tf_data_create(m);
  if (!d) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  run_loop(m, d, duration, 0, 0, r);
  tf_data_destroy(d);
  return 0;
}
