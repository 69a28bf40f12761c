// The `peg` task (rig mode): a round or square peg dropped, or fired, into its hole.
//
// Defaults are CRISP's peg insertion (Lee et al., section VI-A and appendix D1): a 50 mm diameter,
// 100 mm long peg, mu 0.01, 0.5 deg tilt, dropped from directly above the hole, dt = 2 ms. The
// paper gives neither the hole's depth nor its block; we chose a 25 mm deep bore (a quarter of the
// peg's length, so the tilted peg must straighten over a long stretch of wall) in a block twice the
// peg's diameter wide with 20 mm of floor under the bore, 0.5 mm 45 deg chamfers on the peg tip and
// the hole entry, and a steel peg (7800 kg/m^3, 1.53 kg). The peg starts with its tip centre
// on the hole axis, gap_mm (30) above the bottom, i.e. 5 mm above the block, tilted about the
// tip. impact_speed > 0 fires it from there along -z with no drive: the forced-insertion proxy
// of the tunnelling question.
//
// Environment 0 is the centred one at tilt_deg; environments 1.. draw a lateral offset of the
// tip (a uniform direction, a length uniform in [0, perturb_offset x clearance]) and add a
// tilt uniform in [-perturb_tilt_deg, +perturb_tilt_deg].
//
// Success (README.md "Assembly tasks"): the tip centre within 1 mm of the hole's bottom (the floor
// disc, so a peg that went through the floor or beside the bore does not count) and the peg
// upright: its axis within PEG_UPRIGHT_DEG of vertical.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peg.h"
#include "task_policy.h"

#define DEG (M_PI / 180)

static const tf_param_spec peg_params[PEG_NPARAM] = {
    [PEG_SHAPE] = {"shape", 0, 0, 1, "", "round|square",
                   "round peg in a bore, or square peg in a pocket"},
    [PEG_COLLIDER] = {"collider", PEG_COLLIDER_MESH_SDF, 0, 2, "", "sdf|mesh_sdf|hull",
                      "sdf: analytic SDF x SDF; mesh_sdf: the peg's mesh in the hole's SDF; hull: "
                      "convex hulls of both (the bore fills in)"},
    [PEG_CLEARANCE_UM] = {"clearance_um", 100, 0, 2000, "um", NULL,
                          "radial clearance, (bore - peg) / 2"},
    [PEG_TILT_DEG] = {"tilt_deg", 0.5, -10, 10, "deg", NULL,
                      "start tilt of the peg's axis about the world x axis, through its tip"},
    [PEG_MU] = {"mu", 0.01, 0, 2, "", NULL, "sliding friction between peg and hole"},
    [PEG_IMPACT_SPEED] = {"impact_speed", 0, 0, 50, "m/s", NULL,
                          "start speed along the insertion axis, no drive (0: dropped from rest)"},
    [PEG_GAP_MM] = {"gap_mm", 30, 0.1, 500, "mm", NULL,
                    "start height of the peg's tip above its seat (the hole bottom)"},
    [PEG_DEPTH_MM] = {"depth_mm", 25, 1, 400, "mm", NULL, "bore depth below the block's top"},
    [PEG_DIAMETER_MM] = {"diameter_mm", 50, 1, 100, "mm", NULL, "peg diameter (or side)"},
    [PEG_LENGTH_MM] = {"length_mm", 100, 2, 500, "mm", NULL, "peg length"},
    [PEG_CHAMFER_MM] = {"chamfer_mm", 0.5, 0, 10, "mm", NULL,
                        "45 deg chamfer on the peg's tip and the hole's entry"},
    [PEG_DENSITY] = {"density", 7800, 100, 30000, "kg/m^3", NULL, "the peg's density"},
    [PEG_PERTURB_OFFSET] = {"perturb_offset", 0.5, 0, 1, "", NULL,
                            "environments > 0: lateral tip offset up to this x clearance"},
    [PEG_PERTURB_TILT_DEG] = {"perturb_tilt_deg", 0.2, 0, 5, "deg", NULL,
                              "environments > 0: added tilt within +-this"},
    [PEG_CHORD_UM] =
        {"chord_um", 2, 0.1, 100, "um", NULL,
         "collider meshes' chord error (mesh_sdf, hull); probe rings get 4x the stations"},
};

int peg_config_from_values(peg_config* c, const double* v, char* err, size_t errlen) {
  memset(c, 0, sizeof(*c));
  c->square = v[PEG_SHAPE] > 0.5;
  c->collider = (int)v[PEG_COLLIDER];
  c->clearance = v[PEG_CLEARANCE_UM] * 1e-6;
  c->tilt = v[PEG_TILT_DEG] * DEG;
  c->mu = v[PEG_MU];
  c->impact_speed = v[PEG_IMPACT_SPEED];
  c->gap = v[PEG_GAP_MM] * 1e-3;
  c->depth = v[PEG_DEPTH_MM] * 1e-3;
  c->diameter = v[PEG_DIAMETER_MM] * 1e-3;
  c->length = v[PEG_LENGTH_MM] * 1e-3;
  c->chamfer = v[PEG_CHAMFER_MM] * 1e-3;
  c->density = v[PEG_DENSITY];
  c->perturb_offset = v[PEG_PERTURB_OFFSET];
  c->perturb_tilt = v[PEG_PERTURB_TILT_DEG] * DEG;
  c->chord = v[PEG_CHORD_UM] * 1e-6;
  // the parts' own limits, said in this task's keys
  double ch = c->chamfer;
  if (ch >= 0.25 * c->diameter || ch >= 0.5 * c->length || ch >= 0.5 * c->depth) {
    snprintf(err, errlen,
             "task 'peg': chamfer_mm must be under a quarter of diameter_mm and half of "
             "length_mm and depth_mm (got %g mm)",
             ch * 1e3);
    return -1;
  }
  return 0;
}

