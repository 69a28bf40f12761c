// The `gears` task in robot mode: the Panda picks a gear off a stand, puts it on its free shaft
// in the rig's train, meshed with its neighbour, and the train is then driven (issue 7: "pick
// a gear, insert it on its shaft and mesh it").
//
// The train is the rig's (gears_scene.c, built by the rig's own tf_gears_scene_add) with its
// last gear loose: it lies flat on a stand beside the base plate. The gears already in the train
// are on ideal hinges by default (mount=hinge: the question is the placed gear; their bore
// contacts would double a step's cost), or on their shafts as the rig's (mount=shaft). The
// shafts end in a hemisphere here (the rig's are flat): a lead-in, as a real shaft's chamfer,
// for a bore put on from above, whose sharp edge and clearance_um (50 um) leave no other.
//
// The script is robot mode's pick-and-insert (task_robot.h). The fingers close across the
// gear's tip circle at the ready pose's yaw (the teeth go all round, so any yaw of the gear is
// a grasp: grasp_any_yaw), which keeps the pads beside the gear, off the line of shafts where
// the neighbour is; they hold the gear with their lower edge FINGER_CLEARANCE above the plate
// once it is seated. The gear is carried over its shaft and turned to a meshing phase: its
// seat yaw is the neighbour's measured angle carried through the mesh (tf_gear_mesh_angle,
// read off the state each step as a camera would see it), to the nearest of its
// tooth-count-fold symmetric yaws. The alignment holds ALIGN_HOLD longer with the bore
// ALIGN_CLEAR over the shaft's top while the target follows FINE_GAIN of the gear's lateral
// error every control step (the connectors' visual-servoing loop); the insertion then slides
// it down the shaft, into mesh, onto its shoulder, aiming INSERT_PUSH below the seat. The
// fingers open, the arm withdraws, and only then (the script's end) does the rig's velocity
// servo spin the input, ramped over TF_GEARS_RAMP; the gear probe's window starts DRIVE_SETTLE
// after the drive and its ratio window is the last DRIVE_WINDOW of the run. With grasp=weld the
// gear starts welded in the closed hand and the pick and the release are skipped; the weld
// still holds it at the end (the engine's equalities cannot be switched off), which would lock
// the train, so a welded run holds WELD_HOLD after the insertion and ends without a drive.
//
// Every environment draws its start from the run's seed and its index: the gear within
// perturb_mm of the stand's centre at any yaw, each arm joint within +-perturb_deg of Franka's
// ready pose.
//
// Success: the placed gear ends seated (its frame within SEAT_TOL of its seat, its axis within
// UPRIGHT_DEG of the shaft's) and meshed: the rig's rule, the input turned (the probe's
// min_input_turn over its window) and every follower's mean speed ratio over the window within
// 5 % of the tooth-count ratio (gear_slip.max < 0.05). A welded run cannot turn, so its success
// is seated alone: with both gears on shoulders of one height a seated gear's teeth lie in its
// neighbour's spaces (tooth on tooth it would stop a face width higher); gears.mesh_phase_rad
// reports how far its yaw is from the centred mesh either way.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gears_robot.h"
#include "task_policy.h"

static const double pi = 3.14159265358979323846;

