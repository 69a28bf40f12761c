// The gears task (rig mode): a train of 2 to 4 involute spur gears on a base plate, the input
// driven by a velocity servo, the followers by their teeth (gears_scene.c builds the rig); or,
// with impact_speed > 0, the input gear dropped onto its seat down its shaft (tunnelling).
//
// Success (README.md "Assembly tasks": "followers turn at the tooth-count ratio, sign alternating,
// slip under 5 %"): the input turned (the gear probe's min_input_turn over its window: a
// dead drive is no success) and every follower's mean speed ratio over the probe's window is
// within 5 % of sign_f N_in / N_f (gear_slip.max < 0.05; the sign is part of the ratio, so a
// follower turning the wrong way is 200 % off). The drop scene succeeds when the gear ends
// seated: no through-penetration, no fly-through, and its final depth within
// GEARS_SEATED_TOL of the seat.
//
// Task metrics: gears.input_turns, gears.ratio_f<i> (measured mean speed ratio of follower i
// since the probe's slip_t0), gears.wobble_deg_max (largest tilt of a gear that can tilt),
// gears.shaft_offset_max_m (largest lateral excursion of a gear from its shaft axis); drop:
// gears.seat_speed_mps, gears.seat_speed_expected_mps, gears.seat_speed_err (against the
// analytic sqrt(v0^2 + 2 g d)) and gears.seat_braking (against the same integrator's
// contact-free fall, so that the integrator's own error is not read as braking), environment
// 0 only (the centred untilted one; see observe).
//
// Colliders, as measured (al, mount=shaft unless said; teeth 60-40-60, module 1.5 mm):
//   sdf (default): the train transmits at every rate of the gate (1000 to 100 Hz: skipped
//     teeth <= 0.17, slip <= 0.15 %). On the shafts its SDF x SDF normals at a bore's rim are
//     the rim's 45 degree corner normals, which brake a tilted gear sliding down its shaft
//     (drop at 0.5 m/s, 1 ms: tilted 0.16 to 0.19 deg it reaches its seat after 0.14 to
//     0.22 s instead of 0.043 s; untilted it is not braked).
//   mesh_sdf: the gear meshes against the fixture's SDFs drop cleanly (no braking at any tilt);
//     the teeth meet SDF x SDF as under sdf, because sampling one gear's flank mesh in the
//     other gear's field takes that gear's tip-corner normal (radial to it) at the start of
//     each engagement: on ideal hinges the train locked after 0.05 rad with the servo at its
//     cap. At 100 Hz the hub meshes let the gears jump on their shafts (2.3 teeth skipped).
//   hull: fills every bore and tooth space: gears_hull (gate_gears.c) has what happens.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gears.h"
#include "seat_speed.h"
#include "task_policy.h"

static const double pi = 3.14159265358979323846;

#define GEARS_SEATED_TOL 0.2e-3  // m: a dropped gear this close to its seat is seated
#define GEARS_TOUCH 1e-5         // m: height above the seat that counts as reaching it
#define GEARS_SLIP_OK 0.05       // the success rule: slip under 5 %
#define GEARS_SERVO_KV 1.0       // N m s / rad: input servo gain (implicit in the engine)
#define GEARS_SERVO_TORQUE 2.0   // N m: input servo torque cap
// a train on shafts is physical only where its gears stay in their fits: a bore sunk into its
// shaft, or a gear lifted off its shoulder (gravity holds it there; the fit leaves it no room),
// by more than this is the hop a too-large step makes (issue 18: 10 um)
#define GEARS_FIT_TOL 10e-6
#define GEARS_PRESSURE_DEG 20.0  // the gear part's default pressure angle, which the scene uses

// the deepest the teeth of a meshing pair may go into each other: half the gap each flank
// has when the pair is centred in its backlash (the normal backlash j cos(alpha), shared by
// two flanks), as peg allows half its radial clearance and bolt-nut half its flank gap; at
// least 10 um, the fit tolerance (0.5 mm of backlash: 117 um)
double tf_gears_teeth_overlap_allowed(const tf_gears_config* c) {
  double normal = c->backlash * cos(GEARS_PRESSURE_DEG * 3.14159265358979323846 / 180);
  return fmax(GEARS_FIT_TOL, 0.25 * normal);
}

