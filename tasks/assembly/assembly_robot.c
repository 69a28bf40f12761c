// The `assembly` task in robot mode (issue 21): the Panda, or the run's URDF arm (robot_urdf,
// or the file's "robot": {"urdf", "tcp"}), picks the file's inserted part off a stand and
// inserts it into the file's fixed parts with robot mode's pick-and-insert script
// (task_robot.h), as the peg task's robot mode does with its peg (tasks/peg/peg_robot.c).
//
// The cell (assembly_robot.h): the file's scene shifted so that the seat is 0.55 m in front
// of the arm's base and the fixed parts' top at z = 0, the table under them, a stand beside
// them carrying the part upright in the file's orientation. The grasp: the TCP at the file's
// "grasp": {"pos"} (the part's frame), default the centre of the part's bounding box; the
// pads' width "grasp": {"width_mm"}, default the part's extent across the pads. With
// grasp=weld the part starts welded in the hand of the start configuration, held there in the
// file's orientation (the engine's equalities cannot be switched on at grasp time).
//
// The script's heights come from the part's shape: the carry brings its lowest point
// CARRY_HEIGHT over the fixed parts' top, the alignment ALIGN_HEIGHT, and the insertion aims
// INSERT_PUSH past the seat, the controller's compliance finishing it against the parts'
// lead-ins. The file's drive is not used (the arm is the drive).
//
// Every environment draws its start from the run's seed and its index (environment 0 too, as
// the built-in robot modes do): the part within perturb_mm of the stand's centre, each arm
// joint within +-perturb_deg of the ready pose. Success is the file's rule (asm_finish_rule),
// judged at the end of the run.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly_robot.h"
#include "tf_math.h"

#define DEG (M_PI / 180)
#define PAD_BELOW_TCP 0.0125    // m: the finger pads reach this far past the TCP
#define PALM_ABOVE_TCP 0.0384   // m: the hand's body (its lowest point) this far above the TCP
#define PALM_CLEARANCE 0.003    // m: the part's top stays this far under it
#define GRIP_BELOW_TOP 0.025    // m: a tall part's default grasp, under its top (the peg's)
#define FINGER_CLEARANCE 0.005  // m: the pads stay this far above the fixed parts when seated
#define STAND_CLEARANCE 0.002   // m: and above the stand in the pick
#define MAX_PAYLOAD 3.0         // kg: the Panda's rated payload
#define MAX_WIDTH 0.076         // m: the gripper opens 80 mm, and closes from 2 mm wider
#define CARRY_HEIGHT 0.02       // m: the part's lowest point over the fixed parts after the carry
#define ALIGN_HEIGHT 0.008      // m: the same before inserting
#define INSERT_PUSH 0.003       // m: the insertion's target past the seat
#define WELD_FINGER_GAP 5e-4    // m: grasp=weld leaves each pad this far off the part
#define STAND_HALF 0.035        // m: half the stand's side
#define START_LIFT 1e-4         // m: the part starts this far above the stand and settles
#define NCONMAX 512             // contacts: fingers, stand, parts and arm at once
#define GRIP_MARGIN 2e-4        // m: the grip geom's rows reach this far (peg_robot_scene.c)
#define AXIS_TOLERANCE 1e-6     // the insertion axis and part axis within this of -z

// collision bits (as peg_robot_scene.c's): the moving parts' colliders meet the fixed parts and
// the table; the inserted part's grip geom (its SDF again) meets the arm and the stand
#define BIT_ENV TF_PANDA_CONTYPE_ENV
#define BIT_ARM TF_PANDA_CONTYPE_ARM
#define BIT_PART 4u
#define BIT_STAND 8u

static int fail(char* err, size_t errlen, const char* msg) {
  snprintf(err, errlen, "task 'assembly': robot mode: %s", msg);
  return -1;
}

// the extent of a solid's vertices turned by quat: lo, hi (m) along world x, y, z
static void extent(const asm_solid* solid, const double quat[4], double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
  for (int i = 0; i < solid->nvert; i++) {
    double w[3];
    tf_quat_rotate(w, quat, solid->vert + 3 * i);
    for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], w[k]), hi[k] = fmax(hi[k], w[k]);
  }
}

