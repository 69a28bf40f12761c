// The connectors task (rig mode): a plug pushed into its socket by a velocity servo with a
// force cap, a constant force, or its weight (tf_connectors_scene_build has the rig).
//
// Success ("plug seated to its mating depth, no pin overlap", README.md "Assembly tasks"): at the
// end of the run the plug's mating face is within CONNECTORS_SEAT_TOL of the socket floor, i.e. its
// insertion depth below the socket opening is tf_connector_mating_depth(type) within 0.2 mm either
// way (a plug 2 mm past the floor is the tunnel probe's through-penetration, and no seat), and the
// overlap probe's deepest penetration of either part into the other over the whole run stays under
// CONNECTORS_OVERLAP_MAX (50 um: a third of the 150 um pin gap of the default fit, far above the
// probe's own error; a plug forced through a wall or a pin driven into the floor goes well past
// it).
//
// Environments: index 0 is centred and straight; the others start with a lateral offset of
// up to +-clearance / 2 on each of x and y and a tilt of up to +-0.2 deg about a horizontal
// axis of random direction, drawn from the run's rng.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connectors.h"
#include "task_rig_policy.h"

static const double pi = 3.14159265358979323846;

const tf_param_spec tf_connectors_params[CN_NPARAM] = {
    [CN_TYPE] = {"type", 1, 0, 2, "", "dsub|dp|rj45",
                 "connector family (assets connector_plug / connector_socket): D-sub DE-15, "
                 "DisplayPort, RJ45 (-like); mating depth 6, 8, 10 mm"},
    [CN_CLEARANCE] = {"clearance_um", 100, 0, 200, "um", NULL,
                      "per-side gap between plug shell and socket cavity (pin holes get 50 um "
                      "more)"},
    [CN_PUSH] = {"push", 0, 0, 2, "", "speed|force|gravity",
                 "speed: velocity servo at impact_speed, stall force push_force; force: "
                 "constant push_force; gravity: the plug's weight alone"},
    [CN_IMPACT_SPEED] = {"impact_speed", 0.1, 0, 10, "m/s", NULL,
                         "initial speed down the insertion axis (every push), and the "
                         "servo's target speed"},
    [CN_PUSH_FORCE] = {"push_force", 20, 0, 1000, "N", NULL,
                       "push=speed: the servo's stall force and cap; push=force: the push"},
    [CN_MU] = {"mu", 0.2, 0, 2, "", NULL, "Coulomb friction between plug and socket"},
    [CN_COLLIDER] = {"collider", 1, 0, 2, "", "sdf|mesh_sdf|hull",
                     "sdf: SDF x SDF; mesh_sdf: plug mesh in the socket's SDF; hull: convex "
                     "hulls (the socket's fills its cavity: the plug cannot enter)"},
    [CN_START_GAP] = {"start_gap_mm", 1, 0, 100, "mm", NULL,
                      "from the plug's pin tips down to the socket opening at the start"},
    [CN_PLUG_MASS] = {"plug_mass_g", 10, 0.1, 1000, "g", NULL, "plug mass (uniform shell box)"},
    [CN_MESH_CHORD] = {"mesh_chord_um", 8, 0.5, 100, "um", NULL,
                       "collider meshes: largest distance from the true surface (mesh_sdf, "
                       "hull); the overlap probe samples a mesh 16x finer"},
    [CN_PINS] = {"pins", 0, 0, 1, "", "yes|no",
                 "yes: the plug's pins and the socket's pin holes; no: the shells alone (a "
                 "pinless plug, as an assembly file's meshes may be)"},
};

// m: the seat tolerance and the overlap bound of the success definition (file comment)
#define CONNECTORS_SEAT_TOL 0.2e-3
#define CONNECTORS_OVERLAP_MAX 50e-6
// the perturbation of environments > 0: lateral offset as a fraction of the clearance, tilt
#define OFFSET_FRACTION 0.5
#define TILT_MAX (0.2 * pi / 180)

typedef struct connectors_state {
  tf_connectors_scene scene;
  tf_connectors_config config;
  double depth;      // m: the mating face's depth below the socket opening, last control step
  double depth_max;  // m: the deepest it reached
  double seat_time;  // s: the first control step within the seat tolerance; NaN if none
  double tilt_max;   // rad: the largest tilt seen (a plug rattling in its socket shows here)
} connectors_state;

