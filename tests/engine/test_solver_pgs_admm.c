// The pgs and admm constraint solvers on hand-built problems with known answers: a box
// resting on four corners, a box on an incline that sticks or slides (Coulomb's g (sin - mu
// cos)), frictionless contact, a joint limit, joint dry friction with breakaway, a point held
// by an equality (against the KKT solve), isotropic friction on a sliding puck (a pyramid
// would bend the impulse), anisotropic torsional friction, speculative gaps and separation, a
// contact block of rank 1, a two-box stack whose rows join two subtrees, warm starts, a tree
// whose dofs are not contiguous, a larger stack that checks the scratch bounds, a heavy block
// landing on a light one (converged by admm, bounded and dissipative for both at any budget),
// and admm with a user penalty or without a matching model. No collision pipeline: the rows
// are written out from the rigid-body kinematics of free bodies (world-axes linear dofs,
// body-axes angular dofs, com at the body origin). The model / data only supply the arena
// (and, for admm, the tree structure).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_dense.h"
#include "solver.h"
#include "tightfit.h"
#include "solver_model.h"

#define NV_MAX 64
#define NEFC_MAX 512
#define NBLOCK_MAX 256
#define NBODY_MAX 8
#define G 9.81

// ---------------------------------------------------------------- problem scaffolding

typedef struct test_body {
  int dof;        // first of its 6 dofs
  double pos[3];  // com = body origin, world
  double rot[9];  // row-major, body to world
} test_body;

typedef struct test_problem {
  tf_constraint_problem p;
  int nv, nefc, nblock, nbody;
  double h;
  test_body body[NBODY_MAX];
  double A[NV_MAX * NV_MAX], factor[NV_MAX * NV_MAX], b[NV_MAX], v_free[NV_MAX], v0[NV_MAX];
  double Jw[NEFC_MAX * NV_MAX];  // rows at stride NV_MAX while building
  double J[NEFC_MAX * NV_MAX], e[NEFC_MAX], pos[NEFC_MAX], mu[NEFC_MAX], bound[NEFC_MAX];
  int type[NBLOCK_MAX], adr[NBLOCK_MAX], dim[NBLOCK_MAX];
  double solref[2 * NBLOCK_MAX], solimp[3 * NBLOCK_MAX];
} test_problem;

typedef struct solver_entry {
  const char* name;
  tf_solve_fn fn;
} solver_entry;

static const solver_entry solvers[] = {{"pgs", tf_solve_pgs}, {"admm", tf_solve_admm}};
#define NSOLVER 2

static test_problem* tp_new(int nv, double h) {
  test_problem* t = calloc(1, sizeof(test_problem));
  assert_non_null(t);
  assert_true(nv <= NV_MAX);
  t->nv = nv;
  t->h = h;
  return t;
}

static void mat_rot_y(double r[9], double angle) {
  double c = cos(angle), s = sin(angle);
  double m[9] = {c, 0, s, 0, 1, 0, -s, 0, c};
  memcpy(r, m, sizeof(m));
}

static void mat_identity(double r[9]) {
  memset(r, 0, 9 * sizeof(double));
  r[0] = r[4] = r[8] = 1;
}

static void mat_vec(double out[3], const double r[9], const double x[3]) {
  for (int i = 0; i < 3; i++) out[i] = r[3 * i] * x[0] + r[3 * i + 1] * x[1] + r[3 * i + 2] * x[2];
}

static void cross(double out[3], const double a[3], const double b[3]) {
  double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  memcpy(out, c, sizeof(c));
}

static double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// a free body: A gets diag(m, m, m, I_body); returns its index
static int tp_free_body(test_problem* t, int dof, double mass, const double inertia[3],
                        const double pos[3], const double rot[9]) {
  assert_true(t->nbody < NBODY_MAX && dof + 6 <= t->nv);
  test_body* bd = &t->body[t->nbody];
  bd->dof = dof;
  memcpy(bd->pos, pos, 3 * sizeof(double));
  memcpy(bd->rot, rot, 9 * sizeof(double));
  for (int k = 0; k < 3; k++) {
    t->A[(dof + k) * t->nv + dof + k] = mass;
    t->A[(dof + 3 + k) * t->nv + dof + 3 + k] = inertia[k];
  }
  return t->nbody++;
}

// box inertia about its centre from half-sizes
static void box_inertia(double out[3], double mass, const double half[3]) {
  out[0] = mass / 3 * (half[1] * half[1] + half[2] * half[2]);
  out[1] = mass / 3 * (half[0] * half[0] + half[2] * half[2]);
  out[2] = mass / 3 * (half[0] * half[0] + half[1] * half[1]);
}

// row += sign * (velocity of the body's material point at world p, along world dir):
// dir . v + (R^T (r x dir)) . w_body
static void add_point_row(test_problem* t, double* row, int body, const double p[3],
                          const double dir[3], double sign) {
  const test_body* bd = &t->body[body];
  double r[3] = {p[0] - bd->pos[0], p[1] - bd->pos[1], p[2] - bd->pos[2]}, rxd[3];
  cross(rxd, r, dir);
  for (int k = 0; k < 3; k++) {
    row[bd->dof + k] += sign * dir[k];
    double ang = bd->rot[k] * rxd[0] + bd->rot[3 + k] * rxd[1] + bd->rot[6 + k] * rxd[2];
    row[bd->dof + 3 + k] += sign * ang;
  }
}

static int tp_block(test_problem* t, tf_efc_type type, int dim) {
  assert_true(t->nblock < NBLOCK_MAX && t->nefc + dim <= NEFC_MAX);
  int blk = t->nblock++;
  t->type[blk] = type;
  t->adr[blk] = t->nefc;
  t->dim[blk] = dim;
  t->solref[2 * blk] = 0.02;
  t->solref[2 * blk + 1] = 1;
  t->solimp[3 * blk] = 0.9;
  t->solimp[3 * blk + 1] = 0.95;
  t->solimp[3 * blk + 2] = 0.001;
  t->nefc += dim;
  return blk;
}

static double* tp_row(test_problem* t, int i) { return t->Jw + (size_t)i * NV_MAX; }

// a contact at world point p with normal n from body1 (-1: the world) to body2; mu < 0 makes
// it frictionless (1 row), else rows normal, t1, t2 with t1 given (orthogonal to n)
static int tp_contact(test_problem* t, int body1, int body2, const double p[3], const double n[3],
                      const double t1[3], double mu, double e_n) {
  int dim = mu < 0 ? 1 : 3;
  int blk = tp_block(t, TF_EFC_CONTACT, dim);
  int adr = t->adr[blk];
  double t2[3];
  cross(t2, n, t1);
  const double* dirs[3] = {n, t1, t2};
  for (int k = 0; k < dim; k++) {
    double* row = tp_row(t, adr + k);
    add_point_row(t, row, body2, p, dirs[k], 1);
    if (body1 >= 0) add_point_row(t, row, body1, p, dirs[k], -1);
    t->mu[adr + k] = k > 0 ? mu : 0;
    t->e[adr + k] = k == 0 ? e_n : 0;
  }
  return blk;
}