// the checks the cell's script needs of the file: an inserted free part going down -z along
// its own -z, under gravity along -z
static int check_file(const asm_file* f, char* err, size_t errlen) {
  char msg[512];
  int p = f->insertion.part;
  if (p < 0) return fail(err, errlen, "needs \"insertion\" (the part the arm inserts)");
  if (f->part[p].mount != ASM_FREE) {
    snprintf(msg, sizeof(msg), "the inserted part '%s' must be free (mount \"free\")",
             f->part[p].name);
    return fail(err, errlen, msg);
  }
  const double* a = f->insertion.axis;
  const double* pa = f->insertion.part_axis;
  if (!(a[2] < -1 + AXIS_TOLERANCE) || !(pa[2] < -1 + AXIS_TOLERANCE)) {
    snprintf(msg, sizeof(msg),
             "insertion.axis and insertion.part_axis must be [0, 0, -1] (the arm inserts down "
             "the world's z along the part's own -z; got [%g, %g, %g] and [%g, %g, %g])",
             a[0], a[1], a[2], pa[0], pa[1], pa[2]);
    return fail(err, errlen, msg);
  }
  const double* g = f->gravity;
  if (!(g[2] < 0) || g[0] != 0 || g[1] != 0)
    return fail(err, errlen, "gravity must point down the world's z (the arm stands on a table)");
  int fixed = 0;
  for (int i = 0; i < f->npart; i++) fixed += f->part[i].mount == ASM_FIXED;
  if (!fixed) return fail(err, errlen, "needs a fixed part (the arm inserts into it)");
  return 0;
}

static void shift_file(asm_file* f, const double shift[3]) {
  for (int i = 0; i < f->npart; i++) {
    for (int k = 0; k < 3; k++) f->part[i].pos[k] += shift[k], f->part[i].anchor[k] += shift[k];
  }
  for (int k = 0; k < 3; k++) f->insertion.seat[k] += shift[k];
}

// where the part is held and how wide it is there (see the top); 0 or -1
static int grasp_of(asm_robot_state* s, const asm_solid* solid, const double quat[4],
                    const tf_robot_cell* cell, char* err, size_t errlen) {
  const asm_file* f = &s->a.file;
  static const double one[4] = {1, 0, 0, 0};
  double lo[3], hi[3];
  extent(solid, one, lo, hi);
  // the default: the centre of the part's box, raised to GRIP_BELOW_TOP under a tall part's top
  // (the palm is PALM_ABOVE_TCP over the TCP)
  for (int k = 0; k < 3; k++) s->grip[k] = f->grasp.given ? f->grasp.pos[k] : 0.5 * (lo[k] + hi[k]);
  if (!f->grasp.given) s->grip[2] = fmax(s->grip[2], hi[2] - GRIP_BELOW_TOP);
  s->width = f->grasp.width;
  if (isnan(s->width)) {
    // the part's extent across the pads: along the ready pose's TCP y (the fingers' axis)
    double pos[3], tq[4], y[3], across[3];
    tf_robot_cell_tcp(cell, cell->q_start, pos, tq);
    tf_quat_rotate(y, tq, (const double[3]){0, 1, 0});
    double a = INFINITY, b = -INFINITY;
    for (int i = 0; i < solid->nvert; i++) {
      tf_quat_rotate(across, quat, solid->vert + 3 * i);
      double t = tf_vec3_dot(across, y);
      a = fmin(a, t), b = fmax(b, t);
    }
    s->width = b - a;
  }
  char msg[512];
  if (!(s->width <= MAX_WIDTH)) {
    snprintf(msg, sizeof(msg),
             "the part is %.1f mm across the pads, over the gripper's %g mm (give grasp.width_mm "
             "where it is narrower)",
             s->width * 1e3, MAX_WIDTH * 1e3);
    return fail(err, errlen, msg);
  }
  // the pads hang PAD_BELOW_TCP under the TCP: above the stand in the pick, above the fixed
  // parts' top (z = 0) when seated (the part upright: its own z up)
  double grip_up = s->grip[2] - lo[2];
  double seated = f->insertion.seat[2] + s->grip[2] - PAD_BELOW_TCP;
  if (s->grasp == TF_ROBOT_GRASP_FRICTION && grip_up < PAD_BELOW_TCP + STAND_CLEARANCE) {
    snprintf(msg, sizeof(msg),
             "the grasp is %.1f mm above the part's bottom: the pads (%g mm under the TCP) would "
             "meet the stand (raise grasp.pos)",
             grip_up * 1e3, PAD_BELOW_TCP * 1e3);
    return fail(err, errlen, msg);
  }
  if (hi[2] - s->grip[2] > PALM_ABOVE_TCP - PALM_CLEARANCE) {
    snprintf(msg, sizeof(msg),
             "the part reaches %.1f mm above the grasp, into the hand (its body is %g mm above "
             "the TCP; raise grasp.pos)",
             (hi[2] - s->grip[2]) * 1e3, PALM_ABOVE_TCP * 1e3);
    return fail(err, errlen, msg);
  }
  if (seated < FINGER_CLEARANCE) {
    snprintf(msg, sizeof(msg),
             "seated, the pads (%g mm under the TCP) would reach %.1f mm above the fixed parts' "
             "top, under the %g mm they must keep (raise grasp.pos)",
             PAD_BELOW_TCP * 1e3, seated * 1e3, FINGER_CLEARANCE * 1e3);
    return fail(err, errlen, msg);
  }
  return 0;
}