int tf_connectors_config_from_values(tf_connectors_config* c, const double* values, int index,
                                     tf_rng* rng, char* err, size_t errlen) {
  memset(c, 0, sizeof(*c));
  c->type = (int)values[CN_TYPE];
  c->clearance_um = values[CN_CLEARANCE];
  c->clearance = values[CN_CLEARANCE] * 1e-6;
  c->push = (tf_connectors_push)(int)values[CN_PUSH];
  c->impact_speed = values[CN_IMPACT_SPEED];
  c->push_force = values[CN_PUSH_FORCE];
  c->mu = values[CN_MU];
  c->collider = (tf_connectors_collider)(int)values[CN_COLLIDER];
  c->start_gap = values[CN_START_GAP] * 1e-3;
  c->plug_mass = values[CN_PLUG_MASS] * 1e-3;
  c->mesh_chord_um = values[CN_MESH_CHORD];
  c->pinless = values[CN_PINS] == 1;
  // short enough for the run row's error cell (47 characters), keys first
  if (c->push == TF_CONNECTORS_PUSH_SPEED && !(c->impact_speed > 0)) {
    snprintf(err, errlen, "connectors: push=speed needs impact_speed > 0");
    return -1;
  }
  if (c->push != TF_CONNECTORS_PUSH_GRAVITY && !(c->push_force > 0)) {
    snprintf(err, errlen, "connectors: push=%s needs push_force > 0",
             c->push == TF_CONNECTORS_PUSH_SPEED ? "speed" : "force");
    return -1;
  }
  if (index > 0) {
    // a fixed draw order, so environment i is the same on every machine
    double half = OFFSET_FRACTION * c->clearance;
    c->offset[0] = tf_rng_uniform(rng, -half, half);
    c->offset[1] = tf_rng_uniform(rng, -half, half);
    c->tilt = tf_rng_uniform(rng, -TILT_MAX, TILT_MAX);
    c->tilt_azimuth = tf_rng_uniform(rng, 0, 2 * pi);
  }
  return 0;
}

static void connectors_destroy(tf_env* env) {
  connectors_state* s = env->state;
  if (s) tf_connectors_scene_free(&s->scene);
  free(s);
  env->state = NULL;
}

// the angle between the plug's axis and the world's z (rad)
static double plug_tilt(const tf_env* env) {
  const connectors_state* s = env->state;
  const double* q = env->data->xquat + 4 * s->scene.plug_body;
  return acos(fmax(-1.0, fmin(1.0, 1 - 2 * (q[1] * q[1] + q[2] * q[2]))));
}

// the mating face's depth below the socket opening (socket frame at the world origin)
static double insertion_depth(const tf_env* env) {
  const connectors_state* s = env->state;
  return -env->data->xpos[3 * s->scene.plug_body + 2];
}

static int connectors_build(tf_env* env, const double* values, const tf_physics* physics,
                            tf_rng* rng, char* err, size_t errlen) {
  connectors_state* s = calloc(1, sizeof(connectors_state));
  if (!s) {
    snprintf(err, errlen, "task 'connectors': out of memory");
    return -1;
  }
  env->state = s;
  if (tf_connectors_config_from_values(&s->config, values, env->index, rng, err, errlen) ||
      tf_connectors_scene_build(&s->scene, &s->config, physics, err, errlen)) {
    return -1;  // the runner calls destroy
  }
  // the runner owns model and data (the scene keeps a borrowed pointer)
  env->model = s->scene.model;
  env->data = tf_data_create(env->model);
  if (!env->data) {
    snprintf(err, errlen, "task 'connectors': out of memory");
    return -1;
  }
  tf_connectors_scene_reset(&s->scene, &s->config, env->data);
  tf_kinematics(env->model, env->data);

  tf_probe_spec* p = &env->probe;
  p->tunnel_body = s->scene.plug_body;
  p->axis[0] = 0, p->axis[1] = 0, p->axis[2] = -1;
  memcpy(p->seat, s->scene.seat, sizeof(p->seat));
  p->noverlap = 1;
  const tf_connectors_samples* samples = &s->scene.samples;
  p->overlap[0][0] =
      (tf_probe_surface){s->scene.ids.plug_measure, samples->plug, samples->nplug, samples->floor};
  p->overlap[0][1] = (tf_probe_surface){s->scene.ids.socket_measure, samples->socket,
                                        samples->nsocket, samples->floor};
  s->depth = s->depth_max = insertion_depth(env);
  s->seat_time = NAN;
  s->tilt_max = plug_tilt(env);
  return 0;
}

static void connectors_observe(tf_env* env) {
  connectors_state* s = env->state;
  s->depth = insertion_depth(env);
  s->depth_max = fmax(s->depth_max, s->depth);
  s->tilt_max = fmax(s->tilt_max, plug_tilt(env));
  if (isnan(s->seat_time) && fabs(s->depth - s->scene.mating_depth) <= CONNECTORS_SEAT_TOL) {
    s->seat_time = env->data->time;
  }
}

// "why": the success rule's failed criteria in words, empty when the plug succeeded, so a
// report says what missed without the reader knowing the rule's thresholds
static void connectors_why(tf_metrics* out, double seat_error, double peak) {
  char why[TF_METRIC_TEXT_LEN] = "";
  if (!(fabs(seat_error) <= CONNECTORS_SEAT_TOL)) {
    tf_why_add(why, "not seated: plug %.2f mm %s the floor > %g mm", fabs(seat_error) * 1e3,
               seat_error < 0 ? "short of" : "past", CONNECTORS_SEAT_TOL * 1e3);
  }
  tf_why_overlap(why, peak, CONNECTORS_OVERLAP_MAX);
  tf_metrics_set_text(out, "why", why);
}

