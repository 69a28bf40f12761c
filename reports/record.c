// Per-step recording of a run (see record.h; the file's layout: docs/record.md).
//
// The arrays are declared when environment 0 shows its initial state (the model gives their
// shapes) and every later environment must have the same shapes. Per-step arrays are
// (steps, envs, ...) slot arrays of the NPZ writer, one slot per environment, each
// environment's rows appended as it runs; contacts go to flat row arrays. Nothing here
// writes to the environment: body velocities are summed from the joint velocities
// (tf_body_velocity; the data's own cvel is only current inside a step), and the probes'
// per-step values come from fields they keep for this purpose.
#include "record.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npz_write.h"

#define ERR_LEN 512

// the per-step arrays, (steps, envs, ...)
enum {
  A_TIME = 0,
  A_BODY_POS,
  A_BODY_QUAT,
  A_BODY_VEL,
  A_QPOS,
  A_QVEL,
  A_CTRL,
  A_NCON,
  A_CONTACT_ADR,
  A_NCON_CANDIDATES,
  A_NCON_OVERFLOW,
  A_NEFC,
  A_SOLVER_ITERATIONS,
  A_SOLVER_PRIMAL,
  A_SOLVER_DUAL,
  A_RELINEARIZE_PASSES,
  A_OVERLAP_ROWS,
  A_STAGE_TIME,
  A_STEP_WALL,
  A_TUNNEL_DEPTH,  // the probes' arrays: only where the task has the probe
  A_OVERLAP_DEEPEST,
  A_OVERLAP_M,
  A_OVERLAP_IN_CONTACT,
  A_OVERLAP_PAIR_M,
  A_GEAR_ANGLE,
  A_GEAR_ERROR,
  A_N
};

// the contact arrays, (contacts, ...)
enum {
  C_ENV = 0,
  C_STEP,
  C_GEOM,
  C_BODY,
  C_POS,
  C_NORMAL,
  C_TANGENT,
  C_DIST,
  C_FORCE,
  C_FORCE_WORLD,
  C_SPECULATIVE,
  C_N
};

// the shapes a recording fixes at environment 0
typedef struct record_shape {
  int nbody, nq, nv, nu, ngeom, nconmax;
  int tunnel, npair, ngear;
} record_shape;

typedef struct recorder {
  tf_npz_writer* w;
  const char* path;
  const volatile sig_atomic_t* cancel;
  int envs;
  const tf_run_options* options;  // the run's, for the file's description of it
  int started;                    // the arrays are declared
  record_shape shape;
  int id[A_N];  // array ids, -1 where the task lacks the probe
  int cid[C_N];
  int env;                  // the environment being recorded, -1 before the first
  long ncontact;            // contact rows written
  long* steps;              // (envs) rows recorded per environment
  unsigned char* diverged;  // (envs)
  // the current environment's running sums at its last row, to take each row's share
  double stage_prev[TF_TIMER_N], wall_prev;
  long probe_prev;  // the probes' control observations at the last row
  // scratch, sized once at the start: no allocation per step
  double* f64;   // the largest float row (the contacts' forces in both frames, bodies)
  int32_t* i32;  // the largest int32 row
  int64_t* i64;  // the largest int64 row
  unsigned char* u8;
  char err[ERR_LEN];
} recorder;

int tf_record_path_check(const char* path, char* err, size_t errlen) {
  size_t n = strlen(path);
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (n < 4 || strcmp(path + n - 4, ".npz") != 0 || strlen(base) <= 4) {
    snprintf(err, errlen, "'%s' is not an NPZ file name (FILE.npz)", path);
    return -1;
  }
  return 0;
}

// ---- declaring

// a per-step array: shape (steps, envs, d[0], d[1]) with ndim of the d's
static int slots(recorder* rec, int a, const char* name, tf_npz_dtype dtype, int ndim, long d0,
                 long d1) {
  tf_npz_def def;
  memset(&def, 0, sizeof(def));
  def.name = name;
  def.dtype = dtype;
  def.kind = TF_NPZ_SLOTS;
  def.ndim = ndim;
  def.shape[0] = d0;
  def.shape[1] = d1;
  def.nslot = rec->envs;
  // a row an environment did not reach (it diverged early): NaN, or -1 for counts
  def.fill = dtype == TF_NPZ_F64 ? NAN : dtype == TF_NPZ_U8 ? 0 : -1;
  rec->id[a] = tf_npz_declare(rec->w, &def);
  return rec->id[a] < 0 ? -1 : 0;
}

