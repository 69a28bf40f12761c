// The `connectors` task in robot mode: the Panda picks the plug off its rack by the overmold
// and seats it in the rig's socket (issue 7: "pick the plug and insert it").
//
// The script is robot mode's pick-and-insert (task_robot.h). The socket has no lead-in: the
// shell enters the cavity only within the clearance (100 um a side by default) and straight
// to within about a hundredth of a radian, far finer than the arm tracks a moving target. So
// the alignment phase holds ALIGN_HOLD longer than the peg's with the pin tips PIN_CLEARANCE
// above the opening, and meanwhile moves the target by FINE_GAIN of the plug's lateral error
// every control step (the plug's pose read off the state, as a camera would see it): a slow
// integrator that brings the shell onto the cavity's axis whatever the arm's static error.
// The insertion then aims INSERT_PUSH past the floor; the controller's compliance keeps the
// shell's walls from binding. With grasp=weld the plug starts welded in the closed hand
// (build time: the engine's equalities cannot be switched on at grasp time), the pick and the
// release are skipped.
//
// Every environment draws its start from the run's seed and its index: the plug within
// +-perturb_mm along the rack and +-RACK_SLACK across it (the rails' slot), each arm joint
// within +-perturb_deg of Franka's ready pose.
//
// Success is the rig's (connectors.c): the mating face within 0.2 mm of the socket's floor at
// the end of the run, and the overlap probe's peak under 50 um over the whole run.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connectors_robot.h"
#include "task_policy.h"

static const double pi = 3.14159265358979323846;

#define SEAT_TOL CONNECTORS_ROBOT_SEAT_TOL
#define OVERLAP_MAX CONNECTORS_ROBOT_OVERLAP_MAX
#define CARRY_ABOVE 0.01      // m: the pin tips above the opening after the carry
#define PIN_CLEARANCE 1.5e-3  // m: the pin tips above the opening while aligning
#define INSERT_PUSH 2e-3      // m: the insertion target past the floor
#define ALIGN_HOLD 0.4        // s (at osc's pace) added to the alignment's stillness
#define FINE_GAIN 0.03        // of the lateral error, per control step
#define RACK_SLACK 0.25e-3    // m: the plug's start across the rack within +-this
#define WELD_FINGER_GAP 5e-4  // m: grasp=weld leaves each pad this far off the overmold

static const tf_param_spec connectors_robot_params[CNR_NPARAM] = {
    [CNR_TYPE] = {"type", 1, 0, 2, "", "dsub|dp|rj45",
                  "connector family (as the rig's): D-sub DE-15, DisplayPort, RJ45 (-like)"},
    [CNR_CLEARANCE] = {"clearance_um", 100, 0, 200, "um", NULL,
                       "per-side gap between plug shell and socket cavity (pin holes get 50 um "
                       "more)"},
    [CNR_MU] = {"mu", 0.2, 0, 2, "", NULL, "Coulomb friction between plug and socket"},
    [CNR_COLLIDER] = {"collider", 1, 0, 2, "", "sdf|mesh_sdf|hull",
                      "the plug's and the socket's colliders (as the rig's)"},
    [CNR_PLUG_MASS] = {"plug_mass_g", 10, 0.1, 200, "g", NULL,
                       "the shell's mass (the rig's); the overmold adds 20 g"},
    [CNR_MESH_CHORD] = {"mesh_chord_um", 8, 0.5, 100, "um", NULL,
                        "collider meshes: largest distance from the true surface (mesh_sdf, "
                        "hull); the overlap probe samples a mesh 16x finer"},
    [CNR_CONTROLLER] = {"controller", TF_ROBOT_OSC, 0, TF_ROBOT_NCONTROLLER - 1, "",
                        TF_ROBOT_CONTROLLER_CHOICES,
                        "the arm's controller: operational space, task-space impedance, "
                        "differential IK into joint PD, or joint PD on IK keyframes"},
    [CNR_GRASP] = {"grasp", TF_ROBOT_GRASP_FRICTION, 0, 1, "", TF_ROBOT_GRASP_CHOICES,
                   "friction: picked and held by the fingers; weld: starts welded in the hand "
                   "(no grasp slip)"},
    [CNR_PERTURB_MM] = {"perturb_mm", 3, 0, 10, "mm", NULL,
                        "every environment: the plug's start along the rack within +-this"},
    [CNR_PERTURB_DEG] = {"perturb_deg", 3, 0, 10, "deg", NULL,
                         "every environment: each arm joint's start within +-this of the "
                         "ready pose"},
    [CNR_ROBOT_URDF] = TF_ROBOT_URDF_PARAM,
};