// the inserted part's start: on the stand, or (weld) in the hand of the start configuration
static void start_pose(asm_robot_state* s, const tf_robot_cell* cell, const asm_solid* solid,
                       double pos[3], const double quat[4]) {
  double lo[3], hi[3];
  extent(solid, quat, lo, hi);
  if (s->grasp != TF_ROBOT_GRASP_WELD) {
    for (int k = 0; k < 2; k++) pos[k] = s->start[k] - 0.5 * (lo[k] + hi[k]);
    pos[2] = START_LIFT - lo[2];
    return;
  }
  double tcp[3], tq[4], g[3];
  tf_robot_start_tcp(&s->robot, cell, tcp, tq);
  tf_quat_rotate(g, quat, s->grip);
  for (int k = 0; k < 3; k++) pos[k] = tcp[k] - g[k];
}

// the stand from the table up to z = 0; it touches the part's grip geom and the arm
static int add_stand(tf_builder* b, const asm_robot_state* s, double table_top) {
  return tf_robot_add_stand(b, s->stand, STAND_HALF, table_top, 0, BIT_STAND) >= 0 ? 0 : -1;
}

// the part's grip geom (its SDF for the fingers, the hand and the stand) and the weld
static int add_grip(tf_builder* b, asm_robot_state* s) {
  const asm_file* f = &s->a.file;
  const asm_part* q = &f->part[s->part];
  char name[ASM_NAME_LEN + 8];
  snprintf(name, sizeof(name), "%s_grip", q->name);
  tf_geom_def grip = tf_geom_def_default();
  grip.name = name;
  grip.body = s->a.body[s->part];
  grip.type = TF_GEOM_SDF;
  grip.sdf = s->a.sdf[s->part];
  grip.friction[0] = isnan(q->mu) ? f->mu : q->mu;
  grip.condim = 3;
  grip.contype = 0;
  grip.conaffinity = BIT_ARM | BIT_STAND;
  grip.margin = GRIP_MARGIN;
  if (tf_builder_add_geom(b, &grip) < 0) return -1;
  if (s->grasp != TF_ROBOT_GRASP_WELD) return 0;
  tf_equality_def weld = tf_equality_def_default();
  weld.name = "grasp_weld";
  weld.type = TF_EQ_WELD;
  weld.body1 = s->robot.panda.hand;
  weld.body2 = s->a.body[s->part];
  return tf_builder_add_equality(b, &weld) >= 0 ? 0 : -1;
}

// the cell and the file's parts into env (see the top); 0 or -1
static int build_scene(tf_env* env, asm_robot_state* s, const tf_physics* physics,
                       tf_robot_cell* cell, tf_rng* rng, const double quat[4], char* err,
                       size_t errlen) {
  asm_file* f = &s->a.file;
  tf_builder* b = tf_builder_create();
  if (!b) return fail(err, errlen, "out of memory");
  tf_option opt = tf_physics_option(physics);
  memcpy(opt.gravity, f->gravity, sizeof(opt.gravity));
  if (!isnan(f->min_margin)) opt.min_margin = fmax(1e-7, f->min_margin);
  if (f->pair_contacts > 0) opt.max_pair_contacts = f->pair_contacts;
  if (opt.nconmax < NCONMAX) opt.nconmax = NCONMAX;
  tf_builder_set_option(b, &opt);
  int rc = tf_robot_cell_build(b, cell, rng, &s->robot, err, errlen);
  if (rc == 0 && add_stand(b, s, cell->table_top)) rc = fail(err, errlen, "out of memory");
  if (rc == 0) {
    asm_part* q = &f->part[s->part];
    start_pose(s, cell, &s->a.solid[s->part], q->pos, quat);
    memcpy(q->quat, quat, sizeof(q->quat));
    memcpy(s->start, q->pos, sizeof(s->start));
  }
  const asm_bits bits = {BIT_PART, BIT_ENV};
  for (int p = 0; p < f->npart && rc == 0; p++)
    rc = asm_scene_add_part(b, &s->a, p, &bits, err, errlen);
  if (rc == 0 && add_grip(b, s)) rc = fail(err, errlen, "out of memory");
  if (rc == 0) rc = tf_env_compile(env, b, "assembly", err, errlen);
  tf_builder_destroy(b);
  if (rc) return -1;
  s->a.actuator = -1;
  tf_kinematics(env->model, env->data);
  asm_probe_spec(&env->probe, &s->a);
  return 0;
}

