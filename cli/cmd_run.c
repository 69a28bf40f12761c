// `tightfit run --scene NAME`: simulates a reference scene and prints one JSON object (or a
// short human summary) of its metrics.
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mjcf.h"
#include "scenes.h"
#include "tightfit.h"
#include "json_exact.h"

static void usage_error(const char* fmt, const char* arg) {
  fprintf(stderr, "tightfit run: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see tightfit run --help)\n");
}

static void list_scenes(FILE* f) {
  for (int i = 0; i < tf_scene_count(); i++) {
    fprintf(f, "%s%s", i ? ", " : "", tf_scene_at(i)->name);
  }
}

// non-finite values become JSON null, not an invalid token
static void add_number(cJSON* o, const char* key, double x) {
  if (isfinite(x)) {
    cJSON_AddNumberToObject(o, key, x);
  } else {
    cJSON_AddNullToObject(o, key);
  }
}

static cJSON* result_json(const char* scene, double dt, double duration, tf_integrator integrator,
                          const tf_scene_result* r) {
  cJSON* o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "scene", scene);
  cJSON_AddStringToObject(o, "integrator", tf_integrator_name(integrator));
  add_number(o, "dt", dt);
  add_number(o, "duration", duration);
  cJSON_AddStringToObject(o, "status", r->diverged ? "diverged" : "ok");
  add_number(o, "steps", (double)r->steps);
  add_number(o, "sim_time", r->sim_time);
  add_number(o, "wall_time", r->wall_time);
  add_number(o, "steps_per_s", r->steps_per_s);
  add_number(o, "realtime_factor", r->realtime_factor);
  add_number(o, "energy_initial", r->energy_initial);
  add_number(o, "energy_final", r->energy_final);
  add_number(o, "energy_drift_max", r->energy_drift_max);
  add_number(o, "kinetic_max", r->kinetic_max);
  add_number(o, "energy_drift_rel",
             r->kinetic_max > 0 ? r->energy_drift_max / r->kinetic_max : NAN);
  add_number(o, "momentum_drift_rel", r->momentum_drift_max);
  if (!isnan(r->period_analytic)) {
    add_number(o, "period", r->period);
    add_number(o, "period_analytic", r->period_analytic);
    add_number(o, "period_error_rel", (r->period - r->period_analytic) / r->period_analytic);
  }
  if (!isnan(r->omega_y_min)) {
    add_number(o, "omega_y_min", r->omega_y_min);
    add_number(o, "omega_y_max", r->omega_y_max);
    cJSON_AddBoolToObject(o, "omega_y_flipped", r->omega_y_min < 0 && r->omega_y_max > 0);
  }
  cJSON* stages = cJSON_AddObjectToObject(o, "stage_us");
  for (int k = 0; k < TF_TIMER_N; k++) add_number(stages, tf_timer_name(k), r->stage_us[k]);
  return o;
}

// a --scene value naming an MJCF file rather than a built-in scene
static int is_mjcf(const char* scene) {
  size_t n = strlen(scene);
  return n > 4 && strcmp(scene + n - 4, ".xml") == 0;
}

// `--scene FILE.xml`: load, report what was ignored, run at the file's (or --dt's) timestep
static int run_mjcf(const char* path, double dt, double duration, const char* integrator_name,
                    const char* solver_name, int json) {
  tf_mjcf_options opt = tf_mjcf_options_default();
  opt.timestep = dt;
  if (integrator_name) {
    opt.integrator = tf_integrator_from_name(integrator_name);
    if (opt.integrator < 0) {
      fprintf(stderr, "tightfit run: unknown integrator '%s' (valid: euler, rk4)\n",
              integrator_name);
      return TF_EXIT_USAGE;
    }
  }
  if (solver_name) {
    opt.solver = tf_solver_from_name(solver_name);
    if (opt.solver < 0) {
      fprintf(stderr, "tightfit run: unknown solver '%s' (see tightfit list)\n", solver_name);
      return TF_EXIT_USAGE;
    }
  }
  if (isnan(duration)) duration = 1.0;
  char err[1024], ignored[2048];
  tf_model* m = tf_mjcf_load(path, &opt, err, sizeof(err), ignored, sizeof(ignored));
  if (!m) {
    fprintf(stderr, "tightfit run: %s\n", err);
    return TF_EXIT_USAGE;
  }
  if (ignored[0]) fprintf(stderr, "mjcf: unsupported, ignored: %s\n", ignored);
  dt = m->opt.timestep;
  if (duration / dt > 1e9) {
    fprintf(stderr, "tightfit run: --duration / --dt is over 1e9 steps\n");
    tf_model_destroy(m);
    return TF_EXIT_USAGE;
  }
  tf_scene_result r;
  if (tf_scene_run_model(m, duration, &r, err, sizeof(err))) {
    fprintf(stderr, "tightfit run: %s\n", err);
    tf_model_destroy(m);
    return TF_EXIT_FAIL;
  }
  tf_integrator integrator = m->opt.integrator;
  const char* solver = tf_solver_name(m->opt.solver);
  cJSON* o = result_json(path, dt, duration, integrator, &r);
  cJSON_AddStringToObject(o, "solver", solver);
  add_number(o, "bodies", m->nbody - 1);
  add_number(o, "joints", m->njnt);
  add_number(o, "geoms", m->ngeom);
  add_number(o, "actuators", m->nu);
  add_number(o, "contacts_max", r.ncon_max);
  add_number(o, "penetration_max", r.penetration_max);
  int status = r.diverged ? TF_EXIT_FAIL : TF_EXIT_OK;
  if (json) {
    if (tf_json_puts(stdout, o)) status = TF_EXIT_FAIL;
  } else {
    printf("%s (%s, %s, dt %g s, %g s): %s, %ld steps, %.3g steps/s, realtime x%.3g\n", path,
           tf_integrator_name(integrator), solver, dt, duration, r.diverged ? "DIVERGED" : "ok",
           r.steps, r.steps_per_s, r.realtime_factor);
    printf("  %d bodies, %d joints, %d geoms, %d actuators\n", m->nbody - 1, m->njnt, m->ngeom,
           m->nu);
    printf("  energy %.6g -> %.6g J, drift max %.3g J\n", r.energy_initial, r.energy_final,
           r.energy_drift_max);
    printf("  contacts max %d, penetration max %.3g m\n", r.ncon_max, r.penetration_max);
  }
  cJSON_Delete(o);
  tf_model_destroy(m);
  return status;
}

