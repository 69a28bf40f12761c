// Tests of the probes layer (probes/): each pure core on synthetic trajectories that must
// pass and that must fail (a fly-through, a slow tunnel, a frozen part, a seated part; overlap
// statistics; a gear train at its ratio, one that skips a tooth, a dead drive; NaN and runaway
// divergence), the merge rules over environments, and the probe set on real engine models: an
// SDF ball dropped onto an SDF half-space (overlap against the exact answer, against a brute-
// force probe and against the collider's contact; the tunnel depth) and two hinged gears
// turned several times round (angle unwrapping about tilted axes).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "probes.h"
#include "tightfit.h"

static const double pi = 3.14159265358979323846264338327950288;

// fails with both values printed when |a - b| > tol
#define assert_near(a, b, tol)                                                                  \
  do {                                                                                          \
    double a_ = (a), b_ = (b);                                                                  \
    if (!(fabs(a_ - b_) <= (tol))) {                                                            \
      print_error("%s = %.17g, expected %s = %.17g (tol %g)\n", #a, a_, #b, b_, (double)(tol)); \
      fail();                                                                                   \
    }                                                                                           \
  } while (0)

// the metric's value, failing when it is missing
static double metric(const tf_metrics* m, const char* name) {
  const tf_metric* s = tf_metrics_find(m, name);
  if (!s) {
    print_error("metric %s missing\n", name);
    fail();
  }
  return s->value;
}

static tf_metric_kind kind_of(const tf_metrics* m, const char* name) {
  const tf_metric* s = tf_metrics_find(m, name);
  assert_non_null(s);
  return s->kind;
}

// ---------------------------------------------------------------------------------------------
// tunnel

// feeds a depth series of a part moving straight down its insertion axis (-z, seat at 0)
static void run_tunnel(tf_metrics* out, const double* depth, int n) {
  tf_tunnel_probe p;
  tf_tunnel_init(&p, 2e-3, 5e-3);
  for (int i = 0; i < n; i++) {
    double pos[3] = {0.1, -0.2, depth[i]};
    tf_tunnel_observe(&p, depth[i], pos);
  }
  tf_metrics_clear(out);
  tf_tunnel_finish(&p, out);
}

// a jump from 3 mm above the seat to 4 mm below it in one step: both flags
static void test_tunnel_flythrough(void** state) {
  (void)state;
  double depth[12];
  int n = 0;
  for (double z = 0.010; z > 0.0035; z -= 0.001) depth[n++] = z;  // 10 .. 4 mm
  depth[n++] = 0.003;
  depth[n++] = -0.004;
  depth[n++] = -0.004;
  tf_metrics out;
  run_tunnel(&out, depth, n);
  assert_true(metric(&out, "tunnel.flythrough") == 1);
  assert_true(metric(&out, "tunnel.through") == 1);
  assert_int_equal(kind_of(&out, "tunnel.through"), TF_METRIC_BOOL);
  assert_near(metric(&out, "tunnel.travel_m"), 0.014, 1e-12);
  assert_near(metric(&out, "tunnel.depth_final_m"), -0.004, 1e-15);
  assert_near(metric(&out, "tunnel.depth_min_m"), -0.004, 1e-15);
}

// a slow tunnel to 3 mm below the seat in 0.5 mm steps: through, but no fly-through
static void test_tunnel_slow(void** state) {
  (void)state;
  double depth[40];
  int n = 0;
  for (int i = 0; i <= 16; i++) depth[n++] = 0.005 - 0.0005 * i;  // 5 mm .. -3 mm
  tf_metrics out;
  run_tunnel(&out, depth, n);
  assert_true(metric(&out, "tunnel.through") == 1);
  assert_true(metric(&out, "tunnel.flythrough") == 0);
  assert_near(metric(&out, "tunnel.depth_final_m"), -0.003, 1e-15);
  assert_near(metric(&out, "tunnel.travel_m"), 0.008, 1e-12);
}

// a part that never moves is not tunnelling-proof: travel 0 says so
static void test_tunnel_frozen(void** state) {
  (void)state;
  double depth[50];
  for (int i = 0; i < 50; i++) depth[i] = 0.03;
  tf_metrics out;
  run_tunnel(&out, depth, 50);
  assert_true(metric(&out, "tunnel.travel_m") == 0);
  assert_true(metric(&out, "tunnel.through") == 0);
  assert_true(metric(&out, "tunnel.flythrough") == 0);
  assert_near(metric(&out, "tunnel.depth_final_m"), 0.03, 0);
}

// a part that dips 1 mm into its seat and comes back to rest on it: seated, no flags
static void test_tunnel_seated(void** state) {
  (void)state;
  double depth[] = {0.004, 0.003, 0.002, 0.001, 0.0, -0.001, -0.0005, 0.0, 0.0, 0.0};
  tf_metrics out;
  run_tunnel(&out, depth, (int)(sizeof(depth) / sizeof(depth[0])));
  assert_true(metric(&out, "tunnel.through") == 0);
  assert_true(metric(&out, "tunnel.flythrough") == 0);
  assert_true(metric(&out, "tunnel.depth_final_m") == 0);
  assert_near(metric(&out, "tunnel.depth_min_m"), -0.001, 1e-15);
  assert_near(metric(&out, "tunnel.travel_m"), 0.006, 1e-12);
}

// a probe that saw nothing must not read as a pass with numbers
static void test_tunnel_no_steps(void** state) {
  (void)state;
  tf_metrics out;
  run_tunnel(&out, NULL, 0);
  assert_true(metric(&out, "tunnel.through") == 0);
  assert_true(isnan(metric(&out, "tunnel.travel_m")));
  assert_true(isnan(metric(&out, "tunnel.depth_final_m")));
}

// ---------------------------------------------------------------------------------------------
// overlap

// the mean counts only steps in contact; touching within contact_m counts as contact at 0
static void test_overlap_statistics(void** state) {
  (void)state;
  tf_overlap_probe p;
  tf_overlap_init(&p, 1e-6, 2.5e-5);
  double deepest[] = {INFINITY, 0.01, 5e-7, -1e-4, -3e-4, 0.002, -2e-4, NAN, 0.5};
  for (size_t i = 0; i < sizeof(deepest) / sizeof(deepest[0]); i++) {
    tf_overlap_observe(&p, deepest[i]);
  }
  tf_metrics out;
  tf_metrics_clear(&out);
  tf_overlap_finish(&p, &out);
  assert_true(metric(&out, "overlap.contact_steps") == 4);
  assert_near(metric(&out, "overlap.peak_m"), 3e-4, 1e-18);
  assert_near(metric(&out, "overlap.mean_m"), (0 + 1e-4 + 3e-4 + 2e-4) / 4, 1e-18);
  assert_near(metric(&out, "overlap.floor_m"), 2.5e-5, 0);

  // never in contact: a zero mean and peak, not a division by zero
  tf_overlap_init(&p, 1e-6, 0);
  for (int i = 0; i < 10; i++) tf_overlap_observe(&p, 1e-3);
  tf_metrics_clear(&out);
  tf_overlap_finish(&p, &out);
  assert_true(metric(&out, "overlap.contact_steps") == 0);
  assert_true(metric(&out, "overlap.mean_m") == 0);
  assert_true(metric(&out, "overlap.peak_m") == 0);
}

// ---------------------------------------------------------------------------------------------
// gear slip

#define GEAR_DT 0.01
#define GEAR_T 3.0

// angles of a 20 / 10 / 40 tooth train (signs + - +) with the input at 5 rad/s; slip(f, t)
// is added to follower f's exact angle
typedef double (*slip_fn)(int f, double t);

static void run_gears(tf_metrics* out, double input_speed, slip_fn slip) {
  int teeth[3] = {20, 10, 40}, sign[3] = {1, -1, 1};
  tf_gear_slip_probe p;
  long window_steps = lround(1.0 / GEAR_DT);
  assert_int_equal(tf_gear_slip_init(&p, 3, teeth, sign, 0.2, 1.0, 0.5, window_steps), 0);
  int n = (int)lround(GEAR_T / GEAR_DT);
  for (int i = 1; i <= n; i++) {
    double t = i * GEAR_DT, a0 = input_speed * t;
    double angles[3] = {a0, -2 * a0, 0.5 * a0};
    if (slip) {
      for (int f = 1; f < 3; f++) angles[f] += slip(f, t);
    }
    tf_gear_slip_observe(&p, t, angles);
  }
  tf_metrics_clear(out);
  tf_gear_slip_finish(&p, out);
  tf_gear_slip_free(&p);
  assert_null(p.hist);
}

// the exact ratio with alternating signs: no error of either kind
static void test_gear_exact_ratio(void** state) {
  (void)state;
  tf_metrics out;
  run_gears(&out, 5.0, NULL);
  assert_true(metric(&out, "gear_slip.input_turns") == 1);
  assert_true(metric(&out, "gear_slip.ok") == 1);
  assert_near(metric(&out, "gear_slip.max"), 0, 1e-12);
  assert_near(metric(&out, "gear_slip.f1"), 0, 1e-12);
  assert_near(metric(&out, "gear_slip.f2"), 0, 1e-12);
  assert_near(metric(&out, "gear_slip.skipped_teeth"), 0, 1e-12);
  // the window is the last second: the input turned 5 rad in it
  assert_near(metric(&out, "gear_slip.input_turn_rad"), 5.0, 1e-9);
}

// follower 1 (10 teeth) falls 1.2 tooth pitches behind between 1.4 s and 1.6 s, then meshes
// again at the exact ratio: the window's ratio is clean, the skipped tooth is not
static double skip_one_tooth(int f, double t) {
  if (f != 1) return 0;
  double lost = 1.2 * 2 * pi / 10;
  double u = fmin(fmax((t - 1.4) / 0.2, 0), 1);
  return lost * u;  // follower 1 turns negatively: a positive offset is a lag
}

static void test_gear_skipped_tooth(void** state) {
  (void)state;
  tf_metrics out;
  run_gears(&out, 5.0, skip_one_tooth);
  assert_true(metric(&out, "gear_slip.skipped_teeth") >= 1);
  assert_near(metric(&out, "gear_slip.skipped_teeth"), 1.2, 1e-9);
  assert_true(metric(&out, "gear_slip.ok") == 0);
  assert_near(metric(&out, "gear_slip.max"), 0, 1e-9);
}

// follower 2 steadily 3 % short of its ratio: the window ratio shows it
static double steady_slip(int f, double t) { return f == 2 ? -0.03 * 0.5 * 5.0 * t : 0; }

static void test_gear_steady_slip(void** state) {
  (void)state;
  tf_metrics out;
  run_gears(&out, 5.0, steady_slip);
  assert_near(metric(&out, "gear_slip.f2"), 0.03, 1e-9);
  assert_near(metric(&out, "gear_slip.f1"), 0, 1e-12);
  assert_near(metric(&out, "gear_slip.max"), 0.03, 1e-9);
}

// a driven gear that never turns must not pass as a perfect train
static void test_gear_dead_drive(void** state) {
  (void)state;
  tf_metrics out;
  run_gears(&out, 0.0, NULL);
  assert_true(metric(&out, "gear_slip.input_turns") == 0);
  assert_true(metric(&out, "gear_slip.ok") == 0);
  assert_true(isnan(metric(&out, "gear_slip.max")));
  assert_true(isnan(metric(&out, "gear_slip.skipped_teeth")));
  assert_true(isnan(metric(&out, "gear_slip.f1")));
  assert_near(metric(&out, "gear_slip.input_turn_rad"), 0, 0);

  // a run that ends before the measurement starts measured nothing either
  int teeth[2] = {20, 10}, sign[2] = {1, -1};
  tf_gear_slip_probe p;
  assert_int_equal(tf_gear_slip_init(&p, 2, teeth, sign, 0.2, 1.0, 0.5, 100), 0);
  for (int i = 1; i < 10; i++) {
    double a[2] = {5.0 * i * GEAR_DT, -10.0 * i * GEAR_DT};
    tf_gear_slip_observe(&p, i * GEAR_DT, a);
  }
  tf_metrics_clear(&out);
  tf_gear_slip_finish(&p, &out);
  tf_gear_slip_free(&p);
  assert_true(metric(&out, "gear_slip.input_turns") == 0);
  assert_true(isnan(metric(&out, "gear_slip.max")));
}

// ---------------------------------------------------------------------------------------------
// contacts, solver, divergence, throughput

static void test_contacts_and_solver(void** state) {
  (void)state;
  tf_contacts_probe c;
  tf_contacts_init(&c);
  tf_contacts_observe(&c, 4, 10, 6, 0);
  tf_contacts_observe(&c, 8, 30, 22, 3);
  tf_contacts_observe(&c, 0, 0, 0, 0);
  tf_metrics out;
  tf_metrics_clear(&out);
  tf_contacts_finish(&c, &out);
  assert_near(metric(&out, "contacts.mean"), 4, 1e-15);
  assert_true(metric(&out, "contacts.max") == 8);
  assert_near(metric(&out, "contacts.candidates_mean"), 40.0 / 3, 1e-12);
  assert_true(metric(&out, "contacts.candidates_max") == 30);
  assert_true(metric(&out, "contacts.merged") == 28);
  assert_true(metric(&out, "contacts.overflow") == 3);

  // steps without rows are not solves; a capped solve counts
  tf_solver_probe s;
  tf_solver_probe_init(&s);
  tf_solver_probe_observe(&s, 0, 77, 1.0, 1);
  tf_solver_probe_observe(&s, 12, 10, 1e-12, 0);
  tf_solver_probe_observe(&s, 12, 30, 1e-6, 1);
  tf_metrics_clear(&out);
  tf_solver_probe_finish(&s, &out);
  assert_near(metric(&out, "solver.iters_mean"), 20, 1e-15);
  assert_true(metric(&out, "solver.iters_max") == 30);
  assert_near(metric(&out, "solver.residual_max"), 1e-6, 0);
  assert_true(metric(&out, "solver.capped") == 1);
}

// feeds steps 0..n-1 with everything fine except step k (what), returns the metrics
static void run_divergence(tf_metrics* out, tf_divergence_probe* p, int k, int what) {
  tf_divergence_init(p, 1e3);
  for (int i = 0; i < 20; i++) {
    double speed = i == k && what == 2 ? 2e3 : 1.0;
    int finite = !(i == k && what == 1);
    int failed = i == k && what == 3;
    tf_divergence_observe(p, i, 1e-3 * (i + 1), speed, finite, failed);
  }
  tf_metrics_clear(out);
  tf_divergence_finish(p, out);
}

static void test_divergence(void** state) {
  (void)state;
  tf_divergence_probe p;
  tf_metrics out;
  run_divergence(&out, &p, 7, 1);
  assert_true(tf_divergence_diverged(&p));
  assert_true(metric(&out, "divergence.diverged") == 1);
  assert_true(metric(&out, "divergence.step") == 7);
  assert_near(metric(&out, "divergence.time_s"), 8e-3, 1e-18);
  assert_string_equal(tf_metrics_text(&out, "divergence.reason"), "nan");

  run_divergence(&out, &p, 3, 2);
  assert_true(metric(&out, "divergence.step") == 3);
  assert_string_equal(tf_metrics_text(&out, "divergence.reason"), "runaway");

  run_divergence(&out, &p, 11, 3);
  assert_true(metric(&out, "divergence.step") == 11);
  assert_string_equal(tf_metrics_text(&out, "divergence.reason"), "step_failed");

  // a NaN speed is a runaway too (it is not below the limit), even if the flag said finite
  tf_divergence_init(&p, 1e3);
  tf_divergence_observe(&p, 0, 0.0, NAN, 1, 0);
  assert_true(tf_divergence_diverged(&p));

  run_divergence(&out, &p, -1, 0);
  assert_false(tf_divergence_diverged(&p));
  assert_true(metric(&out, "divergence.diverged") == 0);
  assert_true(isnan(metric(&out, "divergence.step")));
  assert_string_equal(tf_metrics_text(&out, "divergence.reason"), "none");
}

static void test_throughput(void** state) {
  (void)state;
  tf_throughput_probe p;
  tf_throughput_init(&p);
  double timer[TF_TIMER_N] = {0};
  timer[TF_TIMER_STEP] = 9e-5;
  timer[TF_TIMER_COLLISION] = 2e-5;
  for (int i = 0; i < 10; i++) tf_throughput_observe(&p, 1e-3, 1e-4, timer);
  p.ncontrol = 5;
  tf_metrics out;
  tf_metrics_clear(&out);
  tf_throughput_finish(&p, &out);
  assert_near(metric(&out, "throughput.steps_per_s"), 1e4, 1e-6);
  assert_near(metric(&out, "throughput.env_steps_per_s"), 5e3, 1e-6);
  assert_near(metric(&out, "throughput.realtime_factor"), 10, 1e-9);
  assert_near(metric(&out, "throughput.us_per_step"), 100, 1e-9);
  assert_near(metric(&out, "throughput.collision_us"), 20, 1e-9);
  assert_near(metric(&out, "throughput.step_us"), 90, 1e-9);
  assert_near(metric(&out, "throughput.solve_us"), 0, 0);
}

// ---------------------------------------------------------------------------------------------
// merging environments

static void test_merge_envs(void** state) {
  (void)state;
  static tf_metrics env[3];
  double through[3] = {1, 0, 1}, peak[3] = {1e-4, 3e-4, 2e-4}, travel[3] = {0.03, 0.001, 0.02};
  double depth_min[3] = {-1e-3, -5e-3, 0}, mean[3] = {1, 2, 6}, slip[3] = {0.01, NAN, 0.04};
  int success[3] = {1, 1, 0}, cmax[3] = {7, 12, 3}, overflow[3] = {0, 1, 0};
  for (int e = 0; e < 3; e++) {
    tf_metrics* m = &env[e];
    tf_metrics_clear(m);
    tf_metrics_set_text(m, "status", e == 0 ? "ok" : "other");
    tf_metrics_set_bool(m, "tunnel.through", (int)through[e]);
    tf_metrics_set_bool(m, "tunnel.flythrough", 0);
    tf_metrics_set_bool(m, "divergence.diverged", e == 2);
    tf_metrics_set_bool(m, "success", success[e]);
    tf_metrics_set(m, "overlap.peak_m", peak[e]);
    tf_metrics_set(m, "tunnel.travel_m", travel[e]);
    tf_metrics_set(m, "tunnel.depth_min_m", depth_min[e]);
    tf_metrics_set(m, "overlap.mean_m", mean[e]);
    tf_metrics_set(m, "gear_slip.max", slip[e]);
    tf_metrics_set(m, "gear_slip.skipped_teeth", 0.1 * e);
    tf_metrics_set(m, "solver.residual_max", e == 1 ? 1e-3 : 1e-9);
    tf_metrics_set_int(m, "contacts.max", cmax[e]);
    tf_metrics_set_int(m, "contacts.overflow", overflow[e]);
    tf_metrics_set_int(m, "solver.capped", 10 * e);
    if (e == 2) tf_metrics_set(m, "late.only", 42);
    tf_metrics_set_text(m, "why", e == 0 ? "" : (e == 1 ? "not seated" : "overlap peak"));
  }
  tf_metrics out;
  tf_metrics_merge_envs(&out, env, 3);
  // the first environment that missed, named, and how many more did
  const tf_metric* why = tf_metrics_find(&out, "why");
  assert_non_null(why);
  assert_string_equal(why->text, "env 1: not seated (and 1 more env)");
  tf_metrics one;
  tf_metrics_merge_envs(&one, env + 1, 1);
  assert_string_equal(tf_metrics_find(&one, "why")->text, "not seated");
  tf_metrics_merge_envs(&one, env, 1);
  assert_string_equal(tf_metrics_find(&one, "why")->text, "");
  assert_true(metric(&out, "tunnel.through") == 2);
  assert_int_equal(kind_of(&out, "tunnel.through"), TF_METRIC_INT);
  assert_true(metric(&out, "tunnel.flythrough") == 0);
  assert_true(metric(&out, "divergence.diverged") == 1);
  assert_true(metric(&out, "success") == 0);
  assert_int_equal(kind_of(&out, "success"), TF_METRIC_BOOL);
  assert_near(metric(&out, "overlap.peak_m"), 3e-4, 0);
  assert_near(metric(&out, "tunnel.travel_m"), 0.001, 0);
  assert_near(metric(&out, "tunnel.depth_min_m"), -5e-3, 0);
  assert_near(metric(&out, "overlap.mean_m"), 3, 1e-15);
  assert_near(metric(&out, "gear_slip.max"), 0.04, 0);  // NaN: that env does not apply
  assert_near(metric(&out, "gear_slip.skipped_teeth"), 0.2, 1e-15);
  assert_near(metric(&out, "solver.residual_max"), 1e-3, 0);
  assert_true(metric(&out, "contacts.max") == 12);
  assert_int_equal(kind_of(&out, "contacts.max"), TF_METRIC_INT);
  // counts add up over the environments (README, "What a row holds"): one overflow in one of
  // three environments is one overflow, not a third of one
  assert_true(metric(&out, "contacts.overflow") == 1);
  assert_int_equal(kind_of(&out, "contacts.overflow"), TF_METRIC_INT);
  assert_true(metric(&out, "solver.capped") == 30);
  assert_int_equal(kind_of(&out, "solver.capped"), TF_METRIC_INT);
  assert_near(metric(&out, "late.only"), 42, 0);
  assert_string_equal(tf_metrics_text(&out, "status"), "ok");
  assert_true(metric(&out, "envs") == 3);
  assert_int_equal(out.overflow, 0);

  // every environment NaN: still NaN
  for (int e = 0; e < 3; e++) tf_metrics_set(&env[e], "gear_slip.max", NAN);
  tf_metrics_merge_envs(&out, env, 3);
  assert_true(isnan(metric(&out, "gear_slip.max")));
}

// ---------------------------------------------------------------------------------------------
// the set on engine models

typedef struct ball_param {
  double r;
} ball_param;

static double ball_fn(const void* params, const double p[3], double grad[3]) {
  const ball_param* b = params;
  double n = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  if (n > 0) {
    for (int k = 0; k < 3; k++) grad[k] = p[k] / n;
  } else {
    grad[0] = 0, grad[1] = 0, grad[2] = 1;
  }
  return n - b->r;
}

// the solid z <= 0
static double halfspace_fn(const void* params, const double p[3], double grad[3]) {
  (void)params;
  grad[0] = 0, grad[1] = 0, grad[2] = 1;
  return p[2];
}

#define BALL_R 0.01
#define BALL_NSAMPLE 600
#define FLOOR_HALF 0.012  // half-width of the half-space's sampled patch
#define FLOOR_STEP 0.001
#define FLOOR_N 25  // samples per side of the patch

typedef struct ball_scene {
  tf_model* m;
  int ball_body, ball_geom, floor_geom;
  double ball_pts[3 * BALL_NSAMPLE];
  double floor_pts[3 * FLOOR_N * FLOOR_N];
  double ball_floor, floor_floor;  // m: each sampling's own error
} ball_scene;

static int add_sdf_geom(tf_builder* b, const char* name, int body, tf_sdf_fn fn, const void* params,
                        size_t size, const double aabb[6]) {
  tf_sdf_def sd;
  memset(&sd, 0, sizeof(sd));
  sd.name = name;
  sd.fn = fn;
  sd.params = params;
  sd.params_size = size;
  memcpy(sd.aabb, aabb, sizeof(sd.aabb));
  sd.error_bound = 0;
  sd.mesh = -1;
  int sdf = tf_builder_add_sdf(b, &sd);
  assert_true(sdf >= 0);
  tf_geom_def g = tf_geom_def_default();
  g.name = name;
  g.body = body;
  g.type = TF_GEOM_SDF;
  g.sdf = sdf;
  g.friction[0] = 0;
  g.condim = 1;
  return tf_builder_add_geom(b, &g);
}

// the largest angle from any direction to its nearest sample direction (brute force over a
// dense spiral of directions), times a little for the directions the search missed
static double covering_angle(const double* pts, int n, double r) {
  int nprobe = 20000;
  double worst = 0;
  for (int i = 0; i < nprobe; i++) {
    double z = 1 - (2.0 * i + 1) / nprobe, rho = sqrt(1 - z * z), phi = 2.399963229728653 * i;
    double u[3] = {rho * cos(phi + 0.5), rho * sin(phi + 0.5), z};
    double best = -1;
    for (int k = 0; k < n; k++) {
      double c = (u[0] * pts[3 * k] + u[1] * pts[3 * k + 1] + u[2] * pts[3 * k + 2]) / r;
      if (c > best) best = c;
    }
    worst = fmax(worst, acos(fmin(best, 1.0)));
  }
  return 1.1 * worst;
}

// a free SDF ball of radius 1 cm over a fixed SDF half-space, with both parts' samples
static void build_ball_scene(ball_scene* sc, tf_solver_type solver, double timestep, double drop) {
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = timestep;
  opt.solver = solver;
  tf_builder_set_option(b, &opt);
  static const ball_param bp = {BALL_R};
  const double half_box[6] = {-0.2, -0.2, -0.05, 0.2, 0.2, 0};
  const double ball_box[6] = {-BALL_R, -BALL_R, -BALL_R, BALL_R, BALL_R, BALL_R};
  sc->floor_geom = add_sdf_geom(b, "floor", 0, halfspace_fn, NULL, 0, half_box);
  tf_body_def body = tf_body_def_default();
  body.name = "ball";
  // off the half-space's sample grid, so neither side has a sample exactly at the deepest point
  body.pos[0] = 3.7e-4, body.pos[1] = -2.1e-4, body.pos[2] = BALL_R + drop;
  body.mass = 0.05;
  body.inertia[0] = body.inertia[1] = body.inertia[2] = 0.4 * 0.05 * BALL_R * BALL_R;
  sc->ball_body = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "ball_free";
  joint.body = sc->ball_body;
  joint.type = TF_JOINT_FREE;
  tf_builder_add_joint(b, &joint);
  sc->ball_geom = add_sdf_geom(b, "ball", sc->ball_body, ball_fn, &bp, sizeof(bp), ball_box);
  char err[256] = "";
  sc->m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!sc->m) print_error("compile: %s\n", err);
  assert_non_null(sc->m);

  // the ball's surface: a Fibonacci spiral; a plane below it can reach at most the
  // covering angle's sagitta deeper than the deepest sample
  for (int i = 0; i < BALL_NSAMPLE; i++) {
    double z = 1 - (2.0 * i + 1) / BALL_NSAMPLE, rho = sqrt(1 - z * z);
    double phi = 2.399963229728653 * i;
    sc->ball_pts[3 * i] = BALL_R * rho * cos(phi);
    sc->ball_pts[3 * i + 1] = BALL_R * rho * sin(phi);
    sc->ball_pts[3 * i + 2] = BALL_R * z;
  }
  sc->ball_floor = BALL_R * (1 - cos(covering_angle(sc->ball_pts, BALL_NSAMPLE, BALL_R)));
  // the half-space's surface under the ball: a square grid; the ball's lowest point lies at
  // most half a diagonal from a sample, where the ball's field is rho^2 / (2 R) higher
  for (int i = 0; i < FLOOR_N; i++) {
    for (int j = 0; j < FLOOR_N; j++) {
      double* p = sc->floor_pts + 3 * (i * FLOOR_N + j);
      p[0] = -FLOOR_HALF + FLOOR_STEP * i;
      p[1] = -FLOOR_HALF + FLOOR_STEP * j;
      p[2] = 0;
    }
  }
  double rho = FLOOR_STEP * sqrt(0.5);
  sc->floor_floor = rho * rho / (2 * (BALL_R - 1e-3));
}