static void asmr_destroy(tf_env* env) {
  asm_robot_state* s = env->state;
  if (!s) return;
  tf_robot_free(&s->robot);
  for (int i = 0; i < ASM_MAX_PARTS; i++) asm_solid_free(&s->a.solid[i]);
  free(s);
  env->state = NULL;
}

static int asmr_build(tf_env* env, const double* values, const tf_physics* physics, tf_rng* rng,
                      char* err, size_t errlen) {
  asm_robot_state* s = calloc(1, sizeof(*s));
  if (!s) return fail(err, errlen, "out of memory");
  env->state = s;
  s->seat_time = NAN;
  // the rig's start and drive keys have nothing to act on: the part starts on its stand, the
  // arm drives it
  static const int rig_only[] = {A_OFFSET,       A_SPEED,      A_FORCE, A_TORQUE,
                                 A_START_OFFSET, A_START_TILT, A_LOAD};
  for (size_t i = 0; i < sizeof(rig_only) / sizeof(rig_only[0]); i++) {
    const char* key = asm_robot_params[rig_only[i]].key;
    for (int k = 0; k < env->nset; k++) {
      if (!env->set[k].key || strcmp(env->set[k].key, key) != 0) continue;
      char msg[256];
      snprintf(msg, sizeof(msg),
               "%s is the rig's (the part starts on its stand, perturb_mm; the arm drives it)",
               key);
      return fail(err, errlen, msg);
    }
  }
  if (asm_load_for_run(env, &s->a, asm_robot_params, A_ROBOT_N, values, err, errlen)) return -1;
  asm_file* f = &s->a.file;
  if (check_file(f, err, errlen)) return -1;
  s->controller = (tf_robot_controller)(int)values[A_CONTROLLER];
  s->grasp = (int)values[A_GRASP];
  s->part = f->insertion.part;
  // every part's solid first: the cell is laid out from their shapes
  for (int p = 0; p < f->npart; p++)
    if (asm_solid_build(&s->a.solid[p], f, p, err, errlen)) return -1;
  // the fixed parts' extent in the file's frame: their top goes to z = 0, the seat onto z's axis
  double top = -INFINITY, bottom = INFINITY;
  for (int p = 0; p < f->npart; p++) {
    if (f->part[p].mount != ASM_FIXED) continue;
    double lo[3], hi[3];
    extent(&s->a.solid[p], f->part[p].quat, lo, hi);
    top = fmax(top, f->part[p].pos[2] + hi[2]);
    bottom = fmin(bottom, f->part[p].pos[2] + lo[2]);
  }
  s->shift[0] = -f->insertion.seat[0];
  s->shift[1] = -f->insertion.seat[1];
  s->shift[2] = -top;
  shift_file(f, s->shift);
  const asm_part* q = &f->part[s->part];
  const asm_solid* solid = &s->a.solid[s->part];
  s->mass = solid->mass;
  if (s->mass > MAX_PAYLOAD) {
    char msg[256];
    snprintf(msg, sizeof(msg), "the part '%s' weighs %.2f kg, over the Panda's %g kg payload",
             q->name, s->mass, MAX_PAYLOAD);
    return fail(err, errlen, msg);
  }
  double quat[4];
  memcpy(quat, q->quat, sizeof(quat));
  // drawn in a fixed order (the part's start, then the arm's joints in the cell's build)
  s->stand[0] = ASMR_STAND_X, s->stand[1] = ASMR_STAND_Y;
  double direction = tf_rng_uniform(rng, 0, 2 * M_PI);
  double radius = tf_rng_uniform(rng, 0, values[A_PERTURB_MM] * 1e-3);
  s->start[0] = s->stand[0] + radius * cos(direction);
  s->start[1] = s->stand[1] + radius * sin(direction);
  tf_robot_cell cell = tf_robot_cell_default();
  cell.table_top = bottom - top;
  if (!(cell.table_top < 0)) return fail(err, errlen, "the fixed parts have no height");
  cell.q_perturb = values[A_PERTURB_DEG] * DEG;
  cell.urdf = tf_param_text(&asm_robot_params[A_ROBOT_URDF], env->set, env->nset);
  if (!cell.urdf && f->robot.urdf[0]) cell.urdf = f->robot.urdf;
  if (grasp_of(s, solid, quat, &cell, err, errlen)) return -1;
  if (!isnan(f->robot.opening)) cell.finger_opening = 0.5 * f->robot.opening;
  if (s->grasp == TF_ROBOT_GRASP_WELD) cell.finger_opening = 0.5 * s->width + WELD_FINGER_GAP;
  if (build_scene(env, s, physics, &cell, rng, quat, err, errlen)) return -1;
  if (!isnan(f->robot.force)) {
    for (int k = 0; k < 2; k++) {
      int a = s->robot.panda.finger_actuator[k];
      if (a < 0) continue;
      env->model->actuator_forcerange[2 * a] = -f->robot.force;
      env->model->actuator_forcerange[2 * a + 1] = f->robot.force;
    }
  }
  if (tf_robot_start(&s->robot, env->model, env->data, s->controller, err, errlen)) return -1;
  if (s->grasp == TF_ROBOT_GRASP_WELD) {
    // the weld holds the part; the fingers wait a little off it (peg_robot.c)
    tf_robot_payload(&s->robot, s->a.body[s->part], s->mass);
    tf_robot_grip(&s->robot, env->data, s->width + 2 * WELD_FINGER_GAP);
  }
  // the script: the part's lowest point when upright (its own z up) sets the heights
  static const double one[4] = {1, 0, 0, 0};
  double lo[3], hi[3];
  extent(solid, one, lo, hi);
  double seat_z = f->insertion.seat[2];
  tf_robot_part part;
  memset(&part, 0, sizeof(part));
  part.body = s->a.body[s->part];
  part.mass = s->mass;
  memcpy(part.grip, s->grip, sizeof(part.grip));
  part.width = s->width;
  part.yaw_order = 0;  // the part keeps the yaw it was picked at (the file's)
  memcpy(part.seat, f->insertion.seat, sizeof(part.seat));
  part.carry = CARRY_HEIGHT - lo[2] - seat_z;
  part.align = ALIGN_HEIGHT - lo[2] - seat_z;
  part.push = INSERT_PUSH;
  tf_robot_script_init(&s->script, &part, s->controller, s->grasp == TF_ROBOT_GRASP_WELD);
  return 0;
}

