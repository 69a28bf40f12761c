// The `boltnut` task in robot mode: the Panda picks the nut off its stand, sets it on the
// bolt's thread start and screws it down to the base plate by turning its wrist (issue 7:
// "pick the nut, place it on the bolt and screw it down by turning the wrist").
//
// The script is robot mode's pick-and-insert (task_robot.h) with the insertion ending on the
// thread: the fingers close across two hex flats (the nut body's +-y, boltnut_robot.h) with
// the pads' lower edge PAD_ABOVE_BOTTOM over the nut's bottom face, so that they clear the
// plate once the nut is down; the carry brings the nut over the bolt, the alignment puts it
// upright ALIGN_HEIGHT over the thread's start, and the insertion aims INSERT_PUSH under the
// height where it rests there (the bolt's tip within the nut's countersink): the controller's
// compliance lets the countersink and the 60 deg flanks centre it on the tip. Then the wrist
// turns (task_robot_screw.h): clockwise seen from above at screw_speed, about the bolt's axis,
// the TCP following the nut down with SCREW_PUSH of preload, until the nut's bottom face is
// within STOP_HEIGHT of the plate (the rig's tracking gives the height) or the turn's time is
// up; after HOLD the fingers open and the arm withdraws. The turn's time allows the travel
// plus one turn for the thread to catch (a nut set on a thread start turns up to a turn before
// its thread meets the bolt's) and half a turn to spare.
//
// Every environment draws its start from the run's seed and its index: the nut within
// perturb_mm of the stand's centre and turned by any angle about its axis, each arm joint
// within +-perturb_deg of Franka's ready pose. The hex has six grasps a turn, but its thread
// only one phase: the turn decides where the thread's start lies when the nut is set on the
// bolt (the script sets it down at the hex yaw nearest the one it was held at) and so how far
// it turns before the thread catches. With grasp=weld the nut starts welded in the hand (no
// grasp slip).
//
// Success: the nut screwed down to the base, coaxial, the thread having turned it: at the end
// its bottom face within SEATED_PITCHES of a pitch above the plate (and not through it), its
// axis within UPRIGHT_DEG of the bolt's and its centre within COAXIAL of the axis, and the
// turns tracked since the wrist began turning consistent with its advance: at least the
// advance over the pitch, and at most one turn (the catch) and CONSISTENT_TURNS more.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boltnut_robot.h"
#include "task_policy.h"
#include "tf_math.h"

#define DEG (M_PI / 180)
#define PAD_BELOW_TCP 0.0125    // m: the finger pads reach this far past the TCP
#define PAD_ABOVE_BOTTOM 0.002  // m: the pads' lower edge over the nut's bottom face
#define PAD_MIN_HOLD 0.004      // m: the pads must hold at least this much of the flats
#define MAX_PAYLOAD 3.0         // kg: the Panda's rated payload
#define MAX_OPENING 0.08        // m: the gripper's full opening
#define STAND_X 0.0             // m: the stand's centre, beside the bolt (at the origin)
#define STAND_Y 0.2
#define START_YAW M_PI         // the nut's start turn within +-this (its thread has no symmetry)
#define REST_BELOW_TIP 1e-3    // m: the nut's bottom face under the bolt's tip when resting
#define CARRY_HEIGHT 0.02      // m: the nut's bottom face over its rest after the carry
#define ALIGN_HEIGHT 0.004     // m: the same before lowering it
#define INSERT_PUSH 1.5e-3     // m: the lowering's target under the rest
#define SCREW_PUSH 1e-3        // m: the wrist's command under the nut-following height
#define SCREW_RAMP 0.2         // s: the wrist's rate rises over this
#define SCREW_CATCH_TURNS 1.0  // turns the thread may take to catch
#define SCREW_SPARE_TURNS 0.5  // turns to spare
#define STOP_HEIGHT 1e-4       // m: the turning stops with the bottom face this near the plate
#define HOLD 0.1               // s: still before the fingers open
#define SEATED_PITCHES 0.1     // success: the bottom face within this many pitches of the plate
#define UPRIGHT_DEG 1.0        // success: the nut's axis within this of the bolt's
#define COAXIAL 2e-4           // m: success: the nut's centre within this of the bolt's axis
#define CONSISTENT_TURNS 0.1   // turns: the slack of the turns-against-advance check
#define WELD_FINGER_GAP 5e-4   // m: grasp=weld leaves each pad this far off the flats
#define AFTER_SCRIPT 0.2       // s: the default duration's hold after the slowest script
#define TRACK_LATERAL 1e-3     // m: policy mode tracks the nut once this close to the axis
#define TRACK_TURN 0.02        // turns: and counts its advance once it has turned this far