static void connectors_robot_destroy(tf_env* env) {
  connectors_robot_state* s = env->state;
  if (!s) return;
  tf_robot_free(&s->robot);
  free(s->samples.plug);
  free(s->samples.socket);
  free(s);
  env->state = NULL;
}

// the mating face's depth below the socket's opening
static double insertion_depth(const connectors_robot_state* s, const tf_data* d) {
  return -d->xpos[3 * s->plug_body + 2];
}

// the angle between the plug's axis and the world's z (rad)
static double plug_tilt(const connectors_robot_state* s, const tf_data* d) {
  const double* q = d->xquat + 4 * s->plug_body;
  return acos(fmax(-1.0, fmin(1.0, 1 - 2 * (q[1] * q[1] + q[2] * q[2]))));
}

double connectors_robot_script_length(tf_robot_controller controller, int grasp) {
  tf_robot_part part;
  memset(&part, 0, sizeof(part));
  part.align_hold = ALIGN_HOLD;
  return tf_robot_script_length(&part, controller, grasp == TF_ROBOT_GRASP_WELD);
}

static int connectors_robot_build(tf_env* env, const double* v, const tf_physics* physics,
                                  tf_rng* rng, char* err, size_t errlen) {
  connectors_robot_state* s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(err, errlen, "task 'connectors': out of memory");
    return -1;
  }
  env->state = s;
  tf_connectors_config* c = &s->config;
  c->type = (int)v[CNR_TYPE];
  c->clearance_um = v[CNR_CLEARANCE];
  c->clearance = v[CNR_CLEARANCE] * 1e-6;
  c->mu = v[CNR_MU];
  c->collider = (tf_connectors_collider)(int)v[CNR_COLLIDER];
  c->plug_mass = v[CNR_PLUG_MASS] * 1e-3;
  c->mesh_chord_um = v[CNR_MESH_CHORD];
  s->controller = (tf_robot_controller)(int)v[CNR_CONTROLLER];
  s->grasp = (int)v[CNR_GRASP];
  // drawn in a fixed order (plug, then the arm's joints), so a start is the same everywhere
  s->start_offset[0] = tf_rng_uniform(rng, -v[CNR_PERTURB_MM] * 1e-3, v[CNR_PERTURB_MM] * 1e-3);
  s->start_offset[1] = tf_rng_uniform(rng, -RACK_SLACK, RACK_SLACK);
  tf_robot_cell cell = tf_robot_cell_default();
  cell.q_perturb = v[CNR_PERTURB_DEG] * pi / 180;
  cell.urdf = tf_param_text(&connectors_robot_params[CNR_ROBOT_URDF], env->set, env->nset);
  if (connectors_robot_scene_build(env, s, physics, &cell, rng, err, errlen)) return -1;
  if (tf_robot_start(&s->robot, env->model, env->data, s->controller, err, errlen)) return -1;
  if (s->grasp == TF_ROBOT_GRASP_WELD) {
    // the weld holds the plug; squeezing fingers would only fight it
    tf_robot_payload(&s->robot, s->plug_body, s->mass);
    tf_robot_grip(&s->robot, env->data, 2 * (s->overmold_half[1] + WELD_FINGER_GAP));
  }
  tf_robot_part part;
  memset(&part, 0, sizeof(part));
  part.body = s->plug_body;
  part.mass = s->mass;
  part.grip[0] = s->centre[0], part.grip[1] = s->centre[1], part.grip[2] = s->grip_height;
  part.width = 2 * s->overmold_half[1];
  part.yaw_order = 1;
  part.seat[2] = -s->mating_depth;
  part.carry = s->mating_depth + s->pin_len + CARRY_ABOVE;
  part.align = s->mating_depth + s->pin_len + PIN_CLEARANCE;
  part.push = INSERT_PUSH;
  part.align_hold = ALIGN_HOLD;
  part.fine_gain = FINE_GAIN;
  tf_robot_script_init(&s->script, &part, s->controller, s->grasp == TF_ROBOT_GRASP_WELD);
  s->depth_max = insertion_depth(s, env->data);
  s->seat_time = NAN;
  return 0;
}