#define SEAT_TOL 0.5e-3         // m: the placed gear's frame this close to its seat is seated
#define UPRIGHT_DEG 1.0         // deg: and its axis this close to vertical
#define SLIP_OK 0.05            // the rig's (gears.c): slip under 5 %
#define MAX_OPENING 0.08        // m: the gripper's full opening
#define PAD_MARGIN 0.004        // m: the open pads pass the tips this far off, each side
#define PAD_BELOW_TCP 0.0125    // m: the finger pads reach this far past the TCP
#define FINGER_CLEARANCE 0.003  // m: the pads' lower edge above the plate when the gear is seated
#define MAX_PAYLOAD 3.0         // kg: the Panda's rated payload
#define STAND_Y 0.15            // m: the stand's centre, beside the plate from the placed shaft
#define STAND_TOP 0.01          // m: the stand's top face above the plate's
#define STAND_SIZE 0.6          // the stand's half side over the gear's tip radius ...
#define STAND_MARGIN 1.5e-3     // m: ... at least this past the bore and inside the pads
#define CARRY_CLEAR 0.01        // m: the bore above the shaft's top after the carry
#define ALIGN_CLEAR 1.5e-3      // m: the same while aligning
#define INSERT_PUSH 2e-3        // m: the insertion's target below the seat
#define ALIGN_HOLD 0.4          // s (at osc's pace) added to the alignment's stillness
#define FINE_GAIN 0.03          // of the lateral error, per control step
#define WELD_FINGER_GAP 5e-4    // m: grasp=weld leaves each pad this far off the tips
#define DRIVE_SETTLE 0.2        // s from the drive's start to the probe's window (ramp 0.1 s)
#define DRIVE_WINDOW 0.4        // s: the probe's ratio window, the run's last
#define DRIVE_SPARE 0.02        // s: the run goes on this long past the window's nominal end
#define WELD_HOLD 0.3           // s: a welded run's hold after the insertion (the arm lags it)

static const tf_param_spec gears_robot_params[GRR_NPARAM] = {
    [GRR_MOUNT] = {"mount", TF_GEARS_HINGE, 0, 1, "", "hinge|shaft",
                   "the gears already in the train: ideal hinges (default: the question is the "
                   "placed gear, and their bore contacts would double a step's cost), or on "
                   "their shafts as the rig's; the placed gear is always a free body on its "
                   "shaft"},
    [GRR_INPUT_SPEED] = {"input_speed", 5, -100, 100, "rad/s", NULL,
                         "the input's velocity servo target once the arm is clear (ramped up "
                         "over 0.1 s)"},
    [GRR_MODULE] = {"module_mm", 1.5, 0.5, 5, "mm", NULL, "module of every gear"},
    [GRR_TEETH] = {"teeth", 40, 8, 200, "", NULL,
                   "tooth counts along the train, input first (2 to 4 gears); the last starts "
                   "on the stand and the robot places it (its tip circle within the gripper's "
                   "80 mm)",
                   4, "40,24", 2, 1},
    [GRR_BACKLASH] = {"backlash_mm", 0.5, 0, 2, "mm", NULL,
                      "circular backlash of every meshing pair on the pitch circle"},
    [GRR_MU] = {"mu", 0.1, 0, 2, "", NULL,
                "Coulomb friction of every gear contact (teeth, bore, shoulder, plate)"},
    [GRR_COLLIDER] = {"collider", TF_GEARS_SDF, 0, 2, "", "sdf|mesh_sdf|hull",
                      "the gears' colliders (as the rig's)"},
    [GRR_FACE] = {"face_mm", 10, 2, 50, "mm", NULL, "face width of every gear"},
    [GRR_BORE] = {"bore_mm", 8, 2, 50, "mm", NULL, "bore diameter of every gear"},
    [GRR_CLEARANCE] = {"clearance_um", 50, 1, 2000, "um", NULL,
                       "radial clearance between a bore and its shaft"},
    [GRR_CHORD] = {"chord_um", 10, 0.5, 200, "um", NULL,
                   "chord error of the gear meshes the mesh_sdf and hull colliders use"},
    [GRR_CONTROLLER] = {"controller", TF_ROBOT_OSC, 0, TF_ROBOT_NCONTROLLER - 1, "",
                        TF_ROBOT_CONTROLLER_CHOICES,
                        "the arm's controller: operational space, task-space impedance, "
                        "differential IK into joint PD, or joint PD on IK keyframes"},
    [GRR_GRASP] = {"grasp", TF_ROBOT_GRASP_FRICTION, 0, 1, "", TF_ROBOT_GRASP_CHOICES,
                   "friction: picked and held by the fingers; weld: starts welded in the hand "
                   "(no grasp slip)"},
    [GRR_PERTURB_MM] = {"perturb_mm", 3, 0, 10, "mm", NULL,
                        "every environment: the gear's start within this of the stand's centre "
                        "(its yaw drawn at random)"},
    [GRR_PERTURB_DEG] = {"perturb_deg", 3, 0, 10, "deg", NULL,
                         "every environment: each arm joint's start within +-this of the "
                         "ready pose"},
    [GRR_ROBOT_URDF] = TF_ROBOT_URDF_PARAM,
};