// a scalar row on one dof
static int tp_dof_row(test_problem* t, tf_efc_type type, int dof, double e, double bound) {
  int blk = tp_block(t, type, 1);
  tp_row(t, t->adr[blk])[dof] = 1;
  t->e[t->adr[blk]] = e;
  t->bound[t->adr[blk]] = bound;
  return blk;
}

// packs J to nv columns, factors A, b = A v_free, and points the problem at the arrays
static const tf_constraint_problem* tp_finish(test_problem* t) {
  int nv = t->nv;
  for (int i = 0; i < t->nefc; i++)
    memcpy(t->J + (size_t)i * nv, tp_row(t, i), nv * sizeof(double));
  memcpy(t->factor, t->A, sizeof(double) * nv * nv);
  assert_int_equal(tf_cholesky(nv, t->factor), 0);
  for (int i = 0; i < nv; i++) {
    double s = 0;
    for (int k = 0; k < nv; k++) s += t->A[i * nv + k] * t->v_free[k];
    t->b[i] = s;
  }
  tf_constraint_problem* p = &t->p;
  p->nv = nv;
  p->nefc = t->nefc;
  p->nblock = t->nblock;
  p->h = t->h;
  p->A = t->A;
  p->A_factor = t->factor;
  p->b = t->b;
  p->v_free = t->v_free;
  p->v0 = t->v0;
  p->J = t->J;
  p->e = t->e;
  p->pos = t->pos;
  p->mu = t->mu;
  p->bound = t->bound;
  p->block_type = t->type;
  p->block_adr = t->adr;
  p->block_dim = t->dim;
  p->solref = t->solref;
  p->solimp = t->solimp;
  return p;
}

// row velocity J_i v + e_i
static double row_velocity(const tf_constraint_problem* p, const double* v, int i) {
  double s = p->e[i];
  for (int k = 0; k < p->nv; k++) s += p->J[(size_t)i * p->nv + k] * v[k];
  return s;
}

// ---------------------------------------------------------------- model scaffolding

typedef struct test_env {
  tf_model* m;
  tf_data* d;
} test_env;

static test_env env_free_bodies(int nbody, int npad) {
  tf_joint_type joints[NBODY_MAX];
  for (int i = 0; i < nbody; i++) joints[i] = TF_JOINT_FREE;
  test_env env;
  env.m = solver_model(joints, nbody, npad);
  env.d = tf_data_create(env.m);
  assert_non_null(env.d);
  return env;
}

static test_env env_slide(void) {
  tf_joint_type joint = TF_JOINT_SLIDE;
  test_env env;
  env.m = solver_model(&joint, 1, 0);
  env.d = tf_data_create(env.m);
  assert_non_null(env.d);
  return env;
}

static void env_free(test_env env) {
  tf_data_destroy(env.d);
  tf_model_destroy(env.m);
}

// runs one solver from the given warm start (NULL: zeros); checks the arena comes back and
// returns the bytes of scratch it used
static size_t run_solver(const solver_entry* sv, test_env env, const tf_constraint_problem* p,
                         const tf_solver_settings* s, const double* warm, double* v, double* lambda,
                         tf_solver_stats* stats) {
  for (int i = 0; i < p->nefc; i++) lambda[i] = warm ? warm[i] : 0;
  size_t top = env.d->arena_top;
  env.d->arena_peak = top;
  int status = sv->fn(env.m, env.d, p, s, v, lambda, stats);
  assert_int_equal(status, 0);
  assert_int_equal(env.d->arena_top, top);
  for (int i = 0; i < p->nv; i++) assert_true(isfinite(v[i]));
  for (int i = 0; i < p->nefc; i++) assert_true(isfinite(lambda[i]));
  return env.d->arena_peak - top;
}

static void report(const char* test, const solver_entry* sv, const tf_solver_stats* st) {
  print_message("%-22s %-4s iters %5d primal %.2e dual %.2e comp %.2e conv %d\n", test, sv->name,
                st->iterations, st->primal_residual, st->dual_residual, st->complementarity,
                st->converged);
}

static tf_solver_settings settings(int iterations, double tolerance) {
  tf_solver_settings s = tf_solver_settings_default();
  s.iterations = iterations;
  s.tolerance = tolerance;
  return s;
}

// every contact impulse inside its cone (relative slack eps)
static void assert_in_cones(const tf_constraint_problem* p, const double* lambda, double eps) {
  for (int blk = 0; blk < p->nblock; blk++) {
    if (p->block_type[blk] != TF_EFC_CONTACT) continue;
    int adr = p->block_adr[blk], dim = p->block_dim[blk];
    assert_true(lambda[adr] >= -eps);
    double t2 = 0;
    for (int k = 1; k < dim; k++) t2 += pow(lambda[adr + k] / p->mu[adr + k], 2);
    assert_true(sqrt(t2) <= lambda[adr] * (1 + eps) + eps);
  }
}

// ---------------------------------------------------------------- scenes

// a box (half-sizes hx, hy, hz) lying on the plane through the origin with normal rot e_z,
// one contact per bottom corner
static test_problem* box_on_plane(double tilt, double mu, double h, double mass,
                                  const double half[3]) {
  test_problem* t = tp_new(6, h);
  double rot[9], inertia[3], pos[3], up[3] = {0, 0, half[2]};
  mat_rot_y(rot, tilt);
  mat_vec(pos, rot, up);
  box_inertia(inertia, mass, half);
  int body = tp_free_body(t, 0, mass, inertia, pos, rot);
  double ex[3] = {1, 0, 0}, ez[3] = {0, 0, 1}, n[3], t1[3];
  mat_vec(n, rot, ez);
  mat_vec(t1, rot, ex);
  for (int c = 0; c < 4; c++) {
    double local[3] = {(c & 1) ? half[0] : -half[0], (c & 2) ? half[1] : -half[1], -half[2]};
    double w[3];
    mat_vec(w, rot, local);
    for (int k = 0; k < 3; k++) w[k] += pos[k];
    tp_contact(t, -1, body, w, n, t1, mu, 0);
  }
  t->v_free[2] = -G * h;
  return t;
}