static void connectors_robot_control(tf_env* env) {
  connectors_robot_state* s = env->state;
  tf_robot_script_control(&s->script, &s->robot, env->model, env->data);
}

static void connectors_robot_observe(tf_env* env) {
  connectors_robot_state* s = env->state;
  const tf_data* d = env->data;
  tf_robot_script_observe(&s->script, &s->robot, env->model, d);
  double depth = insertion_depth(s, d);
  s->depth_max = fmax(s->depth_max, depth);
  if (isnan(s->seat_time) && fabs(depth - s->mating_depth) <= SEAT_TOL) s->seat_time = d->time;
}

// "why": the success rule's failed criteria in words (the rig's, connectors.c), then what the
// script saw go wrong; empty when the plug succeeded
static void connectors_robot_why(const connectors_robot_state* s, const tf_data* d,
                                 double seat_error, double peak, tf_metrics* out) {
  char why[TF_METRIC_TEXT_LEN] = "";
  if (!(fabs(seat_error) <= SEAT_TOL)) {
    tf_why_add(why, "not seated: plug %.2f mm %s the floor > %g mm", fabs(seat_error) * 1e3,
               seat_error < 0 ? "short of" : "past", SEAT_TOL * 1e3);
  }
  tf_why_overlap(why, peak, OVERLAP_MAX);
  if (why[0])
    tf_robot_script_why(&s->script, &s->robot, d->time, s->script.phase_start[TF_ROBOT_DONE], why);
  tf_metrics_set_text(out, "why", why);
}

static void connectors_robot_finish(tf_env* env, tf_metrics* out) {
  const connectors_robot_state* s = env->state;
  const tf_data* d = env->data;
  const double* x = d->xpos + 3 * s->plug_body;
  double depth = insertion_depth(s, d), seat_error = depth - s->mating_depth;
  int seated = fabs(seat_error) <= SEAT_TOL;
  double peak = tf_metrics_get(out, "overlap.peak_m");
  tf_metrics_set_bool(out, "success", seated && peak <= OVERLAP_MAX);
  connectors_robot_why(s, d, seat_error, peak, out);
  tf_metrics_set(out, "connectors.depth_m", depth);
  tf_metrics_set(out, "connectors.depth_max_m", s->depth_max);
  tf_metrics_set(out, "connectors.mating_depth_m", s->mating_depth);
  tf_metrics_set(out, "connectors.seat_error_m", seat_error);
  tf_metrics_set_bool(out, "connectors.seated", seated);
  tf_metrics_set(out, "connectors.seat_time_s", s->seat_time);
  tf_metrics_set(out, "connectors.tilt_deg", plug_tilt(s, d) * 180 / pi);
  tf_metrics_set(out, "connectors.lateral_m", hypot(x[0], x[1]));
  tf_robot_script_metrics(&s->script, &s->robot, out);
}

extern const tf_task_policy tf_connectors_robot_policy;

const tf_task_info tf_task_connectors_robot = {
    .name = "connectors",
    .description =
        "the Panda picks the plug off its rack by the overmold and seats it in the rig's "
        "socket (controller osc|impedance|ik|pd, grasp friction|weld)",
    .params = connectors_robot_params,
    .nparam = CNR_NPARAM,
    .default_dt = 0.002,
    .default_duration = 10.5,  // the slowest script (ik, pd: 10.1 s) and a little holding
    .build = connectors_robot_build,
    .control = connectors_robot_control,
    .observe = connectors_robot_observe,
    .finish = connectors_robot_finish,
    .destroy = connectors_robot_destroy,
    .policy = &tf_connectors_robot_policy,  // connectors_robot_policy.c
};