// a contact array: shape (contacts, d[0], d[1])
static int rows(recorder* rec, int c, const char* name, tf_npz_dtype dtype, int ndim, long d0,
                long d1) {
  tf_npz_def def;
  memset(&def, 0, sizeof(def));
  def.name = name;
  def.dtype = dtype;
  def.kind = TF_NPZ_ROWS;
  def.ndim = ndim;
  def.shape[0] = d0;
  def.shape[1] = d1;
  rec->cid[c] = tf_npz_declare(rec->w, &def);
  return rec->cid[c] < 0 ? -1 : 0;
}

static int put_scalar_f64(recorder* rec, const char* name, double x) {
  return tf_npz_put(rec->w, name, TF_NPZ_F64, 0, 0, NULL, &x);
}

static int put_scalar_i64(recorder* rec, const char* name, int64_t x) {
  return tf_npz_put(rec->w, name, TF_NPZ_I64, 0, 0, NULL, &x);
}

// n names as fixed-width byte strings (NULL names empty), or one name as a scalar (n < 0)
static int put_names(recorder* rec, const char* array, const char* const* names, int n) {
  int count = n < 0 ? 1 : n;
  size_t width = 1;
  for (int i = 0; i < count; i++) {
    size_t len = names[i] ? strlen(names[i]) : 0;
    if (len > width) width = len;
  }
  char* text = calloc((size_t)count * width + 1, 1);
  if (!text) {
    snprintf(rec->err, sizeof(rec->err), "%s: out of memory", rec->path);
    return -1;
  }
  for (int i = 0; i < count; i++) {
    if (names[i]) memcpy(text + (size_t)i * width, names[i], strlen(names[i]));
  }
  long shape = count;
  int rc = tf_npz_put(rec->w, array, TF_NPZ_BYTES, (int)width, n < 0 ? 0 : 1, &shape, text);
  free(text);
  return rc;
}

static int put_ints(recorder* rec, const char* array, const int* v, int n) {
  int32_t* x = calloc((size_t)n + 1, sizeof(int32_t));
  if (!x) {
    snprintf(rec->err, sizeof(rec->err), "%s: out of memory", rec->path);
    return -1;
  }
  for (int i = 0; i < n; i++) x[i] = v[i];
  long shape = n;
  int rc = tf_npz_put(rec->w, array, TF_NPZ_I32, 0, 1, &shape, x);
  free(x);
  return rc;
}

static record_shape shape_of(const tf_env* env) {
  const tf_model* m = env->model;
  record_shape s = {m->nbody, m->nq, m->nv, m->nu, m->ngeom, m->nconmax, 0, 0, 0};
  s.tunnel = env->probe.tunnel_body > 0;
  s.npair = env->probe.noverlap;
  s.ngear = env->probe.ngear;
  return s;
}