// 4 contacts at the corners: stays put, carries m g h, impulses in the cones
static void test_resting_box(void** state) {
  (void)state;
  double half[3] = {0.2, 0.15, 0.1}, mass = 2, h = 0.01;
  test_problem* t = box_on_plane(0, 0.8, h, mass, half);
  const tf_constraint_problem* p = tp_finish(t);
  test_env env = env_free_bodies(1, 0);
  tf_solver_settings s = settings(2000, 1e-10);
  for (int k = 0; k < NSOLVER; k++) {
    double v[6], lambda[12];
    tf_solver_stats st;
    run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
    report("resting box", &solvers[k], &st);
    assert_true(st.converged);
    for (int i = 0; i < 6; i++) assert_true(fabs(v[i]) < 1e-9);
    double sum_n = 0, sum_t[2] = {0, 0};
    for (int c = 0; c < 4; c++) {
      assert_true(fabs(row_velocity(p, v, 3 * c)) < 1e-9);
      sum_n += lambda[3 * c];
      sum_t[0] += lambda[3 * c + 1];
      sum_t[1] += lambda[3 * c + 2];
    }
    assert_true(fabs(sum_n - mass * G * h) < 1e-9);
    assert_true(fabs(sum_t[0]) < 1e-9 && fabs(sum_t[1]) < 1e-9);
    assert_in_cones(p, lambda, 1e-9);
  }
  env_free(env);
  free(t);
}

// on a 20 degree incline: mu = 0.5 > tan 20 sticks, mu = 0.2 slides at g (sin - mu cos) with
// every friction impulse on its cone, opposing the slip
static void incline_case(double mu, int frictionless) {
  double half[3] = {0.2, 0.15, 0.1}, mass = 1.5, h = 0.01, angle = 20 * M_PI / 180;
  test_problem* t = box_on_plane(angle, frictionless ? -1 : mu, h, mass, half);
  const tf_constraint_problem* p = tp_finish(t);
  test_env env = env_free_bodies(1, 0);
  tf_solver_settings s = settings(5000, 1e-10);
  double down[3] = {cos(angle), 0, -sin(angle)};
  double expect =
      frictionless ? G * h * sin(angle) : fmax(0, G * h * (sin(angle) - mu * cos(angle)));
  const char* name = frictionless ? "incline frictionless"
                     : expect > 0 ? "incline slide"
                                  : "incline stick";
  for (int k = 0; k < NSOLVER; k++) {
    double v[6], lambda[12];
    tf_solver_stats st;
    run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
    report(name, &solvers[k], &st);
    assert_true(st.converged);
    double along = dot3(v, down);
    print_message("    %s: speed along the slope %.12f expected %.12f\n", solvers[k].name, along,
                  expect);
    assert_true(fabs(along - expect) < 1e-9);
    for (int i = 0; i < 3; i++) assert_true(fabs(v[i] - along * down[i]) < 1e-9);
    for (int i = 3; i < 6; i++) assert_true(fabs(v[i]) < 1e-9);
    int dim = p->block_dim[0];
    double sum_n = 0, sum_t = 0;
    for (int c = 0; c < 4; c++) {
      double un = row_velocity(p, v, dim * c);
      assert_true(fabs(un) < 1e-9);
      sum_n += lambda[dim * c];
      if (dim == 3) {
        sum_t += lambda[dim * c + 1];
        if (expect > 0 && lambda[dim * c] > 1e-6) {
          // sliding: on the cone, opposite the slip (slip along +t1)
          assert_true(fabs(lambda[dim * c + 1] + mu * lambda[dim * c]) < 1e-9);
          assert_true(fabs(lambda[dim * c + 2]) < 1e-9);
        }
      }
    }
    assert_true(fabs(sum_n - mass * G * h * cos(angle)) < 1e-9);
    if (dim == 3 && expect == 0) assert_true(fabs(sum_t + mass * G * h * sin(angle)) < 1e-9);
    assert_in_cones(p, lambda, 1e-9);
  }
  env_free(env);
  free(t);
}

static void test_incline_stick(void** state) {
  (void)state;
  incline_case(0.5, 0);
}

static void test_incline_slide(void** state) {
  (void)state;
  incline_case(0.2, 0);
}

static void test_incline_frictionless(void** state) {
  (void)state;
  incline_case(0, 1);
}

// a slider of mass 2 against a limit: pushed in it stops (or is pushed out by e < 0), moving
// away it is free
static void test_limit_row(void** state) {
  (void)state;
  test_env env = env_slide();
  tf_solver_settings s = settings(200, 1e-12);
  const double cases[3][4] = {
      // v_free, e, expected v, expected lambda
      {-0.5, 0, 0, 1.0},
      {-0.5, -0.01, 0.01, 1.02},
      {0.3, 0, 0.3, 0},
  };
  for (int c = 0; c < 3; c++) {
    test_problem* t = tp_new(1, 0.01);
    t->A[0] = 2;
    t->v_free[0] = cases[c][0];
    tp_dof_row(t, TF_EFC_LIMIT, 0, cases[c][1], 0);
    const tf_constraint_problem* p = tp_finish(t);
    for (int k = 0; k < NSOLVER; k++) {
      double v[1], lambda[1];
      tf_solver_stats st;
      run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
      report("limit", &solvers[k], &st);
      assert_true(st.converged);
      assert_true(fabs(v[0] - cases[c][2]) < 1e-12);
      assert_true(fabs(lambda[0] - cases[c][3]) < 1e-12);
    }
    free(t);
  }
  env_free(env);
}

// joint dry friction of 5 N over h = 0.01 (bound 0.05) on a mass of 2: 3 N does not move it
// (lambda = -m v_free), 8 N breaks away with lambda = -bound sign(v)
static void test_joint_friction(void** state) {
  (void)state;
  test_env env = env_slide();
  tf_solver_settings s = settings(200, 1e-12);
  double h = 0.01, mass = 2, bound = 5 * h;
  const double forces[4] = {3, -3, 8, -8};
  for (int c = 0; c < 4; c++) {
    test_problem* t = tp_new(1, h);
    t->A[0] = mass;
    t->v_free[0] = h * forces[c] / mass;
    tp_dof_row(t, TF_EFC_FRICTION, 0, 0, bound);
    const tf_constraint_problem* p = tp_finish(t);
    double expect_v =
        fabs(forces[c]) * h < bound ? 0 : t->v_free[0] - copysign(bound, forces[c]) / mass;
    double expect_l =
        fabs(forces[c]) * h < bound ? -mass * t->v_free[0] : -copysign(bound, forces[c]);
    for (int k = 0; k < NSOLVER; k++) {
      double v[1], lambda[1];
      tf_solver_stats st;
      run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
      report("joint friction", &solvers[k], &st);
      assert_true(st.converged);
      assert_true(fabs(v[0] - expect_v) < 1e-12);
      assert_true(fabs(lambda[0] - expect_l) < 1e-12);
    }
    free(t);
  }
  env_free(env);
}