static void ball_spec(const ball_scene* sc, tf_probe_spec* spec) {
  tf_probe_spec_default(spec);
  spec->tunnel_body = sc->ball_body;
  spec->axis[0] = 0, spec->axis[1] = 0, spec->axis[2] = -2;  // normalised by init
  spec->seat[0] = 3.7e-4, spec->seat[1] = -2.1e-4, spec->seat[2] = BALL_R;
  spec->noverlap = 1;
  spec->overlap[0][0] =
      (tf_probe_surface){sc->ball_geom, sc->ball_pts, BALL_NSAMPLE, sc->ball_floor};
  spec->overlap[0][1] =
      (tf_probe_surface){sc->floor_geom, sc->floor_pts, FLOOR_N * FLOOR_N, sc->floor_floor};
}

// the least value of a side's samples (geom frame of geom a) in geom b's SDF, every one
// evaluated: the reference the set's skipping must match
static double brute_side(const tf_model* m, const tf_data* d, int a, const double* points, int n,
                         int b) {
  double deepest = INFINITY;
  const double* r = d->geom_xmat + 9 * a;
  const double* t = d->geom_xpos + 3 * a;
  for (int i = 0; i < n; i++) {
    const double* p = points + 3 * i;
    double w[3];
    for (int k = 0; k < 3; k++)
      w[k] = r[3 * k] * p[0] + r[3 * k + 1] * p[1] + r[3 * k + 2] * p[2] + t[k];
    deepest = fmin(deepest, tf_geom_sdf(m, d, b, w, NULL));
  }
  return deepest;
}