static const tf_param_spec boltnut_robot_params[BNR_NPARAM] = {
    [BNR_SIZE] = {"size", 3, 0, 4, "", "M4|M8|M12|M16|M20",
                  "ISO metric coarse thread (bolt and nut); robot mode: M8 and larger"},
    [BNR_FIT] = {"fit", 0, 0, 2, "", "none|6H/6g|6H/6g-mid",
                 "thread allowance: clearance_um (none), or an ISO 965-1 fit's for the size"},
    [BNR_CLEARANCE] = {"clearance_um", 50, 0, 200, "um", NULL,
                       "allowance delta with fit=none: the bolt's radial undersize"},
    [BNR_MU] = {"mu", 0.1, 0, 2, "", NULL, "friction of the thread flanks and the base"},
    [BNR_COLLIDER] = {"collider", 1, 0, 1, "", "sdf|mesh_sdf",
                      "sdf: SDF x SDF; mesh_sdf: nut mesh in the bolt's SDF (a hull fills the "
                      "bore: the nut could not go on)"},
    [BNR_TRAVEL_TURNS] = {"travel_turns", 3, 1, 40, "turns", NULL,
                          "the bolt's threaded length in pitches (the nut runs all of it); at "
                          "least the tip chamfer's and at most the nut's height"},
    [BNR_MESH_CHORD] = {"mesh_chord_um", 0, 0, 200, "um", NULL,
                        "collider meshes (mesh_sdf): largest distance from the true surface; 0: "
                        "a hundredth of the pitch"},
    [BNR_SCREW_SPEED] = {"screw_speed", 0.4, 0.05, 0.4, "rev/s", NULL,
                         "the wrist's turning speed (the Panda's joint 7: 2.61 rad/s at most)"},
    [BNR_CONTROLLER] = {"controller", TF_ROBOT_OSC, 0, TF_ROBOT_NCONTROLLER - 1, "",
                        TF_ROBOT_CONTROLLER_CHOICES,
                        "the arm's controller: operational space, task-space impedance, "
                        "differential IK into joint PD, or joint PD on IK keyframes"},
    [BNR_GRASP] = {"grasp", TF_ROBOT_GRASP_FRICTION, 0, 1, "", TF_ROBOT_GRASP_CHOICES,
                   "friction: picked and held by the fingers on two flats; weld: starts "
                   "welded in the hand (no grasp slip)"},
    [BNR_PERTURB_MM] = {"perturb_mm", 3, 0, 10, "mm", NULL,
                        "every environment: the nut's start within this of the stand's centre "
                        "(and turned by any angle)"},
    [BNR_PERTURB_DEG] = {"perturb_deg", 3, 0, 10, "deg", NULL,
                         "every environment: each arm joint's start within +-this of the "
                         "ready pose"},
    [BNR_ROBOT_URDF] = TF_ROBOT_URDF_PARAM,
};

// the script's part for this nut: the grasp on the axis, resting on the bolt's tip
static void script_part(const boltnut_robot_state* s, tf_robot_part* part) {
  memset(part, 0, sizeof(*part));
  part->body = s->rig.nut_body;
  part->mass = s->rig.nut_mass;
  part->grip[2] = s->grip_height;
  part->width = s->width;
  part->yaw_order = 6;
  part->seat[2] = s->rest_height;
  part->carry = CARRY_HEIGHT;
  part->align = ALIGN_HEIGHT;
  part->push = INSERT_PUSH;
}