// dense Gaussian elimination with partial pivoting, x <- M^-1 x (n x n row-major, destroyed)
static void dense_solve(double* mat, double* x, int n) {
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++) {
      if (fabs(mat[r * n + c]) > fabs(mat[piv * n + c])) piv = r;
    }
    for (int k = 0; k < n; k++) {
      double tmp = mat[c * n + k];
      mat[c * n + k] = mat[piv * n + k];
      mat[piv * n + k] = tmp;
    }
    double tmp = x[c];
    x[c] = x[piv];
    x[piv] = tmp;
    for (int r = c + 1; r < n; r++) {
      double f = mat[r * n + c] / mat[c * n + c];
      for (int k = c; k < n; k++) mat[r * n + k] -= f * mat[c * n + k];
      x[r] -= f * x[c];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    double s = x[r];
    for (int k = r + 1; k < n; k++) s -= mat[r * n + k] * x[k];
    x[r] = s / mat[r * n + r];
  }
}

// the equality-only answer from the KKT system [A -J^T; J 0] [v; lambda] = [b; -e]
static void kkt_reference(const tf_constraint_problem* p, double* v, double* lambda) {
  int nv = p->nv, nc = p->nefc, n = nv + nc;
  double* mat = calloc((size_t)(n * n), sizeof(double));
  double* x = calloc((size_t)n, sizeof(double));
  for (int i = 0; i < nv; i++) {
    for (int k = 0; k < nv; k++) mat[i * n + k] = p->A[i * nv + k];
    for (int j = 0; j < nc; j++) {
      mat[i * n + nv + j] = -p->J[j * nv + i];
      mat[(nv + j) * n + i] = p->J[j * nv + i];
    }
    x[i] = p->b[i];
  }
  for (int j = 0; j < nc; j++) x[nv + j] = -p->e[j];
  dense_solve(mat, x, n);
  memcpy(v, x, sizeof(double) * nv);
  memcpy(lambda, x + nv, sizeof(double) * nc);
  free(mat);
  free(x);
}

// a tilted box hanging from a corner (a 3-row point equality) swings as the KKT solve says
static void test_equality_point(void** state) {
  (void)state;
  double half[3] = {0.1, 0.2, 0.05}, mass = 3, h = 0.005, inertia[3], rot[9], pos[3] = {0, 0, 1};
  test_problem* t = tp_new(6, h);
  mat_rot_y(rot, 0.4);
  box_inertia(inertia, mass, half);
  int body = tp_free_body(t, 0, mass, inertia, pos, rot);
  double local[3] = {half[0], half[1], half[2]}, anchor[3];
  mat_vec(anchor, rot, local);
  for (int k = 0; k < 3; k++) anchor[k] += pos[k];
  int blk = tp_block(t, TF_EFC_EQUALITY, 3);
  for (int k = 0; k < 3; k++) {
    double dir[3] = {k == 0, k == 1, k == 2};
    add_point_row(t, tp_row(t, t->adr[blk] + k), body, anchor, dir, 1);
    t->e[t->adr[blk] + k] = 1e-3 * (k + 1);  // a small drift to correct
  }
  double v0[6] = {0.1, -0.2, 0.05, 0.3, -0.1, 0.2};
  for (int i = 0; i < 6; i++) t->v_free[i] = v0[i];
  t->v_free[2] -= G * h;
  const tf_constraint_problem* p = tp_finish(t);
  double v_ref[6], l_ref[3];
  kkt_reference(p, v_ref, l_ref);
  test_env env = env_free_bodies(1, 0);
  tf_solver_settings s = settings(1000, 1e-12);
  for (int k = 0; k < NSOLVER; k++) {
    double v[6], lambda[3];
    tf_solver_stats st;
    run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
    report("equality point", &solvers[k], &st);
    assert_true(st.converged);
    for (int i = 0; i < 6; i++) assert_true(fabs(v[i] - v_ref[i]) < 1e-10);
    for (int i = 0; i < 3; i++) {
      assert_true(fabs(lambda[i] - l_ref[i]) < 1e-10);
      assert_true(fabs(row_velocity(p, v, i)) < 1e-10);
    }
  }
  env_free(env);
  free(t);
}

// a puck sliding at 30 degrees to the contact frame's t1: the friction impulse points exactly
// against the slip (an elliptic cone is isotropic; a 4-sided pyramid bends it toward a face)
static void test_isotropy(void** state) {
  (void)state;
  double mass = 0.5, radius = 0.1, half_h = 0.02, h = 0.01, mu = 0.3, speed = 1.0;
  double inertia[3] = {mass * (3 * radius * radius + 4 * half_h * half_h) / 12,
                       mass * (3 * radius * radius + 4 * half_h * half_h) / 12,
                       mass * radius * radius / 2};
  double rot[9], pos[3] = {0, 0, half_h}, below[3] = {0, 0, 0}, n[3] = {0, 0, 1};
  double t1[3] = {1, 0, 0};
  mat_identity(rot);
  test_env env = env_free_bodies(1, 0);
  tf_solver_settings s = settings(2000, 1e-12);
  const double angles[2] = {30, 115};
  for (int a = 0; a < 2; a++) {
    test_problem* t = tp_new(6, h);
    tp_free_body(t, 0, mass, inertia, pos, rot);
    tp_contact(t, -1, 0, below, n, t1, mu, 0);
    double dir = angles[a] * M_PI / 180;
    t->v_free[0] = speed * cos(dir);
    t->v_free[1] = speed * sin(dir);
    t->v_free[2] = -G * h;
    const tf_constraint_problem* p = tp_finish(t);
    for (int k = 0; k < NSOLVER; k++) {
      double v[6], lambda[3];
      tf_solver_stats st;
      run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
      report("isotropy", &solvers[k], &st);
      assert_true(st.converged);
      double slip[2] = {row_velocity(p, v, 1), row_velocity(p, v, 2)};
      double impulse_angle = atan2(-lambda[2], -lambda[1]);
      double slip_angle = atan2(slip[1], slip[0]);
      print_message("    %s: slip at %.12f deg, friction against %.12f deg\n", solvers[k].name,
                    slip_angle * 180 / M_PI, impulse_angle * 180 / M_PI);
      assert_true(fabs(impulse_angle - dir) < 1e-9);
      assert_true(fabs(slip_angle - dir) < 1e-9);
      assert_true(fabs(lambda[0] - mass * G * h) < 1e-10);
      assert_true(fabs(hypot(lambda[1], lambda[2]) - mu * lambda[0]) < 1e-10);
      assert_true(fabs(row_velocity(p, v, 0)) < 1e-10);
    }
    free(t);
  }
  env_free(env);
}