enum {
  P_MOUNT,
  P_INPUT_SPEED,
  P_MODULE,
  P_TEETH,
  P_BACKLASH,
  P_MU,
  P_COLLIDER,
  P_IMPACT_SPEED,
  P_FACE,
  P_BORE,
  P_CLEARANCE,
  P_CHORD,
  P_LOAD,
  P_N
};

static const tf_param_spec gears_params[P_N] = {
    [P_MOUNT] = {"mount", TF_GEARS_SHAFT, 0, 1, "", "hinge|shaft",
                 "hinge: ideal hinges on the shafts; shaft: free bodies held by their bores on "
                 "the shafts (radial clearance clearance_um), resting on shoulders"},
    [P_INPUT_SPEED] = {"input_speed", 5, -100, 100, "rad/s", NULL,
                       "the input's velocity servo target (ramped up over the first 0.1 s)"},
    [P_MODULE] = {"module_mm", 1.5, 0.5, 5, "mm", NULL, "module of every gear"},
    [P_TEETH] = {"teeth", 60, 8, 200, "", NULL,
                 "tooth counts along the train, input first (2 to 4 gears in a row; signs "
                 "alternate along it)",
                 4, "60,40,60", 2, 1},
    [P_BACKLASH] = {"backlash_mm", 0.5, 0, 2, "mm", NULL,
                    "circular backlash of every meshing pair on the pitch circle"},
    [P_MU] = {"mu", 0.1, 0, 2, "", NULL, "Coulomb friction of every contact (teeth, bore, plate)"},
    [P_COLLIDER] = {"collider", TF_GEARS_SDF, 0, 2, "", "sdf|mesh_sdf|hull",
                    "sdf: analytic SDFs (SDF x SDF); mesh_sdf: each gear's mesh sampled in the "
                    "other part's SDF; hull: convex hulls of the gear meshes (no teeth, no bore)"},
    [P_IMPACT_SPEED] = {"impact_speed", 0, 0, 50, "m/s", NULL,
                        "> 0: drop scene: the input gear alone starts 30 mm above its seat on "
                        "its shaft moving down at this speed, no drive (needs mount=shaft)"},
    [P_FACE] = {"face_mm", 10, 2, 50, "mm", NULL, "face width of every gear"},
    [P_BORE] = {"bore_mm", 8, 2, 50, "mm", NULL, "bore diameter of every gear"},
    [P_CLEARANCE] = {"clearance_um", 50, 1, 2000, "um", NULL,
                     "radial clearance between a bore and its shaft (mount=shaft)"},
    [P_CHORD] = {"chord_um", 10, 0.5, 200, "um", NULL,
                 "chord error of the gear meshes the mesh_sdf and hull colliders use"},
    [P_LOAD] = {"load_nm", 0, 0, 50, "N m", NULL,
                "a constant torque on the last gear against its turning: the train runs "
                "loaded, its teeth in flank contact instead of rattling in the backlash"},
};

// ---------------------------------------------------------------- build

