// The peg task in robot mode (tasks/peg/peg_robot.c, peg_robot_scene.c): bad parameters are
// refused naming the key, a robot row carries robot mode's keys and a rig row none of them,
// every environment's start is drawn from the seed within its stated bounds, the same run
// twice ends in the same state, a welded peg starts in the hand, and a welded run seats the
// peg (the friction pick is the peg_robot gate's).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peg/peg_robot.h"
#include "task.h"
#include "task_checks.h"

// robot-mode options at dt 2 ms (al) with key=value pairs given as "key", "value", ..., NULL
static void options(tf_run_options* o, double duration, uint64_t seed, ...) {
  tf_run_options_default(o);
  o->task = "peg";
  o->mode = TF_MODE_ROBOT;
  o->physics.dt = 0.002;
  o->duration = duration;
  o->seed = seed;
  va_list ap;
  va_start(ap, seed);
  task_set_pairs(o, ap);
  va_end(ap);
}

static void test_bad_parameters(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, 0.01, 0, "controller", "id", NULL);
  task_expect_refused(&o, "controller");
  options(&o, 0.01, 0, "grasp", "suction", NULL);
  task_expect_refused(&o, "grasp");
  options(&o, 0.01, 0, "diameter_mm", "75", NULL);
  task_expect_refused(&o, "diameter_mm");
  options(&o, 0.01, 0, "length_mm", "60", "depth_mm", "25", NULL);
  task_expect_build_refused(&o, "length_mm");
  options(&o, 0.01, 0, "density", "20000", NULL);
  task_expect_build_refused(&o, "payload");
  // the rig knows no robot keys, and robot mode no rig-only ones
  tf_run_options_default(&o);
  o.task = "peg";
  o.set[0].key = "controller", o.set[0].value = "osc", o.nset = 1;
  task_expect_refused(&o, "unknown parameter 'controller'");
  options(&o, 0.01, 0, "impact_speed", "1", NULL);
  task_expect_refused(&o, "unknown parameter 'impact_speed'");
}

// the robot row says mode robot and names its controller and grasp; the rig's row has neither
static void test_row_keys(void** state) {
  (void)state;
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256] = "";
  tf_run_options o;
  options(&o, 0.01, 0, "controller", "impedance", NULL);
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), 0);
  assert_string_equal(tf_metrics_text(row, "mode"), "robot");
  assert_string_equal(tf_metrics_text(row, "controller"), "impedance");
  assert_string_equal(tf_metrics_text(row, "grasp"), "friction");
  assert_true(tf_metrics_get(row, "clearance_um") == 100);
  assert_null(tf_metrics_find(row, "impact_speed"));
  task_assert_rig_default("peg", "robot.seat_time_s", row);
  test_free(row);
}

// every environment (0 included) draws the peg's start within perturb_mm of the stand and
// the arm's joints within perturb_deg; a seed draws the same start every time
static void test_starts(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("peg");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  double first[2][2 + TF_PANDA_NJOINT];
  for (int run = 0; run < 3; run++) {
    uint64_t seed = run == 2 ? 0 : (uint64_t)run;
    tf_run_options o;
    options(&o, 0.002, seed, "perturb_mm", "3", "perturb_deg", "2", NULL);
    tf_env env;
    task_run_env(&o, &env, row);
    const peg_robot_state* s = env.state;
    double off = hypot(s->start[0] - s->stand[0], s->start[1] - s->stand[1]);
    assert_true(off <= 3e-3);
    double start[2 + TF_PANDA_NJOINT] = {s->start[0], s->start[1]};
    tf_robot_cell cell = tf_robot_cell_default();
    for (int i = 0; i < TF_PANDA_NJOINT; i++) {
      start[2 + i] = s->robot.q_start[i];
      assert_true(fabs(s->robot.q_start[i] - cell.q_start[i]) <= 2 * M_PI / 180 + 1e-12);
    }
    if (run < 2) {
      memcpy(first[run], start, sizeof(start));
      assert_true(off > 0);
    } else {
      assert_memory_equal(first[0], start, sizeof(start));
    }
    tf_env_free(task, &env);
  }
  assert_true(memcmp(first[0], first[1], sizeof(first[0])) != 0);
  test_free(row);
}

// the same run twice ends in the same state, bit for bit (the pick is under way at 1.2 s)
static void test_deterministic(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, 1.2, 7, NULL);
  task_assert_same_end_state(&o);
}

// grasp=weld: the peg starts in the hand, its axis along the TCP's -z, its tip grip_height
// past the TCP, and the run seats it
static void test_weld(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("peg");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  tf_run_options o;
  options(&o, 0.002, 3, "grasp", "weld", NULL);
  tf_env env;
  task_run_env(&o, &env, row);
  const peg_robot_state* s = env.state;
  task_assert_in_hand(&s->robot, env.model, env.data, s->peg.body, s->grip_height);
  tf_env_free(task, &env);

  double length = tf_robot_script_length(NULL, TF_ROBOT_OSC, 1);
  options(&o, length + 0.1, 3, "grasp", "weld", NULL);
  task_run_env(&o, &env, row);
  print_message("weld: seat error %.3g m, tilt %.3g deg, slip %.3g m, seated at %.3f s\n",
                tf_metrics_get(row, "peg.seat_error_m"), tf_metrics_get(row, "peg.tilt_deg_final"),
                tf_metrics_get(row, "robot.grasp_slip_max"),
                tf_metrics_get(row, "robot.seat_time_s"));
  assert_true(tf_metrics_get(row, "success") == 1);
  assert_true(tf_metrics_get(row, "robot.grasp_slip_max") < 1e-4);
  assert_string_equal(tf_metrics_text(row, "status"), "ok");
  tf_env_free(task, &env);
  test_free(row);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_parameters), cmocka_unit_test(test_row_keys),
      cmocka_unit_test(test_starts),         cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_weld),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