// both sides of the ball scene, every sample evaluated
static double brute_deepest(const ball_scene* sc, const tf_data* d) {
  return fmin(
      brute_side(sc->m, d, sc->ball_geom, sc->ball_pts, BALL_NSAMPLE, sc->floor_geom),
      brute_side(sc->m, d, sc->floor_geom, sc->floor_pts, FLOOR_N * FLOOR_N, sc->ball_geom));
}

// the ball dropped from 3 cm at 4 ms steps under newton's soft contact: it sinks into the
// half-space and rests there. The probe's deepest sample must track the true penetration
// R - z (within its floor), match a brute-force probe exactly while skipping most samples,
// agree with the collider's contact depth, and the tunnel depth must be z - R
static void test_set_ball_on_halfspace(void** state) {
  (void)state;
  ball_scene sc;
  double dt = 4e-3;
  build_ball_scene(&sc, TF_SOLVER_NEWTON, dt, 0.03);
  const tf_model* m = sc.m;
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  tf_probe_spec spec;
  ball_spec(&sc, &spec);
  tf_probe_set set;
  char err[256] = "";
  int status = tf_probes_init(&set, m, &spec, dt, err, sizeof(err));
  if (status) print_error("init: %s\n", err);
  assert_int_equal(status, 0);
  assert_near(set.overlap.floor, fmax(sc.ball_floor, sc.floor_floor), 0);
  assert_near(set.spec.axis[2], -1, 0);

  tf_overlap_probe brute;
  tf_overlap_init(&brute, spec.contact_m, set.overlap.floor);
  tf_kinematics(m, d);
  int nstep = 400, ncompared = 0;
  double true_peak = 0, travel = 0, z_prev = d->xpos[3 * sc.ball_body + 2];
  double prev_probe_depth = NAN, worst_vs_contact = 0;
  for (int i = 0; i < nstep; i++) {
    assert_int_equal(tf_step(m, d), 0);
    // the contact of this step was measured at the state the probes saw last step
    double contact_depth = -INFINITY;
    for (int c = 0; c < d->ncon; c++) contact_depth = fmax(contact_depth, -d->contact[c].dist);
    if (d->ncon > 0 && !isnan(prev_probe_depth) && contact_depth > 0) {
      worst_vs_contact = fmax(worst_vs_contact, fabs(contact_depth - prev_probe_depth));
      ncompared++;
    }
    tf_kinematics(m, d);
    tf_probes_observe_step(&set, m, d, 1e-6, 0);
    double sum_before = set.overlap.sum;
    long contact_before = set.overlap.ncontact;
    tf_probes_observe_control(&set, m, d);
    prev_probe_depth = set.overlap.ncontact > contact_before ? set.overlap.sum - sum_before : NAN;
    tf_overlap_observe(&brute, brute_deepest(&sc, d));

    // the probes' path starts at their first observation, after the first step
    double z = d->xpos[3 * sc.ball_body + 2];
    true_peak = fmax(true_peak, BALL_R - z);
    if (i > 0) travel += fabs(z - z_prev);
    z_prev = z;
  }
  tf_metrics out;
  tf_metrics_clear(&out);
  tf_probes_finish(&set, &out);
  double z = d->xpos[3 * sc.ball_body + 2];
  double peak = metric(&out, "overlap.peak_m"), floor = metric(&out, "overlap.floor_m");
  print_message(
      "ball: rest z - R = %.3e, true peak %.3e, probe peak %.3e (floor %.2e), "
      "%ld of %ld evaluations, probe vs contact %.2e over %d steps\n",
      z - BALL_R, true_peak, peak, floor, set.overlap_evaluations,
      (long)nstep * (BALL_NSAMPLE + FLOOR_N * FLOOR_N), worst_vs_contact, ncompared);

  // a real penetration, seen by the probe within its floor, and only as deep as it is
  assert_true(true_peak > 4 * floor);
  assert_true(peak <= true_peak + 1e-12);
  assert_true(peak >= true_peak - floor);
  assert_true(metric(&out, "overlap.contact_steps") > nstep / 2);
  // the Lipschitz skip changes the cost, not one bit of the answer
  assert_true(metric(&out, "overlap.peak_m") == brute.peak);
  assert_true(set.overlap.sum == brute.sum);
  assert_true(set.overlap.ncontact == brute.ncontact);
  assert_true(set.overlap_evaluations < (long)nstep * (BALL_NSAMPLE + FLOOR_N * FLOOR_N) / 2);
  // the collider's contact depth on the same state agrees within the probe's floor
  assert_true(ncompared > nstep / 2);
  assert_true(worst_vs_contact <= floor + 1e-7);

  // the tunnel depth is the ball's height above its seat
  assert_near(metric(&out, "tunnel.depth_final_m"), z - BALL_R, 1e-15);
  assert_true(metric(&out, "tunnel.depth_min_m") <= z - BALL_R);
  assert_true(metric(&out, "tunnel.through") == 0);
  assert_true(metric(&out, "tunnel.flythrough") == 0);
  assert_near(metric(&out, "tunnel.travel_m"), travel, 1e-9);
  assert_true(metric(&out, "tunnel.travel_m") > 0.029);
  // the always-on probes reported too
  assert_true(metric(&out, "divergence.diverged") == 0);
  assert_true(metric(&out, "contacts.max") >= 1);
  assert_true(metric(&out, "throughput.steps_per_s") > 0);
  assert_true(metric(&out, "throughput.env_steps_per_s") > 0);
  assert_false(isnan(metric(&out, "solver.iters_mean")));
  assert_null(tf_metrics_find(&out, "gear_slip.max"));
  assert_int_equal(out.overflow, 0);

  tf_probes_free(&set);
  tf_data_destroy(d);
  tf_model_destroy(sc.m);
}

