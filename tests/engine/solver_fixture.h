// The hand-built constraint problems the solver suites share (test_solver_al_newton.c,
// test_solver_fbnewton.c): a fixture that writes rows block by block, a box whose free
// body's dofs line up with the world (A = diag(m, m, m, Ixx, Iyy, Izz), so a contact row
// along unit d at corner r from the com is [d^T, (r x d)^T]), the box on a plane or an
// incline, the environment a solve runs in (a model and data of nbody free bodies), and the
// checks both suites make of an answer (row velocities, impulses inside their cones, the
// box's summed impulses). Include after cmocka.h, linalg_dense.h, model_internal.h and solver.h.
#ifndef TF_TEST_SOLVER_FIXTURE_H
#define TF_TEST_SOLVER_FIXTURE_H

#include "solver_model.h"

#define NVMAX 12
#define NCMAX 32
#define NBMAX 16
#define G 9.81
#define DEG (M_PI / 180)

// ---------------------------------------------------------------- problem fixture

typedef struct fixture {
  tf_constraint_problem p;
  int nv, nefc, nblock;
  double h;
  double A[NVMAX * NVMAX], L[NVMAX * NVMAX], b[NVMAX], v_free[NVMAX], v0[NVMAX];
  double J[NCMAX * NVMAX], e[NCMAX], pos[NCMAX], mu[NCMAX], bound[NCMAX];
  int type[NBMAX], adr[NBMAX], dim[NBMAX];
  double solref[2 * NBMAX], solimp[3 * NBMAX];
} fixture;

// an empty problem of nv dofs and timestep h
static inline void fixture_init(fixture* f, int nv, double h) {
  memset(f, 0, sizeof(*f));
  f->nv = nv;
  f->h = h;
}

// opens a block of the given type; rows added next belong to it. solref / solimp take
// MuJoCo's defaults (0.02 s, 1; 0.9, 0.95, 1 mm)
static inline void begin_block(fixture* f, tf_efc_type type) {
  int k = f->nblock++;
  assert_true(k < NBMAX);
  f->type[k] = type;
  f->adr[k] = f->nefc;
  f->dim[k] = 0;
  f->solref[2 * k] = 0.02;
  f->solref[2 * k + 1] = 1;
  f->solimp[3 * k] = 0.9;
  f->solimp[3 * k + 1] = 0.95;
  f->solimp[3 * k + 2] = 0.001;
}

// appends a row to the open block; returns its index
static inline int add_row(fixture* f, const double* jrow, double e, double pos, double mu,
                          double bound) {
  int i = f->nefc++;
  assert_true(i < NCMAX);
  memcpy(f->J + (size_t)i * (size_t)f->nv, jrow, sizeof(double) * (size_t)f->nv);
  f->e[i] = e;
  f->pos[i] = pos;
  f->mu[i] = mu;
  f->bound[i] = bound;
  f->dim[f->nblock - 1]++;
  return i;
}

// A's Cholesky factor, b = A v_free, and the problem's pointers
static inline void fixture_finish(fixture* f) {
  int nv = f->nv;
  memcpy(f->L, f->A, sizeof(double) * (size_t)(nv * nv));
  assert_int_equal(tf_cholesky(nv, f->L), 0);
  for (int i = 0; i < nv; i++) {
    f->b[i] = 0;
    for (int k = 0; k < nv; k++) f->b[i] += f->A[i * nv + k] * f->v_free[k];
  }
  tf_constraint_problem* p = &f->p;
  p->nv = nv;
  p->nefc = f->nefc;
  p->nblock = f->nblock;
  p->h = f->h;
  p->A = f->A;
  p->A_factor = f->L;
  p->b = f->b;
  p->v_free = f->v_free;
  p->v0 = f->v0;
  p->J = f->J;
  p->e = f->e;
  p->pos = f->pos;
  p->mu = f->mu;
  p->bound = f->bound;
  p->block_type = f->type;
  p->block_adr = f->adr;
  p->block_dim = f->dim;
  p->solref = f->solref;
  p->solimp = f->solimp;
}

// ---------------------------------------------------------------- the box

static const double box_mass = 2;
static const double box_half[3] = {0.2, 0.1, 0.05};

