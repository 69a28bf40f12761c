// The state the controllers read, against independent numbers: the TCP Jacobian against
// finite differences of the TCP pose, Jdot qd against a finite difference of J qd along the
// motion, g(q) against the gradient of the potential energy, and the arm block of M^-1
// against the inverse of the whole M (the gripper's dofs included, a free box's left out).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "linalg_dense.h"
#include "arm_fixture.h"
#include "controller_internal.h"
#include "tf_math.h"

static void random_state(arm_fixture* f, test_rng* rng, double* q, double* qd) {
  const tf_panda_params* p = tf_panda_params_get();
  for (int k = 0; k < TF_PANDA_NJOINT; k++) {
    q[k] = rng_uniform(rng, p->q_min[k] + 0.1, p->q_max[k] - 0.1);
    qd[k] = rng_uniform(rng, -1, 1);
  }
  arm_set_q(f, q);
  for (int k = 0; k < TF_PANDA_NJOINT; k++) f->d->qvel[f->m->jnt_dofadr[f->panda.joint[k]]] = qd[k];
}

static void test_jacobian_and_jdot(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.002, NULL);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_OSC);
  tf_controller* c = arm_controller(&f, &cfg);
  test_rng rng = {5};
  double worst_j = 0, worst_jdot = 0;
  const double h = 1e-6;
  for (int trial = 0; trial < 10; trial++) {
    double q[TF_PANDA_NJOINT], qd[TF_PANDA_NJOINT];
    random_state(&f, &rng, q, qd);
    assert_int_equal(tf_ctrl_state_update(c, f.m, f.d, NEED_JACOBIAN | NEED_JDOT), 0);
    double jac[6 * TF_PANDA_NJOINT], jdot[6], p0[3], q0[4];
    memcpy(jac, c->st.jac, sizeof(jac));
    memcpy(jdot, c->st.jdot_qd, sizeof(jdot));
    memcpy(p0, c->st.pos, sizeof(p0));
    memcpy(q0, c->st.quat, sizeof(q0));
    double scale = 0;
    for (int k = 0; k < 6 * TF_PANDA_NJOINT; k++) scale = fmax(scale, fabs(jac[k]));
    for (int k = 0; k < TF_PANDA_NJOINT; k++) {
      double qq[TF_PANDA_NJOINT], p1[3], q1[4], rot[3];
      memcpy(qq, q, sizeof(qq));
      qq[k] += h;
      arm_set_q(&f, qq);
      arm_tcp(&f, p1, q1);
      tf_quat_rotation_error(rot, q1, q0);
      for (int r = 0; r < 3; r++) {
        worst_j = fmax(worst_j, fabs((p1[r] - p0[r]) / h - jac[r * TF_PANDA_NJOINT + k]) / scale);
        worst_j = fmax(worst_j, fabs(rot[r] / h - jac[(3 + r) * TF_PANDA_NJOINT + k]) / scale);
      }
    }
    // d/dt (J qd) at constant qd = Jdot qd: J at q + h qd, times qd
    double qq[TF_PANDA_NJOINT], jv0[6] = {0}, jv1[6] = {0};
    for (int k = 0; k < TF_PANDA_NJOINT; k++) qq[k] = q[k] + h * qd[k];
    for (int r = 0; r < 6; r++) {
      for (int k = 0; k < TF_PANDA_NJOINT; k++) jv0[r] += jac[r * TF_PANDA_NJOINT + k] * qd[k];
    }
    arm_set_q(&f, qq);
    assert_int_equal(tf_ctrl_state_update(c, f.m, f.d, NEED_JACOBIAN), 0);
    for (int r = 0; r < 6; r++) {
      for (int k = 0; k < TF_PANDA_NJOINT; k++)
        jv1[r] += c->st.jac[r * TF_PANDA_NJOINT + k] * qd[k];
      double fd = (jv1[r] - jv0[r]) / h;
      worst_jdot = fmax(worst_jdot, fabs(fd - jdot[r]) / (1 + fabs(jdot[r])));
    }
  }
  print_message("jacobian vs finite differences: %.3g relative; Jdot qd: %.3g\n", worst_j,
                worst_jdot);
  assert_true(worst_j < 1e-5);
  assert_true(worst_jdot < 1e-4);
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

