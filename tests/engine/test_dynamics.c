// Tests of the smooth dynamics against physics computed another way: kinetic energy from
// body twists against 0.5 v^T M v (crba), body velocities against finite differences of
// the poses (kinematics + integrate_pos), inverse dynamics against M qacc + c (rnea and
// crba), the bias forces against Lagrange's equations with a numerically differentiated M,
// momentum and energy of a torque-free body under rk4, and the mass matrix's symmetry and
// positive definiteness.
//
// Every model comes from the builder with fixed-seed pseudo-random masses, coms, full
// (non-diagonal) inertias, poses, anchors and axes, so the tests exercise the general case
// (no symmetry to hide a wrong sign or a transposed rotation) and still run the same way
// every time.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "linalg_dense.h"
#include "test_rng.h"
#include "tf_math.h"
#include "model_internal.h"
#include "tightfit.h"

#define NSTATE 20
#define MAX_BODY 8
#define MAX_NV 16

// ---------------------------------------------------------------- random numbers

// ---------------------------------------------------------------- small linear algebra

// out = a (n x n, row-major) * x
static void mat_vec(double* out, const double* a, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    out[i] = 0;
    for (int j = 0; j < n; j++) out[i] += a[i * n + j] * x[j];
  }
}

// 0.5 x^T a x
static double half_quadratic_form(const double* a, const double* x, int n) {
  double ax[MAX_NV];
  mat_vec(ax, a, x, n);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += x[i] * ax[i];
  return 0.5 * sum;
}

static double norm_n(const double* x, int n) {
  double sum = 0;
  for (int i = 0; i < n; i++) sum += x[i] * x[i];
  return sqrt(sum);
}

// |a - b| / |a| over n entries
static double relative_diff(const double* a, const double* b, int n) {
  double diff[MAX_NV * 6];
  for (int i = 0; i < n; i++) diff[i] = a[i] - b[i];
  return norm_n(diff, n) / norm_n(a, n);
}

// out = r a r^T for 3x3 matrices (a body-axes tensor expressed in world axes)
static void rotate_tensor(double out[9], const double r[9], const double a[9]) {
  double ra[9];
  tf_mat3_mul(ra, r, a);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      out[3 * i + j] =
          ra[3 * i] * r[3 * j] + ra[3 * i + 1] * r[3 * j + 1] + ra[3 * i + 2] * r[3 * j + 2];
    }
  }
}

// ---------------------------------------------------------------- models

// a compiled model plus the body properties exactly as they were handed to the builder,
// so the tests can compute physics from the definitions rather than from the compiled
// (diagonalised) form
typedef struct test_model {
  tf_model* model;
  double mass[MAX_BODY];
  double com[MAX_BODY][3];      // body frame
  double inertia[MAX_BODY][9];  // about the com, body axes, full 3x3
} test_model;

// adds a body with random offset, orientation, mass, com and a full random inertia
// (principal moments in [s, 1.9 s) so the triangle inequality holds, random axes)
static int add_random_body(tf_builder* b, test_model* tm, test_rng* rng, const char* name,
                           int parent) {
  tf_body_def def = tf_body_def_default();
  def.name = name;
  def.parent = parent;
  for (int k = 0; k < 3; k++) def.pos[k] = rng_uniform(rng, -0.4, 0.4);
  random_quat(rng, def.quat);
  def.mass = rng_uniform(rng, 0.5, 3.0);
  for (int k = 0; k < 3; k++) def.com[k] = rng_uniform(rng, -0.2, 0.2);
  double scale = rng_uniform(rng, 0.01, 0.1), moments[9] = {0}, axes_q[4], axes[9], full[9];
  for (int k = 0; k < 3; k++) moments[4 * k] = rng_uniform(rng, scale, 1.9 * scale);
  random_quat(rng, axes_q);
  tf_quat_to_mat(axes, axes_q);
  rotate_tensor(full, axes, moments);
  // symmetrise exactly: the builder takes six numbers
  double in6[6] = {full[0], full[4], full[8], full[1], full[2], full[5]};
  memcpy(def.inertia, in6, sizeof(in6));
  int id = tf_builder_add_body(b, &def);
  assert_true(id > 0 && id < MAX_BODY);
  tm->mass[id] = def.mass;
  memcpy(tm->com[id], def.com, sizeof(def.com));
  double sym[9] = {in6[0], in6[3], in6[4], in6[3], in6[1], in6[5], in6[4], in6[5], in6[2]};
  memcpy(tm->inertia[id], sym, sizeof(sym));
  return id;
}