// what describes the run and its model, written once
static int put_metadata(recorder* rec, const tf_env_run* r) {
  const tf_env* env = tf_env_run_env(r);
  const tf_model* m = env->model;
  const tf_physics* ph = tf_env_run_physics(r);
  const record_shape* s = &rec->shape;
  const char* task = tf_env_run_task(r)->name;
  const char* solver = tf_solver_name(ph->solver);
  const char* mode = rec->options->mode == TF_MODE_ROBOT ? "robot" : "rig";
  if (put_scalar_f64(rec, "dt", ph->dt) || put_scalar_f64(rec, "timestep", m->opt.timestep) ||
      put_scalar_i64(rec, "substeps", ph->substeps) || put_scalar_i64(rec, "envs", rec->envs) ||
      put_scalar_i64(rec, "seed", (int64_t)rec->options->seed) ||
      put_names(rec, "task", &task, -1) || put_names(rec, "mode", &mode, -1) ||
      put_names(rec, "solver", &solver, -1)) {
    return -1;
  }
  int rc = 0;
  const char** names = calloc((size_t)(m->nbody + m->ngeom + TF_TIMER_N) + 1, sizeof(char*));
  int* ids = calloc((size_t)(m->nbody + m->ngeom) + 1, sizeof(int));
  if (!names || !ids) {
    free(names);
    free(ids);
    snprintf(rec->err, sizeof(rec->err), "%s: out of memory", rec->path);
    return -1;
  }
  for (int b = 0; b < m->nbody; b++) names[b] = tf_body_name(m, b), ids[b] = m->body_parentid[b];
  rc = rc || put_names(rec, "body_names", names, m->nbody);
  rc = rc || put_ints(rec, "body_parent", ids, m->nbody);
  for (int g = 0; g < m->ngeom; g++) names[g] = m->names + m->geom_nameadr[g];
  for (int g = 0; g < m->ngeom; g++) ids[g] = m->geom_bodyid[g];
  rc = rc || put_names(rec, "geom_names", names, m->ngeom);
  rc = rc || put_ints(rec, "geom_body", ids, m->ngeom);
  for (int k = 0; k < TF_TIMER_N; k++) names[k] = tf_timer_name((tf_timer)k);
  rc = rc || put_names(rec, "stage_names", names, TF_TIMER_N);
  if (s->tunnel) rc = rc || put_scalar_i64(rec, "tunnel_body", env->probe.tunnel_body);
  if (s->npair > 0)
    rc = rc || put_names(rec, "overlap_pair_names", env->probe.overlap_name, s->npair);
  if (s->ngear > 0) {
    rc = rc || put_ints(rec, "gear_body", env->probe.gear_body, s->ngear);
    rc = rc || put_ints(rec, "gear_teeth", env->probe.gear_teeth, s->ngear);
  }
  free(names);
  free(ids);
  return rc;
}