static void connectors_finish(tf_env* env, tf_metrics* out) {
  const connectors_state* s = env->state;
  const tf_data* d = env->data;
  const double* x = d->xpos + 3 * s->scene.plug_body;
  double mating = s->scene.mating_depth;
  double seat_error = s->depth - mating;  // < 0: short of the floor
  int seated = fabs(seat_error) <= CONNECTORS_SEAT_TOL;
  double peak = tf_metrics_get(out, "overlap.peak_m");
  int clean = peak <= CONNECTORS_OVERLAP_MAX;  // NaN (nothing measured) is not clean
  tf_metrics_set_bool(out, "success", seated && clean);
  connectors_why(out, seat_error, peak);
  tf_metrics_set(out, "connectors.depth_m", s->depth);
  tf_metrics_set(out, "connectors.depth_max_m", s->depth_max);
  tf_metrics_set(out, "connectors.mating_depth_m", mating);
  tf_metrics_set(out, "connectors.seat_error_m", seat_error);
  tf_metrics_set_bool(out, "connectors.seated", seated);
  tf_metrics_set(out, "connectors.seat_time_s", s->seat_time);
  tf_metrics_set(out, "connectors.tilt_deg", plug_tilt(env) * 180 / pi);
  tf_metrics_set(out, "connectors.tilt_deg_max", s->tilt_max * 180 / pi);
  tf_metrics_set(out, "connectors.lateral_m", hypot(x[0], x[1]));
  tf_metrics_set(out, "connectors.offset_m", hypot(s->config.offset[0], s->config.offset[1]));
  tf_metrics_set(out, "connectors.tilt0_deg", fabs(s->config.tilt) * 180 / pi);
  tf_metrics_set(out, "connectors.push_force_n",
                 s->scene.actuator >= 0 ? -d->actuator_force[s->scene.actuator] : 0);
  tf_metrics_set(out, "connectors.seat_tol_m", CONNECTORS_SEAT_TOL);
  tf_metrics_set(out, "connectors.overlap_max_m", CONNECTORS_OVERLAP_MAX);
}

// ---------------------------------------------------------------- the rig as a policy

// The action scales the rig's push (task_rig_policy.h, docs/train.md): the velocity servo's
// target speed (push=speed, action 1: impact_speed down) or the force (push=force, action 1:
// push_force down); push=gravity has none and ignores it. The plug's target is its seat;
// success is the rig's (seated within 0.2 mm, the overlap peak under 50 um).

static int policy_part(const tf_env* env) {
  return ((const connectors_state*)env->state)->scene.plug_body;
}

static void policy_target(const tf_env* env, double pos[3], double quat[4]) {
  const connectors_state* s = env->state;
  memcpy(pos, s->scene.seat, 3 * sizeof(double));
  quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
}

static double policy_span(const tf_env* env) {
  return ((const connectors_state*)env->state)->scene.mating_depth;
}

static double policy_overlap_allowed(const tf_env* env) {
  (void)env;
  return CONNECTORS_OVERLAP_MAX;
}

static int policy_success(const tf_env* env, const tf_probe_set* probes) {
  const connectors_state* s = env->state;
  return fabs(insertion_depth(env) - s->scene.mating_depth) <= CONNECTORS_SEAT_TOL &&
         probes->overlap.peak <= CONNECTORS_OVERLAP_MAX;
}

// the push the build set (the rig's own run)
static double policy_base(const tf_env* env) {
  const connectors_state* s = env->state;
  return s->scene.actuator >= 0 ? env->data->ctrl[s->scene.actuator] : 0;
}

static void policy_drive(tf_env* env, double command) {
  const connectors_state* s = env->state;
  if (s->scene.actuator >= 0) env->data->ctrl[s->scene.actuator] = command;
}

static const tf_rig_policy_task connectors_rig_task = {
    .part = policy_part,
    .target = policy_target,
    .span = policy_span,
    .overlap_allowed = policy_overlap_allowed,
    .success = policy_success,
    .base = policy_base,
    .drive = policy_drive,
    .scripted = 1,
};

static const tf_task_policy connectors_policy = TF_RIG_POLICY(&connectors_rig_task, "push");

extern const tf_task_info tf_task_connectors_robot;

const tf_task_info tf_task_connectors = {
    .name = "connectors",
    .description =
        "a plug pushed into its socket (D-sub, DisplayPort, RJ45-like shells with "
        "pins) by a velocity servo, a force or its weight; seats to its mating depth",
    .params = tf_connectors_params,
    .nparam = CN_NPARAM,
    .default_dt = 0.002,
    .default_duration = 0.25,
    .build = connectors_build,
    .control = NULL,
    .observe = connectors_observe,
    .finish = connectors_finish,
    .destroy = connectors_destroy,
    .robot = &tf_task_connectors_robot,  // connectors_robot.c: pick the plug and insert it
    .policy = &connectors_policy,
};
