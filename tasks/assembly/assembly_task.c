// The `assembly` task (rig mode): a scene from an assembly file (docs/assemblies.md), run,
// swept and reported like a built-in task. Its schema is the file's path plus the keys a grid
// may vary over any file; a key left out is the file's own value (its column reads NaN). A run
// without a file is refused: there is no default scene.
//
// Success, by the file's rule:
//   seated: the inserted part's frame origin within insertion.tolerance of its seat, its
//     part_axis within upright_deg of the insertion axis, and the overlap peak (every pair the
//     probe measures) within success.overlap_max;
//   gears: the input turned (the gear probe's min_input_turn), every follower's speed ratio
//     within slip_max of sign N_in / N_f over the probe's window, and the overlap peak within
//     overlap_max;
//   none: no tunnelling and the overlap peak within overlap_max.
// Environment 0 starts where the file says; the others start perturbed (start_offset_mm,
// start_tilt_deg), each from its own random stream, as the built-in tasks' do.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly.h"
#include "task_robot.h"
#include "tf_math.h"

#define DEG (M_PI / 180)

// ---------------------------------------------------------------- the file's check

// the whole file, meshes included, before anything runs (a sweep checks each distinct file
// once, cli/sweep_config.c)
int asm_file_check(const char* path, char* err, size_t errlen) {
  asm_file* f = malloc(sizeof(*f));
  if (!f) {
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  char why[2048];
  int rc = asm_file_load(f, path, 1, why, sizeof(why));
  free(f);
  snprintf(err, errlen, "%s", rc ? why : "");
  return rc;
}

// the rig's keys, robot mode's schema begins with them too
#define ASM_RIG_PARAMS                                                                            \
  [A_ASSEMBLY] = {"assembly",                                                                     \
                  0,                                                                              \
                  0,                                                                              \
                  1,                                                                              \
                  "",                                                                             \
                  NULL,                                                                           \
                  "the assembly file (JSON, docs/assemblies.md); its mesh paths are relative "    \
                  "to its folder",                                                                \
                  .text = 1,                                                                      \
                  .check = asm_file_check},                                                       \
  [A_COLLIDER] = {"collider",                                                                     \
                  0,                                                                              \
                  0,                                                                              \
                  2,                                                                              \
                  "",                                                                             \
                  "file|sdf|mesh_sdf",                                                            \
                  "file: the file's \"collider\"; sdf: every part an SDF; mesh_sdf: moving "      \
                  "parts' meshes in the other parts' SDFs"},                                      \
  [A_MU] = {"mu", NAN, 0, 10, "", NULL, "every part's friction (default: the file's)"},           \
  [A_SCALE] = {"scale",                                                                           \
               NAN,                                                                               \
               1e-3,                                                                              \
               1e3,                                                                               \
               "",                                                                                \
               NULL,                                                                              \
               "the moving part's mesh scaled about its origin (mesh parts; default: the "        \
               "file's)"},                                                                        \
  [A_OFFSET] = {"offset_mm",                                                                      \
                NAN,                                                                              \
                -1000,                                                                            \
                1000,                                                                             \
                "mm",                                                                             \
                NULL,                                                                             \
                "x,y,z added to the moving part's start position (world)",                        \
                3,                                                                                \
                NULL,                                                                             \
                3},                                                                               \
  [A_TILT] = {"tilt_deg",                                                                         \
              NAN,                                                                                \
              -90,                                                                                \
              90,                                                                                 \
              "deg",                                                                              \
              NULL,                                                                               \
              "the moving part's start turned about the world x axis through its origin"},        \
  [A_SPEED] = {"speed",                                                                           \
               NAN,                                                                               \
               -1000,                                                                             \
               1000,                                                                              \
               "m/s|rad/s",                                                                       \
               NULL,                                                                              \
               "the drive's speed (velocity servo target, or push start speed)"},                 \
  [A_FORCE] = {"force", NAN, -1e6, 1e6, "N", NULL, "the push drive's force"},                     \
  [A_TORQUE] = {"torque", NAN, -1e6, 1e6, "N m", NULL, "the torque drive's torque"},              \
  [A_CLEARANCE] = {"clearance_um",                                                                \
                   NAN,                                                                           \
                   0,                                                                             \
                   5000,                                                                          \
                   "um",                                                                          \
                   NULL,                                                                          \
                   "every library part that has clearance_um (hole, ...)"},                       \
  [A_BACKLASH] =                                                                                  \
      {"backlash_mm", NAN, 0, 10, "mm", NULL, "every library part that has backlash_mm (gear)"},  \
  [A_CHORD] =                                                                                     \
      {"chord_um", NAN, 0.1, 1000, "um", NULL, "every library part's collider mesh chord error"}, \
  [A_START_OFFSET] = {"start_offset_mm",                                                          \
                      0.05,                                                                       \
                      0,                                                                          \
                      100,                                                                        \
                      "mm",                                                                       \
                      NULL,                                                                       \
                      "environments after the first: the moving part's start shifted up to "      \
                      "this across the insertion axis"},                                          \
  [A_START_TILT] = {"start_tilt_deg",                                                             \
                    0.1,                                                                          \
                    0,                                                                            \
                    30,                                                                           \
                    "deg",                                                                        \
                    NULL,                                                                         \
                    "environments after the first: the moving part's start tilted up to this "    \
                    "about an axis across the insertion axis"},                                   \
  [A_LOAD] = {"load_nm",                                                                          \
              0,                                                                                  \
              0,                                                                                  \
              50,                                                                                 \
              "N m",                                                                              \
              NULL,                                                                               \
              "a constant torque on the gear train's last gear against its turning (the "         \
              "gears probe's list): the train runs loaded, its teeth in flank contact"},

static const tf_param_spec asm_params[A_N] = {ASM_RIG_PARAMS};

const tf_param_spec asm_robot_params[A_ROBOT_N] = {
    ASM_RIG_PARAMS[A_CONTROLLER] =
        {"controller", TF_ROBOT_OSC, 0, TF_ROBOT_NCONTROLLER - 1, "", TF_ROBOT_CONTROLLER_CHOICES,
         "the arm's controller: operational space, task-space impedance, "
         "differential IK into joint PD, or joint PD on IK keyframes"},
    [A_GRASP] = {"grasp", TF_ROBOT_GRASP_FRICTION, 0, 1, "", TF_ROBOT_GRASP_CHOICES,
                 "friction: picked off its stand and held by the fingers; weld: starts welded "
                 "in the hand (no grasp slip)"},
    [A_PERTURB_MM] = {"perturb_mm", 3, 0, 10, "mm", NULL,
                      "every environment: the part's start within this of the stand's centre"},
    [A_PERTURB_DEG] = {"perturb_deg", 3, 0, 10, "deg", NULL,
                       "every environment: each arm joint's start within +-this of the ready "
                       "pose"},
    [A_ROBOT_URDF] = TF_ROBOT_URDF_PARAM,
};

// ---------------------------------------------------------------- overrides

static int given(const tf_kv* set, int nset, const char* key) {
  int g = 0;
  for (int i = 0; i < nset; i++) g |= set[i].key && strcmp(set[i].key, key) == 0;
  return g;
}

// the part the scale / offset / tilt keys move: the inserted part, else the driven one, else
// the first that moves
static int moving_part(const asm_file* f) {
  if (f->insertion.part >= 0) return f->insertion.part;
  if (f->drive.part >= 0) return f->drive.part;
  for (int i = 0; i < f->npart; i++)
    if (f->part[i].mount != ASM_FIXED) return i;
  return -1;
}

// sets key=value on every library part that has key; the count of parts
static int set_library(asm_file* f, const char* key, double value) {
  int n = 0;
  for (int i = 0; i < f->npart; i++) {
    asm_part* q = &f->part[i];
    const tf_part_info* info = q->library ? tf_part_find(q->part) : NULL;
    int has = 0;
    for (int k = 0; info && k < info->nparam && !has; k++) has = !strcmp(info->params[k].key, key);
    if (!has) continue;
    int at = -1;
    for (int k = 0; k < q->nkv && at < 0; k++)
      if (strcmp(q->key[k], key) == 0) at = k;
    if (at < 0 && q->nkv >= ASM_MAX_KV) continue;
    if (at < 0) at = q->nkv++;
    snprintf(q->key[at], ASM_NAME_LEN, "%s", key);
    snprintf(q->value[at], ASM_VALUE_LEN, "%.17g", value);
    n++;
  }
  return n;
}

int asm_apply_overrides(asm_file* f, const tf_param_spec* params, int nparam, const double* v,
                        const tf_kv* set, int nset, char* err, size_t errlen) {
  (void)nparam;
  int m = moving_part(f);
  asm_part* q = m >= 0 ? &f->part[m] : NULL;
  if (given(set, nset, "collider") && v[A_COLLIDER] > 0.5)
    f->collider = v[A_COLLIDER] > 1.5 ? ASM_COLLIDER_MESH_SDF : ASM_COLLIDER_SDF;
  if (given(set, nset, "mu")) {
    f->mu = v[A_MU];
    for (int i = 0; i < f->npart; i++) f->part[i].mu = NAN;
  }
  if (given(set, nset, "scale")) {
    if (!q || q->library) {
      snprintf(err, errlen, "task 'assembly': scale is for a moving mesh part (%s)",
               q ? "the moving part is a library part" : "none moves");
      return -1;
    }
    q->scale = v[A_SCALE];
  }
  if (given(set, nset, "offset_mm") && q) {
    double o[3];
    if (tf_param_list(&params[A_OFFSET], set, nset, o, 3) != 3) {
      snprintf(err, errlen, "task 'assembly': offset_mm needs x,y,z (mm)");
      return -1;
    }
    for (int k = 0; k < 3; k++) {
      q->pos[k] += o[k] * 1e-3;
      q->anchor[k] += o[k] * 1e-3;
    }
  }
  if (given(set, nset, "tilt_deg") && q) {
    static const double ex[3] = {1, 0, 0};
    double t[4], r[4];
    tf_quat_from_axis_angle(t, ex, v[A_TILT] * DEG);
    tf_quat_mul(r, t, q->quat);
    memcpy(q->quat, r, sizeof(r));
  }
  if (given(set, nset, "speed")) {
    if (f->drive.type != ASM_DRIVE_VELOCITY && f->drive.type != ASM_DRIVE_PUSH) {
      snprintf(err, errlen, "task 'assembly': speed needs a velocity or push drive");
      return -1;
    }
    f->drive.speed = v[A_SPEED];
  }
  if (given(set, nset, "force")) {
    if (f->drive.type != ASM_DRIVE_PUSH) {
      snprintf(err, errlen, "task 'assembly': force needs a push drive");
      return -1;
    }
    f->drive.force = v[A_FORCE];
  }
  if (given(set, nset, "torque")) {
    if (f->drive.type != ASM_DRIVE_TORQUE) {
      snprintf(err, errlen, "task 'assembly': torque needs a torque drive");
      return -1;
    }
    f->drive.torque = v[A_TORQUE];
  }
  static const int lib_keys[] = {A_CLEARANCE, A_BACKLASH, A_CHORD};
  for (int k = 0; k < 3; k++) {
    const char* key = params[lib_keys[k]].key;
    if (given(set, nset, key) && set_library(f, key, v[lib_keys[k]]) == 0) {
      snprintf(err, errlen, "task 'assembly': %s: no library part in %s has it", key, f->path);
      return -1;
    }
  }
  // a library parameter out of its part's range is the part's message
  for (int i = 0; i < f->npart; i++) {
    const asm_part* p = &f->part[i];
    if (!p->library) continue;
    tf_kv kv[ASM_MAX_KV];
    for (int k = 0; k < p->nkv; k++) kv[k].key = p->key[k], kv[k].value = p->value[k];
    double values[128];
    char why[512];
    const tf_part_info* info = tf_part_find(p->part);
    if (info && info->nparam <= 128 && tf_part_parse(info, kv, p->nkv, values, why, sizeof(why))) {
      snprintf(err, errlen, "task 'assembly': part '%s': %s", p->name, why);
      return -1;
    }
  }
  return 0;
}

// ---------------------------------------------------------------- task

static void asm_destroy(tf_env* env) {
  asm_state* s = env->state;
  if (!s) return;
  for (int i = 0; i < ASM_MAX_PARTS; i++) asm_solid_free(&s->solid[i]);
  free(s);
  env->state = NULL;
}

int asm_load_for_run(tf_env* env, asm_state* s, const tf_param_spec* params, int nparam,
                     const double* values, char* err, size_t errlen) {
  const char* path = tf_param_text(&params[A_ASSEMBLY], env->set, env->nset);
  if (!path) {
    snprintf(err, errlen,
             "task 'assembly' needs an assembly file: --assembly FILE.json, or --set "
             "assembly=FILE.json (docs/assemblies.md)");
    return -1;
  }
  char why[2048];
  if (asm_file_load(&s->file, path, 0, why, sizeof(why))) {
    snprintf(err, errlen, "task 'assembly': %s", why);
    return -1;
  }
  return asm_apply_overrides(&s->file, params, nparam, values, env->set, env->nset, err, errlen);
}

// environments after the first: the moving part's start shifted across the insertion axis
// (a random direction, a random distance up to the offset) and tilted about a random axis
// across it (up to the tilt), in that order of draws
static void perturb_start(asm_file* f, double offset, double tilt, tf_rng* rng) {
  int p = moving_part(f);
  if (p < 0 || f->part[p].mount == ASM_FIXED) return;
  double a[3] = {0, 0, 1};
  if (f->insertion.part >= 0) memcpy(a, f->insertion.axis, sizeof(a));
  // u, v: unit vectors across a
  double helper[3] = {fabs(a[0]) < 0.9 ? 1 : 0, fabs(a[0]) < 0.9 ? 0 : 1, 0}, u[3], v[3];
  tf_vec3_cross(u, a, helper);
  tf_vec3_normalize(u);
  tf_vec3_cross(v, a, u);
  double direction = tf_rng_uniform(rng, 0, 2 * M_PI);
  double radius = tf_rng_uniform(rng, 0, offset);
  double turn_about = tf_rng_uniform(rng, 0, 2 * M_PI);
  double angle = tf_rng_uniform(rng, -tilt, tilt);
  asm_part* q = &f->part[p];
  double w[3], r[4], turned[4];
  for (int k = 0; k < 3; k++) {
    q->pos[k] += radius * (cos(direction) * u[k] + sin(direction) * v[k]);
    w[k] = cos(turn_about) * u[k] + sin(turn_about) * v[k];
  }
  tf_quat_from_axis_angle(r, w, angle);
  tf_quat_mul(turned, r, q->quat);
  memcpy(q->quat, turned, sizeof(turned));
}

static int asm_build(tf_env* env, const double* values, const tf_physics* physics, tf_rng* rng,
                     char* err, size_t errlen) {
  asm_state* s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(err, errlen, "task 'assembly': out of memory");
    return -1;
  }
  env->state = s;
  if (asm_load_for_run(env, s, asm_params, A_N, values, err, errlen)) return -1;
  if (env->index > 0 && rng) {
    perturb_start(&s->file, values[A_START_OFFSET] * 1e-3, values[A_START_TILT] * DEG, rng);
  }
  if (asm_scene_build(env, s, physics, err, errlen)) return -1;
  s->load = values[A_LOAD];
  const asm_file* f = &s->file;
  for (int i = 0; i < f->ngear; i++)
    memcpy(s->quat_prev[i], env->data->xquat + 4 * s->body[f->gear_part[i]],
           sizeof(s->quat_prev[i]));
  return 0;
}