// the ball spinning at 60 rad/s about a tilted axis while it falls into the half-space (newton's
// soft contact: it sinks) and
// rolls: its samples sweep through the floor's field and the floor's through its own, so the
// clusters' bounds must carry the rotation (a cluster skipped on its centre's motion alone
// would miss its far samples turning in). Every step, the probe's deepest value equals a
// brute-force evaluation of every sample whenever that is in contact, and is not in contact
// whenever that is not, while the probe looks at fewer samples than every one
static void test_set_spinning_ball_matches_brute_force(void** state) {
  (void)state;
  ball_scene sc;
  double dt = 2e-3;
  build_ball_scene(&sc, TF_SOLVER_NEWTON, dt, 0.004);
  const tf_model* m = sc.m;
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  // free joint: linear velocity, then angular
  d->qvel[0] = 0.3;
  d->qvel[3] = 36, d->qvel[4] = 48, d->qvel[5] = 0;
  tf_probe_spec spec;
  ball_spec(&sc, &spec);
  tf_probe_set set;
  char err[256] = "";
  assert_int_equal(tf_probes_init(&set, m, &spec, dt, err, sizeof(err)), 0);
  tf_kinematics(m, d);
  int nstep = 300, ncontact = 0, nclear = 0;
  for (int i = 0; i < nstep; i++) {
    assert_int_equal(tf_step(m, d), 0);
    tf_kinematics(m, d);
    double probe = tf_overlap_deepest(&set, m, d, NULL), brute = brute_deepest(&sc, d);
    if (brute < spec.contact_m) {
      if (probe != brute) print_error("step %d: probe %.17g, brute force %.17g\n", i, probe, brute);
      assert_true(probe == brute);
      ncontact++;
    } else {
      assert_true(probe >= spec.contact_m);
      nclear++;
    }
  }
  long every = (long)nstep * (BALL_NSAMPLE + FLOOR_N * FLOOR_N);
  print_message("spinning ball: %d steps in contact, %d clear, %ld of %ld evaluations\n", ncontact,
                nclear, set.overlap_evaluations, every);
  assert_true(ncontact > nstep / 2 && nclear > 0);
  assert_true(set.overlap_evaluations < every / 2);
  tf_probes_free(&set);
  tf_data_destroy(d);
  tf_model_destroy(sc.m);
}

