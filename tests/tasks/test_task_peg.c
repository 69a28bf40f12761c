// The peg task: bad parameters are refused naming the key, runs are deterministic, the success
// test can fail (a convex hull fills the bore), environments > 0 stay within their stated
// perturbation, and the other solvers' tunnelling counts for the peg_tunnel cases are printed
// for the README (not asserted: the gate asks al).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peg/peg.h"
#include "task.h"
#include "task_checks.h"

// options for the peg task at dt (al) with key=value pairs given as "key", "value", ..., NULL
static void options(tf_run_options* o, double dt, double duration, int envs, ...) {
  tf_run_options_default(o);
  o->task = "peg";
  o->physics.dt = dt;
  o->duration = duration;
  o->envs = envs;
  va_list ap;
  va_start(ap, envs);
  task_set_pairs(o, ap);
  va_end(ap);
}

static void test_bad_parameters(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, 0.002, 0.01, 1, "clearance_um", "-5", NULL);
  task_expect_refused(&o, "clearance_um");
  options(&o, 0.002, 0.01, 1, "shape", "hexagon", NULL);
  task_expect_refused(&o, "shape");
  options(&o, 0.002, 0.01, 1, "collider", "voxels", NULL);
  task_expect_refused(&o, "collider");
  options(&o, 0.002, 0.01, 1, "impact_speed", "fast", NULL);
  task_expect_refused(&o, "impact_speed");
  options(&o, 0.002, 0.01, 1, "mu", "-0.1", NULL);
  task_expect_refused(&o, "mu");
  options(&o, 0.002, 0.01, 1, "depth", "20", NULL);
  task_expect_refused(&o, "unknown parameter 'depth'");
  // keys that only make sense together: a chamfer wider than the peg allows
  options(&o, 0.002, 0.01, 1, "chamfer_mm", "8", "depth_mm", "10", NULL);
  task_expect_build_refused(&o, "chamfer_mm");
  // the tilted peg would start inside the bore
  options(&o, 0.002, 0.01, 1, "gap_mm", "10", "tilt_deg", "2", NULL);
  task_expect_build_refused(&o, "gap_mm");
}

// two runs with the same seed: every metric but the timings is bit-identical
static void test_determinism(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, 0.002, 0.1, 2, "clearance_um", "50", NULL);
  o.seed = 7;
  tf_metrics* a = test_malloc(sizeof(tf_metrics));
  tf_metrics* b = test_malloc(sizeof(tf_metrics));
  char err[256];
  assert_int_equal(tf_task_run(&o, a, err, sizeof(err)), 0);
  assert_int_equal(tf_task_run(&o, b, err, sizeof(err)), 0);
  assert_int_equal(a->n, b->n);
  int compared = 0;
  for (int i = 0; i < a->n; i++) {
    const tf_metric* x = &a->item[i];
    const tf_metric* y = &b->item[i];
    assert_string_equal(x->name, y->name);
    if (strstr(x->name, "throughput.") || strstr(x->name, "steps_per_s") ||
        strstr(x->name, "realtime_factor"))
      continue;
    if (x->kind == TF_METRIC_TEXT) {
      assert_string_equal(x->text, y->text);
    } else {
      assert_memory_equal(&x->value, &y->value, sizeof(double));
    }
    compared++;
  }
  assert_true(compared > 20);
  // and it moved: the peg fell into the hole's mouth
  assert_true(tf_metrics_get(a, "tunnel.travel_m") > 0.01);
  test_free(a);
  test_free(b);
}

// success can fail: a convex hull of the hole block has no bore, so the peg lands on top
static void test_hull_fails(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, 0.002, 0.2, 1, "collider", "hull", NULL);
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256];
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), 0);
  print_message("hull: success %g, tip depth below the top face %.4f m, tilt %.3f deg\n",
                tf_metrics_get(row, "success"), tf_metrics_get(row, "peg.depth_m"),
                tf_metrics_get(row, "peg.tilt_deg_final"));
  assert_string_equal(tf_metrics_text(row, "status"), "ok");
  assert_true(tf_metrics_get(row, "success") == 0);
  // resting on the block's top face (tip at or above z = 0), not in the bore
  assert_true(tf_metrics_get(row, "peg.depth_m") < 1e-3);
  assert_true(isnan(tf_metrics_get(row, "peg.seat_speed_mps")));
  test_free(row);
}