static void asm_control(tf_env* env) {
  asm_state* s = env->state;
  const asm_file* f = &s->file;
  tf_data* d = env->data;
  double t = d->time;
  double ramp = f->drive.ramp > 0 && t < f->drive.ramp ? t / f->drive.ramp : 1;
  switch (f->drive.type) {
    case ASM_DRIVE_VELOCITY:
      d->ctrl[s->actuator] = f->drive.speed * ramp;
      break;
    case ASM_DRIVE_TORQUE:
      d->ctrl[s->actuator] = f->drive.torque * ramp;
      break;
    case ASM_DRIVE_PUSH:
      if (f->drive.force != 0) {
        double* w = d->xfrc_applied + 6 * s->body[f->drive.part];
        for (int k = 0; k < 3; k++) w[k] = f->drive.force * f->insertion.axis[k];
      }
      break;
    default:
      break;
  }
  int last = f->ngear - 1;
  if (s->load > 0 && last >= 1) {
    // against the last gear's turning: the input's direction times the gear's sign, about
    // its axis (the probe's, world)
    double input = f->drive.type == ASM_DRIVE_TORQUE ? f->drive.torque : f->drive.speed;
    double turning = (input >= 0 ? 1 : -1) * f->gear_sign[last];
    double* w = d->xfrc_applied + 6 * s->body[f->gear_part[last]];
    for (int k = 0; k < 3; k++)
      w[3 + k] = -turning * s->load * ramp * env->probe.gear_axis[last][k];
  }
}