// adds a joint with a random anchor and axis
static void add_random_joint(tf_builder* b, test_rng* rng, const char* name, int body,
                             tf_joint_type type, double armature) {
  tf_joint_def def = tf_joint_def_default();
  def.name = name;
  def.body = body;
  def.type = type;
  for (int k = 0; k < 3; k++) def.pos[k] = rng_uniform(rng, -0.2, 0.2);
  random_unit_vec(rng, def.axis);
  def.armature = armature > 0 ? rng_uniform(rng, 0.5 * armature, 1.5 * armature) : 0;
  if (type == TF_JOINT_BALL) tf_quat_identity(def.qpos0);
  assert_true(tf_builder_add_joint(b, &def) >= 0);
}

// compiles or fails the test with the builder's message
static void compile_into(test_model* tm, tf_builder* b) {
  char err[256];
  tm->model = tf_builder_compile(b, err, sizeof(err));
  if (!tm->model) print_message("compile failed: %s\n", err);
  assert_non_null(tm->model);
  tf_builder_destroy(b);
}

// a 7-dof chain (hinge; slide + hinge on one body; ball; hinge) plus a separate free
// body: every joint type, a body with two joints, and a second tree
static void build_mixed_model(test_model* tm, uint64_t seed, double armature,
                              const double gravity[3]) {
  memset(tm, 0, sizeof(*tm));
  test_rng rng = {seed};
  tf_builder* b = tf_builder_create();
  assert_non_null(b);
  tf_option opt = tf_option_default();
  tf_vec3_copy(opt.gravity, gravity);
  tf_builder_set_option(b, &opt);
  int link1 = add_random_body(b, tm, &rng, "link1", 0);
  add_random_joint(b, &rng, "hinge1", link1, TF_JOINT_HINGE, armature);
  int link2 = add_random_body(b, tm, &rng, "link2", link1);
  add_random_joint(b, &rng, "slide2", link2, TF_JOINT_SLIDE, armature);
  add_random_joint(b, &rng, "hinge2", link2, TF_JOINT_HINGE, armature);
  int link3 = add_random_body(b, tm, &rng, "link3", link2);
  add_random_joint(b, &rng, "ball3", link3, TF_JOINT_BALL, armature);
  int link4 = add_random_body(b, tm, &rng, "link4", link3);
  add_random_joint(b, &rng, "hinge4", link4, TF_JOINT_HINGE, armature);
  int floater = add_random_body(b, tm, &rng, "floater", 0);
  add_random_joint(b, &rng, "free", floater, TF_JOINT_FREE, armature);
  compile_into(tm, b);
}

// a chain of hinges and slides only (qpos and qvel are the same coordinates), with a
// body that carries two hinges
static void build_hinge_slide_chain(test_model* tm, uint64_t seed) {
  memset(tm, 0, sizeof(*tm));
  test_rng rng = {seed};
  tf_builder* b = tf_builder_create();
  assert_non_null(b);
  tf_option opt = tf_option_default();
  double gravity[3] = {0.4, -0.3, -9.81};
  tf_vec3_copy(opt.gravity, gravity);
  tf_builder_set_option(b, &opt);
  int link1 = add_random_body(b, tm, &rng, "link1", 0);
  add_random_joint(b, &rng, "hinge1", link1, TF_JOINT_HINGE, 0.05);
  int link2 = add_random_body(b, tm, &rng, "link2", link1);
  add_random_joint(b, &rng, "slide2", link2, TF_JOINT_SLIDE, 0.05);
  int link3 = add_random_body(b, tm, &rng, "link3", link2);
  add_random_joint(b, &rng, "hinge3a", link3, TF_JOINT_HINGE, 0.05);
  add_random_joint(b, &rng, "hinge3b", link3, TF_JOINT_HINGE, 0.05);
  int link4 = add_random_body(b, tm, &rng, "link4", link3);
  add_random_joint(b, &rng, "hinge4", link4, TF_JOINT_HINGE, 0.05);
  int link5 = add_random_body(b, tm, &rng, "link5", link4);
  add_random_joint(b, &rng, "slide5", link5, TF_JOINT_SLIDE, 0.05);
  compile_into(tm, b);
}