int tf_cmd_run(int argc, char** argv) {
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--task") == 0 || strcmp(argv[i], "--assembly") == 0)
      return tf_cmd_run_task(argc, argv);
  }
  const char* scene_name = NULL;
  const char* integrator_name = NULL;
  const char* solver_name = NULL;
  double dt = NAN, duration = NAN;
  int json = 0;
  for (int i = 0; i < argc; i++) {
    const char* opt = argv[i];
    int has_value = i + 1 < argc;
    if (strcmp(opt, "--json") == 0) {
      json = 1;
    } else if (strcmp(opt, "--scene") == 0 || strcmp(opt, "--integrator") == 0 ||
               strcmp(opt, "--dt") == 0 || strcmp(opt, "--duration") == 0 ||
               strcmp(opt, "--solver") == 0) {
      if (!has_value) {
        usage_error("%s needs a value", opt);
        return TF_EXIT_USAGE;
      }
      const char* value = argv[++i];
      if (strcmp(opt, "--scene") == 0) {
        scene_name = value;
      } else if (strcmp(opt, "--integrator") == 0) {
        integrator_name = value;
      } else if (strcmp(opt, "--solver") == 0) {
        solver_name = value;
      } else if (strcmp(opt, "--dt") == 0) {
        if (tf_cli_parse_number("--dt", value, 1e-7, 1.0, &dt)) return TF_EXIT_USAGE;
      } else if (tf_cli_parse_number("--duration", value, 1e-7, 1e5, &duration)) {
        return TF_EXIT_USAGE;
      }
    } else {
      usage_error("unknown option '%s'", opt);
      return TF_EXIT_USAGE;
    }
  }
  if (!scene_name) {
    usage_error("%s", "--scene is required");
    return TF_EXIT_USAGE;
  }
  if (is_mjcf(scene_name)) {
    return run_mjcf(scene_name, dt, duration, integrator_name, solver_name, json);
  }
  if (solver_name) {
    usage_error("%s", "--solver applies to MJCF scenes (--scene FILE.xml) only");
    return TF_EXIT_USAGE;
  }
  if (!integrator_name) integrator_name = "euler";
  const tf_scene* scene = tf_scene_find(scene_name);
  if (!scene) {
    fprintf(stderr, "tightfit run: unknown scene '%s' (valid: ", scene_name);
    list_scenes(stderr);
    fprintf(stderr, ")\n");
    return TF_EXIT_USAGE;
  }
  int integrator = tf_integrator_from_name(integrator_name);
  if (integrator < 0) {
    fprintf(stderr, "tightfit run: unknown integrator '%s' (valid: euler, rk4)\n", integrator_name);
    return TF_EXIT_USAGE;
  }
  if (isnan(dt)) dt = scene->dt;
  if (isnan(duration)) duration = scene->duration;
  if (duration / dt > 1e9) {
    fprintf(stderr, "tightfit run: --duration / --dt is over 1e9 steps\n");
    return TF_EXIT_USAGE;
  }

  tf_scene_result result;
  char err[256];
  if (tf_scene_run(scene, dt, duration, integrator, &result, err, sizeof(err))) {
    fprintf(stderr, "tightfit run: %s\n", err);
    return TF_EXIT_FAIL;
  }
  cJSON* o = result_json(scene->name, dt, duration, integrator, &result);
  int status = result.diverged ? TF_EXIT_FAIL : TF_EXIT_OK;
  if (json) {
    if (tf_json_puts(stdout, o)) status = TF_EXIT_FAIL;
  } else {
    printf("%s (%s, dt %g s, %g s): %s, %ld steps, %.3g steps/s, realtime x%.3g\n", scene->name,
           tf_integrator_name(integrator), dt, duration, result.diverged ? "DIVERGED" : "ok",
           result.steps, result.steps_per_s, result.realtime_factor);
    printf("  energy drift %.3g J (%.3g of max kinetic energy)\n", result.energy_drift_max,
           result.kinetic_max > 0 ? result.energy_drift_max / result.kinetic_max : NAN);
    if (!isnan(result.period)) {
      printf("  period %.9g s (analytic %.9g s)\n", result.period, result.period_analytic);
    }
    if (!isnan(result.omega_y_min)) {
      printf("  omega_y in [%.6g, %.6g] rad/s\n", result.omega_y_min, result.omega_y_max);
    }
  }
  cJSON_Delete(o);
  return status;
}
