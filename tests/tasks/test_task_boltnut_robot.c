// The boltnut task in robot mode (tasks/boltnut/boltnut_robot*.c): bad parameters are refused
// naming the key, a robot row carries robot mode's keys and a rig row none of them, every
// environment's start is drawn from the seed within its stated bounds, the same run twice
// ends in the same state, a welded nut starts in the hand, and a welded run screws the nut
// down to the base (the friction pick is the boltnut_robot gate's).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boltnut/boltnut_robot.h"
#include "task.h"
#include "task_checks.h"

// robot-mode options at dt 2 ms (al) with key=value pairs given as "key", "value", ..., NULL
static void options(tf_run_options* o, double duration, uint64_t seed, ...) {
  tf_run_options_default(o);
  o->task = "boltnut";
  o->mode = TF_MODE_ROBOT;
  o->physics.solver = TF_SOLVER_AL;
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
  options(&o, 0.01, 0, "screw_speed", "0.5", NULL);
  task_expect_refused(&o, "screw_speed");
  options(&o, 0.01, 0, "collider", "hull", NULL);
  task_expect_refused(&o, "collider");
  options(&o, 0.01, 0, "size", "M4", NULL);
  task_expect_build_refused(&o, "size");
  options(&o, 0.01, 0, "travel_turns", "8", NULL);
  task_expect_build_refused(&o, "travel_turns");
  options(&o, 0.01, 0, "travel_turns", "2", NULL);
  task_expect_build_refused(&o, "travel_turns");
  // the rig knows no robot keys, and robot mode no rig-only ones
  tf_run_options_default(&o);
  o.task = "boltnut";
  o.set[0].key = "controller", o.set[0].value = "osc", o.nset = 1;
  task_expect_refused(&o, "unknown parameter 'controller'");
  options(&o, 0.01, 0, "drive", "servo", NULL);
  task_expect_refused(&o, "unknown parameter 'drive'");
}

// the robot row says mode robot and names its controller and grasp; the rig's row has neither
static void test_row_keys(void** state) {
  (void)state;
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256] = "";
  tf_run_options o;
  options(&o, 0.01, 0, "controller", "pd", NULL);
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), 0);
  assert_string_equal(tf_metrics_text(row, "mode"), "robot");
  assert_string_equal(tf_metrics_text(row, "controller"), "pd");
  assert_string_equal(tf_metrics_text(row, "grasp"), "friction");
  assert_string_equal(tf_metrics_text(row, "size"), "M16");
  assert_non_null(tf_metrics_find(row, "robot.grasp_slip_max"));
  assert_non_null(tf_metrics_find(row, "robot.screw_turns_commanded"));
  assert_non_null(tf_metrics_find(row, "boltnut.height_above_base_m"));
  assert_null(tf_metrics_find(row, "drive"));
  assert_true(tf_metrics_get(row, "success") == 0);  // 10 ms: the nut is still on its stand
  task_assert_rig_default("boltnut", "robot.screw_turns_commanded", row);
  test_free(row);
}

// every environment (0 included) draws the nut's start within perturb_mm of the stand, turned
// by any angle, and the arm's joints within perturb_deg; a seed draws the same start every
// time; joint 7 has no limit
static void test_starts(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("boltnut");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  double first[2][3 + TF_PANDA_NJOINT];
  for (int run = 0; run < 3; run++) {
    uint64_t seed = run == 2 ? 0 : (uint64_t)run;
    tf_run_options o;
    options(&o, 0.002, seed, "perturb_mm", "3", "perturb_deg", "2", NULL);
    tf_env env;
    task_run_env(&o, &env, row);
    const boltnut_robot_state* s = env.state;
    double off = hypot(s->start[0] - s->stand[0], s->start[1] - s->stand[1]);
    assert_true(off <= 3e-3);
    assert_true(fabs(s->start_yaw) <= M_PI);
    double start[3 + TF_PANDA_NJOINT] = {s->start[0], s->start[1], s->start_yaw};
    tf_robot_cell cell = tf_robot_cell_default();
    for (int i = 0; i < TF_PANDA_NJOINT; i++) {
      start[3 + i] = s->robot.q_start[i];
      assert_true(fabs(s->robot.q_start[i] - cell.q_start[i]) <= 2 * M_PI / 180 + 1e-12);
    }
    int j7 = s->robot.panda.joint[TF_PANDA_NJOINT - 1];
    assert_false(env.model->jnt_limited[j7]);
    // the nut stands on the stand, upright
    const double* x = env.data->xpos + 3 * s->rig.nut_body;
    assert_true(fabs(x[0] - s->start[0]) < 1e-4 && fabs(x[1] - s->start[1]) < 1e-4);
    assert_true(fabs(x[2]) < 2e-4);
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

// the same run twice ends in the same state, bit for bit (the grasp is closing at 1.3 s)
static void test_deterministic(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, 1.3, 7, NULL);
  task_assert_same_end_state(&o);
}

// grasp=weld: the nut starts in the hand, its axis along the TCP's -z, its bottom face
// grip_height past the TCP, and the run (the shortest thread the bolt allows) screws it down:
// stepped until the script has withdrawn the arm
static void test_weld(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("boltnut");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  tf_run_options o;
  options(&o, 0.002, 3, "grasp", "weld", "travel_turns", "2.7", NULL);
  tf_env env;
  task_run_env(&o, &env, row);
  const boltnut_robot_state* s = env.state;
  task_assert_in_hand(&s->robot, env.model, env.data, s->rig.nut_body, s->grip_height);
  tf_env_free(task, &env);

  options(&o, 0, 3, "grasp", "weld", "travel_turns", "2.7", NULL);
  char err[256] = "";
  tf_env_run* r = tf_env_run_begin(&o, 0, err, sizeof(err));
  if (!r) print_message("run: %s\n", err);
  assert_non_null(r);
  s = tf_env_run_env(r)->state;
  while (tf_env_run_step(r)) {
    if (s->script.phase == TF_ROBOT_DONE) break;
  }
  tf_env_run_finish(r, row);
  print_message(
      "weld: height %.3g m, tilt %.3g deg, lateral %.3g m, turns %.3f for %.3g m, slip %.3g m, "
      "screwed down at %.3f s\n",
      tf_metrics_get(row, "boltnut.height_above_base_m"),
      tf_metrics_get(row, "boltnut.tilt_deg_final"), tf_metrics_get(row, "boltnut.lateral_final_m"),
      tf_metrics_get(row, "boltnut.turns"), tf_metrics_get(row, "boltnut.advance_m"),
      tf_metrics_get(row, "robot.grasp_slip_max"), tf_metrics_get(row, "robot.seat_time_s"));
  assert_true(tf_metrics_get(row, "success") == 1);
  assert_true(tf_metrics_get(row, "robot.grasp_slip_max") < 1e-4);
  assert_string_equal(tf_metrics_text(row, "status"), "ok");
  tf_env_run_end(r);
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