// the configuration from the parsed values; -1 with a message naming the key
static int parse_config(tf_gears_config* c, const tf_env* env, const double* v, char* err,
                        size_t errlen) {
  memset(c, 0, sizeof(*c));
  c->mount = (tf_gears_mount)(int)v[P_MOUNT];
  c->input_speed = v[P_INPUT_SPEED];
  c->module = v[P_MODULE] * 1e-3;
  c->backlash = v[P_BACKLASH] * 1e-3;
  c->mu = v[P_MU];
  c->collider = (tf_gears_collider)(int)v[P_COLLIDER];
  c->impact_speed = v[P_IMPACT_SPEED];
  c->face = v[P_FACE] * 1e-3;
  c->bore = v[P_BORE] * 1e-3;
  c->clearance = v[P_CLEARANCE] * 1e-6;
  c->chord = v[P_CHORD] * 1e-6;
  c->load = v[P_LOAD];
  c->servo_kv = GEARS_SERVO_KV;
  c->servo_torque = GEARS_SERVO_TORQUE;
  double teeth[TF_GEARS_MAX];
  int n = tf_param_list(&gears_params[P_TEETH], env->set, env->nset, teeth, TF_GEARS_MAX);
  if (n < 2 || n > TF_GEARS_MAX) {
    snprintf(err, errlen, "task 'gears': teeth needs 2 to %d tooth counts, input first (got %d)",
             TF_GEARS_MAX, n < 0 ? 0 : n);
    return -1;
  }
  c->ngear = n;
  for (int i = 0; i < n; i++) {
    if (teeth[i] != floor(teeth[i])) {
      snprintf(err, errlen, "task 'gears': teeth must be whole numbers (got %g)", teeth[i]);
      return -1;
    }
    c->teeth[i] = (int)teeth[i];
  }
  if (c->impact_speed > 0 && c->mount == TF_GEARS_HINGE) {
    snprintf(err, errlen,
             "task 'gears': impact_speed > 0 (the drop scene) needs mount=shaft: a gear on an "
             "ideal hinge cannot fall");
    return -1;
  }
  return 0;
}

// this environment's perturbations: always drawn in the same order (so environment i sees
// the same numbers whatever the scene), then kept only where the scene has the freedom
static void perturb(tf_gears_config* c, tf_rng* rng) {
  int drop = c->impact_speed > 0;
  for (int i = 0; i < TF_GEARS_MAX; i++) {
    double r = tf_rng_uniform(rng, 0, 0.5 * c->clearance);
    double az = tf_rng_uniform(rng, 0, 2 * pi);
    double tilt = tf_rng_uniform(rng, -TF_GEARS_TILT_MAX, TF_GEARS_TILT_MAX);
    double tilt_az = tf_rng_uniform(rng, 0, pi);
    double turn = tf_rng_uniform(rng, -TF_GEARS_TURN_FRACTION, TF_GEARS_TURN_FRACTION);
    int used = drop ? i == 0 : i < c->ngear;
    if (!used) continue;
    if (drop || c->mount == TF_GEARS_SHAFT) {
      c->offset[i][0] = r * cos(az);
      c->offset[i][1] = r * sin(az);
    }
    if (drop) {
      c->tilt[i] = tilt;
      c->tilt_azimuth[i] = tilt_az;
    } else if (i > 0) {
      // a follower turned within its backlash (a quarter of the way to either flank at most,
      // so that two neighbours turned toward each other still leave a gap)
      c->turn[i] = turn * tf_gear_backlash_angle(c->module, c->teeth[i], c->backlash);
    }
  }
}

static int gears_build(tf_env* env, const double* values, const tf_physics* physics, tf_rng* rng,
                       char* err, size_t errlen) {
  tf_gears_state* st = calloc(1, sizeof(tf_gears_state));
  if (!st) {
    snprintf(err, errlen, "task 'gears': out of memory");
    return -1;
  }
  env->state = st;
  tf_gears_config* c = &st->config;
  if (parse_config(c, env, values, err, errlen)) return -1;
  if (env->index > 0) perturb(c, rng);
  tf_gears_scene* s = &st->scene;
  if (tf_gears_scene_build(s, c, physics, err, errlen)) return -1;
  env->data = tf_data_create(s->model);
  if (!env->data) {
    snprintf(err, errlen, "task 'gears': out of memory");
    return -1;
  }
  tf_gears_scene_reset(s, c, env->data);
  env->model = s->model;
  s->model = NULL;  // the runner owns and frees the model
  tf_gears_scene_probe(s, c, &env->probe);
  // the state observe compares against
  tf_kinematics(env->model, env->data);
  for (int i = 0; i < s->ngear; i++) {
    memcpy(st->quat_prev[i], env->data->xquat + 4 * s->gear_body[i], sizeof(st->quat_prev[i]));
  }
  tf_seat_speed_init(&st->seat, -env->model->opt.gravity[2], GEARS_TOUCH,
                     s->start_height - s->center[0][2], c->impact_speed);
  st->seat_speed = NAN;
  st->substeps = physics->substeps;
  return 0;
}