// the TCP above the placed gear's frame in the grasp: the pads' lower edge FINGER_CLEARANCE
// above the plate once the gear is seated (the pads are 35 mm tall, the face often far less)
static double grip_above(double face) {
  return PAD_BELOW_TCP + FINGER_CLEARANCE - TF_GEARS_SHOULDER_HEIGHT - 0.5 * face;
}

// the script's part, all but its body, mass and seat (known once the model is built)
static tf_robot_part script_part(double face, double tip_radius, double shaft_above_seat) {
  tf_robot_part part;
  memset(&part, 0, sizeof(part));
  part.grip[2] = grip_above(face);
  part.width = 2 * tip_radius;
  part.grasp_any_yaw = 1;
  part.carry = shaft_above_seat + 0.5 * face + CARRY_CLEAR;
  part.align = shaft_above_seat + 0.5 * face + ALIGN_CLEAR;
  part.push = INSERT_PUSH;
  part.align_hold = ALIGN_HOLD;
  part.fine_gain = FINE_GAIN;
  return part;
}

double gears_robot_run_length(tf_robot_controller controller, int grasp) {
  tf_robot_part part;
  memset(&part, 0, sizeof(part));
  part.align_hold = ALIGN_HOLD;
  int weld = grasp == TF_ROBOT_GRASP_WELD;
  double tail = weld ? WELD_HOLD : DRIVE_SETTLE + DRIVE_WINDOW + DRIVE_SPARE;
  return tf_robot_script_length(&part, controller, weld) + tail;
}

// the rig's configuration from the robot schema's values; -1 with a message naming the key
static int config_from_values(gears_robot_state* s, const tf_env* env, const double* v, char* err,
                              size_t errlen) {
  tf_gears_config* c = &s->config;
  memset(c, 0, sizeof(*c));
  c->mount = (tf_gears_mount)(int)v[GRR_MOUNT];
  c->input_speed = v[GRR_INPUT_SPEED];
  c->module = v[GRR_MODULE] * 1e-3;
  c->backlash = v[GRR_BACKLASH] * 1e-3;
  c->mu = v[GRR_MU];
  c->collider = (tf_gears_collider)(int)v[GRR_COLLIDER];
  c->face = v[GRR_FACE] * 1e-3;
  c->bore = v[GRR_BORE] * 1e-3;
  c->clearance = v[GRR_CLEARANCE] * 1e-6;
  c->chord = v[GRR_CHORD] * 1e-6;
  // the rig's servo (gears.c): 1 N m s / rad, capped at 2 N m
  c->servo_kv = 1.0;
  c->servo_torque = 2.0;
  c->shaft_round_top = 1;
  s->controller = (tf_robot_controller)(int)v[GRR_CONTROLLER];
  s->grasp = (int)v[GRR_GRASP];
  double teeth[TF_GEARS_MAX];
  int n = tf_param_list(&gears_robot_params[GRR_TEETH], env->set, env->nset, teeth, TF_GEARS_MAX);
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
  s->placed = n - 1;
  // the placed gear's tip circle (standard addendum: one module), which the pads hold
  s->tip_radius = c->module * (0.5 * c->teeth[s->placed] + 1);
  double widest = MAX_OPENING - 2 * PAD_MARGIN;
  if (2 * s->tip_radius > widest) {
    snprintf(err, errlen,
             "task 'gears': the placed gear (teeth %d, module_mm %g) is %.1f mm across its tips; "
             "the gripper takes %.0f mm (fewer teeth or a smaller module_mm)",
             c->teeth[s->placed], c->module * 1e3, 2e3 * s->tip_radius, widest * 1e3);
    return -1;
  }
  // the stand carries the gear under its web: wider than the bore, narrower than the tips
  double bore_half = 0.5 * c->bore;
  s->stand_half = fmax(STAND_SIZE * s->tip_radius, bore_half + STAND_MARGIN);
  if (s->stand_half > s->tip_radius - STAND_MARGIN) {
    snprintf(err, errlen,
             "task 'gears': bore_mm %g leaves the placed gear (%.1f mm across its tips) no web "
             "to stand on beside the pads (a smaller bore_mm)",
             c->bore * 1e3, 2e3 * s->tip_radius);
    return -1;
  }
  return 0;
}

