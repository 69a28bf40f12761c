// The boltnut task: bad parameters are refused with a message naming the key; the same seed
// gives bit-identical metrics; the success definition fails where it must (a hull that fills
// the nut's bore, a run that ends before the base); environment 0 starts centred on the helix
// and the others within their stated perturbation (half a turn along the helix, a lateral
// offset up to delta / 2), all touching and not overlapping; every drive is a torque about
// the bolt axis only; and the pure pieces (turn tracking and its steady fit, the mesh's mass
// properties) against synthetic inputs with known answers.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boltnut/boltnut.h"
#include "task_list.h"
#include "task_checks.h"

static const double pi = 3.14159265358979323846;

// options for one boltnut run at dt = 10 ms with al and the given key=value pairs
static tf_run_options options(const tf_kv* set, int nset) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = "boltnut";
  o.physics.dt = 0.01;
  o.physics.solver = TF_SOLVER_AL;
  for (int i = 0; i < nset; i++) o.set[o.nset++] = set[i];
  return o;
}

// a run that must be refused before anything runs, with the key in its one-line message
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
  tf_kv unknown[] = {{"thread", "fine"}};
  assert_refused(unknown, 1, "thread");
  tf_kv size[] = {{"size", "M5"}};
  assert_refused(size, 1, "size");
  tf_kv fit[] = {{"fit", "6H/4h"}};
  assert_refused(fit, 1, "fit");
  tf_kv clearance[] = {{"clearance_um", "500"}};
  assert_refused(clearance, 1, "clearance_um");
  tf_kv mu[] = {{"mu", "-0.1"}};
  assert_refused(mu, 1, "mu");
  tf_kv drive[] = {{"drive", "screw_joint"}};
  assert_refused(drive, 1, "drive");
  tf_kv speed[] = {{"drive_speed", "fast"}};
  assert_refused(speed, 1, "drive_speed");
  tf_kv torque[] = {{"drive_torque", "3"}};  // above the 2 N m the drives are capped at
  assert_refused(torque, 1, "drive_torque");
  tf_kv collider[] = {{"collider", "box"}};
  assert_refused(collider, 1, "collider");
  tf_kv travel[] = {{"travel_turns", "0"}};
  assert_refused(travel, 1, "travel_turns");
  tf_kv engaged[] = {{"engaged_turns", "9"}};
  assert_refused(engaged, 1, "engaged_turns");
  tf_kv chord[] = {{"mesh_chord_um", "-5"}};
  assert_refused(chord, 1, "mesh_chord_um");
  // in range but not buildable: a row that says why
  tf_kv fine[] = {{"mesh_chord_um", "0.5"}};
  assert_failed_row(fine, 1, "mesh_chord_um");
}

// two environments (the centred one and a perturbed one), a few servo steps, twice
static void test_determinism(void** state) {
  (void)state;
  tf_kv set[] = {{"collider", "sdf"}};
  tf_run_options o = options(set, 1);
  o.envs = 2;
  o.seed = 7;
  o.duration = 0.08;
  static tf_metrics first, second;
  char err[256];
  assert_int_equal(tf_task_run(&o, &first, err, sizeof(err)), 0);
  assert_int_equal(tf_task_run(&o, &second, err, sizeof(err)), 0);
  assert_string_equal(tf_metrics_text(&first, "status"), "ok");
  task_assert_same_metrics(&first, &second);
  // the nut did turn in those steps (a frozen state would be trivially repeatable)
  assert_true(tf_metrics_get(&first, "boltnut.turns") > 0.02);
}