// the longest the wrist may turn (s)
static double screw_length(double travel_turns, double speed) {
  return (travel_turns + SCREW_CATCH_TURNS + SCREW_SPARE_TURNS) / speed + SCREW_RAMP;
}

// checks what the schema's ranges cannot: the parts' sizes against the gripper and the arm
static int check_values(const boltnut_robot_state* s, const double* v, char* err, size_t errlen) {
  if (s->nut_height - PAD_ABOVE_BOTTOM < PAD_MIN_HOLD) {
    snprintf(err, errlen,
             "task 'boltnut': robot mode needs size M8 or larger (the pads hold the nut from "
             "%g mm over its bottom face and need %g mm of its %.3g mm flats)",
             PAD_ABOVE_BOTTOM * 1e3, PAD_MIN_HOLD * 1e3, s->nut_height * 1e3);
    return -1;
  }
  if (s->bolt_length > s->nut_height) {
    snprintf(err, errlen,
             "task 'boltnut': travel_turns must keep the bolt inside the screwed-down nut "
             "(at most %.3g for this size; got %g)",
             floor(100 * s->nut_height / s->rig.pitch) / 100, v[BNR_TRAVEL_TURNS]);
    return -1;
  }
  if (s->width > MAX_OPENING - 2 * WELD_FINGER_GAP) {
    snprintf(err, errlen, "task 'boltnut': the nut's %.3g mm flats are over the gripper's %g mm",
             s->width * 1e3, MAX_OPENING * 1e3);
    return -1;
  }
  if (s->rig.nut_mass > MAX_PAYLOAD) {
    snprintf(err, errlen, "task 'boltnut': the nut weighs %.2f kg, over the Panda's %g kg",
             s->rig.nut_mass, MAX_PAYLOAD);
    return -1;
  }
  return 0;
}

static void boltnut_robot_destroy(tf_env* env) {
  boltnut_robot_state* s = env->state;
  if (!s) return;
  boltnut_robot_scene_free(s);
  free(s);
  env->state = NULL;
}

// moves the release to start at time t (INFINITY: not yet), the phases after it at their
// planned lengths
static void schedule_release(boltnut_robot_state* s, double t) {
  tf_robot_script* sc = &s->script;
  sc->phase_start[TF_ROBOT_RELEASE] = t;
  for (int i = TF_ROBOT_RELEASE; i < TF_ROBOT_NPHASE; i++) {
    sc->phase_start[i + 1] = sc->phase_start[i] + s->phase_length[i];
  }
}

// the turn's start and stop and the script's phases for this control step (see the header)
void boltnut_robot_plan(tf_env* env) {
  boltnut_robot_state* s = env->state;
  const tf_model* m = env->model;
  tf_data* d = env->data;
  tf_robot_script* sc = &s->script;
  double t = d->time, half_step = 0.5 * m->opt.timestep;
  const double* nut = d->xpos + 3 * s->rig.nut_body;
  if (s->screw_state == 0 && sc->phase == TF_ROBOT_INSERT && t + half_step >= s->insert_end) {
    // the nut rests on the thread's start: turn from here
    static const double axis[2] = {0, 0};
    tf_robot_screw_start(&s->screw, &s->robot, m, d, s->rig.nut_body, axis,
                         2 * M_PI * s->screw_speed, SCREW_RAMP, SCREW_PUSH);
    tf_boltnut_track_init(&s->rig.track, s->rig.pitch, nut, d->xquat + 4 * s->rig.nut_body);
    s->screw_t0 = t;
    s->screw_state = 1;
  }
  if (s->screw_state == 1 &&
      (nut[2] <= STOP_HEIGHT || t + half_step >= s->screw_t0 + s->screw_length)) {
    tf_robot_screw_stop(&s->screw);
    s->screw_state = 2;
    s->screw_end = t;
    schedule_release(s, t + HOLD);
  }
  tf_robot_screw_update(&s->screw, &s->robot, m, d);
  tf_robot_script_plan(sc, &s->robot, m, d);
  if (s->screw_state == 0 && sc->phase == TF_ROBOT_INSERT &&
      sc->phase_start[TF_ROBOT_RELEASE] < INFINITY) {
    // the lowering has its segment (its length was the phase's): the release now waits for
    // the turning to end
    schedule_release(s, INFINITY);
  }
}