static void gears_robot_destroy(tf_env* env) {
  gears_robot_state* s = env->state;
  if (!s) return;
  tf_robot_free(&s->robot);
  tf_gears_scene_free(&s->scene);
  free(s);
  env->state = NULL;
}

// the placed gear's distance from its seat (m) and its axis's tilt from vertical (rad)
static double seat_error(const gears_robot_state* s, const tf_data* d) {
  const double* x = d->xpos + 3 * s->scene.gear_body[s->placed];
  const double* c = s->scene.center[s->placed];
  return sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) +
              (x[2] - c[2]) * (x[2] - c[2]));
}

static double tilt(const gears_robot_state* s, const tf_data* d) {
  double cz = d->xmat[9 * s->scene.gear_body[s->placed] + 8];
  return acos(fmax(-1.0, fmin(1.0, cz)));
}

// the yaw of a body's x axis about the world's z (rad)
static double yaw_of_body(const tf_data* d, int body) {
  const double* R = d->xmat + 9 * body;
  return atan2(R[3], R[0]);
}

// the placed gear's yaw from its neighbour's centred mesh as the two stand now, wrapped to
// within half its tooth pitch (rad): 0 centred, half the backlash angle on a flank
static double mesh_phase(const gears_robot_state* s, const tf_data* d) {
  int p = s->placed, zn = s->config.teeth[p - 1], zp = s->config.teeth[p];
  double mesh = tf_gear_mesh_angle(zn, zp, yaw_of_body(d, s->scene.gear_body[p - 1]));
  double pitch = 2 * pi / zp, off = yaw_of_body(d, s->scene.gear_body[p]) - mesh;
  return off - pitch * round(off / pitch);
}

// the placed gear's seat yaw: a meshing phase of the neighbour as it stands now (what a
// camera sees)
double gears_robot_seat_yaw(const gears_robot_state* s, const tf_data* d) {
  int p = s->placed;
  double neighbour = yaw_of_body(d, s->scene.gear_body[p - 1]);
  return tf_gear_mesh_angle(s->config.teeth[p - 1], s->config.teeth[p], neighbour);
}

// the rig's servo, held at rest until the arm is clear, then ramped up
void gears_robot_drive(const gears_robot_state* s, tf_data* d) {
  double t = d->time - s->drive_start;
  double ramp = !(t >= 0) ? 0 : t < TF_GEARS_RAMP ? t / TF_GEARS_RAMP : 1;
  d->ctrl[s->scene.actuator] = s->config.input_speed * ramp;
}

// the success rule's seat: near its seat and upright
int gears_robot_seated(const gears_robot_state* s, const tf_data* d) {
  return seat_error(s, d) <= SEAT_TOL && tilt(s, d) <= UPRIGHT_DEG * pi / 180;
}

static void gears_robot_control(tf_env* env) {
  gears_robot_state* s = env->state;
  tf_data* d = env->data;
  s->script.part.seat_yaw = gears_robot_seat_yaw(s, d);
  tf_robot_script_control(&s->script, &s->robot, env->model, d);
  gears_robot_drive(s, d);
}