// out = a x b
static inline void cross(double out[3], const double a[3], const double b[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

// a free box with velocity v0 (linear world, angular body = world axes) under gravity g
static inline void box_body(fixture* f, const double g[3], const double v0[6], double h) {
  fixture_init(f, 6, h);
  double m = box_mass, x = box_half[0], y = box_half[1], z = box_half[2];
  double inertia[3] = {m / 3 * (y * y + z * z), m / 3 * (x * x + z * z), m / 3 * (x * x + y * y)};
  for (int k = 0; k < 3; k++) {
    f->A[k * 6 + k] = m;
    f->A[(k + 3) * 6 + k + 3] = inertia[k];
  }
  for (int k = 0; k < 6; k++) f->v0[k] = v0 ? v0[k] : 0;
  for (int k = 0; k < 6; k++) f->v_free[k] = f->v0[k] + (k < 3 ? h * g[k] : 0);
}

// a contact at corner r with normal n and tangents t1, t2 (dim 3 with friction mu, dim 1
// frictionless when dim1 is set); gap >= 0 is speculative
static inline void add_contact(fixture* f, const double r[3], const double n[3], const double t1[3],
                               const double t2[3], double mu, double gap, int dim1) {
  begin_block(f, TF_EFC_CONTACT);
  const double* dirs[3] = {n, t1, t2};
  for (int k = 0; k < (dim1 ? 1 : 3); k++) {
    double row[6], rxd[3];
    cross(rxd, r, dirs[k]);
    for (int c = 0; c < 3; c++) {
      row[c] = dirs[k][c];
      row[c + 3] = rxd[c];
    }
    add_row(f, row, k == 0 ? fmax(gap, 0) / f->h : 0, k == 0 ? gap : 0, k == 0 ? 0 : mu, 0);
  }
}

// the box on the plane z = 0 on its four bottom corners; gravity g in the plane's frame
// (an incline is a tilted g)
static inline void box_on_plane(fixture* f, const double g[3], const double v0[6], double h,
                                double mu, int dim1) {
  box_body(f, g, v0, h);
  static const double n[3] = {0, 0, 1}, t1[3] = {1, 0, 0}, t2[3] = {0, 1, 0};
  for (int sx = -1; sx <= 1; sx += 2) {
    for (int sy = -1; sy <= 1; sy += 2) {
      double r[3] = {sx * box_half[0], sy * box_half[1], -box_half[2]};
      add_contact(f, r, n, t1, t2, mu, 0, dim1);
    }
  }
  fixture_finish(f);
}

// gravity in the frame of a plane tilted by angle about y: the box slides toward +x
static inline void incline_gravity(double g[3], double angle) {
  g[0] = G * sin(angle);
  g[1] = 0;
  g[2] = -G * cos(angle);
}

// ---------------------------------------------------------------- model and data for the arena

typedef struct env {
  tf_model* m;
  tf_data* d;
} env;

// a model of nbody free bodies (at most NCMAX) and its data
static inline env make_env(int nbody) {
  tf_joint_type joints[NCMAX];
  assert_true(nbody <= NCMAX);
  for (int i = 0; i < nbody; i++) joints[i] = TF_JOINT_FREE;
  env e;
  e.m = solver_model(joints, nbody, 0);
  e.d = tf_data_create(e.m);
  assert_non_null(e.d);
  return e;
}

// releases make_env's model and data
static inline void free_env(env* e) {
  tf_data_destroy(e->d);
  tf_model_destroy(e->m);
}

// one environment shared by the tests: its arena is the solvers' scratch
static inline int setup(void** state) {
  env* e = malloc(sizeof(env));
  *e = make_env(1);
  *state = e;
  return 0;
}

// frees setup's environment
static inline int teardown(void** state) {
  env* e = *state;
  free_env(e);
  free(e);
  return 0;
}

// ---------------------------------------------------------------- helpers

// the defaults every test starts from (tolerance 1e-10, 100 outer, 30 inner iterations)
static inline tf_solver_settings settings(void) { return tf_solver_settings_default(); }

typedef struct result {
  double v[NVMAX], lambda[NCMAX];
  tf_solver_stats stats;
  int rc;
  size_t arena_peak;
} result;

// runs one solver (warm: initial lambda or NULL), checks it released its scratch and
// returned finite numbers, and measures the scratch it took
static inline result solve(env* e, tf_solve_fn fn, const fixture* f, const tf_solver_settings* s,
                           const double* warm) {
  result r;
  memset(&r, 0, sizeof(r));
  if (warm) memcpy(r.lambda, warm, sizeof(double) * (size_t)f->nefc);
  e->d->arena_peak = e->d->arena_top;
  size_t top = e->d->arena_top;
  r.rc = fn(e->m, e->d, &f->p, s, r.v, r.lambda, &r.stats);
  assert_int_equal(e->d->arena_top, top);  // the solver released its scratch
  r.arena_peak = e->d->arena_peak - top;
  for (int i = 0; i < f->nv; i++) assert_true(isfinite(r.v[i]));
  for (int i = 0; i < f->nefc; i++) assert_true(isfinite(r.lambda[i]));
  return r;
}

// one line per solve: the numbers quoted in reports
static inline void report(const char* name, const result* r) {
  print_message(
      "  %-28s rc %d  iterations %3d  primal %.2e  dual %.2e  comp %.2e  conv %d  "
      "arena %zu B\n",
      name, r->rc, r->stats.iterations, r->stats.primal_residual, r->stats.dual_residual,
      r->stats.complementarity, r->stats.converged, r->arena_peak);
}

// (J v)_i
static inline double row_velocity(const fixture* f, const double* v, int i) {
  double s = 0;
  for (int k = 0; k < f->nv; k++) s += f->J[(size_t)i * (size_t)f->nv + k] * v[k];
  return s;
}

// every contact impulse inside its cone (to a relative 1e-12)
static inline void assert_in_cones(const fixture* f, const double* lambda) {
  for (int blk = 0; blk < f->nblock; blk++) {
    if (f->type[blk] != TF_EFC_CONTACT) continue;
    int adr = f->adr[blk];
    double ln = lambda[adr], t2 = 0;
    assert_true(ln >= -1e-14);
    for (int k = 1; k < f->dim[blk]; k++) {
      double mk = f->mu[adr + k];
      if (mk > 0) {
        t2 += (lambda[adr + k] / mk) * (lambda[adr + k] / mk);
      } else {
        assert_true(fabs(lambda[adr + k]) <= 1e-14);
      }
    }
    assert_true(sqrt(t2) <= ln * (1 + 1e-12) + 1e-15);
  }
}

// sums of the normal and tangential impulses of the box's four contacts
static inline void contact_sums(const fixture* f, const double* lambda, double* n, double t[2]) {
  *n = t[0] = t[1] = 0;
  for (int blk = 0; blk < f->nblock; blk++) {
    int adr = f->adr[blk];
    *n += lambda[adr];
    for (int k = 1; k < f->dim[blk] && k < 3; k++) t[k - 1] += lambda[adr + k];

#endif  // TF_TEST_SOLVER_FIXTURE_H