// a rod of 32 samples (one cluster, its centre on the body's origin) held 10 mm above the
// half-space and turned about that centre by hand, 0.01 rad a step: the centre never moves,
// so only the rotation term of the cluster's bound can let the rod's ends, which reach the
// floor after 20 steps, be measured (a bound on the centre's motion alone skips the cluster
// forever and reports no contact at all)
static void test_set_turning_cluster_is_measured(void** state) {
  (void)state;
  ball_scene sc;
  build_ball_scene(&sc, TF_SOLVER_AL, 2e-3, 0.03);
  const tf_model* m = sc.m;
  tf_data* d = tf_data_create(m);
  assert_non_null(d);
  enum { NROD = 32 };
  double rod[3 * NROD];
  for (int i = 0; i < NROD; i++) {
    rod[3 * i] = -0.05 + 0.1 * i / (NROD - 1);
    rod[3 * i + 1] = rod[3 * i + 2] = 0;
  }
  tf_probe_spec spec;
  tf_probe_spec_default(&spec);
  spec.noverlap = 1;
  spec.overlap[0][0] = (tf_probe_surface){sc.ball_geom, rod, NROD, 0};
  spec.overlap[0][1] = (tf_probe_surface){sc.floor_geom, NULL, 0, 0};
  tf_probe_set set;
  char err[256] = "";
  assert_int_equal(tf_probes_init(&set, m, &spec, 2e-3, err, sizeof(err)), 0);
  assert_int_equal(set.overlap_cluster_num[0][0], 1);
  int ncontact = 0;
  for (int i = 0; i < 40; i++) {
    double theta = 0.01 * i;
    // free joint: position, then the quaternion of a turn theta about y
    d->qpos[0] = 0, d->qpos[1] = 0, d->qpos[2] = 0.01;
    d->qpos[3] = cos(0.5 * theta), d->qpos[4] = 0, d->qpos[5] = sin(0.5 * theta), d->qpos[6] = 0;
    tf_kinematics(m, d);
    double probe = tf_overlap_deepest(&set, m, d, NULL);
    double brute = brute_side(m, d, sc.ball_geom, rod, NROD, sc.floor_geom);
    if (brute < spec.contact_m) {
      assert_true(probe == brute);
      ncontact++;
    } else {
      assert_true(probe >= spec.contact_m);
    }
  }
  assert_int_equal(ncontact, 19);  // theta 0.21 .. 0.39: 0.05 sin(theta) > 0.01
  tf_probes_free(&set);
  tf_data_destroy(d);
  tf_model_destroy(sc.m);
}