// the definition fails where the physics says no: a convex hull of the nut has no bore, so
// it rests on the bolt's tip and spins there; and a run that ends before the nut reaches the
// base has not succeeded, however cleanly it was turning
static void test_success_can_fail(void** state) {
  (void)state;
  static tf_metrics out;
  char err[256];
  tf_kv hull[] = {{"collider", "hull"}};
  tf_run_options o = options(hull, 1);
  o.duration = 0.5;
  assert_int_equal(tf_task_run(&o, &out, err, sizeof(err)), 0);
  print_message(
      "hull: turns %.3f, advance %.3f um, height %.3f mm, success %g\n",
      tf_metrics_get(&out, "boltnut.turns"), 1e6 * tf_metrics_get(&out, "boltnut.advance_m"),
      1e3 * tf_metrics_get(&out, "boltnut.height_above_base_m"), tf_metrics_get(&out, "success"));
  assert_string_equal(tf_metrics_text(&out, "status"), "ok");
  assert_true(tf_metrics_get(&out, "success") == 0);
  assert_true(tf_metrics_get(&out, "boltnut.reached_base") == 0);
  // the servo did turn it (this is the hull's doing, not a frozen nut), and it went nowhere
  assert_true(tf_metrics_get(&out, "boltnut.turns") > 0.4);
  assert_true(fabs(tf_metrics_get(&out, "boltnut.advance_m")) < 0.1 * 2e-3);
  assert_true(isnan(tf_metrics_get(&out, "boltnut.advance_per_turn_m")));

  // three turns at 1 rev/s need 3 s; after 1 s the nut is still two pitches above the base
  o = options(NULL, 0);
  o.duration = 1.0;
  assert_int_equal(tf_task_run(&o, &out, err, sizeof(err)), 0);
  print_message("short run: turns %.3f, height %.3f mm, advance per turn %.5f mm\n",
                tf_metrics_get(&out, "boltnut.turns"),
                1e3 * tf_metrics_get(&out, "boltnut.height_above_base_m"),
                1e3 * tf_metrics_get(&out, "boltnut.advance_per_turn_m"));
  assert_true(tf_metrics_get(&out, "success") == 0);
  assert_true(tf_metrics_get(&out, "boltnut.reached_base") == 0);
  // what did happen was right: one pitch per turn over the steady part
  assert_true(tf_metrics_get(&out, "boltnut.pitch_error") < 0.01);
}

// the smallest signed distance of a part's surface samples (its frame) in another geom's SDF
static double min_gap(const tf_model* m, const tf_data* d, int body, const double* points, int n,
                      int geom) {
  double best = INFINITY;
  const double* R = d->xmat + 9 * body;
  const double* x = d->xpos + 3 * body;
  for (int i = 0; i < n; i++) {
    const double* p = points + 3 * i;
    double w[3];
    for (int k = 0; k < 3; k++)
      w[k] = x[k] + R[3 * k] * p[0] + R[3 * k + 1] * p[1] + R[3 * k + 2] * p[2];
    best = fmin(best, tf_geom_sdf(m, d, geom, w, NULL));
  }
  return best;
}

// builds environment `index` of a run with the given parameters (defaults otherwise)
static void build_env(tf_env* env, double* values, const tf_kv* set, int nset, int index,
                      uint64_t seed) {
  char err[256];
  assert_int_equal(tf_param_parse("task", "boltnut", tf_boltnut_params, BN_NPARAM, set, nset,
                                  values, err, sizeof(err)),
                   0);
  memset(env, 0, sizeof(*env));
  env->index = index;
  env->values = values;
  tf_probe_spec_default(&env->probe);
  tf_rng rng;
  tf_rng_seed(&rng, seed, (uint64_t)index);
  tf_physics physics = {0.01, 1, TF_SOLVER_AL, 0};
  int rc = tf_boltnut_build_scene(env, values, &physics, &rng, err, sizeof(err));
  if (rc) print_message("%s\n", err);
  assert_int_equal(rc, 0);
  tf_kinematics(env->model, env->data);
}

static void free_env(tf_env* env) { tf_env_free(&tf_task_boltnut, env); }

