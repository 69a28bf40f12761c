// The boltnut task (rig mode): a free nut turns down an ISO bolt to the plate the bolt stands
// in (boltnut_scene.c) under gravity, a constant torque or a velocity servo. Every drive is a
// torque about the bolt axis applied through xfrc_applied, so the nut's axial motion, tilt
// and lateral position come from thread contact alone (no screw joint). Success (README.md,
// "Assembly tasks"): the nut advances one pitch per turn (within 1 %, over the steady part of its
// motion; see boltnut_track.c) and its bottom face reaches the base (within one pitch of the
// plate).
//
// Velocity servo. The nut is a free body, so the engine's implicit velocity actuator (hinge
// and slide joints only) cannot drive it; the servo is an explicit PI loop on the nut's spin
// about the axis, tau = clamp(kp e + ki int e dt, +-2 N m), e = omega_target - omega_axis.
// An explicit gain is stable only while kp dt / I stays under 2 (I: the nut's inertia about
// the axis); kp = 0.5 I / dt halves the error per control step, and the integral term learns
// the thread's friction torque (which a proportional loop alone would leave as a speed lag
// of tau_friction / kp) with poles near 0.7. The integral is clamped to the cap (no wind-up
// past it); once the nut stands on the plate it keeps growing by 0.1 I e / dt^2 per second
// (0.026 N m/s at 1 rev/s and dt = 10 ms), so the clamp load rises toward the cap rather
// than jumping to it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boltnut.h"
#include "task_policy.h"

const tf_param_spec tf_boltnut_params[BN_NPARAM] = {
    [BN_SIZE] = {"size", 3, 0, 4, "", "M4|M8|M12|M16|M20",
                 "ISO metric coarse thread (bolt and nut)"},
    [BN_FIT] = {"fit", 0, 0, 2, "", "none|6H/6g|6H/6g-mid",
                "thread allowance: clearance_um (none), or an ISO 965-1 fit's for the size"},
    [BN_CLEARANCE] = {"clearance_um", 50, 0, 200, "um", NULL,
                      "allowance delta with fit=none: the bolt's radial undersize; flank gap "
                      "delta / 2, axial play 2 delta tan 30"},
    [BN_MU] = {"mu", 0.1, 0, 2, "", NULL,
               "friction of the thread flanks and the base (self-locking above tan(lead) cos 30)"},
    [BN_DRIVE] = {"drive", 2, 0, 2, "", "gravity|torque|servo",
                  "torque about the bolt axis: none (the nut's weight), drive_torque, or a "
                  "velocity servo at drive_speed capped at 2 N m"},
    [BN_DRIVE_SPEED] = {"drive_speed", 1, -10, 10, "rev/s", NULL,
                        "servo target spin, tightening positive"},
    [BN_DRIVE_TORQUE] = {"drive_torque", 0.001, -2, 2, "N m", NULL,
                         "torque drive, tightening positive"},
    [BN_COLLIDER] = {"collider", 1, 0, 2, "", "sdf|mesh_sdf|hull",
                     "sdf: SDF x SDF; mesh_sdf: nut mesh in the bolt's SDF; hull: convex hulls "
                     "(fill the bore: the nut cannot engage)"},
    [BN_TRAVEL_TURNS] = {"travel_turns", 3, 1, 40, "turns", NULL,
                         "the nut starts this many pitches above the base (the free thread)"},
    [BN_ENGAGED_TURNS] = {"engaged_turns", 3, 2, 4, "turns", NULL,
                          "bolt thread inside the nut at the start (pitches)"},
    [BN_MESH_CHORD] = {"mesh_chord_um", 0, 0, 200, "um", NULL,
                       "collider meshes (mesh_sdf, hull): largest distance from the true surface; "
                       "0: a hundredth of the pitch (20 um for M16)"},
};

#define SUCCESS_PITCH_TOL TF_BOLTNUT_PITCH_TOL
#define SUCCESS_OVERLAP_FRACTION TF_BOLTNUT_OVERLAP_FRACTION

static void boltnut_destroy(tf_env* env) {
  tf_boltnut_free_state(env->state);
  env->state = NULL;
}

static int boltnut_build(tf_env* env, const double* values, const tf_physics* physics, tf_rng* rng,
                         char* err, size_t errlen) {
  return tf_boltnut_build_scene(env, values, physics, rng, err, errlen);
}

// the servo's torque about -z for the nut's spin now (see the file comment)
static double servo_torque(tf_boltnut_state* s, double spin) {
  double e = s->drive_speed - spin, cap = TF_BOLTNUT_SERVO_CAP;
  s->servo_integral = fmin(cap, fmax(-cap, s->servo_integral + s->servo_ki * e * s->control_dt));
  return fmin(cap, fmax(-cap, s->servo_kp * e + s->servo_integral));
}

static void boltnut_control(tf_env* env) {
  tf_boltnut_state* s = env->state;
  const tf_model* m = env->model;
  tf_data* d = env->data;
  double tau = 0;  // about -z: tightening
  if (s->drive == BN_DRIVE_TORQUE_ONLY) {
    tau = s->drive_torque;
  } else if (s->drive == BN_DRIVE_SERVO) {
    tau = servo_torque(s, tf_boltnut_axis_speed(m, d, s->nut_body));
  }
  s->servo_torque = tau;
  s->servo_torque_max = fmax(s->servo_torque_max, fabs(tau));
  double* w = d->xfrc_applied + 6 * s->nut_body;
  memset(w, 0, 6 * sizeof(double));
  w[5] = -tau;  // a pure couple about the axis: no force, no tilting moment
}