// the ball's qvel made NaN by hand: the set reports divergence at that step
static void test_set_divergence_from_data(void** state) {
  (void)state;
  ball_scene sc;
  build_ball_scene(&sc, TF_SOLVER_AL, 2e-3, 0.03);
  tf_data* d = tf_data_create(sc.m);
  tf_probe_spec spec;
  tf_probe_spec_default(&spec);
  tf_probe_set set;
  char err[256] = "";
  assert_int_equal(tf_probes_init(&set, sc.m, &spec, 2e-3, err, sizeof(err)), 0);
  for (int i = 0; i < 10; i++) {
    tf_step(sc.m, d);
    tf_kinematics(sc.m, d);
    if (i == 6) d->qvel[2] = NAN;
    tf_probes_observe_step(&set, sc.m, d, 1e-6, 0);
    if (i == 6) d->qvel[2] = 0;
  }
  tf_metrics out;
  tf_metrics_clear(&out);
  tf_probes_finish(&set, &out);
  assert_true(metric(&out, "divergence.diverged") == 1);
  assert_true(metric(&out, "divergence.step") == 6);
  assert_string_equal(tf_metrics_text(&out, "divergence.reason"), "nan");
  assert_null(tf_metrics_find(&out, "tunnel.through"));
  assert_null(tf_metrics_find(&out, "overlap.peak_m"));
  tf_probes_free(&set);
  tf_data_destroy(d);
  tf_model_destroy(sc.m);
}