// a random state: hinge angles anywhere on the circle, unit quaternions for balls and
// free joints, velocities of order one
static void random_state(const tf_model* m, tf_data* d, test_rng* rng) {
  for (int j = 0; j < m->njnt; j++) {
    double* q = d->qpos + m->jnt_qposadr[j];
    switch (m->jnt_type[j]) {
      case TF_JOINT_FREE:
        for (int k = 0; k < 3; k++) q[k] = rng_uniform(rng, -1, 1);
        random_quat(rng, q + 3);
        break;
      case TF_JOINT_BALL:
        random_quat(rng, q);
        break;
      case TF_JOINT_HINGE:
        q[0] = rng_uniform(rng, -M_PI, M_PI);
        break;
      default:
        q[0] = rng_uniform(rng, -0.3, 0.3);
        break;
    }
  }
  for (int i = 0; i < m->nv; i++) d->qvel[i] = rng_uniform(rng, -2, 2);
}

// ---------------------------------------------------------------- tests

// T = sum over bodies of m |v_c|^2 / 2 + w Ic w / 2, with the com and the world inertia
// taken from the builder definitions, must equal 0.5 v^T M v: crba and the velocity pass
// agree, and the compiled (diagonalised) inertia is the one that was defined
static void test_kinetic_energy_from_body_twists(void** state) {
  (void)state;
  const double gravity[3] = {0, 0, -9.81};
  test_model tm;
  build_mixed_model(&tm, 101, 0.0, gravity);
  const tf_model* m = tm.model;
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  test_rng rng = {202};
  double worst = 0, worst_inertia = 0, worst_com = 0;
  for (int s = 0; s < NSTATE; s++) {
    random_state(m, d, &rng);
    tf_kinematics(m, d);
    tf_velocity(m, d);
    tf_crba(m, d);
    double twist_energy = 0;
    for (int b = 1; b < m->nbody; b++) {
      const double* xmat = d->xmat + 9 * b;
      // com and inertia from the definitions
      double offset[3], com[3], ic[9];
      tf_mat3_mul_vec(offset, xmat, tm.com[b]);
      tf_vec3_add(com, d->xpos + 3 * b, offset);
      rotate_tensor(ic, xmat, tm.inertia[b]);
      double com_diff[3];
      tf_vec3_sub(com_diff, com, d->xipos + 3 * b);
      worst_com = fmax(worst_com, tf_vec3_norm(com_diff) / fmax(1, tf_vec3_norm(com)));

      // the compiled inertia: R diag(I) R^T with R = ximat
      double diag[9] = {0}, ic_model[9];
      for (int k = 0; k < 3; k++) diag[4 * k] = m->body_inertia[3 * b + k];
      rotate_tensor(ic_model, d->ximat + 9 * b, diag);
      double scale = 0, err = 0;
      for (int k = 0; k < 9; k++) {
        scale = fmax(scale, fabs(ic[k]));
        err = fmax(err, fabs(ic[k] - ic_model[k]));
      }
      worst_inertia = fmax(worst_inertia, err / scale);

      // v_c = v_O + w x c
      const double* w = d->cvel + 6 * b;
      double wxc[3], vc[3], icw[3];
      tf_vec3_cross(wxc, w, d->xipos + 3 * b);
      tf_vec3_add(vc, d->cvel + 6 * b + 3, wxc);
      tf_mat3_mul_vec(icw, ic, w);
      twist_energy += 0.5 * tm.mass[b] * tf_vec3_dot(vc, vc) + 0.5 * tf_vec3_dot(w, icw);
    }
    double matrix_energy = half_quadratic_form(d->qM, d->qvel, m->nv);
    double rel = fabs(twist_energy - matrix_energy) / matrix_energy;
    if (rel > 1e-12) {
      print_message("state %d: twist energy %.17g, 0.5 v'Mv %.17g, relative %.3e\n", s,
                    twist_energy, matrix_energy, rel);
    }
    worst = fmax(worst, rel);
  }
  print_message("kinetic energy: worst relative %.3e; compiled inertia vs defined %.3e; com %.3e\n",
                worst, worst_inertia, worst_com);
  assert_true(worst < 1e-12);
  assert_true(worst_inertia < 1e-12);
  assert_true(worst_com < 1e-14);
  tf_data_destroy(d);
  tf_model_destroy(tm.model);
}