static void boltnut_observe(tf_env* env) {
  tf_boltnut_state* s = env->state;
  const tf_data* d = env->data;
  tf_boltnut_track_observe(&s->track, d->time, d->xpos + 3 * s->nut_body,
                           d->xquat + 4 * s->nut_body);
}

// "why": the success rule's failed criteria in words, empty when the nut succeeded, so a
// report says what missed without the reader knowing the rule's thresholds
static void boltnut_why(tf_metrics* out, double height, double pitch, double apt, double peak,
                        double allowed) {
  char why[TF_METRIC_TEXT_LEN] = "";
  if (isnan(height)) {
    tf_why_add(why, "not reached: nut height not measured");
  } else if (height > pitch) {
    tf_why_add(why, "not reached: nut %.2f mm above the base > 1 pitch (%.2f mm)", height * 1e3,
               pitch * 1e3);
  } else if (height < -0.25 * pitch) {
    tf_why_add(why, "through the base: nut %.2f mm below it", -height * 1e3);
  }
  double error = fabs(apt / pitch - 1);
  if (!(error <= SUCCESS_PITCH_TOL)) {
    if (!isfinite(apt)) {
      tf_why_add(why, "no advance per turn measured");
    } else {
      tf_why_add(why, "advance per turn %.3f mm is %.1f %% off the %.3f mm pitch (> %g %%)",
                 apt * 1e3, error * 100, pitch * 1e3, SUCCESS_PITCH_TOL * 100);
    }
  }
  tf_why_overlap(why, peak, allowed);
  tf_metrics_set_text(out, "why", why);
}

static void boltnut_finish(tf_env* env, tf_metrics* out) {
  const tf_boltnut_state* s = env->state;
  const tf_boltnut_track* t = &s->track;
  double pitch = s->pitch;
  double apt = tf_boltnut_track_advance_per_turn(t);
  double pitch_error = fabs(apt / pitch - 1);
  double height = t->height;
  // the bottom face within one pitch of the head's top face; a nut far below it went
  // through the head, which is no reaching
  int reached = height <= pitch && height >= -0.25 * pitch;
  int advances = isfinite(apt) && pitch_error <= SUCCESS_PITCH_TOL;
  double peak = tf_metrics_get(out, "overlap.peak_m");
  double allowed = SUCCESS_OVERLAP_FRACTION * s->delta;
  tf_metrics_set(out, "boltnut.overlap_allowed_m", allowed);
  tf_metrics_set_bool(out, "success", reached && advances && peak <= allowed);
  boltnut_why(out, height, pitch, apt, peak, allowed);
  tf_metrics_set(out, "boltnut.turns", tf_boltnut_track_turns(t));
  tf_metrics_set(out, "boltnut.advance_m", t->advance);
  tf_metrics_set(out, "boltnut.advance_per_turn_m", apt);
  tf_metrics_set(out, "boltnut.pitch_m", pitch);
  tf_metrics_set(out, "boltnut.pitch_error", isfinite(apt) ? pitch_error : NAN);
  tf_metrics_set(out, "boltnut.fit_turns", tf_boltnut_track_fit_span(t));
  tf_metrics_set(out, "boltnut.height_above_base_m", height);
  tf_metrics_set_bool(out, "boltnut.reached_base", reached);
  tf_metrics_set(out, "boltnut.reach_time_s", t->reach_time);
  tf_metrics_set(out, "boltnut.tilt_deg_max", t->tilt_max * 180 / M_PI);
  tf_metrics_set(out, "boltnut.lateral_max_m", t->lateral_max);
  tf_metrics_set(out, "boltnut.moved_max_m", t->moved_max);
  tf_metrics_set(out, "boltnut.rotated_deg_max", t->rotated_max * 180 / M_PI);
  tf_metrics_set(out, "boltnut.delta_m", s->delta);
  tf_metrics_set(out, "boltnut.mesh_chord_m", s->collider_chord);
  tf_metrics_set(out, "boltnut.drive_torque_max", s->servo_torque_max);
}

extern const tf_task_info tf_task_boltnut_robot;
extern const tf_task_policy tf_boltnut_policy;

const tf_task_info tf_task_boltnut = {
    .name = "boltnut",
    .description =
        "a free ISO nut turns down a bolt to the base plate under gravity, a torque or a "
        "velocity servo (torque about the axis only; no screw joint)",
    .params = tf_boltnut_params,
    .nparam = BN_NPARAM,
    .default_dt = 0.01,
    .default_duration = 4.0,
    .build = boltnut_build,
    .control = boltnut_control,
    .observe = boltnut_observe,
    .finish = boltnut_finish,
    .destroy = boltnut_destroy,
    .robot = &tf_task_boltnut_robot,  // boltnut_robot.c: pick the nut and screw it down
    .policy = &tf_boltnut_policy,     // boltnut_policy.c: the drive's rate as the action
};