static void asmr_control(tf_env* env) {
  asm_robot_state* s = env->state;
  tf_robot_script_control(&s->script, &s->robot, env->model, env->data);
}

static int seated(const asm_robot_state* s, const tf_data* d) {
  const asm_file* f = &s->a.file;
  return asm_seat_error(&s->a, d) <= f->insertion.tolerance &&
         asm_tilt(&s->a, d) <= f->insertion.upright;
}

static void asmr_observe(tf_env* env) {
  asm_robot_state* s = env->state;
  const tf_data* d = env->data;
  tf_robot_script_observe(&s->script, &s->robot, env->model, d);
  if (isnan(s->seat_time) && seated(s, d)) s->seat_time = d->time;
}

static void asmr_finish(tf_env* env, tf_metrics* out) {
  const asm_robot_state* s = env->state;
  const tf_data* d = env->data;
  asm_finish_rule(env, out);  // success, why, assembly.*
  if (!(tf_metrics_get(out, "success") == 1)) {
    char why[TF_METRIC_TEXT_LEN];
    const char* rule = tf_metrics_text(out, "why");
    snprintf(why, sizeof(why), "%s", rule ? rule : "");
    tf_robot_script_why(&s->script, &s->robot, d->time, s->script.phase_start[TF_ROBOT_DONE], why);
    tf_metrics_set_text(out, "why", why);
  }
  tf_robot_script_metrics(&s->script, &s->robot, out);
  tf_metrics_set(out, "robot.seat_time_s", s->seat_time);
}

const tf_task_info tf_task_assembly_robot = {
    .name = "assembly",
    .user_scene = 1,
    .description =
        "the Panda picks an assembly file's inserted part off its stand and inserts it "
        "(controller osc|impedance|ik|pd, grasp friction|weld; docs/assemblies.md)",
    .params = asm_robot_params,
    .nparam = A_ROBOT_N,
    .default_dt = 0.002,
    .default_duration = 9.5,  // the slowest script (ik, pd: 9.3 s) and a little holding
    .build = asmr_build,
    .control = asmr_control,
    .observe = asmr_observe,
    .finish = asmr_finish,
    .destroy = asmr_destroy,
    .robot = NULL,
    .policy = NULL,
};