// a spinning, sliding puck with torsional friction (condim 4, mu = [., 0.4, 0.4, 0.01 m]): the
// elliptic cone is anisotropic, and maximal dissipation puts the impulse along -mu_k^2 u_k,
// not -u_k; a pure spin slows by mu_tor m g h / I_zz
static void test_torsion(void** state) {
  (void)state;
  double mass = 0.5, radius = 0.1, half_h = 0.02, h = 0.01, mu = 0.4, mu_tor = 0.01;
  double inertia[3] = {mass * (3 * radius * radius + 4 * half_h * half_h) / 12,
                       mass * (3 * radius * radius + 4 * half_h * half_h) / 12,
                       mass * radius * radius / 2};
  double rot[9], pos[3] = {0, 0, half_h}, below[3] = {0, 0, 0}, n[3] = {0, 0, 1};
  double t1[3] = {1, 0, 0};
  mat_identity(rot);
  test_env env = env_free_bodies(1, 0);
  tf_solver_settings s = settings(5000, 1e-12);
  const double slides[2] = {0, 0.4};
  for (int c = 0; c < 2; c++) {
    test_problem* t = tp_new(6, h);
    tp_free_body(t, 0, mass, inertia, pos, rot);
    int blk = tp_contact(t, -1, 0, below, n, t1, mu, 0);
    // a fourth row: spin about the normal (body z = world z here)
    t->dim[blk] = 4;
    t->nefc++;
    tp_row(t, 3)[5] = 1;
    t->mu[3] = mu_tor;
    t->v_free[0] = slides[c];
    t->v_free[2] = -G * h;
    t->v_free[5] = 20;  // rad / s
    const tf_constraint_problem* p = tp_finish(t);
    for (int k = 0; k < NSOLVER; k++) {
      double v[6], lambda[4];
      tf_solver_stats st;
      run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
      report(c == 0 ? "torsion: spin" : "torsion: spin + slide", &solvers[k], &st);
      assert_true(st.converged);
      double u[4], du = 0;
      for (int i = 0; i < 4; i++) u[i] = row_velocity(p, v, i);
      for (int i = 1; i < 4; i++) du += pow(p->mu[i] * u[i], 2);
      du = sqrt(du);
      assert_true(fabs(u[0]) < 1e-10);
      assert_true(fabs(lambda[0] - mass * G * h) < 1e-10);
      assert_true(du > 0);
      for (int i = 1; i < 4; i++) {
        double expect = -lambda[0] * p->mu[i] * p->mu[i] * u[i] / du;
        print_message("    %s: row %d impulse %.12e, maximal dissipation %.12e\n", solvers[k].name,
                      i, lambda[i], expect);
        assert_true(fabs(lambda[i] - expect) < 1e-10 * lambda[0] * (i == 3 ? mu_tor : mu) + 1e-15);
      }
      if (c == 0) {
        assert_true(fabs(v[5] - (20 - mu_tor * mass * G * h / inertia[2])) < 1e-9);
      }
    }
    free(t);
  }
  env_free(env);
}

// a speculative gap (e = gap / h > 0) lets the box approach by exactly the gap; a box moving
// up leaves with no impulse
static void test_gap_and_separation(void** state) {
  (void)state;
  double half[3] = {0.2, 0.15, 0.1}, mass = 2, h = 0.01;
  test_env env = env_free_bodies(1, 0);
  tf_solver_settings s = settings(2000, 1e-12);
  const double cases[3][3] = {
      // v_free z, e (gap / h), expected v z
      {-1.0, 0.4, -0.4},
      {-0.2, 0.4, -0.2},
      {0.5, 0, 0.5},
  };
  for (int c = 0; c < 3; c++) {
    test_problem* t = box_on_plane(0, 0.5, h, mass, half);
    t->v_free[2] = cases[c][0];
    for (int b = 0; b < 4; b++) t->e[3 * b] = cases[c][1];
    const tf_constraint_problem* p = tp_finish(t);
    for (int k = 0; k < NSOLVER; k++) {
      double v[6], lambda[12];
      tf_solver_stats st;
      run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
      report("gap / separation", &solvers[k], &st);
      assert_true(st.converged);
      assert_true(fabs(v[2] - cases[c][2]) < 1e-11);
      double sum = 0;
      for (int b = 0; b < 4; b++) sum += lambda[3 * b];
      assert_true(fabs(sum - mass * (cases[c][2] - cases[c][0])) < 1e-11);
      for (int i = 0; i < 6; i++) {
        if (i != 2) assert_true(fabs(v[i]) < 1e-11);
      }
    }
    free(t);
  }
  env_free(env);
}

// a 1-dof slider driven diagonally into the ground: its 3 contact rows are parallel (W_BB of
// rank 1, the impulse not unique); it must stop, with the impulse in the cone
static void test_degenerate_block(void** state) {
  (void)state;
  test_env env = env_slide();
  tf_solver_settings s = settings(2000, 1e-12);
  const double mus[2] = {1.5, 0.5};
  for (int c = 0; c < 2; c++) {
    test_problem* t = tp_new(1, 0.01);
    t->A[0] = 2;
    t->v_free[0] = 0.3;
    int blk = tp_block(t, TF_EFC_CONTACT, 3);
    int adr = t->adr[blk];
    tp_row(t, adr)[0] = -M_SQRT1_2;     // normal: the slider moves down
    tp_row(t, adr + 1)[0] = M_SQRT1_2;  // and along t1
    tp_row(t, adr + 2)[0] = 0;
    t->mu[adr + 1] = t->mu[adr + 2] = mus[c];
    const tf_constraint_problem* p = tp_finish(t);
    for (int k = 0; k < NSOLVER; k++) {
      double v[1], lambda[3];
      tf_solver_stats st;
      run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
      report("degenerate block", &solvers[k], &st);
      print_message("    %s: v %.3e lambda %.6f %.6f %.6f\n", solvers[k].name, v[0], lambda[0],
                    lambda[1], lambda[2]);
      assert_true(st.converged);
      assert_in_cones(p, lambda, 1e-9);
      // moving on would push the point into the ground (u_n = -v / sqrt 2): it stops whether
      // or not friction alone could hold it
      assert_true(fabs(v[0]) < 1e-10);
      assert_true(fabs(-M_SQRT1_2 * (lambda[0] - lambda[1]) + 2 * 0.3) < 1e-10);
    }
    free(t);
  }
  env_free(env);
}