static void peg_destroy(tf_env* env) {
  peg_state* s = env->state;
  if (!s) return;
  peg_samples_free(&s->samples_peg);
  peg_samples_free(&s->samples_hole);
  free(s);
  env->state = NULL;
}

static int peg_build(tf_env* env, const double* values, const tf_physics* physics, tf_rng* rng,
                     char* err, size_t errlen) {
  peg_state* s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(err, errlen, "task 'peg': out of memory");
    return -1;
  }
  env->state = s;
  if (peg_config_from_values(&s->cfg, values, err, errlen)) return -1;
  s->start_tilt = s->cfg.tilt;
  if (env->index > 0) {
    // drawn in a fixed order, so environment i is the same on every machine
    double direction = tf_rng_uniform(rng, 0, 2 * M_PI);
    double radius = tf_rng_uniform(rng, 0, s->cfg.perturb_offset * s->cfg.clearance);
    s->start_offset[0] = radius * cos(direction);
    s->start_offset[1] = radius * sin(direction);
    s->start_tilt += tf_rng_uniform(rng, -s->cfg.perturb_tilt, s->cfg.perturb_tilt);
  }
  if (peg_scene_build(env, s, physics, err, errlen)) return -1;
  const tf_model* m = env->model;
  s->start_gap = peg_tip_gap(s, env->data);
  s->substeps = physics->substeps;
  tf_seat_speed_init(&s->seat, -m->opt.gravity[2], PEG_SEAT_TOUCH, s->start_gap,
                     peg_tip_speed(s, m, env->data));
  return 0;
}

static void peg_observe(tf_env* env) {
  peg_state* s = env->state;
  tf_seat_speed_observe(&s->seat, peg_tip_gap(s, env->data),
                        peg_tip_speed(s, env->model, env->data));
}

// "why": the success rule's failed criteria in words, empty when the peg succeeded, so a
// report says what missed without the reader knowing the rule's thresholds
static void peg_why(tf_metrics* out, double error, double tilt, double peak, double allowed) {
  char why[TF_METRIC_TEXT_LEN] = "";
  peg_why_seat(why, error, tilt);
  tf_why_overlap(why, peak, allowed);
  tf_metrics_set_text(out, "why", why);
}

static void peg_finish(tf_env* env, tf_metrics* out) {
  const peg_state* s = env->state;
  const tf_data* d = env->data;
  double error = peg_seat_error(s, d), tilt = peg_tilt(s, d);
  double peak = tf_metrics_get(out, "overlap.peak_m");
  double allowed = peg_overlap_allowed(&s->cfg);
  tf_metrics_set(out, "peg.overlap_allowed_m", allowed);
  // NaN (nothing measured) does not pass
  tf_metrics_set_bool(out, "success", peg_seated(error, tilt) && peak <= allowed);
  peg_why(out, error, tilt, peak, allowed);
  tf_metrics_set(out, "peg.depth_m", -d->xpos[3 * s->body + 2]);
  tf_metrics_set(out, "peg.seat_error_m", error);
  tf_metrics_set(out, "peg.tilt_deg_final", tilt / DEG);
  // the free-fall answer from the start state, sqrt(v0^2 + 2 g d)
  double v0 = s->cfg.impact_speed;
  double free_fall = sqrt(v0 * v0 + 2 * s->seat.gravity * fmax(0, s->start_gap));
  tf_metrics_set(out, "peg.seat_speed_mps", s->seat.speed);
  tf_metrics_set(out, "peg.seat_speed_free_fall_mps", free_fall);
  // the same measurement on the integrator's own contact-free fall: braking on the way in is
  // the shortfall against it (the integrator's own error is the gap between the two)
  double integrator =
      tf_seat_speed_free_fall(v0, fmax(0, s->start_gap), s->seat.gravity, env->model->opt.timestep,
                              s->substeps, PEG_SEAT_TOUCH);
  tf_metrics_set(out, "peg.seat_speed_integrator_mps", integrator);
  tf_metrics_set(out, "peg.seat_braking", 1 - s->seat.speed / integrator);
}

extern const tf_task_info tf_task_peg_robot;
extern const tf_task_policy tf_peg_policy;

const tf_task_info tf_task_peg = {
    .name = "peg",
    .description =
        "round or square peg dropped or fired into its hole (CRISP peg insertion; "
        "forced-insertion proxy with impact_speed)",
    .params = peg_params,
    .nparam = PEG_NPARAM,
    .default_dt = 0.002,
    .default_duration = 0.4,
    .build = peg_build,
    .control = NULL,
    .observe = peg_observe,
    .finish = peg_finish,
    .destroy = peg_destroy,
    .robot = &tf_task_peg_robot,  // peg_robot.c: pick the peg and insert it
    .policy = &tf_peg_policy,     // peg_policy.c: the push as the action
};