// the com velocity and angular velocity in cvel must be the time derivatives of the
// poses that tf_kinematics produces along tf_integrate_pos: a check of the velocity pass
// that does not use it (central differences, error O(eps^2))
static void test_body_velocity_matches_finite_differences(void** state) {
  (void)state;
  const double gravity[3] = {0, 0, -9.81};
  test_model tm;
  build_mixed_model(&tm, 101, 0.0, gravity);
  const tf_model* m = tm.model;
  tf_data* d = tf_data_create(m);
  tf_data* plus = tf_data_create(m);
  tf_data* minus = tf_data_create(m);
  assert_true(d && plus && minus);
  test_rng rng = {303};
  const double eps = 1e-5;
  double worst_linear = 0, worst_angular = 0;
  for (int s = 0; s < NSTATE; s++) {
    random_state(m, d, &rng);
    tf_kinematics(m, d);
    tf_velocity(m, d);
    tf_integrate_pos(m, plus->qpos, d->qpos, d->qvel, eps);
    tf_integrate_pos(m, minus->qpos, d->qpos, d->qvel, -eps);
    tf_kinematics(m, plus);
    tf_kinematics(m, minus);

    // stacked over bodies: engine and finite-difference com and angular velocities
    double lin[6 * MAX_BODY], lin_fd[6 * MAX_BODY], ang[6 * MAX_BODY], ang_fd[6 * MAX_BODY];
    int n = 3 * (m->nbody - 1);
    for (int b = 1; b < m->nbody; b++) {
      double* v = lin + 3 * (b - 1);
      double* v_fd = lin_fd + 3 * (b - 1);
      double* w = ang + 3 * (b - 1);
      double* w_fd = ang_fd + 3 * (b - 1);
      double wxc[3];
      tf_vec3_copy(w, d->cvel + 6 * b);
      tf_vec3_cross(wxc, w, d->xipos + 3 * b);
      tf_vec3_add(v, d->cvel + 6 * b + 3, wxc);
      for (int k = 0; k < 3; k++) {
        v_fd[k] = (plus->xipos[3 * b + k] - minus->xipos[3 * b + k]) / (2 * eps);
      }
      // body-frame rotation from the minus pose to the plus pose, then to world axes
      double conj_minus[4], rel[4], rotvec[3], w_body[3];
      tf_quat_conj(conj_minus, minus->xquat + 4 * b);
      tf_quat_mul(rel, conj_minus, plus->xquat + 4 * b);
      tf_quat_to_rotvec(rotvec, rel);
      tf_vec3_scale(w_body, rotvec, 1.0 / (2 * eps));
      tf_quat_rotate(w_fd, d->xquat + 4 * b, w_body);
    }
    double rel_linear = relative_diff(lin, lin_fd, n);
    double rel_angular = relative_diff(ang, ang_fd, n);
    if (rel_linear > 1e-6 || rel_angular > 1e-6) {
      print_message("state %d: relative error linear %.3e angular %.3e\n", s, rel_linear,
                    rel_angular);
      for (int b = 1; b < m->nbody; b++) {
        const double* v = lin + 3 * (b - 1);
        const double* v_fd = lin_fd + 3 * (b - 1);
        const double* w = ang + 3 * (b - 1);
        const double* w_fd = ang_fd + 3 * (b - 1);
        print_message("  body %s: v_c %+.6f %+.6f %+.6f fd %+.6f %+.6f %+.6f\n", tf_body_name(m, b),
                      v[0], v[1], v[2], v_fd[0], v_fd[1], v_fd[2]);
        print_message("  body %s: w   %+.6f %+.6f %+.6f fd %+.6f %+.6f %+.6f\n", tf_body_name(m, b),
                      w[0], w[1], w[2], w_fd[0], w_fd[1], w_fd[2]);
      }
    }
    worst_linear = fmax(worst_linear, rel_linear);
    worst_angular = fmax(worst_angular, rel_angular);
  }
  print_message("body velocities vs finite differences: worst relative %.3e linear, %.3e angular\n",
                worst_linear, worst_angular);
  assert_true(worst_linear < 1e-6);
  assert_true(worst_angular < 1e-6);
  tf_data_destroy(d);
  tf_data_destroy(plus);
  tf_data_destroy(minus);
  tf_model_destroy(tm.model);
}

