// The connectors task: bad parameters are refused with a message naming the key; the same
// seed gives bit-identical metrics; the success definition fails where it must (a hull
// collider that fills the socket, a run too short to reach the floor); environments > 0
// start within their stated perturbation (offset +-clearance / 2 per axis, tilt +-0.2 deg) and
// environment 0 is centred and straight; the probe's samples lie on the parts' surfaces.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "connectors/connectors.h"
#include "task_checks.h"

static const double pi = 3.14159265358979323846;

// options for one connectors run at dt = 2 ms with al and the given key=value pairs
static tf_run_options options(const tf_kv* set, int nset) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = "connectors";
  o.physics.dt = 0.002;
  o.physics.solver = TF_SOLVER_AL;
  for (int i = 0; i < nset; i++) o.set[o.nset++] = set[i];
  return o;
}

// a run that must be refused before anything runs, with the key in its message
static void assert_refused(const tf_kv* set, int nset, const char* key) {
  tf_run_options o = options(set, nset);
  static tf_metrics out;
  char err[256] = "";
  assert_int_equal(tf_task_run(&o, &out, err, sizeof(err)), -1);
  print_message("refused: %s\n", err);
  assert_non_null(strstr(err, key));
  assert_null(strchr(err, '\n'));
}

// a run whose environments cannot be built: a "failed" row whose error names the key
static void assert_failed_row(const tf_kv* set, int nset, const char* key) {
  tf_run_options o = options(set, nset);
  static tf_metrics out;
  char err[256] = "";
  assert_int_equal(tf_task_run(&o, &out, err, sizeof(err)), 0);
  assert_string_equal(tf_metrics_text(&out, "status"), "failed");
  assert_true(tf_metrics_get(&out, "success") == 0);
  const char* why = tf_metrics_text(&out, "error");
  assert_non_null(why);
  print_message("failed row: %s\n", why);
  assert_non_null(strstr(why, key));
}

static void test_bad_parameters(void** state) {
  (void)state;
  tf_kv unknown[] = {{"colour", "red"}};
  assert_refused(unknown, 1, "colour");
  tf_kv type[] = {{"type", "usb"}};
  assert_refused(type, 1, "type");
  tf_kv clearance[] = {{"clearance_um", "500"}};
  assert_refused(clearance, 1, "clearance_um");
  tf_kv speed[] = {{"impact_speed", "fast"}};
  assert_refused(speed, 1, "impact_speed");
  tf_kv collider[] = {{"collider", "box"}};
  assert_refused(collider, 1, "collider");
  tf_kv mass[] = {{"plug_mass_g", "0"}};
  assert_refused(mass, 1, "plug_mass_g");
  // parameters that do not go together: no speed for the servo, no force to push with
  tf_kv still[] = {{"push", "speed"}, {"impact_speed", "0"}};
  assert_failed_row(still, 2, "impact_speed");
  tf_kv no_force[] = {{"push", "force"}, {"push_force", "0"}};
  assert_failed_row(no_force, 2, "push_force");
  tf_kv no_cap[] = {{"push", "speed"}, {"push_force", "0"}};
  assert_failed_row(no_cap, 2, "push_force");
}

static void test_determinism(void** state) {
  (void)state;
  tf_kv set[] = {{"type", "rj45"}};
  tf_run_options o = options(set, 1);
  o.envs = 2;
  o.seed = 7;
  o.duration = 0.15;
  static tf_metrics first, second;
  char err[256];
  assert_int_equal(tf_task_run(&o, &first, err, sizeof(err)), 0);
  assert_int_equal(tf_task_run(&o, &second, err, sizeof(err)), 0);
  assert_string_equal(tf_metrics_text(&first, "status"), "ok");
  task_assert_same_metrics(&first, &second);
  // the perturbed environment really is another one: its offset is in the row's mean
  assert_true(tf_metrics_get(&first, "connectors.offset_m") > 0);
}

// the definition fails where the physics says no: a convex hull of the socket has no cavity,
// so the plug comes to rest on top of it; and a run that ends before the plug reaches the
// floor has not seated it, however cleanly it was going
static void test_success_can_fail(void** state) {
  (void)state;
  static tf_metrics out;
  char err[256];
  tf_kv hull[] = {{"collider", "hull"}};
  tf_run_options o = options(hull, 1);
  assert_int_equal(tf_task_run(&o, &out, err, sizeof(err)), 0);
  print_message("hull: depth %.3f mm of %.3f, seated %g, success %g, travel %.3f mm\n",
                1e3 * tf_metrics_get(&out, "connectors.depth_m"),
                1e3 * tf_metrics_get(&out, "connectors.mating_depth_m"),
                tf_metrics_get(&out, "connectors.seated"), tf_metrics_get(&out, "success"),
                1e3 * tf_metrics_get(&out, "tunnel.travel_m"));
  assert_string_equal(tf_metrics_text(&out, "status"), "ok");
  assert_true(tf_metrics_get(&out, "success") == 0);
  assert_true(tf_metrics_get(&out, "connectors.seated") == 0);
  // it did move (fell onto the hull), so this is the hull's doing, not a frozen plug
  assert_true(tf_metrics_get(&out, "tunnel.travel_m") > 0.5e-3);
  assert_true(tf_metrics_get(&out, "connectors.depth_m") < 0);

  tf_kv none[] = {{"type", "dp"}};
  o = options(none, 1);
  o.duration = 0.06;  // 6 of the 12 mm to the floor at 0.1 m/s
  assert_int_equal(tf_task_run(&o, &out, err, sizeof(err)), 0);
  assert_true(tf_metrics_get(&out, "success") == 0);
  assert_true(tf_metrics_get(&out, "connectors.seated") == 0);
  assert_true(isnan(tf_metrics_get(&out, "connectors.seat_time_s")));
}

