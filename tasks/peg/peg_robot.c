// The `peg` task in robot mode: the Panda picks the peg off its stand and inserts it into the
// rig's hole block (issue 7: "pick the peg and insert it").
//
// The script is robot mode's pick-and-insert (task_robot.h): the grasp puts the TCP on the
// peg's axis GRIP_BELOW_TOP under its top, the fingers' 70 N servos squeeze it (friction 1 on
// the pads), the carry brings the tip CARRY_HEIGHT over the block, the alignment ALIGN_HEIGHT,
// and the insertion aims INSERT_PUSH past the hole's bottom: the controller's own compliance
// (its spring toward a target just past the floor) lets the chamfers steer the peg in, and it
// ends pressing on the floor with a few newtons before the fingers open. With grasp=weld the
// peg starts welded in the closed hand (the engine's equalities cannot be switched on at grasp
// time, so the weld is made at build time), the pick and the release are skipped and the weld
// still holds the peg at the end.
//
// Every environment draws its start from the run's seed and its index (environment 0
// included, unlike the rig's centred environment 0: a robot's start is never exact): the peg
// within perturb_mm of the stand's centre, each arm joint within +-perturb_deg of Franka's
// ready pose.
//
// Success is the rig's (peg.c): the tip centre within 1 mm of the hole's bottom face and the
// axis within 1 deg of vertical, at the end of the run.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peg_robot.h"
#include "task_policy.h"

#define DEG (M_PI / 180)
#define GRIP_BELOW_TOP 0.025    // m: the TCP this far under the peg's top in the grasp
#define PAD_BELOW_TCP 0.0125    // m: the finger pads reach this far past the TCP
#define FINGER_CLEARANCE 0.005  // m: the pads stay this far above the block when seated
#define MAX_PAYLOAD 3.0         // kg: the Panda's rated payload
#define STAND_X 0.0             // m: the stand's centre, beside the hole (at the origin)
#define STAND_Y 0.2
#define CARRY_HEIGHT 0.02     // m: the tip above the block's top after the carry
#define ALIGN_HEIGHT 0.008    // m: the tip above the block's top before inserting
#define INSERT_PUSH 0.003     // m: the insertion target below the seat
#define WELD_FINGER_GAP 5e-4  // m: grasp=weld leaves each pad this far off the peg

static const tf_param_spec peg_robot_params[PEGR_NPARAM] = {
    [PEGR_SHAPE] = {"shape", 0, 0, 1, "", "round|square",
                    "round peg in a bore, or square peg in a pocket"},
    [PEGR_COLLIDER] = {"collider", PEG_COLLIDER_MESH_SDF, 0, 2, "", "sdf|mesh_sdf|hull",
                       "the peg's and the hole's colliders (as the rig's)"},
    [PEGR_CLEARANCE_UM] = {"clearance_um", 100, 0, 2000, "um", NULL,
                           "radial clearance, (bore - peg) / 2"},
    [PEGR_MU] = {"mu", 0.01, 0, 2, "", NULL, "sliding friction between peg and hole"},
    [PEGR_DEPTH_MM] = {"depth_mm", 25, 1, 150, "mm", NULL, "bore depth below the block's top"},
    [PEGR_DIAMETER_MM] = {"diameter_mm", 50, 5, 70, "mm", NULL,
                          "peg diameter (or side); the gripper opens 80 mm"},
    [PEGR_LENGTH_MM] = {"length_mm", 100, 50, 300, "mm", NULL,
                        "peg length (at least depth_mm + 45 mm: the fingers stay clear)"},
    [PEGR_CHAMFER_MM] = {"chamfer_mm", 0.5, 0, 10, "mm", NULL,
                         "45 deg chamfer on the peg's tip and the hole's entry"},
    [PEGR_DENSITY] = {"density", 7800, 100, 30000, "kg/m^3", NULL,
                      "the peg's density (its mass within the Panda's 3 kg)"},
    [PEGR_CHORD_UM] = {"chord_um", 2, 0.1, 100, "um", NULL,
                       "collider meshes' chord error (mesh_sdf, hull)"},
    [PEGR_CONTROLLER] = {"controller", TF_ROBOT_OSC, 0, TF_ROBOT_NCONTROLLER - 1, "",
                         TF_ROBOT_CONTROLLER_CHOICES,
                         "the arm's controller: operational space, task-space impedance, "
                         "differential IK into joint PD, or joint PD on IK keyframes"},
    [PEGR_GRASP] = {"grasp", TF_ROBOT_GRASP_FRICTION, 0, 1, "", TF_ROBOT_GRASP_CHOICES,
                    "friction: picked and held by the fingers; weld: starts welded in the hand "
                    "(no grasp slip)"},
    [PEGR_PERTURB_MM] = {"perturb_mm", 3, 0, 10, "mm", NULL,
                         "every environment: the peg's start within this of the stand's centre"},
    [PEGR_PERTURB_DEG] = {"perturb_deg", 3, 0, 10, "deg", NULL,
                          "every environment: each arm joint's start within +-this of the "
                          "ready pose"},
    [PEGR_ROBOT_URDF] = TF_ROBOT_URDF_PARAM,
};