// rnea with an acceleration must be crba's M qacc plus rnea's bias (armature included on
// both sides); and the qacc that tf_forward solves for (no springs, dampers or actuators)
// must make the inverse dynamics vanish
static void test_inverse_dynamics_matches_mass_matrix(void** state) {
  (void)state;
  const double gravity[3] = {0.5, -0.2, -9.81};
  test_model tm;
  build_mixed_model(&tm, 404, 0.1, gravity);
  const tf_model* m = tm.model;
  int nv = m->nv;
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  test_rng rng = {505};
  double worst = 0, worst_forward = 0;
  for (int s = 0; s < NSTATE; s++) {
    random_state(m, d, &rng);
    double qacc[MAX_NV], tau[MAX_NV], bias[MAX_NV], expect[MAX_NV];
    for (int i = 0; i < nv; i++) qacc[i] = rng_uniform(&rng, -3, 3);
    tf_kinematics(m, d);
    tf_velocity(m, d);
    tf_crba(m, d);
    tf_rnea(m, d, bias, NULL);
    tf_rnea(m, d, tau, qacc);
    mat_vec(expect, d->qM, qacc, nv);
    for (int i = 0; i < nv; i++) expect[i] += bias[i];
    double rel = relative_diff(tau, expect, nv);
    if (rel > 1e-9) {
      print_message("state %d: relative %.3e\n", s, rel);
      for (int i = 0; i < nv; i++) {
        print_message("  dof %2d: rnea %+.12e  M qacc + c %+.12e\n", i, tau[i], expect[i]);
      }
    }
    worst = fmax(worst, rel);

    // forward then inverse: M qacc + c = 0
    assert_int_equal(tf_forward(m, d), 0);
    double residual[MAX_NV];
    tf_rnea(m, d, residual, d->qacc);
    double rel_forward = norm_n(residual, nv) / norm_n(d->qfrc_bias, nv);
    if (rel_forward > 1e-9) print_message("state %d: forward residual %.3e\n", s, rel_forward);
    worst_forward = fmax(worst_forward, rel_forward);
  }
  print_message("inverse dynamics: worst relative %.3e; forward residual %.3e\n", worst,
                worst_forward);
  assert_true(worst < 1e-9);
  assert_true(worst_forward < 1e-9);
  tf_data_destroy(d);
  tf_model_destroy(tm.model);
}

// M(q) at the given positions, through scratch data
static void mass_matrix_at(const tf_model* m, tf_data* scratch, const double* qpos, double* out) {
  memcpy(scratch->qpos, qpos, sizeof(double) * (size_t)m->nq);
  tf_kinematics(m, scratch);
  tf_crba(m, scratch);
  memcpy(out, scratch->qM, sizeof(double) * (size_t)(m->nv * m->nv));
}

// gravitational potential -sum m g . com at the given positions, from the definitions' masses
static double potential_at(const test_model* tm, tf_data* scratch, const double* qpos) {
  const tf_model* m = tm->model;
  memcpy(scratch->qpos, qpos, sizeof(double) * (size_t)m->nq);
  tf_kinematics(m, scratch);
  double v = 0;
  for (int b = 1; b < m->nbody; b++) {
    v -= tm->mass[b] * tf_vec3_dot(m->opt.gravity, scratch->xipos + 3 * b);
  }
  return v;
}