// potential energy of the current qpos (gravity part; the arm has no springs)
static double potential(arm_fixture* f) {
  double e[2];
  tf_kinematics(f->m, f->d);
  tf_crba(f->m, f->d);
  tf_energy(f->m, f->d, e);
  return e[1];
}

// a free box beside the arm: another tree in M, which the arm's M^-1 block must not mix in
static void add_box(tf_builder* b, const tf_panda* panda) {
  (void)panda;
  tf_body_def box = tf_body_def_default();
  box.name = "box";
  box.pos[0] = 1, box.pos[2] = 0.5;
  box.mass = 0.5;
  int id = tf_builder_add_body(b, &box);
  tf_joint_def free_joint = tf_joint_def_default();
  free_joint.name = "box_free";
  free_joint.body = id;
  free_joint.type = TF_JOINT_FREE;
  assert_true(tf_builder_add_joint(b, &free_joint) >= 0);
}

static void test_gravity_and_inverse_mass(void** state) {
  (void)state;
  arm_fixture f;
  arm_fixture_init(&f, 0.002, add_box);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_OSC);
  tf_controller* c = arm_controller(&f, &cfg);
  test_rng rng = {9};
  double worst_g = 0, worst_minv = 0;
  int nv = f.m->nv;
  for (int trial = 0; trial < 10; trial++) {
    double q[TF_PANDA_NJOINT], qd[TF_PANDA_NJOINT];
    random_state(&f, &rng, q, qd);
    assert_int_equal(tf_ctrl_state_update(c, f.m, f.d, NEED_GRAVITY | NEED_MASS), 0);
    // the velocities came back unchanged
    for (int k = 0; k < TF_PANDA_NJOINT; k++) {
      assert_true(f.d->qvel[f.m->jnt_dofadr[f.panda.joint[k]]] == qd[k]);
    }
    double grav[TF_PANDA_NJOINT], minv[TF_PANDA_NJOINT * TF_PANDA_NJOINT];
    memcpy(grav, c->st.grav, sizeof(grav));
    memcpy(minv, c->st.minv, sizeof(minv));
    double full[256], inv[256];
    assert_true(nv <= 16);
    memcpy(full, f.d->qM, sizeof(double) * nv * nv);
    memset(inv, 0, sizeof(inv));
    for (int i = 0; i < nv; i++) inv[i * nv + i] = 1;
    assert_int_equal(tf_cholesky(nv, full), 0);
    tf_cholesky_solve(nv, nv, full, inv);
    for (int i = 0; i < TF_PANDA_NJOINT; i++) {
      for (int k = 0; k < TF_PANDA_NJOINT; k++) {
        int di = f.m->jnt_dofadr[f.panda.joint[i]], dk = f.m->jnt_dofadr[f.panda.joint[k]];
        worst_minv = fmax(worst_minv, fabs(inv[di * nv + dk] - minv[i * TF_PANDA_NJOINT + k]));
      }
    }
    for (int k = 0; k < TF_PANDA_NJOINT; k++) {
      const double h = 1e-6;
      double qq[TF_PANDA_NJOINT];
      memcpy(qq, q, sizeof(qq));
      qq[k] += h;
      arm_set_q(&f, qq);
      double up = potential(&f);
      qq[k] -= 2 * h;
      arm_set_q(&f, qq);
      double down = potential(&f);
      worst_g = fmax(worst_g, fabs((up - down) / (2 * h) - grav[k]));
    }
  }
  print_message("g(q) vs potential energy gradient: %.3g N m; M^-1 arm block: %.3g\n", worst_g,
                worst_minv);
  assert_true(worst_g < 1e-5);
  assert_true(worst_minv < 1e-9);
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jacobian_and_jdot),
      cmocka_unit_test(test_gravity_and_inverse_mass),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