static int config_from_values(peg_robot_state* s, const double* v, char* err, size_t errlen) {
  peg_config* c = &s->peg.cfg;
  memset(c, 0, sizeof(*c));
  c->square = v[PEGR_SHAPE] > 0.5;
  c->collider = (int)v[PEGR_COLLIDER];
  c->clearance = v[PEGR_CLEARANCE_UM] * 1e-6;
  c->mu = v[PEGR_MU];
  c->depth = v[PEGR_DEPTH_MM] * 1e-3;
  c->diameter = v[PEGR_DIAMETER_MM] * 1e-3;
  c->length = v[PEGR_LENGTH_MM] * 1e-3;
  c->chamfer = v[PEGR_CHAMFER_MM] * 1e-3;
  c->density = v[PEGR_DENSITY];
  c->chord = v[PEGR_CHORD_UM] * 1e-6;
  s->controller = (tf_robot_controller)(int)v[PEGR_CONTROLLER];
  s->grasp = (int)v[PEGR_GRASP];
  double ch = c->chamfer;
  if (ch >= 0.25 * c->diameter || ch >= 0.5 * c->length || ch >= 0.5 * c->depth) {
    snprintf(err, errlen,
             "task 'peg': chamfer_mm must be under a quarter of diameter_mm and half of "
             "length_mm and depth_mm (got %g mm)",
             ch * 1e3);
    return -1;
  }
  // seated, the pads' lower edge must stay above the block
  double reach = GRIP_BELOW_TOP + PAD_BELOW_TCP + FINGER_CLEARANCE;
  if (c->length - c->depth < reach) {
    snprintf(err, errlen,
             "task 'peg': robot mode needs length_mm at least depth_mm + %g (the fingers hold "
             "the peg %g mm under its top and must stay above the block; got %g and %g)",
             reach * 1e3, (GRIP_BELOW_TOP + PAD_BELOW_TCP) * 1e3, c->length * 1e3, c->depth * 1e3);
    return -1;
  }
  double half = 0.5 * c->diameter;
  double mass = c->density * c->length * (c->square ? 4 * half * half : M_PI * half * half);
  if (mass > MAX_PAYLOAD) {
    snprintf(err, errlen,
             "task 'peg': the peg weighs %.2f kg, over the Panda's %g kg payload (lower "
             "density, diameter_mm or length_mm)",
             mass, MAX_PAYLOAD);
    return -1;
  }
  return 0;
}

static void peg_robot_destroy(tf_env* env) {
  peg_robot_state* s = env->state;
  if (!s) return;
  tf_robot_free(&s->robot);
  peg_samples_free(&s->peg.samples_peg);
  peg_samples_free(&s->peg.samples_hole);
  free(s);
  env->state = NULL;
}

static void peg_robot_control(tf_env* env) {
  peg_robot_state* s = env->state;
  tf_robot_script_control(&s->script, &s->robot, env->model, env->data);
}

static void peg_robot_observe(tf_env* env) {
  peg_robot_state* s = env->state;
  const tf_data* d = env->data;
  tf_robot_script_observe(&s->script, &s->robot, env->model, d);
  if (isnan(s->seat_time) && peg_seated(peg_seat_error(&s->peg, d), peg_tilt(&s->peg, d))) {
    s->seat_time = d->time;
  }
}