// every array of the recording, from environment 0's model and probes
static int declare(recorder* rec, const tf_env_run* r) {
  const tf_env* env = tf_env_run_env(r);
  record_shape* s = &rec->shape;
  *s = shape_of(env);
  for (int a = 0; a < A_N; a++) rec->id[a] = -1;
  rec->steps = calloc((size_t)rec->envs, sizeof(long));
  rec->diverged = calloc((size_t)rec->envs, 1);
  // room for the longest row of each type: contacts' forces in both frames (7 a contact),
  // bodies, joints, stages, probes
  size_t nf = (size_t)s->nconmax * 7 + 6 * (size_t)s->nbody + (size_t)s->nq + (size_t)s->nv +
              (size_t)s->nu + TF_TIMER_N + TF_PROBE_MAX_OVERLAP + TF_PROBE_MAX_GEARS + 1;
  rec->f64 = malloc(sizeof(double) * nf);
  rec->i32 = malloc(sizeof(int32_t) * (2 * (size_t)s->nconmax + 1));
  rec->i64 = malloc(sizeof(int64_t) * ((size_t)s->nconmax + 1));
  rec->u8 = malloc((size_t)s->nconmax + 1);
  if (!rec->steps || !rec->diverged || !rec->f64 || !rec->i32 || !rec->i64 || !rec->u8) {
    snprintf(rec->err, sizeof(rec->err), "%s: out of memory", rec->path);
    return -1;
  }
  int rc = put_metadata(rec, r);
  long nb = s->nbody;
  rc = rc || slots(rec, A_TIME, "time", TF_NPZ_F64, 0, 0, 0);
  rc = rc || slots(rec, A_BODY_POS, "body_pos", TF_NPZ_F64, 2, nb, 3);
  rc = rc || slots(rec, A_BODY_QUAT, "body_quat", TF_NPZ_F64, 2, nb, 4);
  rc = rc || slots(rec, A_BODY_VEL, "body_vel", TF_NPZ_F64, 2, nb, 6);
  rc = rc || slots(rec, A_QPOS, "qpos", TF_NPZ_F64, 1, s->nq, 0);
  rc = rc || slots(rec, A_QVEL, "qvel", TF_NPZ_F64, 1, s->nv, 0);
  rc = rc || slots(rec, A_CTRL, "ctrl", TF_NPZ_F64, 1, s->nu, 0);
  rc = rc || slots(rec, A_NCON, "ncon", TF_NPZ_I32, 0, 0, 0);
  rc = rc || slots(rec, A_CONTACT_ADR, "contact_adr", TF_NPZ_I64, 0, 0, 0);
  rc = rc || slots(rec, A_NCON_CANDIDATES, "ncon_candidates", TF_NPZ_I32, 0, 0, 0);
  rc = rc || slots(rec, A_NCON_OVERFLOW, "ncon_overflow", TF_NPZ_I32, 0, 0, 0);
  rc = rc || slots(rec, A_NEFC, "nefc", TF_NPZ_I32, 0, 0, 0);
  rc = rc || slots(rec, A_SOLVER_ITERATIONS, "solver_iterations", TF_NPZ_I32, 0, 0, 0);
  rc = rc || slots(rec, A_SOLVER_PRIMAL, "solver_primal", TF_NPZ_F64, 0, 0, 0);
  rc = rc || slots(rec, A_SOLVER_DUAL, "solver_dual", TF_NPZ_F64, 0, 0, 0);
  rc = rc || slots(rec, A_RELINEARIZE_PASSES, "relinearize_passes", TF_NPZ_I32, 0, 0, 0);
  rc = rc || slots(rec, A_OVERLAP_ROWS, "overlap_rows", TF_NPZ_I32, 0, 0, 0);
  rc = rc || slots(rec, A_STAGE_TIME, "stage_time", TF_NPZ_F64, 1, TF_TIMER_N, 0);
  rc = rc || slots(rec, A_STEP_WALL, "step_wall", TF_NPZ_F64, 0, 0, 0);
  if (s->tunnel) rc = rc || slots(rec, A_TUNNEL_DEPTH, "tunnel_depth", TF_NPZ_F64, 0, 0, 0);
  if (s->npair > 0) {
    rc = rc || slots(rec, A_OVERLAP_DEEPEST, "overlap_deepest", TF_NPZ_F64, 0, 0, 0);
    rc = rc || slots(rec, A_OVERLAP_M, "overlap_m", TF_NPZ_F64, 0, 0, 0);
    rc = rc || slots(rec, A_OVERLAP_IN_CONTACT, "overlap_in_contact", TF_NPZ_U8, 0, 0, 0);
    rc = rc || slots(rec, A_OVERLAP_PAIR_M, "overlap_pair_m", TF_NPZ_F64, 1, s->npair, 0);
  }
  if (s->ngear > 0) {
    rc = rc || slots(rec, A_GEAR_ANGLE, "gear_angle", TF_NPZ_F64, 1, s->ngear, 0);
    rc = rc || slots(rec, A_GEAR_ERROR, "gear_error", TF_NPZ_F64, 1, s->ngear, 0);
  }
  rc = rc || rows(rec, C_ENV, "contact_env", TF_NPZ_I32, 0, 0, 0);
  rc = rc || rows(rec, C_STEP, "contact_step", TF_NPZ_I64, 0, 0, 0);
  rc = rc || rows(rec, C_GEOM, "contact_geom", TF_NPZ_I32, 1, 2, 0);
  rc = rc || rows(rec, C_BODY, "contact_body", TF_NPZ_I32, 1, 2, 0);
  rc = rc || rows(rec, C_POS, "contact_pos", TF_NPZ_F64, 1, 3, 0);
  rc = rc || rows(rec, C_NORMAL, "contact_normal", TF_NPZ_F64, 1, 3, 0);
  rc = rc || rows(rec, C_TANGENT, "contact_tangent", TF_NPZ_F64, 2, 2, 3);
  rc = rc || rows(rec, C_DIST, "contact_dist", TF_NPZ_F64, 0, 0, 0);
  rc = rc || rows(rec, C_FORCE, "contact_force", TF_NPZ_F64, 1, 4, 0);
  rc = rc || rows(rec, C_FORCE_WORLD, "contact_force_world", TF_NPZ_F64, 1, 3, 0);
  rc = rc || rows(rec, C_SPECULATIVE, "contact_speculative", TF_NPZ_U8, 0, 0, 0);
  rec->started = 1;
  return rc;
}

// ---- one row

// every body's velocity (tf_body_velocity: its frame origin's, then angular, world axes;
// the world body's is zero), from the kinematics the step left current
static void body_velocities(const tf_model* m, const tf_data* d, double* out) {
  memset(out, 0, 6 * sizeof(double));
  for (int b = 1; b < m->nbody; b++) tf_body_velocity(m, d, b, out + 6 * b);
}