// the probes' view: the nut goes down -z to its seat on the plate at the origin; the overlap
// samples lie on the parts' true surfaces, 4x the collider mesh's vertices or more, with a
// floor under 1 um
static void assert_probe_spec(const tf_env* env) {
  const tf_boltnut_state* s = env->state;
  const tf_probe_spec* p = &env->probe;
  assert_int_equal(p->tunnel_body, s->nut_body);
  assert_true(p->axis[0] == 0 && p->axis[1] == 0 && p->axis[2] == -1);
  assert_true(p->seat[0] == 0 && p->seat[1] == 0 && p->seat[2] == 0);
  assert_int_equal(p->noverlap, 2);
  assert_int_equal(p->overlap[0][0].geom, s->nut_geom);
  assert_int_equal(p->overlap[0][1].geom, s->bolt_geom);
  assert_int_equal(p->overlap[1][1].geom, s->plate_geom);
  for (int side = 0; side < 2; side++) {
    const tf_probe_surface* f = &p->overlap[0][side];
    assert_true(f->npoint >= 4 * s->collider_vertices[side]);
    assert_true(f->floor > 0 && f->floor < 1e-6);
    // every 50th sample in its own part's SDF, at the part's pose
    int body = side == 0 ? s->nut_body : 0;
    const double* R = env->data->xmat + 9 * body;
    const double* x = env->data->xpos + 3 * body;
    for (int i = 0; i < f->npoint; i += 50) {
      const double* q = f->points + 3 * i;
      double w[3];
      for (int k = 0; k < 3; k++)
        w[k] = x[k] + R[3 * k] * q[0] + R[3 * k + 1] * q[1] + R[3 * k + 2] * q[2];
      assert_true(fabs(tf_geom_sdf(env->model, env->data, f->geom, w, NULL)) < 1e-9);
    }
  }
}

// environment 0 starts centred on the helix, resting on its flanks; the others draw their
// start turn within +-0.5 turn and their lateral offset within delta / 2, and every start
// touches without overlapping the true surfaces by more than the collider mesh's chord
static void test_start_and_perturbation(void** state) {
  (void)state;
  double values[BN_NPARAM];
  double phase_seen = 0, lateral_seen = 0;
  for (int index = 0; index < 4; index++) {
    tf_env env;
    build_env(&env, values, NULL, 0, index, 11);
    const tf_boltnut_state* s = env.state;
    const double* x = env.data->xpos + 3 * s->nut_body;
    const double* q = env.data->xquat + 4 * s->nut_body;
    double pitch = s->pitch, delta = s->delta;
    double gap =
        min_gap(env.model, env.data, s->nut_body, s->nut_samples, s->n_nut_samples, s->bolt_geom);
    print_message(
        "env %d: phase %+.3f turn, lateral %.1f um (delta %.1f), settle %+.3f um, "
        "true gap %+.3f um\n",
        index, s->start_phase, 1e6 * s->start_lateral, 1e6 * delta, 1e6 * s->settle_shift,
        1e6 * gap);
    assert_true(fabs(delta - 50e-6) < 1e-9);  // the default allowance, measured on the bolt
    if (index == 0) {
      assert_true(s->start_phase == 0 && s->start_lateral == 0);
      assert_true(x[0] == 0 && x[1] == 0);
      assert_probe_spec(&env);
    }
    assert_true(fabs(s->start_phase) <= TF_BOLTNUT_PERTURB_TURN);
    assert_true(s->start_lateral >= 0 && s->start_lateral <= TF_BOLTNUT_PERTURB_LATERAL * delta);
    assert_true(fabs(hypot(x[0], x[1]) - s->start_lateral) < 1e-12);
    phase_seen = fmax(phase_seen, fabs(s->start_phase));
    lateral_seen = fmax(lateral_seen, s->start_lateral);
    // on the helix: turned by theta, the centred height is pitch theta / 2 pi; resting, it
    // is below that by the flank play (at most delta / (2 cos 30)) give or take the
    // collider's correction, which is within its mesh chord (20 um asked, 11 um built)
    double theta = 2 * atan2(q[3], q[0]);
    double turns = values[BN_TRAVEL_TURNS] - s->start_phase;
    assert_true(fabs(remainder(theta - 2 * pi * turns, 2 * pi)) < 1e-9);
    double below = turns * pitch - x[2];
    assert_true(fabs(s->settle_shift) < 12e-6);
    assert_true(below > -12e-6 && below < delta / sqrt(3.0) + 12e-6);
    // touching: the true surfaces are no farther apart than the collider's chord and do
    // not overlap (the collider mesh lies on the void's side of the nut's true surface)
    assert_true(gap > -1e-6 && gap < 12e-6);
    // at rest and undriven until control runs
    for (int i = 0; i < env.model->nv; i++) assert_true(env.data->qvel[i] == 0);
    free_env(&env);
  }
  // the range is used, not just respected (three draws)
  assert_true(phase_seen > 0.1);
  assert_true(lateral_seen > 0.1 * 50e-6);
}