// Lagrange's equations for L = T - V with T = 0.5 v^T M(q) v give
//   c(q, v) = Mdot v - dT/dq + dV/dq
// so the velocity part of rnea's bias, c - g, must equal Mdot v - dT/dq with both
// derivatives taken numerically from crba alone, and g must be the gradient of the
// potential (valid where qpos and qvel are the same coordinates: hinges and slides)
static void test_coriolis_matches_lagrangian(void** state) {
  (void)state;
  test_model tm;
  build_hinge_slide_chain(&tm, 606);
  const tf_model* m = tm.model;
  int nv = m->nv;
  assert_int_equal(m->nq, nv);
  assert_true(nv <= MAX_NV);
  tf_data* d = tf_data_create(m);
  tf_data* scratch = tf_data_create(m);
  assert_true(d && scratch);
  test_rng rng = {707};
  const double eps = 1e-5;
  double worst = 0, worst_gravity = 0;
  for (int s = 0; s < NSTATE / 2; s++) {
    random_state(m, d, &rng);
    double q[MAX_NV], v[MAX_NV], c[MAX_NV], g[MAX_NV];
    memcpy(q, d->qpos, sizeof(double) * (size_t)nv);
    memcpy(v, d->qvel, sizeof(double) * (size_t)nv);
    tf_kinematics(m, d);
    tf_velocity(m, d);
    tf_rnea(m, d, c, NULL);
    memset(d->qvel, 0, sizeof(double) * (size_t)nv);
    tf_velocity(m, d);
    tf_rnea(m, d, g, NULL);
    memcpy(d->qvel, v, sizeof(double) * (size_t)nv);

    // Mdot v from M(q +- eps v)
    double qp[MAX_NV], qm[MAX_NV], mp[MAX_NV * MAX_NV], mm[MAX_NV * MAX_NV];
    double mdot[MAX_NV * MAX_NV], mdot_v[MAX_NV];
    for (int i = 0; i < nv; i++) {
      qp[i] = q[i] + eps * v[i];
      qm[i] = q[i] - eps * v[i];
    }
    mass_matrix_at(m, scratch, qp, mp);
    mass_matrix_at(m, scratch, qm, mm);
    for (int i = 0; i < nv * nv; i++) mdot[i] = (mp[i] - mm[i]) / (2 * eps);
    mat_vec(mdot_v, mdot, v, nv);

    // dT/dq_k and dV/dq_k from q +- eps e_k
    double lagrange[MAX_NV], lhs[MAX_NV], dvdq[MAX_NV];
    for (int k = 0; k < nv; k++) {
      memcpy(qp, q, sizeof(double) * (size_t)nv);
      memcpy(qm, q, sizeof(double) * (size_t)nv);
      qp[k] += eps;
      qm[k] -= eps;
      mass_matrix_at(m, scratch, qp, mp);
      mass_matrix_at(m, scratch, qm, mm);
      double dtdq = (half_quadratic_form(mp, v, nv) - half_quadratic_form(mm, v, nv)) / (2 * eps);
      lagrange[k] = mdot_v[k] - dtdq;
      lhs[k] = c[k] - g[k];
      dvdq[k] = (potential_at(&tm, scratch, qp) - potential_at(&tm, scratch, qm)) / (2 * eps);
    }
    double rel = relative_diff(lhs, lagrange, nv);
    double rel_gravity = relative_diff(g, dvdq, nv);
    if (rel > 1e-6 || rel_gravity > 1e-6) {
      print_message("state %d: relative %.3e (velocity terms), %.3e (gravity)\n", s, rel,
                    rel_gravity);
      for (int i = 0; i < nv; i++) {
        print_message("  dof %d: c-g %+.10e  Mdot v - dT/dq %+.10e  g %+.10e  dV/dq %+.10e\n", i,
                      lhs[i], lagrange[i], g[i], dvdq[i]);
      }
    }
    worst = fmax(worst, rel);
    worst_gravity = fmax(worst_gravity, rel_gravity);
  }
  print_message("coriolis vs lagrangian: worst relative %.3e; gravity vs dV/dq %.3e\n", worst,
                worst_gravity);
  assert_true(worst < 1e-6);
  assert_true(worst_gravity < 1e-6);
  tf_data_destroy(d);
  tf_data_destroy(scratch);
  tf_model_destroy(tm.model);
}