static int put_row(recorder* rec, int a, int env, const void* row) {
  if (rec->id[a] < 0) return 0;
  return tf_npz_append_slot(rec->w, rec->id[a], env, row, 1);
}

static int put_i32(recorder* rec, int a, int env, long x) {
  int32_t v = (int32_t)x;
  return put_row(rec, a, env, &v);
}

static int put_f64(recorder* rec, int a, int env, double x) { return put_row(rec, a, env, &x); }

// the step's contacts as rows of the contact arrays; forces from the last solve's impulses
// (the engine's force is impulse / timestep: qfrc_constraint = J^T lambda / h), zero for a
// contact that got no row
static int put_contacts(recorder* rec, const tf_model* m, const tf_data* d, int env, long step) {
  int n = d->ncon;
  double h = m->opt.timestep;
  tf_npz_writer* w = rec->w;
  int32_t* i32 = rec->i32;
  int rc = 0;
  for (int c = 0; c < n; c++) i32[c] = env;
  rc = rc || tf_npz_append(w, rec->cid[C_ENV], i32, n);
  for (int c = 0; c < n; c++) rec->i64[c] = step;
  rc = rc || tf_npz_append(w, rec->cid[C_STEP], rec->i64, n);
  for (int c = 0; c < n; c++) {
    i32[2 * c] = d->contact[c].geom[0];
    i32[2 * c + 1] = d->contact[c].geom[1];
  }
  rc = rc || tf_npz_append(w, rec->cid[C_GEOM], i32, n);
  for (int c = 0; c < 2 * n; c++) i32[c] = m->geom_bodyid[i32[c]];
  rc = rc || tf_npz_append(w, rec->cid[C_BODY], i32, n);
  double* f = rec->f64;
  for (int c = 0; c < n; c++) memcpy(f + 3 * c, d->contact[c].pos, 3 * sizeof(double));
  rc = rc || tf_npz_append(w, rec->cid[C_POS], f, n);
  for (int c = 0; c < n; c++) memcpy(f + 3 * c, d->contact[c].frame, 3 * sizeof(double));
  rc = rc || tf_npz_append(w, rec->cid[C_NORMAL], f, n);
  for (int c = 0; c < n; c++) memcpy(f + 6 * c, d->contact[c].frame + 3, 6 * sizeof(double));
  rc = rc || tf_npz_append(w, rec->cid[C_TANGENT], f, n);
  for (int c = 0; c < n; c++) f[c] = d->contact[c].dist;
  rc = rc || tf_npz_append(w, rec->cid[C_DIST], f, n);
  for (int c = 0; c < n; c++) {
    const tf_contact* con = &d->contact[c];
    for (int k = 0; k < 4; k++) {
      f[4 * c + k] = con->efc_adr >= 0 && k < con->condim ? con->lambda[k] / h : 0;
    }
  }
  rc = rc || tf_npz_append(w, rec->cid[C_FORCE], f, n);
  // on the second geom's body along its frame; the first body takes the opposite
  double* world = f + 4 * (size_t)n;
  for (int c = 0; c < n; c++) {
    const double* fr = d->contact[c].frame;
    const double* fc = f + 4 * c;
    for (int k = 0; k < 3; k++)
      world[3 * c + k] = fc[0] * fr[k] + fc[1] * fr[3 + k] + fc[2] * fr[6 + k];
  }
  rc = rc || tf_npz_append(w, rec->cid[C_FORCE_WORLD], world, n);
  for (int c = 0; c < n; c++) rec->u8[c] = (unsigned char)(d->contact[c].speculative != 0);
  rc = rc || tf_npz_append(w, rec->cid[C_SPECULATIVE], rec->u8, n);
  rec->ncontact += n;
  return rc;
}