// two gears on hinges about tilted world axes, turned by hand through several turns at the
// exact ratio of 30 and 15 teeth (opposite senses): the set's unwrapped angles must give a
// clean ratio and count the turns; then the follower slips 1.5 pitches and the set sees it
static void run_hinged_gears(tf_metrics* out, double slip_pitches) {
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  tf_builder_set_option(b, &opt);
  double axes[2][3] = {{0.3, 0.0, 1.0}, {0.0, -0.5, 1.0}};
  int body[2], jnt[2];
  const char* names[2] = {"gear0", "gear1"};
  for (int g = 0; g < 2; g++) {
    tf_body_def bd = tf_body_def_default();
    bd.name = names[g];
    bd.pos[0] = 0.05 * g;
    body[g] = tf_builder_add_body(b, &bd);
    tf_joint_def jd = tf_joint_def_default();
    jd.name = names[g];
    jd.body = body[g];
    jd.type = TF_JOINT_HINGE;
    memcpy(jd.axis, axes[g], sizeof(jd.axis));
    jnt[g] = tf_builder_add_joint(b, &jd);
  }
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) print_error("compile: %s\n", err);
  assert_non_null(m);
  tf_data* d = tf_data_create(m);

  tf_probe_spec spec;
  tf_probe_spec_default(&spec);
  spec.ngear = 2;
  for (int g = 0; g < 2; g++) {
    spec.gear_body[g] = body[g];
    memcpy(spec.gear_axis[g], axes[g], sizeof(spec.gear_axis[g]));
  }
  spec.gear_teeth[0] = 30, spec.gear_teeth[1] = 15;
  spec.gear_sign[0] = 1, spec.gear_sign[1] = -1;
  double dt = 0.01;
  tf_probe_set set;
  assert_int_equal(tf_probes_init(&set, m, &spec, dt, err, sizeof(err)), 0);
  double speed = 7.0;  // rad/s: the follower turns 0.14 rad per control step
  int n = 300;
  for (int i = 0; i <= n; i++) {
    double t = i * dt, a0 = speed * t + 1.0;
    double lag = slip_pitches * 2 * pi / 15 * fmin(fmax((t - 1.0) / 0.5, 0), 1);
    d->qpos[m->jnt_qposadr[jnt[0]]] = a0;
    d->qpos[m->jnt_qposadr[jnt[1]]] = -2 * a0 + lag;
    d->time = t;
    tf_kinematics(m, d);
    tf_probes_observe_control(&set, m, d);
  }
  // the unwrapped follower angle kept every turn (42 rad = 6.7 turns)
  assert_near(set.gear_angle[1], -2 * speed * n * dt + slip_pitches * 2 * pi / 15, 1e-9);
  assert_near(set.gear_angle[0], speed * n * dt, 1e-9);
  tf_metrics_clear(out);
  tf_probes_finish(&set, out);
  tf_probes_free(&set);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

