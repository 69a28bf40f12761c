// Differential IK, each variant (pinv, transpose, dls, adaptive svd): from the ready pose the
// arm reaches 20 reachable random targets (the TCP poses of random joint configurations
// within 1 rad of the ready pose's joints) within 1 mm and 1 deg in 2 s of simulated time,
// gravity on, dt 2 ms, al, no contacts. Default gains, except ik_gain 3 for the transpose
// method: its step along J^T e converges slowly in the Jacobian's weak directions.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "arm_fixture.h"

#define NTARGET 20
#define DT 0.002
#define SECONDS 2.0
#define SPREAD 1.0  // rad: targets' joints drawn within +-SPREAD of the ready pose

// a random configuration around the ready pose, within the joint limits less 0.05 rad
static void random_target_q(test_rng* rng, const double* ready, double* q) {
  const tf_panda_params* p = tf_panda_params_get();
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    double lo = fmax(p->q_min[i] + 0.05, ready[i] - SPREAD);
    double hi = fmin(p->q_max[i] - 0.05, ready[i] + SPREAD);
    q[i] = rng_uniform(rng, lo, hi);
  }
}

static void run_method(tf_ik_method method) {
  arm_fixture f;
  arm_fixture_init(&f, DT, NULL);
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_IK);
  cfg.ik_method = method;
  if (method == TF_IK_TRANSPOSE) cfg.ik_gain = 3;
  tf_controller* c = arm_controller(&f, &cfg);
  tf_panda_def def = tf_panda_def_default();
  test_rng rng = {2024};
  int reached = 0;
  double worst_pos = 0, worst_rot = 0;
  for (int t = 0; t < NTARGET; t++) {
    double q_target[TF_PANDA_NJOINT], pos[3], quat[4], tcp[3], tcq[4];
    random_target_q(&rng, def.qpos0, q_target);
    arm_set_q(&f, q_target);
    arm_tcp(&f, pos, quat);
    arm_set_q(&f, def.qpos0);
    tf_controller_reset(c, f.m, f.d);
    tf_controller_set_pose(c, pos, quat);
    arm_run(&f, c, (int)lround(SECONDS / DT));
    arm_tcp(&f, tcp, tcq);
    double pe = dist3(tcp, pos), re = quat_angle(tcq, quat) * 180 / M_PI;
    worst_pos = fmax(worst_pos, pe);
    worst_rot = fmax(worst_rot, re);
    if (pe < 1e-3 && re < 1.0) {
      reached++;
    } else {
      print_message("ik %s: target %d missed by %.3g mm, %.3g deg\n", tf_ik_method_name(method), t,
                    pe * 1e3, re);
    }
  }
  print_message("ik %s: %d / %d targets reached, worst %.3g mm, %.3g deg after %.1f s\n",
                tf_ik_method_name(method), reached, NTARGET, worst_pos * 1e3, worst_rot, SECONDS);
  assert_int_equal(reached, NTARGET);
  tf_controller_destroy(c);
  arm_fixture_free(&f);
}

static void test_ik_pinv(void** state) {
  (void)state;
  run_method(TF_IK_PINV);
}

static void test_ik_transpose(void** state) {
  (void)state;
  run_method(TF_IK_TRANSPOSE);
}

static void test_ik_dls(void** state) {
  (void)state;
  run_method(TF_IK_DLS);
}

static void test_ik_svd(void** state) {
  (void)state;
  run_method(TF_IK_SVD);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ik_pinv),
      cmocka_unit_test(test_ik_transpose),
      cmocka_unit_test(test_ik_dls),
      cmocka_unit_test(test_ik_svd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