// environment 0 is centred at tilt_deg; environments > 0 draw an offset within
// perturb_offset x clearance and a tilt within +-perturb_tilt_deg, and they do vary
static void test_perturbation_range(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, 0.01, 0.01, 1, "clearance_um", "80", "tilt_deg", "0.3", "perturb_offset", "0.5",
          "perturb_tilt_deg", "0.2", NULL);
  o.seed = 3;
  const tf_task_info* task = tf_task_find("peg");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  const double deg = M_PI / 180, clearance = 80e-6;
  double radius_max = 0, tilt_dev_max = 0, radius_sum = 0;
  enum { N = 12 };
  for (int i = 0; i < N; i++) {
    tf_env env;
    char err[256];
    assert_int_equal(tf_task_run_env(&o, i, &env, row, err, sizeof(err)), 0);
    const peg_state* s = env.state;
    double radius = hypot(s->start_offset[0], s->start_offset[1]);
    double tilt_dev = fabs(s->start_tilt - 0.3 * deg);
    if (i == 0) {
      assert_true(radius == 0);
      assert_true(tilt_dev == 0);
    } else {
      assert_true(radius <= 0.5 * clearance);
      assert_true(tilt_dev <= 0.2 * deg);
      radius_max = fmax(radius_max, radius);
      tilt_dev_max = fmax(tilt_dev_max, tilt_dev);
      radius_sum += radius;
    }
    tf_env_free(task, &env);
  }
  print_message("offset up to %.1f um (bound %.1f), tilt deviation up to %.3f deg (bound 0.2)\n",
                radius_max * 1e6, 0.5 * clearance * 1e6, tilt_dev_max / deg);
  // drawn, not stuck at zero
  assert_true(radius_sum > 0.1 * clearance);
  assert_true(tilt_dev_max > 0.05 * deg);
  test_free(row);
}

// the peg_tunnel cases for the other solvers: printed for the README, not asserted
static void test_tunnel_other_solvers(void** state) {
  (void)state;
  static const tf_solver_type solvers[3] = {TF_SOLVER_PGS, TF_SOLVER_NEWTON, TF_SOLVER_ADMM};
  static const char* const speed[3] = {"0.5", "2", "8"};
  static const double dt[2] = {0.001, 0.01};
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  print_message("%-7s %-6s %-6s %8s %11s %9s %9s %7s\n", "solver", "dt", "v0", "through",
                "flythrough", "travel_m", "peak_m", "success");
  for (int s = 0; s < 3; s++) {
    for (int j = 0; j < 2; j++) {
      for (int k = 0; k < 3; k++) {
        tf_run_options o;
        options(&o, dt[j], 0.1, 4, "impact_speed", speed[k], "tilt_deg", "0", NULL);
        o.physics.solver = solvers[s];
        char err[256];
        assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), 0);
        print_message(
            "%-7s %-6g %-6s %5.0f/4 %8.0f/4 %9.4f %9.2e %5.0f/4\n", tf_solver_name(solvers[s]),
            dt[j], speed[k], tf_metrics_get(row, "tunnel.through"),
            tf_metrics_get(row, "tunnel.flythrough"), tf_metrics_get(row, "tunnel.travel_m"),
            tf_metrics_get(row, "overlap.peak_m"), tf_metrics_get(row, "success_envs"));
      }
    }
  }
  test_free(row);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_parameters),       cmocka_unit_test(test_determinism),
      cmocka_unit_test(test_hull_fails),           cmocka_unit_test(test_perturbation_range),
      cmocka_unit_test(test_tunnel_other_solvers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