// ---------------------------------------------------------------- control and observe

static void gears_control(tf_env* env) {
  tf_gears_state* st = env->state;
  if (st->scene.actuator < 0) return;
  // a ramp rather than a step: the free gears settle on their shafts while the train takes up
  // its backlash, instead of one impact on every tooth pair at t = 0
  double t = env->data->time;
  double ramp = t < TF_GEARS_RAMP ? t / TF_GEARS_RAMP : 1;
  env->data->ctrl[st->scene.actuator] = st->config.input_speed * ramp;
  const tf_gears_config* c = &st->config;
  if (c->load > 0 && c->ngear >= 2) {
    // against the last gear's turning: the input's sign, alternating along the train (the
    // gears' axes are the world's z in the rig)
    int last = c->ngear - 1;
    double turning = (c->input_speed >= 0 ? 1 : -1) * (last % 2 ? -1 : 1);
    env->data->xfrc_applied[6 * st->scene.gear_body[last] + 5] = -turning * c->load * ramp;
  }
}

// the turn about a world axis between two orientations: the twist of q_now q_prev^-1, wrapped
// to (-pi, pi]; summed per control step it unwraps a gear's angle
static double twist(const double q[4], const double p[4], const double axis[3]) {
  // dq = q * conj(p)
  double w = q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3];
  double v[3] = {-q[0] * p[1] + q[1] * p[0] - q[2] * p[3] + q[3] * p[2],
                 -q[0] * p[2] + q[1] * p[3] + q[2] * p[0] - q[3] * p[1],
                 -q[0] * p[3] - q[1] * p[2] + q[2] * p[1] + q[3] * p[0]};
  double a = 2 * atan2(v[0] * axis[0] + v[1] * axis[1] + v[2] * axis[2], w);
  if (a > pi) a -= 2 * pi;
  if (a <= -pi) a += 2 * pi;
  return a;
}

static void gears_observe(tf_env* env) {
  tf_gears_state* st = env->state;
  const tf_gears_scene* s = &st->scene;
  const tf_gears_config* c = &st->config;
  const tf_model* m = env->model;
  const tf_data* d = env->data;
  static const double up[3] = {0, 0, 1};
  int drop = c->impact_speed > 0;
  for (int i = 0; i < s->ngear; i++) {
    int b = s->gear_body[i];
    const double* q = d->xquat + 4 * b;
    st->angle[i] += twist(q, st->quat_prev[i], up);
    memcpy(st->quat_prev[i], q, sizeof(st->quat_prev[i]));
    if (drop || c->mount == TF_GEARS_SHAFT) {
      double cz = fmax(-1, fmin(1, d->xmat[9 * b + 8]));
      st->wobble_max = fmax(st->wobble_max, acos(cz));
      double off = hypot(d->xpos[3 * b] - s->center[i][0], d->xpos[3 * b + 1] - s->center[i][1]);
      st->shaft_offset_max = fmax(st->shaft_offset_max, off);
      if (!drop) st->lift_max = fmax(st->lift_max, d->xpos[3 * b + 2] - s->center[i][2]);
    }
  }
  if (!st->started && d->time >= env->probe.slip_t0 - 1e-9) {
    memcpy(st->angle_t0, st->angle, sizeof(st->angle_t0));
    st->started = 1;
  }
  if (drop && !st->touched) {
    // the approach speed at the last control step before the gear reached its seat,
    // carried over the remaining height by free fall: what an unbraked gear arrives with
    int b = s->gear_body[0];
    double height = d->xpos[3 * b + 2] - s->center[0][2];
    double speed = -d->qvel[m->jnt_dofadr[m->body_jntadr[b]] + 2];
    tf_seat_speed_observe(&st->seat, height, speed);
    if (st->seat.met) {
      st->touched = 1;
      st->seat_speed = st->seat.speed;
    }
  }
}

// ---------------------------------------------------------------- finish