// the probes' values of this row: NaN where the probes did not observe it (the control step
// that diverged stops before they look)
static int put_probes(recorder* rec, const tf_probe_set* p, int env) {
  int seen = p->throughput.ncontrol != rec->probe_prev;
  rec->probe_prev = p->throughput.ncontrol;
  const record_shape* s = &rec->shape;
  int rc = 0;
  if (s->tunnel) rc = rc || put_f64(rec, A_TUNNEL_DEPTH, env, seen ? p->tunnel.depth_final : NAN);
  if (s->npair > 0) {
    // the probe's own rule: in contact below contact_m, penetration max(0, -deepest)
    double deepest = p->overlap.last;
    int contact = seen && deepest < p->overlap.contact_m;
    unsigned char in = (unsigned char)contact;
    rc = rc || put_f64(rec, A_OVERLAP_DEEPEST, env, seen ? deepest : NAN);
    rc = rc || put_f64(rec, A_OVERLAP_M, env, !seen ? NAN : contact ? fmax(0.0, -deepest) : 0);
    rc = rc || put_row(rec, A_OVERLAP_IN_CONTACT, env, &in);
    double* pair = rec->f64;
    for (int k = 0; k < s->npair; k++) {
      double x = p->overlap_pair_last[k];
      // the pair's peak takes -deepest where it is above 0: the same max(0, -deepest)
      pair[k] = !seen ? NAN : -x > 0 ? -x : 0;
    }
    rc = rc || put_row(rec, A_OVERLAP_PAIR_M, env, pair);
  }
  if (s->ngear > 0) {
    double* angle = rec->f64;
    double* error = rec->f64 + TF_PROBE_MAX_GEARS;
    for (int g = 0; g < s->ngear; g++) {
      angle[g] = seen ? p->gear_angle[g] : NAN;
      error[g] = seen ? tf_gear_slip_error(&p->gear_slip, g) : NAN;
    }
    rc = rc || put_row(rec, A_GEAR_ANGLE, env, angle);
    rc = rc || put_row(rec, A_GEAR_ERROR, env, error);
  }
  return rc;
}

// the row of environment env after its control step `step`
static int put_step(recorder* rec, const tf_env_run* r, int env, long step) {
  const tf_env* e = tf_env_run_env(r);
  const tf_model* m = e->model;
  const tf_data* d = e->data;
  const tf_probe_set* p = tf_env_run_probes(r);
  int rc = put_f64(rec, A_TIME, env, d->time);
  rc = rc || put_row(rec, A_BODY_POS, env, d->xpos);
  rc = rc || put_row(rec, A_BODY_QUAT, env, d->xquat);
  body_velocities(m, d, rec->f64);
  rc = rc || put_row(rec, A_BODY_VEL, env, rec->f64);
  rc = rc || put_row(rec, A_QPOS, env, d->qpos);
  rc = rc || put_row(rec, A_QVEL, env, d->qvel);
  rc = rc || put_row(rec, A_CTRL, env, d->ctrl);
  int64_t adr = rec->ncontact;
  rc = rc || put_i32(rec, A_NCON, env, d->ncon);
  rc = rc || put_row(rec, A_CONTACT_ADR, env, &adr);
  rc = rc || put_i32(rec, A_NCON_CANDIDATES, env, d->ncon_candidates);
  int overflow = d->ncon_wanted - d->ncon;
  rc = rc || put_i32(rec, A_NCON_OVERFLOW, env, overflow > 0 ? overflow : 0);
  rc = rc || put_i32(rec, A_NEFC, env, d->nefc);
  rc = rc || put_i32(rec, A_SOLVER_ITERATIONS, env, d->solver_iterations);
  rc = rc || put_f64(rec, A_SOLVER_PRIMAL, env, d->solver_primal);
  rc = rc || put_f64(rec, A_SOLVER_DUAL, env, d->solver_dual);
  rc = rc || put_i32(rec, A_RELINEARIZE_PASSES, env, d->relinearize_passes);
  rc = rc || put_i32(rec, A_OVERLAP_ROWS, env, d->overlap_rows);
  // the control step's share of the probes' running sums: every physics step in it
  double* stage = rec->f64;
  for (int k = 0; k < TF_TIMER_N; k++) {
    stage[k] = p->throughput.stage[k] - rec->stage_prev[k];
    rec->stage_prev[k] = p->throughput.stage[k];
  }
  rc = rc || put_row(rec, A_STAGE_TIME, env, stage);
  rc = rc || put_f64(rec, A_STEP_WALL, env, p->throughput.wall - rec->wall_prev);
  rec->wall_prev = p->throughput.wall;
  rc = rc || put_probes(rec, p, env);
  rc = rc || put_contacts(rec, m, d, env, step);
  rec->steps[env]++;
  rec->diverged[env] = (unsigned char)tf_divergence_diverged(&p->divergence);
  return rc;
}

