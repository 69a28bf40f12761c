// Force control against a table under the gripper: open-loop, closed-loop and hybrid
// force-motion controllers press the finger pads down with the commanded force (the contact
// solver's normal forces add up to it), hybrid control holds the other axes meanwhile, and
// the controller's own wrench estimate agrees with the contacts.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "arm_fixture.h"

#define PUSH 10.0  // N down
#define GAP 0.003  // m between the pads and the table at the start
#define DT 0.002

// the ready pose's TCP from the DH table (the arm's base is at the origin)
static void ready_tcp(double tcp[3]) {
  tf_panda_def def = tf_panda_def_default();
  const tf_panda_params* p = tf_panda_params_get();
  double frames[TF_PANDA_NFRAME][16];
  tf_panda_dh_fk(frames, def.qpos0);
  const double* t = frames[TF_PANDA_NFRAME - 1];
  for (int k = 0; k < 3; k++) tcp[k] = t[4 * k + 3] + t[4 * k + 2] * p->tcp_offset;
}

// a table whose top lies GAP below the pads' lower ends
static void add_table(tf_builder* b, const tf_panda* panda) {
  (void)panda;
  double tcp[3];
  ready_tcp(tcp);
  tf_geom_def table = tf_geom_def_default();
  table.name = "table";
  table.type = TF_GEOM_BOX;
  table.size[0] = table.size[1] = 0.15, table.size[2] = 0.02;
  table.pos[0] = tcp[0], table.pos[1] = tcp[1];
  // pad ends: 0.0125 m past the TCP along the hand's z (down here)
  table.pos[2] = tcp[2] - 0.0125 - GAP - table.size[2];
  table.friction[0] = 0.5;
  assert_true(tf_builder_add_geom(b, &table) >= 0);
}

// vertical force the table pushes up with, from the last solve's normal impulses
static double table_force(const arm_fixture* f) {
  double fz = 0;
  for (int c = 0; c < f->d->ncon; c++) {
    const tf_contact* con = f->d->contact + c;
    fz += fabs(con->frame[2]) * con->lambda[0] / DT;
  }
  return fz;
}

typedef struct press_result {
  double force;   // mean table force over the last 0.5 s (N)
  double ripple;  // its largest deviation from the mean there (N)
  double xy;      // largest horizontal TCP excursion (m)
  double est;     // the controller's estimate of the downward push (N)
} press_result;

static press_result press(tf_controller_config* cfg) {
  arm_fixture f;
  arm_fixture_init(&f, DT, add_table);
  tf_controller* c = arm_controller(&f, cfg);
  tf_panda_def def = tf_panda_def_default();
  arm_set_q(&f, def.qpos0);
  tf_controller_reset(c, f.m, f.d);
  double wrench[6] = {0, 0, -PUSH, 0, 0, 0}, start[3], pos[3], quat[4];
  tf_controller_set_wrench(c, wrench);
  arm_tcp(&f, start, quat);
  press_result r = {0, 0, 0, 0};
  double samples[250];
  int n = 0;
  for (int s = 0; s < 1500; s++) {  // 3 s
    arm_run(&f, c, 1);
    arm_tcp(&f, pos, quat);
    r.xy = fmax(r.xy, hypot(pos[0] - start[0], pos[1] - start[1]));
    if (s >= 1250) samples[n++] = table_force(&f);
  }
  for (int i = 0; i < n; i++) r.force += samples[i] / n;
  for (int i = 0; i < n; i++) r.ripple = fmax(r.ripple, fabs(samples[i] - r.force));
  r.est = -tf_controller_measured_wrench(c)[2];
  tf_controller_destroy(c);
  arm_fixture_free(&f);
  return r;
}

static void report(const char* name, press_result r) {
  print_message(
      "%s: table force %.4g N (target %.0f, ripple %.2g N), estimate %.4g N, TCP "
      "drifted %.3g mm sideways\n",
      name, r.force, PUSH, r.ripple, r.est, r.xy * 1e3);
}

static void test_hybrid_open_loop(void** state) {
  (void)state;
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_HYBRID);
  press_result r = press(&cfg);
  report("hybrid (impedance), open loop", r);
  assert_true(fabs(r.force - PUSH) < 0.02 * PUSH);
  assert_true(fabs(r.est - PUSH) < 0.02 * PUSH);
  assert_true(r.xy < 1e-3);
}

static void test_hybrid_closed_loop(void** state) {
  (void)state;
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_HYBRID);
  cfg.force_feedback = 1;
  press_result r = press(&cfg);
  report("hybrid (impedance), closed loop", r);
  assert_true(fabs(r.force - PUSH) < 0.02 * PUSH);
  assert_true(r.xy < 1e-3);
}

static void test_hybrid_osc(void** state) {
  (void)state;
  tf_controller_config cfg = tf_controller_config_default(TF_CTRL_HYBRID);
  cfg.hybrid_motion = TF_HYBRID_OSC;
  cfg.force_feedback = 1;
  press_result r = press(&cfg);
  report("hybrid (osc), closed loop", r);
  assert_true(fabs(r.force - PUSH) < 0.02 * PUSH);
  assert_true(r.xy < 1e-3);
}

// every axis force-controlled: the push is the only wrench; the table's friction and the
// two pads keep the hand in place
static void test_force_only(void** state) {
  (void)state;
  for (int feedback = 0; feedback < 2; feedback++) {
    tf_controller_config cfg = tf_controller_config_default(TF_CTRL_FORCE);
    cfg.force_feedback = feedback;
    press_result r = press(&cfg);
    report(feedback ? "force, closed loop" : "force, open loop", r);
    assert_true(fabs(r.force - PUSH) < 0.02 * PUSH);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hybrid_open_loop),
      cmocka_unit_test(test_hybrid_closed_loop),
      cmocka_unit_test(test_hybrid_osc),
      cmocka_unit_test(test_force_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