// what observe would measure for a gear that nothing touches on its way down: the engine's
// semi-implicit Euler free fall (v += g h, then x += h v, per physics step), sampled per control
// step and extrapolated the same way. At 10 ms and 0.5 m/s this alone is 2.3 % under the
// analytic speed (the integrator moves each step with the step's end velocity), which is not
// braking; NaN if it never arrives

// "why" of a dropped gear: empty when it seated
static void gears_why_drop(tf_metrics* out, double through, double fly, double depth) {
  char why[TF_METRIC_TEXT_LEN] = "";
  if (through != 0) tf_why_add(why, "%s", isnan(through) ? "tunnel not measured" : "tunnelled");
  if (fly != 0) tf_why_add(why, "%s", isnan(fly) ? "fly-through not measured" : "flew through");
  if (!(fabs(depth) <= GEARS_SEATED_TOL)) {
    tf_why_add(why, "not seated: %.2f mm from the seat > %g mm", depth * 1e3,
               GEARS_SEATED_TOL * 1e3);
  }
  tf_metrics_set_text(out, "why", why);
}

// "why" of a gear train: empty when it succeeded
static void gears_why_train(tf_metrics* out, int turns, double slip, const tf_gears_state* st,
                            double bore, double allowed, double teeth, double teeth_allowed) {
  char why[TF_METRIC_TEXT_LEN] = "";
  if (!turns) tf_why_add(why, "the input did not turn");
  if (turns && !(slip < GEARS_SLIP_OK)) {
    tf_why_add(why, "slip %.1f %% >= %g %%", slip * 100, GEARS_SLIP_OK * 100);
  }
  if (!(teeth <= teeth_allowed)) {
    tf_why_add(why, "teeth overlap peak %.0f um > %.0f um allowed", teeth * 1e6,
               teeth_allowed * 1e6);
  }
  if (st->config.mount == TF_GEARS_SHAFT) {
    if (!(bore <= GEARS_FIT_TOL)) {
      tf_why_add(why, "bore overlap %.0f um > %.0f um", bore * 1e6, GEARS_FIT_TOL * 1e6);
    }
    if (!(st->lift_max <= GEARS_FIT_TOL)) {
      tf_why_add(why, "lifted %.0f um > %.0f um", st->lift_max * 1e6, GEARS_FIT_TOL * 1e6);
    }
    if (!(st->wobble_max <= allowed)) {
      tf_why_add(why, "wobble %.2f deg > %.2f deg", st->wobble_max * 180 / pi, allowed * 180 / pi);
    }
  }
  tf_metrics_set_text(out, "why", why);
}