// two boxes stacked on the ground; the upper contacts join two subtrees (two subsystems in
// admm, one copy of each row per box)
static test_problem* two_box_stack(double mass_low, double mass_high, double mu, double h) {
  double half[3] = {0.2, 0.15, 0.1}, inertia[3], rot[9];
  test_problem* t = tp_new(12, h);
  mat_identity(rot);
  double pos0[3] = {0, 0, half[2]}, pos1[3] = {0.03, -0.02, 3 * half[2]};
  box_inertia(inertia, mass_low, half);
  int low = tp_free_body(t, 0, mass_low, inertia, pos0, rot);
  box_inertia(inertia, mass_high, half);
  int high = tp_free_body(t, 6, mass_high, inertia, pos1, rot);
  double n[3] = {0, 0, 1}, t1[3] = {1, 0, 0};
  for (int c = 0; c < 4; c++) {
    double w[3] = {(c & 1) ? half[0] : -half[0], (c & 2) ? half[1] : -half[1], 0};
    tp_contact(t, -1, low, w, n, t1, mu, 0);
  }
  for (int c = 0; c < 4; c++) {
    // the upper box's corners, on the lower box's top face
    double w[3] = {pos1[0] + ((c & 1) ? half[0] : -half[0]) * 0.9,
                   pos1[1] + ((c & 2) ? half[1] : -half[1]) * 0.9, 2 * half[2]};
    tp_contact(t, low, high, w, n, t1, mu, 0);
  }
  t->v_free[2] = -G * h;
  t->v_free[8] = -G * h;
  return t;
}

static void test_two_box_stack(void** state) {
  (void)state;
  double h = 0.01;
  const double ratios[2][2] = {{1, 1}, {1, 10}};
  test_env env = env_free_bodies(2, 0);
  tf_solver_settings s = settings(20000, 1e-10);
  for (int r = 0; r < 2; r++) {
    double ml = ratios[r][0], mh = ratios[r][1];
    test_problem* t = two_box_stack(ml, mh, 0.6, h);
    const tf_constraint_problem* p = tp_finish(t);
    for (int k = 0; k < NSOLVER; k++) {
      double v[12], lambda[24];
      tf_solver_stats st;
      run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
      report(r == 0 ? "stack 1:1" : "stack 1:10", &solvers[k], &st);
      assert_true(st.converged);
      for (int i = 0; i < 12; i++) assert_true(fabs(v[i]) < 1e-9);
      double ground = 0, between = 0;
      for (int c = 0; c < 4; c++) {
        ground += lambda[3 * c];
        between += lambda[12 + 3 * c];
      }
      // the solvers stop on row velocities (1e-10 here), so a body of mass m carries its
      // load to m * 1e-10 or so
      assert_true(fabs(ground - (ml + mh) * G * h) < 1e-10 * (ml + mh) + 1e-9);
      assert_true(fabs(between - mh * G * h) < 1e-10 * mh + 1e-9);
      assert_in_cones(p, lambda, 1e-9);
    }
    free(t);
  }
  env_free(env);
}

// warm starts: from the answer, one sweep; from the previous step's answer of a nearby
// problem, fewer iterations than cold
static void test_warm_start(void** state) {
  (void)state;
  double h = 0.01;
  test_env env = env_free_bodies(2, 0);
  tf_solver_settings s = settings(20000, 1e-10);
  test_problem* t = two_box_stack(1, 3, 0.6, h);
  const tf_constraint_problem* p = tp_finish(t);
  test_problem* t2 = two_box_stack(1, 3, 0.6, h);
  t2->v_free[0] = 1e-3;   // the next step: a small sideways nudge on the lower box
  t2->v_free[9] = 2e-3;   // and a small spin of the upper one
  t2->v_free[2] *= 1.01;  // slightly more load
  const tf_constraint_problem* p2 = tp_finish(t2);
  for (int k = 0; k < NSOLVER; k++) {
    double v[12], cold[24], warm[24], next[24];
    tf_solver_stats st_cold, st_warm, st_next_cold, st_next_warm;
    run_solver(&solvers[k], env, p, &s, NULL, v, cold, &st_cold);
    run_solver(&solvers[k], env, p, &s, cold, v, warm, &st_warm);
    run_solver(&solvers[k], env, p2, &s, NULL, v, next, &st_next_cold);
    run_solver(&solvers[k], env, p2, &s, cold, v, next, &st_next_warm);
    report("warm: cold", &solvers[k], &st_cold);
    report("warm: from answer", &solvers[k], &st_warm);
    report("warm: next cold", &solvers[k], &st_next_cold);
    report("warm: next warm", &solvers[k], &st_next_warm);
    assert_true(st_cold.converged && st_warm.converged);
    assert_true(st_next_cold.converged && st_next_warm.converged);
    assert_true(st_warm.iterations <= 3);
    assert_true(st_warm.iterations < st_cold.iterations);
    assert_true(st_next_warm.iterations < st_next_cold.iterations);
  }
  free(t);
  free(t2);
  env_free(env);
}