// the observer: one row per call
static int observe(void* ctx, const tf_env_run* r) {
  recorder* rec = ctx;
  if (rec->cancel && *rec->cancel) {
    snprintf(rec->err, sizeof(rec->err), "%s: interrupted", rec->path);
    return 1;
  }
  const tf_env* env = tf_env_run_env(r);
  if (!rec->started && declare(rec, r)) return 1;
  if (env->index != rec->env) {
    record_shape s = shape_of(env);
    if (memcmp(&s, &rec->shape, sizeof(s)) != 0) {
      snprintf(rec->err, sizeof(rec->err),
               "%s: environment %d's model differs from environment 0's (%d bodies, %d dofs, "
               "against %d, %d): one recording holds one shape",
               rec->path, env->index, s.nbody, s.nv, rec->shape.nbody, rec->shape.nv);
      return 1;
    }
    rec->env = env->index;
    memset(rec->stage_prev, 0, sizeof(rec->stage_prev));
    rec->wall_prev = 0;
    rec->probe_prev = 0;
  }
  return put_step(rec, r, env->index, tf_env_run_control(r)) != 0;
}

static void recorder_free(recorder* rec) {
  free(rec->steps);
  free(rec->diverged);
  free(rec->f64);
  free(rec->i32);
  free(rec->i64);
  free(rec->u8);
  free(rec);
}

// the per-environment summary and the archive
static int finish(recorder* rec, char* err, size_t errlen) {
  long n = rec->envs;
  int64_t* steps = malloc(sizeof(int64_t) * (size_t)n);
  int rc = -1;
  if (steps) {
    for (long e = 0; e < n; e++) steps[e] = rec->steps[e];
    rc = tf_npz_put(rec->w, "steps", TF_NPZ_I64, 0, 1, &n, steps);
    rc = rc || tf_npz_put(rec->w, "diverged", TF_NPZ_U8, 0, 1, &n, rec->diverged);
  }
  free(steps);
  if (rc) {
    snprintf(err, errlen, "%s", tf_npz_error(rec->w)[0] ? tf_npz_error(rec->w) : "out of memory");
    tf_npz_abort(rec->w);
    return -1;
  }
  return tf_npz_close(rec->w, err, errlen);
}

int tf_record_run(const tf_run_options* o, const char* path, const volatile sig_atomic_t* cancel,
                  tf_metrics* out, int* written, char* err, size_t errlen) {
  *written = 0;
  if (tf_record_path_check(path, err, errlen)) return TF_RECORD_REFUSED;
  recorder* rec = calloc(1, sizeof(*rec));
  if (!rec) {
    snprintf(err, errlen, "out of memory");
    return TF_RECORD_FAILED;
  }
  rec->w = tf_npz_open(path, cancel, err, errlen);
  if (!rec->w) {
    free(rec);
    return TF_RECORD_REFUSED;
  }
  rec->path = path;
  rec->cancel = cancel;
  rec->envs = o->envs;  // the runner checks the count before anything is declared
  rec->options = o;
  rec->env = -1;
  tf_run_observer observer = {observe, rec};
  int rc = tf_task_run_observed(o, &observer, out, err, errlen);
  if (rc != 0) {
    // the recorder stopped the run (its message, or the writer's), or the runner refused
    int stopped = rec->err[0] || tf_npz_error(rec->w)[0];
    if (stopped) snprintf(err, errlen, "%s", rec->err[0] ? rec->err : tf_npz_error(rec->w));
    tf_npz_abort(rec->w);
    recorder_free(rec);
    return stopped ? TF_RECORD_FAILED : TF_RECORD_REFUSED;
  }
  const char* status = tf_metrics_text(out, "status");
  if (!rec->started || (status && strcmp(status, "failed") == 0)) {
    // nothing was built, or not every environment: no file
    tf_npz_abort(rec->w);
    recorder_free(rec);
    return TF_RECORD_OK;
  }
  rc = finish(rec, err, errlen);
  recorder_free(rec);
  if (rc) return TF_RECORD_FAILED;
  *written = 1;
  return TF_RECORD_OK;
}