static void boltnut_robot_control(tf_env* env) {
  boltnut_robot_state* s = env->state;
  // the plan, then the arm, as tf_robot_script_control orders them (the release's rescheduling
  // at the plan's end moves phase times only, which tf_robot_step does not read)
  boltnut_robot_plan(env);
  tf_robot_step(&s->robot, env->model, env->data);
}

// the nut's bottom face above the plate, its tilt (rad) and its distance from the axis now
static void nut_pose(const boltnut_robot_state* s, const tf_data* d, double* height, double* tilt,
                     double* lateral) {
  const double* x = d->xpos + 3 * s->rig.nut_body;
  double axis[3];
  tf_quat_rotate(axis, d->xquat + 4 * s->rig.nut_body, (const double[3]){0, 0, 1});
  *height = x[2];
  *tilt = acos(fmin(1, fmax(-1, axis[2])));
  *lateral = hypot(x[0], x[1]);
}

// the end state's verdict pieces
static int seated(const boltnut_robot_state* s, const tf_data* d) {
  double height, tilt, lateral;
  nut_pose(s, d, &height, &tilt, &lateral);
  double pitch = s->rig.pitch;
  return height <= SEATED_PITCHES * pitch && height >= -0.25 * pitch && tilt <= UPRIGHT_DEG * DEG &&
         lateral <= COAXIAL;
}

// policy mode's tracking of the nut on the bolt (see the header)
void boltnut_robot_track_on_bolt(tf_env* env) {
  boltnut_robot_state* s = env->state;
  const tf_data* d = env->data;
  const double* nut = d->xpos + 3 * s->rig.nut_body;
  tf_boltnut_track* t = &s->rig.track;
  if (s->screw_state == 0) {
    if (nut[2] > s->bolt_length || hypot(nut[0], nut[1]) > TRACK_LATERAL) return;
    tf_boltnut_track_init(t, s->rig.pitch, nut, d->xquat + 4 * s->rig.nut_body);
    s->screw_t0 = d->time;
    s->screw_state = 1;
  }
  // until it turns, the nut settles into the countersink: the advance counts from where it
  // rests when it begins to turn, as a run counts from where the wrist begins
  if (!s->track_turning) {
    s->track_turning = fabs(tf_boltnut_track_turns(t)) >= TRACK_TURN;
    if (!s->track_turning) t->start_z = nut[2];
  }
}

// finish's success rule, now
int boltnut_robot_success(const boltnut_robot_state* s, const tf_data* d) {
  if (s->screw_state == 0) return 0;
  const tf_boltnut_track* t = &s->rig.track;
  double excess = tf_boltnut_track_turns(t) - t->advance / s->rig.pitch;
  return seated(s, d) && excess >= -CONSISTENT_TURNS &&
         excess <= SCREW_CATCH_TURNS + CONSISTENT_TURNS;
}

static void boltnut_robot_observe(tf_env* env) {
  boltnut_robot_state* s = env->state;
  const tf_data* d = env->data;
  tf_robot_script_observe(&s->script, &s->robot, env->model, d);
  if (s->screw_state == 0) return;
  tf_boltnut_track_observe(&s->rig.track, d->time, d->xpos + 3 * s->rig.nut_body,
                           d->xquat + 4 * s->rig.nut_body);
  if (isnan(s->seat_time) && seated(s, d)) {
    s->seat_time = d->time;
    s->turns_at_seat = tf_boltnut_track_turns(&s->rig.track);
  }
}