// a torque-free body tumbling in zero gravity keeps its momentum about the world origin;
// rk4 is not exactly conservative but its error at this step is far below the bound
static void test_free_body_momentum_and_energy(void** state) {
  (void)state;
  test_model tm;
  memset(&tm, 0, sizeof(tm));
  test_rng rng = {808};
  tf_builder* b = tf_builder_create();
  assert_non_null(b);
  tf_option opt = tf_option_default();
  opt.gravity[2] = 0;
  opt.integrator = TF_INTEGRATOR_RK4;
  tf_builder_set_option(b, &opt);
  int body = add_random_body(b, &tm, &rng, "floater", 0);
  add_random_joint(b, &rng, "free", body, TF_JOINT_FREE, 0);
  compile_into(&tm, b);
  const tf_model* m = tm.model;
  tf_data* d = tf_data_create(m);
  assert_non_null(d);

  // a known state: origin at p, orientation q, origin velocity v (world), body rate w
  const double p[3] = {0.3, -0.2, 0.5}, v[3] = {0.3, -0.5, 0.2}, w_body[3] = {1.2, -0.7, 0.9};
  double q[4];
  const double axis[3] = {1, 2, -2};
  tf_quat_from_axis_angle(q, axis, 0.8);
  memcpy(d->qpos, p, sizeof(p));
  memcpy(d->qpos + 3, q, sizeof(q));
  memcpy(d->qvel, v, sizeof(v));
  memcpy(d->qvel + 3, w_body, sizeof(w_body));
  tf_kinematics(m, d);
  tf_velocity(m, d);
  tf_crba(m, d);

  // by hand: r = R c_body, v_c = v + (R w) x r, T = m |v_c|^2 / 2 + w I_body w / 2,
  // momentum about the origin: linear m v_c, angular (p + r) x m v_c + R I_body w
  double mass = tm.mass[body], r[3], w[3], wxr[3], vc[3], iw_body[3], iw[3], com[3];
  tf_quat_rotate(r, q, tm.com[body]);
  tf_quat_rotate(w, q, w_body);
  tf_vec3_cross(wxr, w, r);
  tf_vec3_add(vc, v, wxr);
  tf_mat3_mul_vec(iw_body, tm.inertia[body], w_body);
  tf_quat_rotate(iw, q, iw_body);
  tf_vec3_add(com, p, r);
  double expect_kinetic = 0.5 * mass * tf_vec3_dot(vc, vc) + 0.5 * tf_vec3_dot(w_body, iw_body);
  double expect_momentum[6];
  tf_vec3_scale(expect_momentum + 3, vc, mass);
  tf_vec3_cross(expect_momentum, com, expect_momentum + 3);
  tf_vec3_add(expect_momentum, expect_momentum, iw);

  double energy0[2], momentum0[6];
  tf_energy(m, d, energy0);
  tf_momentum(m, d, momentum0);
  double rel_energy = fabs(energy0[0] - expect_kinetic) / expect_kinetic;
  double rel_momentum_angular = relative_diff(expect_momentum, momentum0, 3);
  double rel_momentum_linear = relative_diff(expect_momentum + 3, momentum0 + 3, 3);
  print_message("free body at a known state: kinetic %.3e, momentum %.3e angular %.3e linear\n",
                rel_energy, rel_momentum_angular, rel_momentum_linear);
  assert_true(rel_energy < 1e-12);
  assert_true(rel_momentum_angular < 1e-12);
  assert_true(rel_momentum_linear < 1e-12);
  assert_true(fabs(energy0[1]) == 0);  // no gravity, no springs

  for (int step = 0; step < 1000; step++) {
    if (tf_step(m, d) != 0) fail_msg("step %d failed", step);
  }
  tf_kinematics(m, d);
  tf_velocity(m, d);
  tf_crba(m, d);
  double energy1[2], momentum1[6];
  tf_energy(m, d, energy1);
  tf_momentum(m, d, momentum1);
  double drift_angular = relative_diff(momentum0, momentum1, 3);
  double drift_linear = relative_diff(momentum0 + 3, momentum1 + 3, 3);
  double drift_energy = fabs(energy1[0] - energy0[0]) / energy0[0];
  print_message(
      "free body, 1000 rk4 steps: momentum drift %.3e angular %.3e linear, kinetic energy %.3e\n",
      drift_angular, drift_linear, drift_energy);
  if (drift_angular > 1e-9 || drift_linear > 1e-9) {
    print_message("  angular %+.12e %+.12e %+.12e -> %+.12e %+.12e %+.12e\n", momentum0[0],
                  momentum0[1], momentum0[2], momentum1[0], momentum1[1], momentum1[2]);
    print_message("  linear  %+.12e %+.12e %+.12e -> %+.12e %+.12e %+.12e\n", momentum0[3],
                  momentum0[4], momentum0[5], momentum1[3], momentum1[4], momentum1[5]);
  }
  assert_true(drift_angular < 1e-9);
  assert_true(drift_linear < 1e-9);
  assert_true(drift_energy < 1e-9);
  assert_true(fabs(d->time - 1000 * m->opt.timestep) < 1e-9);
  tf_data_destroy(d);
  tf_model_destroy(tm.model);
}