static void gears_robot_observe(tf_env* env) {
  gears_robot_state* s = env->state;
  const tf_data* d = env->data;
  tf_robot_script_observe(&s->script, &s->robot, env->model, d);
  if (isnan(s->seat_time) && seat_error(s, d) <= SEAT_TOL && tilt(s, d) <= UPRIGHT_DEG * pi / 180) {
    s->seat_time = d->time;
  }
}

static int gears_robot_build(tf_env* env, const double* v, const tf_physics* physics, tf_rng* rng,
                             char* err, size_t errlen) {
  gears_robot_state* s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(err, errlen, "task 'gears': out of memory");
    return -1;
  }
  env->state = s;
  if (config_from_values(s, env, v, err, errlen)) return -1;
  const tf_gears_config* c = &s->config;
  s->grip_above = grip_above(c->face);
  // the stand beside the plate, across from the placed gear's shaft
  double x_seat = 0;
  for (int i = 1; i <= s->placed; i++) {
    x_seat += tf_gear_center_distance(c->module, c->teeth[i - 1], c->teeth[i]);
  }
  s->stand[0] = x_seat, s->stand[1] = STAND_Y;
  s->stand_top = STAND_TOP;
  // drawn in a fixed order (gear, then the arm's joints), so a start is the same everywhere
  double direction = tf_rng_uniform(rng, 0, 2 * pi);
  double radius = tf_rng_uniform(rng, 0, v[GRR_PERTURB_MM] * 1e-3);
  s->start[0] = s->stand[0] + radius * cos(direction);
  s->start[1] = s->stand[1] + radius * sin(direction);
  s->start[2] = tf_rng_uniform(rng, -pi, pi);
  tf_robot_cell cell = tf_robot_cell_default();
  cell.table_top = -TF_GEARS_PLATE_THICKNESS;
  cell.q_perturb = v[GRR_PERTURB_DEG] * pi / 180;
  cell.urdf = tf_param_text(&gears_robot_params[GRR_ROBOT_URDF], env->set, env->nset);
  if (s->grasp == TF_ROBOT_GRASP_WELD) cell.finger_opening = s->tip_radius + WELD_FINGER_GAP;
  if (gears_robot_scene_build(env, s, physics, &cell, rng, err, errlen)) return -1;
  int body = s->scene.gear_body[s->placed];
  s->mass = env->model->body_mass[body];
  if (s->mass > MAX_PAYLOAD) {
    snprintf(err, errlen,
             "task 'gears': the placed gear weighs %.2f kg, over the Panda's %g kg payload "
             "(smaller face_mm, module_mm or teeth)",
             s->mass, MAX_PAYLOAD);
    return -1;
  }
  if (tf_robot_start(&s->robot, env->model, env->data, s->controller, err, errlen)) return -1;
  if (s->grasp == TF_ROBOT_GRASP_WELD) {
    // the weld holds the gear; squeezing fingers would only fight it
    tf_robot_payload(&s->robot, body, s->mass);
    tf_robot_grip(&s->robot, env->data, 2 * (s->tip_radius + WELD_FINGER_GAP));
  }
  const double* seat = s->scene.center[s->placed];
  tf_robot_part part = script_part(c->face, s->tip_radius, s->scene.shaft_top - seat[2]);
  part.body = body;
  part.mass = s->mass;
  part.yaw_order = c->teeth[s->placed];
  memcpy(part.seat, seat, sizeof(part.seat));
  tf_robot_script_init(&s->script, &part, s->controller, s->grasp == TF_ROBOT_GRASP_WELD);
  // the drive waits for the script's end: released, the arm withdrawn (weld: never)
  int weld = s->grasp == TF_ROBOT_GRASP_WELD;
  s->drive_start = weld ? INFINITY : s->script.phase_start[TF_ROBOT_DONE];
  env->probe.slip_t0 = s->drive_start + DRIVE_SETTLE;
  env->probe.ratio_window = DRIVE_WINDOW;
  s->seat_time = NAN;
  return 0;
}