static int boltnut_robot_build(tf_env* env, const double* v, const tf_physics* physics, tf_rng* rng,
                               char* err, size_t errlen) {
  boltnut_robot_state* s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(err, errlen, "task 'boltnut': out of memory");
    return -1;
  }
  env->state = s;
  if (v[BNR_SIZE] < 1) {
    // before the parts: an M4's bolt at the travel's length would fail first, less clearly
    snprintf(err, errlen,
             "task 'boltnut': robot mode needs size M8 or larger (the pads hold the nut from "
             "%g mm over its bottom face and need %g mm of its flats; an M4 nut is 3.2 mm tall)",
             PAD_ABOVE_BOTTOM * 1e3, PAD_MIN_HOLD * 1e3);
    return -1;
  }
  s->controller = (tf_robot_controller)(int)v[BNR_CONTROLLER];
  s->grasp = (int)v[BNR_GRASP];
  s->screw_speed = v[BNR_SCREW_SPEED];
  s->stand[0] = STAND_X, s->stand[1] = STAND_Y;
  s->grip_height = PAD_ABOVE_BOTTOM + PAD_BELOW_TCP;
  // drawn in a fixed order (the nut, then the arm's joints), so a start is the same everywhere
  double direction = tf_rng_uniform(rng, 0, 2 * M_PI);
  double radius = tf_rng_uniform(rng, 0, v[BNR_PERTURB_MM] * 1e-3);
  s->start_yaw = tf_rng_uniform(rng, -START_YAW, START_YAW);
  s->start[0] = s->stand[0] + radius * cos(direction);
  s->start[1] = s->stand[1] + radius * sin(direction);
  tf_robot_cell cell = tf_robot_cell_default();
  cell.q_perturb = v[BNR_PERTURB_DEG] * DEG;
  cell.urdf = tf_param_text(&boltnut_robot_params[BNR_ROBOT_URDF], env->set, env->nset);
  cell.continuous_joint7 = 1;
  if (boltnut_robot_scene_build(env, s, v, physics, &cell, rng, err, errlen)) return -1;
  if (check_values(s, v, err, errlen)) return -1;
  s->rest_height = s->bolt_length - REST_BELOW_TIP;
  s->screw_length = screw_length(v[BNR_TRAVEL_TURNS], s->screw_speed);
  if (tf_robot_start(&s->robot, env->model, env->data, s->controller, err, errlen)) return -1;
  if (s->grasp == TF_ROBOT_GRASP_WELD) {
    // the weld holds the nut; pads squeezing it as well would only fight the weld
    tf_robot_payload(&s->robot, s->rig.nut_body, s->rig.nut_mass);
    tf_robot_grip(&s->robot, env->data, s->width + 2 * WELD_FINGER_GAP);
  }
  tf_robot_part part;
  script_part(s, &part);
  tf_robot_script_init(&s->script, &part, s->controller, s->grasp == TF_ROBOT_GRASP_WELD);
  s->insert_end = s->script.phase_start[TF_ROBOT_RELEASE];
  for (int i = 0; i < TF_ROBOT_NPHASE; i++) {
    s->phase_length[i] = s->script.phase_start[i + 1] - s->script.phase_start[i];
  }
  s->screw_t0 = s->screw_end = s->seat_time = s->turns_at_seat = NAN;
  return 0;
}

// "why": the success rule's failed criteria in words (down on the base, upright, coaxial, the
// turns consistent with the advance), then what the script saw go wrong; empty on success
static void boltnut_robot_why(const boltnut_robot_state* s, const tf_data* d, double height,
                              double tilt, double lateral, double turns, double advance,
                              double excess, tf_metrics* out) {
  char why[TF_METRIC_TEXT_LEN] = "";
  double pitch = s->rig.pitch;
  if (!(height <= SEATED_PITCHES * pitch)) {
    tf_why_add(why, "not seated: nut %.2f mm above the base > %.2f mm (%g pitch)", height * 1e3,
               SEATED_PITCHES * pitch * 1e3, SEATED_PITCHES);
  } else if (!(height >= -0.25 * pitch)) {
    tf_why_add(why, "through the base: nut %.2f mm below it", -height * 1e3);
  }
  if (!(tilt <= UPRIGHT_DEG * DEG))
    tf_why_add(why, "tilted %.2f deg > %g deg", tilt / DEG, UPRIGHT_DEG);
  if (!(lateral <= COAXIAL)) {
    tf_why_add(why, "off axis %.2f mm > %g mm", lateral * 1e3, COAXIAL * 1e3);
  }
  if (s->screw_state == 0) {
    tf_why_add(why, "wrist never turned");
  } else if (!(excess >= -CONSISTENT_TURNS && excess <= SCREW_CATCH_TURNS + CONSISTENT_TURNS)) {
    tf_why_add(why, "%.2f turns for %.2f pitches of advance (over by %.2f, not in [%g, %g])", turns,
               advance / pitch, excess, -CONSISTENT_TURNS, SCREW_CATCH_TURNS + CONSISTENT_TURNS);
  }
  // the script's end waits for the turning, which ends when the nut is down: not known ahead
  if (why[0]) tf_robot_script_why(&s->script, &s->robot, d->time, NAN, why);
  tf_metrics_set_text(out, "why", why);
}