// the turn about a world axis between two orientations (q p^-1), wrapped to (-pi, pi]
static double twist(const double q[4], const double p[4], const double axis[3]) {
  double pc[4], dq[4];
  tf_quat_conj(pc, p);
  tf_quat_mul(dq, q, pc);
  double a = 2 * atan2(dq[1] * axis[0] + dq[2] * axis[1] + dq[3] * axis[2], dq[0]);
  if (a > M_PI) a -= 2 * M_PI;
  if (a <= -M_PI) a += 2 * M_PI;
  return a;
}

static void asm_observe(tf_env* env) {
  asm_state* s = env->state;
  const asm_file* f = &s->file;
  for (int i = 0; i < f->ngear; i++) {
    const double* q = env->data->xquat + 4 * s->body[f->gear_part[i]];
    s->angle[i] += twist(q, s->quat_prev[i], env->probe.gear_axis[i]);
    memcpy(s->quat_prev[i], q, sizeof(s->quat_prev[i]));
  }
  if (f->ngear && !s->started && env->data->time >= f->slip_t0 - 1e-9) {
    memcpy(s->angle_t0, s->angle, sizeof(s->angle_t0));
    s->started = 1;
  }
}

void asm_finish_rule(tf_env* env, tf_metrics* out) {
  asm_state* s = env->state;
  const asm_file* f = &s->file;
  const tf_data* d = env->data;
  char why[TF_METRIC_TEXT_LEN] = "";
  double peak = tf_metrics_get(out, "overlap.peak_m");
  int overlap_ok = f->noverlap == 0 || peak <= f->overlap_max;
  tf_metrics_set(out, "assembly.overlap_allowed_m", f->overlap_max);
  int ok = 1;
  if (f->insertion.part >= 0) {
    double error = asm_seat_error(s, d), tilt = asm_tilt(s, d);
    const double* x = d->xpos + 3 * s->body[f->insertion.part];
    double r[3];
    tf_vec3_sub(r, x, f->insertion.seat);
    tf_metrics_set(out, "assembly.seat_error_m", error);
    tf_metrics_set(out, "assembly.depth_m", -tf_vec3_dot(r, f->insertion.axis));
    tf_metrics_set(out, "assembly.tilt_deg_final", tilt / DEG);
    if (f->rule == ASM_RULE_SEATED) {
      if (!(error <= f->insertion.tolerance)) {
        tf_why_add(why, "not seated: %.2f mm from the seat > %g mm", error * 1e3,
                   f->insertion.tolerance * 1e3);
        ok = 0;
      }
      if (!(tilt <= f->insertion.upright)) {
        tf_why_add(why, "tilted %.2f deg > %g deg", tilt / DEG, f->insertion.upright / DEG);
        ok = 0;
      }
    }
  }
  if (f->ngear) {
    double input = s->angle[0] - s->angle_t0[0];
    tf_metrics_set(out, "assembly.input_turns", s->angle[0] / (2 * M_PI));
    char name[TF_METRIC_NAME];
    for (int i = 1; i < f->ngear; i++) {
      snprintf(name, sizeof(name), "assembly.ratio_f%d", i);
      tf_metrics_set(out, name,
                     s->started && input != 0 ? (s->angle[i] - s->angle_t0[i]) / input : NAN);
    }
    if (f->rule == ASM_RULE_GEARS) {
      double slip = tf_metrics_get(out, "gear_slip.max");
      int turns = tf_metrics_get(out, "gear_slip.input_turns") == 1;
      if (!turns) tf_why_add(why, "the input did not turn");
      if (turns && !(slip < f->slip_max))
        tf_why_add(why, "slip %.1f %% >= %g %%", slip * 100, f->slip_max * 100);
      ok &= turns && slip < f->slip_max;
    }
  }
  if (f->rule == ASM_RULE_NONE && f->tunnel >= 0) {
    int through = tf_metrics_get(out, "tunnel.through") == 0;
    if (!through) tf_why_add(why, "tunnelled");
    ok &= through;
  }
  if (f->noverlap) tf_why_overlap(why, peak, f->overlap_max);
  tf_metrics_set_bool(out, "success", ok && overlap_ok);
  tf_metrics_set_text(out, "why", why);
}

extern const tf_task_info tf_task_assembly_robot;

const tf_task_info tf_task_assembly = {
    .name = "assembly",
    .user_scene = 1,
    .description =
        "a scene from an assembly file (--assembly FILE.json): mesh or library parts, mounts, "
        "a drive, an insertion seat or a gear train (docs/assemblies.md)",
    .params = asm_params,
    .nparam = A_N,
    .default_dt = 0.002,
    .default_duration = 0.5,
    .build = asm_build,
    .control = asm_control,
    .observe = asm_observe,
    .finish = asm_finish_rule,
    .destroy = asm_destroy,
    .robot = &tf_task_assembly_robot,  // assembly_robot.c
    .policy = NULL,
};