// the compiled layout is what was built (counts, dof tree), and M is symmetric, positive
// definite and block diagonal between the two trees at every random state
static void test_mass_matrix_symmetric_positive_definite(void** state) {
  (void)state;
  const double gravity[3] = {0, 0, -9.81};
  test_model tm;
  build_mixed_model(&tm, 909, 0.0, gravity);
  const tf_model* m = tm.model;
  int nv = m->nv;
  assert_int_equal(m->nbody, 6);
  assert_int_equal(m->njnt, 6);
  assert_int_equal(m->nq, 1 + 2 + 4 + 1 + 7);
  assert_int_equal(nv, 7 + 6);
  // hinge1 | slide2 hinge2 | ball3 x3 | hinge4 | free x6
  const int parent[13] = {-1, 0, 1, 2, 3, 4, 5, -1, 7, 8, 9, 10, 11};
  for (int i = 0; i < nv; i++) assert_int_equal(m->dof_parentid[i], parent[i]);

  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  test_rng rng = {1010};
  double worst_asym = 0, worst_coupling = 0, smallest_pivot = INFINITY;
  for (int s = 0; s < NSTATE; s++) {
    random_state(m, d, &rng);
    tf_kinematics(m, d);
    tf_crba(m, d);
    double scale = 0, copy[MAX_NV * MAX_NV];
    for (int i = 0; i < nv * nv; i++) scale = fmax(scale, fabs(d->qM[i]));
    for (int i = 0; i < nv; i++) {
      for (int j = 0; j < nv; j++) {
        worst_asym = fmax(worst_asym, fabs(d->qM[i * nv + j] - d->qM[j * nv + i]) / scale);
        if ((i < 7) != (j < 7)) worst_coupling = fmax(worst_coupling, fabs(d->qM[i * nv + j]));
      }
    }
    memcpy(copy, d->qM, sizeof(double) * (size_t)(nv * nv));
    int info = tf_cholesky(nv, copy);
    if (info != 0) print_message("state %d: Cholesky stopped at column %d\n", s, info);
    assert_int_equal(info, 0);
    for (int i = 0; i < nv; i++) {
      smallest_pivot = fmin(smallest_pivot, copy[i * nv + i] * copy[i * nv + i] / scale);
    }
  }
  print_message(
      "mass matrix: worst asymmetry %.3e, coupling between trees %.3e, smallest pivot^2 / max "
      "%.3e\n",
      worst_asym, worst_coupling, smallest_pivot);
  assert_true(worst_asym < 1e-14);
  assert_true(worst_coupling == 0);
  assert_true(smallest_pivot > 1e-8);
  tf_data_destroy(d);
  tf_model_destroy(tm.model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kinetic_energy_from_body_twists),
      cmocka_unit_test(test_body_velocity_matches_finite_differences),
      cmocka_unit_test(test_inverse_dynamics_matches_mass_matrix),
      cmocka_unit_test(test_coriolis_matches_lagrangian),
      cmocka_unit_test(test_free_body_momentum_and_energy),
      cmocka_unit_test(test_mass_matrix_symmetric_positive_definite),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