static void gears_finish(tf_env* env, tf_metrics* out) {
  tf_gears_state* st = env->state;
  const tf_gears_config* c = &st->config;
  const tf_gears_scene* s = &st->scene;
  const tf_model* m = env->model;
  tf_metrics_set_text(out, "gears.scene", c->impact_speed > 0 ? "drop" : "train");
  tf_metrics_set(out, "gears.wobble_deg_max", st->wobble_max * 180 / pi);
  tf_metrics_set(out, "gears.shaft_offset_max_m", st->shaft_offset_max);
  if (c->impact_speed > 0) {
    // the speed check is asked of the centred, untilted environment only
    double g = -m->opt.gravity[2];
    double expected = sqrt(c->impact_speed * c->impact_speed + 2 * g * TF_GEARS_DROP_GAP);
    int centred = env->index == 0;
    tf_metrics_set(out, "gears.seat_speed_mps", centred ? st->seat_speed : NAN);
    tf_metrics_set(out, "gears.seat_speed_expected_mps", centred ? expected : NAN);
    tf_metrics_set(out, "gears.seat_speed_err",
                   centred ? fabs(st->seat_speed - expected) / expected : NAN);
    double free = tf_seat_speed_free_fall(c->impact_speed, TF_GEARS_DROP_GAP, g, m->opt.timestep,
                                          st->substeps, GEARS_TOUCH);
    tf_metrics_set(out, "gears.seat_speed_free_mps", centred ? free : NAN);
    tf_metrics_set(out, "gears.seat_braking", centred ? 1 - st->seat_speed / free : NAN);
    double depth = tf_metrics_get(out, "tunnel.depth_final_m");
    int seated = tf_metrics_get(out, "tunnel.through") == 0 &&
                 tf_metrics_get(out, "tunnel.flythrough") == 0 && fabs(depth) <= GEARS_SEATED_TOL;
    tf_metrics_set_bool(out, "success", seated);
    gears_why_drop(out, tf_metrics_get(out, "tunnel.through"),
                   tf_metrics_get(out, "tunnel.flythrough"), depth);
    return;
  }
  tf_metrics_set(out, "gears.input_turns", st->angle[0] / (2 * pi));
  double input = st->angle[0] - st->angle_t0[0];
  char name[TF_METRIC_NAME];
  for (int i = 1; i < s->ngear; i++) {
    snprintf(name, sizeof(name), "gears.ratio_f%d", i);
    tf_metrics_set(out, name,
                   st->started && input != 0 ? (st->angle[i] - st->angle_t0[i]) / input : NAN);
  }
  double slip = tf_metrics_get(out, "gear_slip.max");
  int turns = tf_metrics_get(out, "gear_slip.input_turns") == 1;
  int fits = 1;
  double bore = NAN, allowed = NAN, teeth = 0;
  // the teeth in mesh, on any mount: NaN (a pair the probe never measured) fails
  for (int i = 0; i + 1 < s->ngear; i++) {
    snprintf(name, sizeof(name), "overlap.teeth_%d%d_peak_m", i, i + 1);
    double v = tf_metrics_get(out, name);
    teeth = isnan(v) || isnan(teeth) ? NAN : fmax(teeth, v);
  }
  double teeth_allowed = tf_gears_teeth_overlap_allowed(c);
  tf_metrics_set(out, "gears.teeth_overlap_peak_m", teeth);
  tf_metrics_set(out, "gears.teeth_overlap_allowed_m", teeth_allowed);
  if (c->mount == TF_GEARS_SHAFT) {
    bore = 0;
    for (int i = 0; i < s->ngear; i++) {
      snprintf(name, sizeof(name), "overlap.shaft_%d_peak_m", i);
      bore = fmax(bore, tf_metrics_get(out, name));
    }
    allowed = tf_gears_tilt_allowed(c);
    tf_metrics_set(out, "gears.bore_overlap_peak_m", bore);
    tf_metrics_set(out, "gears.lift_max_m", st->lift_max);
    tf_metrics_set(out, "gears.tilt_allowed_deg", allowed * 180 / pi);
    // NaN (a pair the probe never measured) fails
    fits = bore <= GEARS_FIT_TOL && st->lift_max <= GEARS_FIT_TOL && st->wobble_max <= allowed;
  }
  tf_metrics_set_bool(out, "success",
                      turns && slip < GEARS_SLIP_OK && fits && teeth <= teeth_allowed);
  gears_why_train(out, turns, slip, st, bore, allowed, teeth, teeth_allowed);
}

static void gears_destroy(tf_env* env) {
  tf_gears_state* st = env->state;
  if (!st) return;
  tf_gears_scene_free(&st->scene);
  free(st);
  env->state = NULL;
}

extern const tf_task_info tf_task_gears_robot;
extern const tf_task_policy tf_gears_policy;

const tf_task_info tf_task_gears = {
    .name = "gears",
    .description =
        "gear train: 2-4 involute spur gears on shafts, the input driven by a "
        "velocity servo; followers must turn at the tooth-count ratio (or a gear "
        "dropped onto its seat: impact_speed > 0)",
    .params = gears_params,
    .nparam = P_N,
    .default_dt = 0.002,
    .default_duration = 1.5,
    .build = gears_build,
    .control = gears_control,
    .observe = gears_observe,
    .finish = gears_finish,
    .destroy = gears_destroy,
    .robot = &tf_task_gears_robot,  // gears_robot.c: pick a gear, put it on its shaft, mesh it
    .policy = &tf_gears_policy,     // gears_policy.c: the input's speed as the action
};
