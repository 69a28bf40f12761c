// The conservation gates of the reference scenes, under rk4 from their fixed initial states.
// The euler figures for the same scenes are printed for comparison, not asserted.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "scenes.h"

// runs a scene at its default settings and fails the test on any engine error
static tf_scene_result run_scene(const char* name, tf_integrator integrator) {
  const tf_scene* scene = tf_scene_find(name);
  assert_non_null(scene);
  tf_scene_result r;
  char err[256];
  int status = tf_scene_run(scene, scene->dt, scene->duration, integrator, &r, err, sizeof(err));
  if (status) print_message("%s: %s\n", name, err);
  assert_int_equal(status, 0);
  assert_false(r.diverged);
  return r;
}

// the period from interpolated zero crossings over 5 periods, within 0.1 % of 2 pi sqrt(L/g)
static void test_pendulum_period(void** state) {
  (void)state;
  tf_scene_result r = run_scene("pendulum", TF_INTEGRATOR_RK4);
  double err = fabs(r.period - r.period_analytic) / r.period_analytic;
  print_message("pendulum rk4: period %.9f s, analytic %.9f s, error %.3e\n", r.period,
                r.period_analytic, err);
  // 5 periods need 10 half-period intervals: the default duration covers them
  assert_true(r.sim_time >= 5.25 * r.period_analytic);
  assert_true(err < 1e-3);
  tf_scene_result e = run_scene("pendulum", TF_INTEGRATOR_EULER);
  print_message("pendulum euler (not asserted): period error %.3e\n",
                fabs(e.period - e.period_analytic) / e.period_analytic);
}

// over 10 s at dt = 1 ms, |E - E0| stays under 1e-6 x the largest kinetic energy reached
static void test_double_pendulum_energy(void** state) {
  (void)state;
  tf_scene_result r = run_scene("double_pendulum", TF_INTEGRATOR_RK4);
  double rel = r.energy_drift_max / r.kinetic_max;
  print_message("double_pendulum rk4: max |E - E0| %.3e J, max KE %.3f J, ratio %.3e\n",
                r.energy_drift_max, r.kinetic_max, rel);
  assert_true(r.sim_time >= 10.0 - 1e-9);
  assert_true(r.kinetic_max > 1.0);  // it really swung
  assert_true(rel < 1e-6);
  tf_scene_result e = run_scene("double_pendulum", TF_INTEGRATOR_EULER);
  print_message("double_pendulum euler (not asserted): ratio %.3e\n",
                e.energy_drift_max / e.kinetic_max);
}

// |L(t) - L0| / |L0| < 1e-6 throughout 5 s at dt = 1e-4, and omega_y changes sign
static void test_spinning_body_flip(void** state) {
  (void)state;
  tf_scene_result r = run_scene("spinning_body", TF_INTEGRATOR_RK4);
  print_message("spinning_body rk4: max |L - L0| / |L0| %.3e, omega_y in [%.4f, %.4f]\n",
                r.momentum_drift_max, r.omega_y_min, r.omega_y_max);
  assert_true(r.sim_time >= 5.0 - 1e-9);
  assert_true(r.momentum_drift_max < 1e-6);
  assert_true(r.omega_y_min < 0 && r.omega_y_max > 0);
  tf_scene_result e = run_scene("spinning_body", TF_INTEGRATOR_EULER);
  print_message("spinning_body euler (not asserted): max |L - L0| / |L0| %.3e\n",
                e.momentum_drift_max);
}

// the benchmark's chain conserves energy under rk4 too (no damping in it)
static void test_chain7_energy(void** state) {
  (void)state;
  tf_scene_result r = run_scene("chain7", TF_INTEGRATOR_RK4);
  double rel = r.energy_drift_max / r.kinetic_max;
  print_message("chain7 rk4: energy drift / max KE %.3e\n", rel);
  assert_true(rel < 1e-5);
}

// registry lookups: every scene is found by its own name, unknown names are not
static void test_registry(void** state) {
  (void)state;
  assert_true(tf_scene_count() >= 4);
  for (int i = 0; i < tf_scene_count(); i++) {
    const tf_scene* s = tf_scene_at(i);
    assert_ptr_equal(tf_scene_find(s->name), s);
  }
  assert_null(tf_scene_find("nosuch"));
  assert_null(tf_scene_find(NULL));
  assert_null(tf_scene_at(-1));
  assert_null(tf_scene_at(tf_scene_count()));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pendulum_period),    cmocka_unit_test(test_double_pendulum_energy),
      cmocka_unit_test(test_spinning_body_flip), cmocka_unit_test(test_chain7_energy),
      cmocka_unit_test(test_registry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