// every drive is a pure torque about the bolt axis, tightening positive (about -z), capped
static void test_drives_torque_only(void** state) {
  (void)state;
  double values[BN_NPARAM];
  tf_kv torque[] = {{"drive", "torque"}, {"drive_torque", "0.25"}, {"collider", "hull"}};
  tf_env env;
  build_env(&env, values, torque, 3, 0, 0);
  const tf_boltnut_state* s = env.state;
  tf_task_boltnut.control(&env);
  const double* w = env.data->xfrc_applied + 6 * s->nut_body;
  for (int k = 0; k < 5; k++) assert_true(w[k] == 0);
  assert_true(w[5] == -0.25);
  free_env(&env);

  tf_kv servo[] = {{"drive", "servo"}, {"drive_speed", "10"}, {"collider", "hull"}};
  build_env(&env, values, servo, 3, 0, 0);
  s = env.state;
  // a nut spinning the wrong way at 5000 rev/s: the servo's gain (half the error of the bare
  // nut per step, 2e-4 N m s here) asks for more than its cap
  int adr = env.model->body_dofadr[s->nut_body];
  env.data->qvel[adr + 5] = 2 * pi * 5000;  // body z = world z at the start: loosening
  tf_kinematics(env.model, env.data);
  assert_true(tf_boltnut_axis_speed(env.model, env.data, s->nut_body) < -3e4);
  tf_task_boltnut.control(&env);
  w = env.data->xfrc_applied + 6 * s->nut_body;
  for (int k = 0; k < 5; k++) assert_true(w[k] == 0);
  assert_true(w[5] == -TF_BOLTNUT_SERVO_CAP);
  free_env(&env);

  tf_kv gravity[] = {{"drive", "gravity"}, {"collider", "hull"}};
  build_env(&env, values, gravity, 2, 0, 0);
  s = env.state;
  tf_task_boltnut.control(&env);
  w = env.data->xfrc_applied + 6 * s->nut_body;
  for (int k = 0; k < 6; k++) assert_true(w[k] == 0);
  free_env(&env);
}

// a pose on the helix: turned `turns` tightening (about -z) from a start at height z0
static void helix_pose(double pos[3], double quat[4], double z0, double pitch, double turns,
                       double wobble) {
  double theta = -2 * pi * turns;
  pos[0] = wobble, pos[1] = 0, pos[2] = z0 - pitch * turns;
  quat[0] = cos(0.5 * theta), quat[1] = 0, quat[2] = 0, quat[3] = sin(0.5 * theta);
}