static void boltnut_robot_finish(tf_env* env, tf_metrics* out) {
  const boltnut_robot_state* s = env->state;
  const tf_data* d = env->data;
  const tf_boltnut_track* t = &s->rig.track;
  double pitch = s->rig.pitch, height, tilt, lateral;
  nut_pose(s, d, &height, &tilt, &lateral);
  double turns = s->screw_state > 0 ? tf_boltnut_track_turns(t) : 0;
  double advance = s->screw_state > 0 ? t->advance : 0;
  // the thread turned the nut down: no less than the advance, at most a catch more
  double excess = turns - advance / pitch;
  int consistent = s->screw_state > 0 && excess >= -CONSISTENT_TURNS &&
                   excess <= SCREW_CATCH_TURNS + CONSISTENT_TURNS;
  double apt = tf_boltnut_track_advance_per_turn(t);
  tf_metrics_set_bool(out, "success", seated(s, d) && consistent);
  boltnut_robot_why(s, d, height, tilt, lateral, turns, advance, excess, out);
  tf_metrics_set(out, "boltnut.height_above_base_m", height);
  tf_metrics_set(out, "boltnut.tilt_deg_final", tilt / DEG);
  tf_metrics_set(out, "boltnut.lateral_final_m", lateral);
  tf_metrics_set(out, "boltnut.turns", turns);
  tf_metrics_set(out, "boltnut.advance_m", advance);
  tf_metrics_set(out, "boltnut.turns_excess", excess);
  tf_metrics_set_bool(out, "boltnut.turns_consistent", consistent);
  tf_metrics_set(out, "boltnut.advance_per_turn_m", apt);
  tf_metrics_set(out, "boltnut.pitch_m", pitch);
  tf_metrics_set(out, "boltnut.fit_turns", tf_boltnut_track_fit_span(t));
  tf_metrics_set(out, "boltnut.tilt_deg_max", t->tilt_max / DEG);
  tf_metrics_set(out, "boltnut.delta_m", s->rig.delta);
  tf_robot_script_metrics(&s->script, &s->robot, out);
  tf_metrics_set(out, "robot.screw_turns_commanded", tf_robot_screw_turns(&s->screw));
  tf_metrics_set(out, "robot.screw_start_s", s->screw_t0);
  tf_metrics_set(out, "robot.screw_end_s", s->screw_end);
  tf_metrics_set(out, "robot.seat_time_s", s->seat_time);
}

extern const tf_task_policy tf_boltnut_robot_policy;

const tf_task_info tf_task_boltnut_robot = {
    .name = "boltnut",
    .description =
        "the Panda (continuous joint 7) picks the nut off its stand, sets it on the bolt and "
        "screws it down to the base by turning its wrist (controller osc|impedance|ik|pd, "
        "grasp friction|weld)",
    .params = boltnut_robot_params,
    .nparam = BNR_NPARAM,
    .default_dt = 0.002,
    // the slowest script (ik, pd: 9.3 s), the longest turn at the defaults (3 + 1.5 turns at
    // 0.4 rev/s and the ramp: 11.45 s), the hold and a little more; the turning ends early
    // once the nut is down
    .default_duration = 21.1,
    .build = boltnut_robot_build,
    .control = boltnut_robot_control,
    .observe = boltnut_robot_observe,
    .finish = boltnut_robot_finish,
    .destroy = boltnut_robot_destroy,
    .policy = &tf_boltnut_robot_policy,  // boltnut_robot_policy.c
};