// a model whose first tree's dofs are not contiguous (tree 1, tree 2, then tree 1's child):
// M from crba, a mix of every row type across both trees; pgs and admm agree with each other
// and, for the equality-only subset, with the KKT solve
static void test_interleaved_trees(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  tf_body_def body = tf_body_def_default();
  body.mass = 1.2;
  body.inertia[0] = 0.02;
  body.inertia[1] = 0.03;
  body.inertia[2] = 0.025;
  body.name = "a";
  body.pos[2] = 1;
  int a = tf_builder_add_body(b, &body);
  body.name = "b";
  body.pos[0] = 1;
  int bb = tf_builder_add_body(b, &body);
  body.name = "a_child";
  body.parent = a;
  body.pos[0] = 0.3;
  body.com[0] = 0.1;
  body.mass = 0.7;
  int ac = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.type = TF_JOINT_FREE;
  joint.name = "ja";
  joint.body = a;
  tf_builder_add_joint(b, &joint);
  joint.name = "jb";
  joint.body = bb;
  tf_builder_add_joint(b, &joint);
  joint.type = TF_JOINT_HINGE;
  joint.name = "jc";
  joint.body = ac;
  joint.axis[0] = 0;
  joint.axis[1] = 1;
  joint.axis[2] = 0;
  joint.qpos0[0] = 0.3;
  tf_builder_add_joint(b, &joint);
  char err[256];
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  if (!m) print_message("compile: %s\n", err);
  tf_builder_destroy(b);
  assert_non_null(m);
  assert_int_equal(m->nv, 13);
  assert_int_equal(m->dof_bodyid[12], ac);
  tf_data* d = tf_data_create(m);
  tf_kinematics(m, d);
  tf_crba(m, d);
  test_env env = {m, d};

  test_problem* t = tp_new(13, 0.01);
  for (int i = 0; i < 13 * 13; i++) t->A[i] = d->qM[i];
  for (int i = 0; i < 13; i++) t->A[i * 13 + i] += 0.01 * (i % 3);  // implicit damping
  // cross-tree entries must be zero for the split to be exact
  for (int i = 0; i < 13; i++) {
    for (int k = 6; k < 12; k++) {
      if (i < 6 || i == 12) assert_true(t->A[i * 13 + k] == 0);
    }
  }
  const double vf[13] = {0.1, -0.3, -0.2, 0.5, 0.1, -0.2, -0.1, 0.2, -0.4, 0.0, 0.3, 0.1, 0.8};
  memcpy(t->v_free, vf, sizeof(vf));
  // rows: equality between trees (3), a hinge limit, a hinge friction row, a frictionless
  // contact row joining both trees, a limit on tree b
  int eq = tp_block(t, TF_EFC_EQUALITY, 3);
  for (int k = 0; k < 3; k++) {
    double* row = tp_row(t, t->adr[eq] + k);
    for (int c = 0; c < 13; c++) row[c] = sin(1.0 + c * (k + 2.3)) * ((c + k) % 4 != 0);
    t->e[t->adr[eq] + k] = 0.01 * k;
  }
  tp_dof_row(t, TF_EFC_LIMIT, 12, 0.0, 0);
  tp_dof_row(t, TF_EFC_FRICTION, 12, 0.0, 0.002);
  int ct = tp_block(t, TF_EFC_CONTACT, 1);
  for (int c = 0; c < 13; c++) tp_row(t, t->adr[ct])[c] = cos(0.7 * c) * (c != 12);
  tp_dof_row(t, TF_EFC_LIMIT, 8, 0.0, 0);
  const tf_constraint_problem* p = tp_finish(t);
  tf_solver_settings s = settings(20000, 1e-11);
  double v[2][13], lambda[2][7];
  for (int k = 0; k < NSOLVER; k++) {
    tf_solver_stats st;
    run_solver(&solvers[k], env, p, &s, NULL, v[k], lambda[k], &st);
    report("interleaved trees", &solvers[k], &st);
    assert_true(st.converged);
  }
  double diff = 0;
  for (int i = 0; i < 13; i++) diff = fmax(diff, fabs(v[0][i] - v[1][i]));
  print_message("    pgs vs admm: max |dv| %.2e\n", diff);
  assert_true(diff < 1e-8);
  // the equality rows alone against the KKT solve
  t->nblock = 1;
  t->nefc = 3;
  p = tp_finish(t);
  double v_ref[13], l_ref[3];
  kkt_reference(p, v_ref, l_ref);
  for (int k = 0; k < NSOLVER; k++) {
    tf_solver_stats st;
    run_solver(&solvers[k], env, p, &s, NULL, v[k], lambda[k], &st);
    report("interleaved eq only", &solvers[k], &st);
    for (int i = 0; i < 13; i++) assert_true(fabs(v[k][i] - v_ref[i]) < 1e-9);
  }
  free(t);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// a column of six boxes on a 4 x 3 grid of contacts per face (216 rows, nv 36): both solvers
// converge, and the scratch each takes is reported against the formula in its file
static void test_tall_stack_arena(void** state) {
  (void)state;
  const int nbox = 6;
  double half[3] = {0.2, 0.15, 0.1}, mass = 1, h = 0.01, inertia[3], rot[9];
  test_problem* t = tp_new(6 * nbox, h);
  mat_identity(rot);
  box_inertia(inertia, mass, half);
  for (int i = 0; i < nbox; i++) {
    double pos[3] = {0, 0, (2 * i + 1) * half[2]};
    tp_free_body(t, 6 * i, mass, inertia, pos, rot);
    t->v_free[6 * i + 2] = -G * h;
  }
  double n[3] = {0, 0, 1}, t1[3] = {1, 0, 0};
  for (int i = 0; i < nbox; i++) {
    for (int gx = 0; gx < 4; gx++) {
      for (int gy = 0; gy < 3; gy++) {
        double w[3] = {half[0] * (-1 + gx * 2.0 / 3), half[1] * (-1 + gy), 2 * i * half[2]};
        tp_contact(t, i - 1, i, w, n, t1, 0.5, 0);
      }
    }
  }
  const tf_constraint_problem* p = tp_finish(t);
  int nv = p->nv, nefc = p->nefc;
  test_env env = env_free_bodies(nbox, 1500);
  print_message("    tall stack: nv %d nefc %d, arena %zu bytes\n", nv, nefc, env.d->narena);
  tf_solver_settings s = settings(100000, 1e-8);
  double* v = calloc((size_t)nv, sizeof(double));
  double* lambda = calloc((size_t)nefc, sizeof(double));
  for (int k = 0; k < NSOLVER; k++) {
    tf_solver_stats st;
    size_t used = run_solver(&solvers[k], env, p, &s, NULL, v, lambda, &st);
    report("tall stack", &solvers[k], &st);
    // the bounds in the files' design comments
    double bound = k == 0 ? (double)nv * nefc + 6.0 * nefc + 16
                          : (double)nv * nv + 3.5 * nv + 56.5 * nefc + 190;
    print_message("    %s: arena used %zu bytes = %zu doubles (bound %.0f)\n", solvers[k].name,
                  used, used / 8, bound);
    assert_true((double)used / 8 <= bound);
    assert_true(st.converged);
    double vmax = 0, ground = 0;
    for (int i = 0; i < nv; i++) vmax = fmax(vmax, fabs(v[i]));
    for (int c = 0; c < 12; c++) ground += lambda[3 * c];
    print_message("    %s: max |v| %.2e, ground impulse error %.2e\n", solvers[k].name, vmax,
                  ground - nbox * mass * G * h);
    assert_true(vmax < 1e-6);
    assert_true(fabs(ground - nbox * mass * G * h) < 1e-7);
  }
  free(v);
  free(lambda);
  free(t);
  env_free(env);
}

// CRISP's top-heavy stack by hand (validate/gate_contact.c, stack_ratio100): 0.1 m cubes of
// 0.01, 1 and 100 kg bottom to top on 4 corner contacts per face, mu 5, h = 1 ms, the top
// landing at 0.3 m/s: every body stops, the ground carrying the whole impulse
static test_problem* heavy_on_light(double v_land, double h) {
  const double masses[3] = {0.01, 1, 100}, half[3] = {0.05, 0.05, 0.05};
  test_problem* t = tp_new(18, h);
  double rot[9], inertia[3], n[3] = {0, 0, 1}, t1[3] = {1, 0, 0};
  mat_identity(rot);
  for (int i = 0; i < 3; i++) {
    double pos[3] = {0, 0, (2 * i + 1) * half[2]};
    box_inertia(inertia, masses[i], half);
    tp_free_body(t, 6 * i, masses[i], inertia, pos, rot);
    t->v_free[6 * i + 2] = -G * h;
  }
  t->v_free[14] -= v_land;
  for (int i = 0; i < 3; i++) {
    for (int c = 0; c < 4; c++) {
      double w[3] = {(c & 1) ? half[0] : -half[0], (c & 2) ? half[1] : -half[1], 2 * i * half[2]};
      tp_contact(t, i - 1, i, w, n, t1, 5.0, 0);
    }
  }
  return t;
}

// kinetic energy 1/2 v'A v
static double kinetic(const tf_constraint_problem* p, const double* v) {
  double e = 0;
  for (int i = 0; i < p->nv; i++) {
    for (int k = 0; k < p->nv; k++) e += 0.5 * v[i] * p->A[i * p->nv + k] * v[k];
  }
  return e;
}

// admm absorbs the landing within the default budget; cut short, either solver's answer keeps
// its impulses in the cones and adds no kinetic energy, also when the next step (the stack at
// rest) starts from the landing's impulses (before the dissipation guard the 100-iteration
// admm answer to the landing had 6e4 J and the light block at 356 m/s, and 100 sweeps of pgs
// from the landing's impulses threw the stack back up)
static void test_heavy_on_light(void** state) {
  (void)state;
  double h = 0.001, v_land = 0.3, masses = 0.01 + 1 + 100;
  test_problem* t = heavy_on_light(v_land, h);
  test_problem* t_next = heavy_on_light(0, h);
  const tf_constraint_problem* p = tp_finish(t);
  const tf_constraint_problem* p_next = tp_finish(t_next);
  test_env env = env_free_bodies(3, 0);
  double v[18], lambda[36], landing[36], e_free = kinetic(p, p->v_free);
  tf_solver_stats st;
  tf_solver_settings s = tf_solver_settings_default();
  run_solver(&solvers[1], env, p, &s, NULL, v, lambda, &st);
  report("heavy on light", &solvers[1], &st);
  assert_true(st.converged);
  double vmax = 0, ground = 0, top = 0;
  for (int i = 0; i < 18; i++) vmax = fmax(vmax, fabs(v[i]));
  for (int c = 0; c < 4; c++) {
    ground += lambda[3 * c];
    top += lambda[24 + 3 * c];
  }
  print_message("    admm: max |v| %.2e, ground impulse error %.2e\n", vmax,
                ground - masses * G * h - 100 * v_land);
  assert_true(vmax < 1e-8);
  assert_true(fabs(ground - masses * G * h - 100 * v_land) < 1e-8);
  assert_true(fabs(top - 100 * (G * h + v_land)) < 1e-8);
  assert_in_cones(p, lambda, 1e-9);
  memcpy(landing, lambda, sizeof(landing));
  const int budgets[5] = {1, 3, 10, 30, 100};
  for (int k = 0; k < NSOLVER; k++) {
    for (int b = 0; b < 5; b++) {
      s = settings(budgets[b], 1e-10);
      for (int next = 0; next < 2; next++) {
        const tf_constraint_problem* q = next ? p_next : p;
        run_solver(&solvers[k], env, q, &s, next ? landing : NULL, v, lambda, &st);
        double e = kinetic(q, v), e0 = kinetic(q, q->v_free);
        vmax = 0;
        for (int i = 0; i < 18; i++) vmax = fmax(vmax, fabs(v[i]));
        print_message(
            "    %s %s, %3d iterations: converged %d, energy %.3e of %.3e, max |v| %.2e\n",
            solvers[k].name, next ? "next step" : "landing  ", budgets[b], st.converged, e, e0,
            vmax);
        assert_true(e <= e0 * (1 + 1e-12));
        assert_in_cones(q, lambda, 1e-9);
      }
    }
  }
  (void)e_free;
  env_free(env);
  free(t);
  free(t_next);
}

// a user penalty (settings->penalty > 0) is used as given, without balancing: still the
// Coulomb answer on the incline, more slowly when it is far from the problem's scale
static void test_admm_fixed_penalty(void** state) {
  (void)state;
  double half[3] = {0.2, 0.15, 0.1}, mass = 1.5, h = 0.01, angle = 20 * M_PI / 180, mu = 0.2;
  test_problem* t = box_on_plane(angle, mu, h, mass, half);
  const tf_constraint_problem* p = tp_finish(t);
  test_env env = env_free_bodies(1, 0);
  const double penalties[3] = {0.3, 3, 30};
  double down[3] = {cos(angle), 0, -sin(angle)};
  for (int c = 0; c < 3; c++) {
    tf_solver_settings s = settings(20000, 1e-10);
    s.penalty = penalties[c];
    double v[6], lambda[12];
    tf_solver_stats st;
    run_solver(&solvers[1], env, p, &s, NULL, v, lambda, &st);
    char label[32];
    snprintf(label, sizeof(label), "fixed penalty %g", penalties[c]);
    report(label, &solvers[1], &st);
    assert_true(st.converged);
    assert_true(fabs(dot3(v, down) - G * h * (sin(angle) - mu * cos(angle))) < 1e-9);
  }
  env_free(env);
  free(t);
}

// the fallback without a matching model: admm's subsystems come from A's sparsity
static void test_admm_without_model(void** state) {
  (void)state;
  test_problem* t = two_box_stack(1, 2, 0.6, 0.01);
  const tf_constraint_problem* p = tp_finish(t);
  test_env env = env_free_bodies(1, 200);  // nv 6 != 12
  tf_solver_settings s = settings(20000, 1e-10);
  double v[12], lambda[24];
  tf_solver_stats st;
  run_solver(&solvers[1], env, p, &s, NULL, v, lambda, &st);
  report("admm, no model", &solvers[1], &st);
  assert_true(st.converged);
  for (int i = 0; i < 12; i++) assert_true(fabs(v[i]) < 1e-9);
  free(t);
  env_free(env);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resting_box),
      cmocka_unit_test(test_incline_stick),
      cmocka_unit_test(test_incline_slide),
      cmocka_unit_test(test_incline_frictionless),
      cmocka_unit_test(test_limit_row),
      cmocka_unit_test(test_joint_friction),
      cmocka_unit_test(test_equality_point),
      cmocka_unit_test(test_isotropy),
      cmocka_unit_test(test_torsion),
      cmocka_unit_test(test_gap_and_separation),
      cmocka_unit_test(test_degenerate_block),
      cmocka_unit_test(test_two_box_stack),
      cmocka_unit_test(test_warm_start),
      cmocka_unit_test(test_interleaved_trees),
      cmocka_unit_test(test_tall_stack_arena),
      cmocka_unit_test(test_heavy_on_light),
      cmocka_unit_test(test_admm_fixed_penalty),
      cmocka_unit_test(test_admm_without_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