static int peg_robot_build(tf_env* env, const double* values, const tf_physics* physics,
                           tf_rng* rng, char* err, size_t errlen) {
  peg_robot_state* s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(err, errlen, "task 'peg': out of memory");
    return -1;
  }
  env->state = s;
  if (config_from_values(s, values, err, errlen)) return -1;
  const peg_config* c = &s->peg.cfg;
  s->grip_height = c->length - GRIP_BELOW_TOP;
  s->stand[0] = STAND_X, s->stand[1] = STAND_Y;
  // drawn in a fixed order (peg, then the arm's joints), so a start is the same everywhere
  double direction = tf_rng_uniform(rng, 0, 2 * M_PI);
  double radius = tf_rng_uniform(rng, 0, values[PEGR_PERTURB_MM] * 1e-3);
  s->start[0] = s->stand[0] + radius * cos(direction);
  s->start[1] = s->stand[1] + radius * sin(direction);
  tf_robot_cell cell = tf_robot_cell_default();
  cell.table_top = -(c->depth + PEG_ROBOT_BLOCK_FLOOR);
  cell.q_perturb = values[PEGR_PERTURB_DEG] * DEG;
  cell.urdf = tf_param_text(&peg_robot_params[PEGR_ROBOT_URDF], env->set, env->nset);
  if (s->grasp == TF_ROBOT_GRASP_WELD) cell.finger_opening = 0.5 * c->diameter + WELD_FINGER_GAP;
  if (peg_robot_scene_build(env, s, physics, &cell, rng, err, errlen)) return -1;
  if (tf_robot_start(&s->robot, env->model, env->data, s->controller, err, errlen)) return -1;
  if (s->grasp == TF_ROBOT_GRASP_WELD) {
    // the weld holds the peg; fingers squeezing it as well would only fight the weld (six
    // equality rows and two pads over-constrain one body), so they wait a millimetre off
    tf_robot_payload(&s->robot, s->peg.body, s->mass);
    tf_robot_grip(&s->robot, env->data, c->diameter + 2 * WELD_FINGER_GAP);
  }
  // the script: the grasp on the axis, the seat at the hole's bottom (the world's origin)
  tf_robot_part part;
  memset(&part, 0, sizeof(part));
  part.body = s->peg.body;
  part.mass = s->mass;
  part.grip[2] = s->grip_height;
  part.width = c->diameter;
  part.yaw_order = c->square ? 4 : 0;
  part.seat[2] = -c->depth;
  part.carry = c->depth + CARRY_HEIGHT;
  part.align = c->depth + ALIGN_HEIGHT;
  part.push = INSERT_PUSH;
  tf_robot_script_init(&s->script, &part, s->controller, s->grasp == TF_ROBOT_GRASP_WELD);
  s->seat_time = NAN;
  return 0;
}

// "why": the success rule's failed criteria in words (the rig's, peg.c), then what the script
// saw go wrong; empty when the peg succeeded
static void peg_robot_why(const peg_robot_state* s, const tf_data* d, double error, double tilt,
                          tf_metrics* out) {
  char why[TF_METRIC_TEXT_LEN] = "";
  peg_why_seat(why, error, tilt);
  if (why[0])
    tf_robot_script_why(&s->script, &s->robot, d->time, s->script.phase_start[TF_ROBOT_DONE], why);
  tf_metrics_set_text(out, "why", why);
}

static void peg_robot_finish(tf_env* env, tf_metrics* out) {
  const peg_robot_state* s = env->state;
  const tf_data* d = env->data;
  double error = peg_seat_error(&s->peg, d), tilt = peg_tilt(&s->peg, d);
  tf_metrics_set_bool(out, "success", peg_seated(error, tilt));
  peg_robot_why(s, d, error, tilt, out);
  tf_metrics_set(out, "peg.depth_m", -d->xpos[3 * s->peg.body + 2]);
  tf_metrics_set(out, "peg.seat_error_m", error);
  tf_metrics_set(out, "peg.tilt_deg_final", tilt / DEG);
  tf_robot_script_metrics(&s->script, &s->robot, out);
  tf_metrics_set(out, "robot.seat_time_s", s->seat_time);
}

extern const tf_task_policy tf_peg_robot_policy;

const tf_task_info tf_task_peg_robot = {
    .name = "peg",
    .description =
        "the Panda picks the peg off its stand and inserts it into the rig's hole block "
        "(controller osc|impedance|ik|pd, grasp friction|weld)",
    .params = peg_robot_params,
    .nparam = PEGR_NPARAM,
    .default_dt = 0.002,
    .default_duration = 9.5,  // the slowest script (ik, pd: 9.3 s) and a little holding
    .build = peg_robot_build,
    .control = peg_robot_control,
    .observe = peg_robot_observe,
    .finish = peg_robot_finish,
    .destroy = peg_robot_destroy,
    .policy = &tf_peg_robot_policy,  // peg_robot_policy.c
};