static void test_set_gear_unwrap(void** state) {
  (void)state;
  tf_metrics out;
  run_hinged_gears(&out, 0);
  assert_near(metric(&out, "gear_slip.max"), 0, 1e-9);
  assert_near(metric(&out, "gear_slip.skipped_teeth"), 0, 1e-8);
  assert_near(metric(&out, "gear_slip.input_turn_rad"), 7.0, 1e-9);
  assert_true(metric(&out, "gear_slip.ok") == 1);

  run_hinged_gears(&out, 1.5);
  assert_near(metric(&out, "gear_slip.skipped_teeth"), 1.5, 1e-8);
  assert_true(metric(&out, "gear_slip.ok") == 0);
}

// bad specs are refused with a message, and nothing is left to free
static void test_set_bad_specs(void** state) {
  (void)state;
  ball_scene sc;
  build_ball_scene(&sc, TF_SOLVER_AL, 2e-3, 0.03);
  tf_probe_set set;
  tf_probe_spec spec;
  char err[256];

  ball_spec(&sc, &spec);
  spec.tunnel_body = 99;
  err[0] = 0;
  assert_int_equal(tf_probes_init(&set, sc.m, &spec, 2e-3, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "tunnel"));

  // a pair with no samples on either side would read "never in contact": refused
  ball_spec(&sc, &spec);
  spec.overlap[0][0].npoint = 0;
  spec.overlap[0][1].npoint = 0;
  err[0] = 0;
  assert_int_equal(tf_probes_init(&set, sc.m, &spec, 2e-3, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "overlap"));

  ball_spec(&sc, &spec);
  spec.ngear = 1;
  err[0] = 0;
  assert_int_equal(tf_probes_init(&set, sc.m, &spec, 2e-3, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "gear"));

  // one side without samples is fine: the other side is measured
  ball_spec(&sc, &spec);
  spec.overlap[0][1].npoint = 0;
  assert_int_equal(tf_probes_init(&set, sc.m, &spec, 2e-3, err, sizeof(err)), 0);
  assert_true(set.overlap_cache_adr[0][0] == 0);
  assert_true(set.overlap_cache_adr[0][1] == -1);
  tf_probes_free(&set);
  tf_model_destroy(sc.m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tunnel_flythrough),
      cmocka_unit_test(test_tunnel_slow),
      cmocka_unit_test(test_tunnel_frozen),
      cmocka_unit_test(test_tunnel_seated),
      cmocka_unit_test(test_tunnel_no_steps),
      cmocka_unit_test(test_overlap_statistics),
      cmocka_unit_test(test_gear_exact_ratio),
      cmocka_unit_test(test_gear_skipped_tooth),
      cmocka_unit_test(test_gear_steady_slip),
      cmocka_unit_test(test_gear_dead_drive),
      cmocka_unit_test(test_contacts_and_solver),
      cmocka_unit_test(test_divergence),
      cmocka_unit_test(test_throughput),
      cmocka_unit_test(test_merge_envs),
      cmocka_unit_test(test_set_ball_on_halfspace),
      cmocka_unit_test(test_set_spinning_ball_matches_brute_force),
      cmocka_unit_test(test_set_turning_cluster_is_measured),
      cmocka_unit_test(test_set_divergence_from_data),
      cmocka_unit_test(test_set_gear_unwrap),
      cmocka_unit_test(test_set_bad_specs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