// the fit finds the pitch on a synthetic run with a settle at the start and a stop at the
// base; a nut that never turns has no advance per turn; loosening counts negative turns
static void test_track_synthetic(void** state) {
  (void)state;
  const double pitch = 2e-3, z0 = 6e-3;
  tf_boltnut_track t;
  double pos[3], quat[4];
  helix_pose(pos, quat, z0, pitch, 0, 0);
  tf_boltnut_track_init(&t, pitch, pos, quat);
  // 3 turns in 1000 samples; the first 0.2 turn settles 30 um off the helix; at the end
  // the nut stops on the base (z = 0) while still turning a little
  for (int i = 1; i <= 1000; i++) {
    double turns = 3.05 * i / 1000.0;
    helix_pose(pos, quat, z0, pitch, turns, 1e-6 * sin(i));
    if (turns < 0.2) pos[2] += 30e-6 * (1 - turns / 0.2);
    if (pos[2] < 0) pos[2] = 0;
    tf_boltnut_track_observe(&t, 1e-3 * i, pos, quat);
  }
  double apt = tf_boltnut_track_advance_per_turn(&t);
  print_message("synthetic: turns %.6f, advance per turn %.9f mm, span %.3f\n",
                tf_boltnut_track_turns(&t), 1e3 * apt, tf_boltnut_track_fit_span(&t));
  assert_true(fabs(tf_boltnut_track_turns(&t) - 3.05) < 1e-9);
  assert_true(fabs(apt - pitch) < 1e-12);
  assert_true(fabs(t.height) < 1e-15);
  assert_true(t.lateral_max <= 1e-6 && t.lateral_max > 0.9e-6);
  assert_true(tf_boltnut_track_fit_span(&t) > 2.4);
  // within one pitch of the base from turn 2: sample 656 of 1000 (3.05 turns)
  assert_true(fabs(t.reach_time - 0.656) < 1e-12);

  // frozen
  helix_pose(pos, quat, z0, pitch, 0, 0);
  tf_boltnut_track_init(&t, pitch, pos, quat);
  for (int i = 0; i < 100; i++) tf_boltnut_track_observe(&t, 1e-3 * i, pos, quat);
  assert_true(isnan(tf_boltnut_track_advance_per_turn(&t)));
  assert_true(t.moved_max == 0 && t.rotated_max == 0);
  assert_true(isnan(t.reach_time));

  // loosening: negative turns, the nut rises, still one pitch per turn
  helix_pose(pos, quat, z0, pitch, 0, 0);
  tf_boltnut_track_init(&t, pitch, pos, quat);
  for (int i = 1; i <= 400; i++) {
    helix_pose(pos, quat, z0, pitch, -2.0 * i / 400.0, 0);
    tf_boltnut_track_observe(&t, 1e-3 * i, pos, quat);
  }
  assert_true(fabs(tf_boltnut_track_turns(&t) + 2) < 1e-9);
  assert_true(fabs(tf_boltnut_track_advance_per_turn(&t) - pitch) < 1e-12);
  assert_true(t.advance < 0);
}

// a box 0.02 x 0.04 x 0.06 m offset from the origin: volume, com and inertia in closed form;
// turned inside out it encloses no volume
static void test_mesh_mass(void** state) {
  (void)state;
  const double a = 0.02, b = 0.04, c = 0.06, off[3] = {0.1, -0.2, 0.3}, rho = 7850;
  double vert[8 * 3];
  for (int k = 0; k < 8; k++) {
    vert[3 * k] = off[0] + (k & 1 ? a : 0);
    vert[3 * k + 1] = off[1] + (k & 2 ? b : 0);
    vert[3 * k + 2] = off[2] + (k & 4 ? c : 0);
  }
  // outward faces of the cube's corner indexing (bit 0 x, bit 1 y, bit 2 z)
  int face[12 * 3] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                      2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
  tf_boltnut_mass mass;
  assert_int_equal(tf_boltnut_mesh_mass(&mass, vert, 8, face, 12, rho), 0);
  double m = rho * a * b * c;
  assert_true(fabs(mass.volume - a * b * c) < 1e-15);
  assert_true(fabs(mass.mass - m) < 1e-12);
  assert_true(fabs(mass.com[0] - (off[0] + a / 2)) < 1e-14);
  assert_true(fabs(mass.com[1] - (off[1] + b / 2)) < 1e-14);
  assert_true(fabs(mass.com[2] - (off[2] + c / 2)) < 1e-14);
  double ixx = m * (b * b + c * c) / 12, iyy = m * (a * a + c * c) / 12,
         izz = m * (a * a + b * b) / 12;
  assert_true(fabs(mass.inertia[0] - ixx) < 1e-9 * ixx);
  assert_true(fabs(mass.inertia[1] - iyy) < 1e-9 * iyy);
  assert_true(fabs(mass.inertia[2] - izz) < 1e-9 * izz);
  for (int k = 3; k < 6; k++) assert_true(fabs(mass.inertia[k]) < 1e-9 * izz);
  for (int t = 0; t < 12; t++) {
    int swap = face[3 * t + 1];
    face[3 * t + 1] = face[3 * t + 2];
    face[3 * t + 2] = swap;
  }
  assert_int_equal(tf_boltnut_mesh_mass(&mass, vert, 8, face, 12, rho), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_parameters),         cmocka_unit_test(test_mesh_mass),
      cmocka_unit_test(test_track_synthetic),        cmocka_unit_test(test_drives_torque_only),
      cmocka_unit_test(test_start_and_perturbation), cmocka_unit_test(test_determinism),
      cmocka_unit_test(test_success_can_fail),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