// "why": the success rule's failed criteria in words (seated; driven: the rig's turn and slip),
// then what the script saw go wrong; empty when the gear succeeded
static void gears_robot_why(const gears_robot_state* s, const tf_data* d, double error, double t,
                            int turns, double slip, tf_metrics* out) {
  char why[TF_METRIC_TEXT_LEN] = "";
  if (!(error <= SEAT_TOL)) {
    tf_why_add(why, "not seated: gear %.2f mm from its seat > %g mm", error * 1e3, SEAT_TOL * 1e3);
  }
  if (!(t <= UPRIGHT_DEG * pi / 180)) {
    tf_why_add(why, "tilted %.2f deg > %g deg", t * 180 / pi, UPRIGHT_DEG);
  }
  if (s->grasp != TF_ROBOT_GRASP_WELD) {
    if (!turns) tf_why_add(why, "the input did not turn");
    if (turns && !(slip < SLIP_OK)) {
      if (isnan(slip)) {
        tf_why_add(why, "slip not measured");
      } else {
        tf_why_add(why, "slip %.1f %% >= %g %%", slip * 100, SLIP_OK * 100);
      }
    }
  }
  if (why[0])
    tf_robot_script_why(&s->script, &s->robot, d->time, s->script.phase_start[TF_ROBOT_DONE], why);
  tf_metrics_set_text(out, "why", why);
}

static void gears_robot_finish(tf_env* env, tf_metrics* out) {
  const gears_robot_state* s = env->state;
  const tf_data* d = env->data;
  double error = seat_error(s, d), t = tilt(s, d);
  int seated = error <= SEAT_TOL && t <= UPRIGHT_DEG * pi / 180;
  double slip = tf_metrics_get(out, "gear_slip.max");
  int turns = tf_metrics_get(out, "gear_slip.input_turns") == 1;
  int weld = s->grasp == TF_ROBOT_GRASP_WELD;
  tf_metrics_set_bool(out, "success", seated && (weld || (turns && slip < SLIP_OK)));
  gears_robot_why(s, d, error, t, turns, slip, out);
  tf_metrics_set(out, "gears.mesh_phase_rad", mesh_phase(s, d));
  tf_metrics_set_bool(out, "gears.seated", seated);
  tf_metrics_set(out, "gears.seat_error_m", error);
  tf_metrics_set(out, "gears.tilt_deg", t * 180 / pi);
  const double* x = d->xpos + 3 * s->scene.gear_body[s->placed];
  const double* c = s->scene.center[s->placed];
  tf_metrics_set(out, "gears.shaft_offset_m", hypot(x[0] - c[0], x[1] - c[1]));
  tf_metrics_set(out, "gears.seat_time_s", s->seat_time);
  tf_metrics_set(out, "gears.drive_start_s", weld ? NAN : s->drive_start);
  tf_robot_script_metrics(&s->script, &s->robot, out);
}

extern const tf_task_policy tf_gears_robot_policy;

const tf_task_info tf_task_gears_robot = {
    .name = "gears",
    .description =
        "the Panda picks a gear off its stand, puts it on its shaft in the rig's train meshed "
        "with its neighbour, then the input is driven (controller osc|impedance|ik|pd, grasp "
        "friction|weld)",
    .params = gears_robot_params,
    .nparam = GRR_NPARAM,
    .default_dt = 0.002,
    .default_duration = 11.0,  // the slowest script (ik, pd: 10.1 s) and the drive: see the tests
    .build = gears_robot_build,
    .control = gears_robot_control,
    .observe = gears_robot_observe,
    .finish = gears_robot_finish,
    .destroy = gears_robot_destroy,
    .policy = &tf_gears_robot_policy,  // gears_robot_policy.c
};