// environment 0 is centred and straight; the others draw within their range, and the built
// state carries the draw (slides at the offset, the ball turned by the tilt)
static void test_perturbation_range(void** state) {
  (void)state;
  double values[CN_NPARAM];
  char err[256];
  assert_int_equal(tf_param_parse("task", "connectors", tf_connectors_params, CN_NPARAM, NULL, 0,
                                  values, err, sizeof(err)),
                   0);
  const double c = values[CN_CLEARANCE] * 1e-6, tilt_max = 0.2 * pi / 180;
  double offset_seen = 0, tilt_seen = 0;
  for (int index = 0; index < 64; index++) {
    tf_rng rng;
    tf_rng_seed(&rng, 3, (uint64_t)index);
    tf_connectors_config cfg;
    assert_int_equal(tf_connectors_config_from_values(&cfg, values, index, &rng, err, sizeof(err)),
                     0);
    if (index == 0) {
      assert_true(cfg.offset[0] == 0 && cfg.offset[1] == 0 && cfg.tilt == 0);
      continue;
    }
    for (int k = 0; k < 2; k++) {
      assert_true(fabs(cfg.offset[k]) <= 0.5 * c);
      offset_seen = fmax(offset_seen, fabs(cfg.offset[k]));
    }
    assert_true(fabs(cfg.tilt) <= tilt_max);
    tilt_seen = fmax(tilt_seen, fabs(cfg.tilt));
  }
  // the range is used, not just respected
  assert_true(offset_seen > 0.4 * c);
  assert_true(tilt_seen > 0.8 * tilt_max);

  // the state a build starts from
  tf_rng rng;
  tf_rng_seed(&rng, 3, 5);
  tf_connectors_config cfg;
  assert_int_equal(tf_connectors_config_from_values(&cfg, values, 5, &rng, err, sizeof(err)), 0);
  tf_physics physics = {0.002, 1, TF_SOLVER_AL, 0};
  tf_connectors_scene scene;
  int rc = tf_connectors_scene_build(&scene, &cfg, &physics, err, sizeof(err));
  if (rc) print_message("%s\n", err);
  assert_int_equal(rc, 0);
  tf_data* d = tf_data_create(scene.model);
  tf_connectors_scene_reset(&scene, &cfg, d);
  tf_kinematics(scene.model, d);
  const double* x = d->xpos + 3 * scene.plug_body;
  const double* q = d->xquat + 4 * scene.plug_body;
  double tilt = acos(fmin(1.0, 1 - 2 * (q[1] * q[1] + q[2] * q[2])));
  print_message("env 5: offset %.1f %.1f um, tilt %.4f deg; built tilt %.4f deg\n",
                1e6 * cfg.offset[0], 1e6 * cfg.offset[1], fabs(cfg.tilt) * 180 / pi,
                tilt * 180 / pi);
  assert_true(fabs(tilt - fabs(cfg.tilt)) < 1e-9);
  assert_true(d->qpos[scene.model->jnt_qposadr[0]] == cfg.offset[0]);
  assert_true(d->qpos[scene.model->jnt_qposadr[1]] == cfg.offset[1]);
  // the tilt turns about the centre of mass, so the frame origin moves a little with it
  assert_true(fabs(x[0] - cfg.offset[0]) < 0.05e-3 && fabs(x[1] - cfg.offset[1]) < 0.05e-3);
  assert_true(d->qvel[scene.slide_dof[2]] == -cfg.impact_speed);
  tf_data_destroy(d);
  tf_model_destroy(scene.model);
  tf_connectors_scene_free(&scene);
}

// the probe's samples: on the true surface (within the mesh's chord error), hidden faces of the
// plug's union left out, and many more of them than the mesh has vertices
static void test_samples_on_surface(void** state) {
  (void)state;
  const char* parts[2] = {"connector_plug", "connector_socket"};
  for (int side = 0; side < 2; side++) {
    tf_kv kv[2] = {{"type", "dp"}, {"chord_um", "0.5"}};
    tf_part_geometry g;
    char err[256];
    assert_int_equal(tf_part_build(parts[side], kv, 2, &g, err, sizeof(err)), 0);
    double* p = NULL;
    int n = 0;
    assert_int_equal(tf_connectors_surface_samples(&g, 0.5e-3, &p, &n), 0);
    print_message("%s: %d samples from %d vertices\n", parts[side], n, g.nvert);
    assert_true(n > 4 * g.nvert);
    double worst = 0;
    for (int i = 0; i < n; i++) {
      worst = fmax(worst, fabs(g.fn(g.params, p + 3 * i, NULL)));
    }
    assert_true(worst <= g.chord_error + 1e-9);
    free(p);
    tf_part_geometry_free(&g);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_parameters),     cmocka_unit_test(test_determinism),
      cmocka_unit_test(test_success_can_fail),   cmocka_unit_test(test_perturbation_range),
      cmocka_unit_test(test_samples_on_surface),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
