// The gears task in robot mode (tasks/gears/gears_robot.c, gears_robot_scene.c): bad parameters
// are refused naming the key, a robot row carries robot mode's keys and a rig row none of
// them, every environment's start is drawn from the seed within its stated bounds, the same run
// twice ends in the same state, the default duration covers every controller's script and
// drive, a welded gear starts in the hand, and a welded run seats the gear in mesh (the friction
// pick and the drive are the gears_robot gate's).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gears/gears_robot.h"
#include "task.h"
#include "task_checks.h"

// robot-mode options at dt 2 ms (al) with key=value pairs given as "key", "value", ..., NULL
static void options(tf_run_options* o, double duration, uint64_t seed, ...) {
  tf_run_options_default(o);
  o->task = "gears";
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
  options(&o, 0.01, 0, "perturb_mm", "20", NULL);
  task_expect_refused(&o, "perturb_mm");
  // one gear is no train; a placed gear of 60 teeth (93 mm across) or of module 4 (104 mm)
  // does not fit the gripper's 80 mm
  options(&o, 0.01, 0, "teeth", "40", NULL);
  task_expect_build_refused(&o, "teeth");
  options(&o, 0.01, 0, "teeth", "40,60", NULL);
  task_expect_build_refused(&o, "teeth 60");
  options(&o, 0.01, 0, "module_mm", "4", NULL);
  task_expect_build_refused(&o, "module_mm");
  options(&o, 0.01, 0, "bore_mm", "2", "clearance_um", "800", NULL);
  task_expect_build_refused(&o, "clearance_um");
  // the rig knows no robot keys, and robot mode has no drop scene
  tf_run_options_default(&o);
  o.task = "gears";
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
  options(&o, 0.01, 0, "controller", "pd", NULL);
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), 0);
  assert_string_equal(tf_metrics_text(row, "mode"), "robot");
  assert_string_equal(tf_metrics_text(row, "controller"), "pd");
  assert_string_equal(tf_metrics_text(row, "grasp"), "friction");
  assert_string_equal(tf_metrics_text(row, "teeth"), "40,24");
  assert_true(tf_metrics_get(row, "clearance_um") == 50);
  assert_non_null(tf_metrics_find(row, "robot.grasp_slip_max"));
  assert_non_null(tf_metrics_find(row, "gears.seat_error_m"));
  assert_non_null(tf_metrics_find(row, "gear_slip.max"));
  assert_null(tf_metrics_find(row, "impact_speed"));
  task_assert_rig_default("gears", "robot.grasp_slip_max", row);
  test_free(row);
}

// every environment (0 included) draws the gear's start within perturb_mm of the stand, at
// any yaw, and the arm's joints within perturb_deg; a seed draws the same start every time
static void test_starts(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("gears");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  double first[2][3 + TF_PANDA_NJOINT];
  for (int run = 0; run < 3; run++) {
    uint64_t seed = run == 2 ? 0 : (uint64_t)run;
    tf_run_options o;
    options(&o, 0.002, seed, "perturb_mm", "3", "perturb_deg", "2", NULL);
    tf_env env;
    task_run_env(&o, &env, row);
    const gears_robot_state* s = env.state;
    double off = hypot(s->start[0] - s->stand[0], s->start[1] - s->stand[1]);
    assert_true(off <= 3e-3);
    assert_true(fabs(s->start[2]) <= M_PI);
    // the gear lies where it was drawn, flat, its yaw the drawn one
    const double* x = env.data->xpos + 3 * s->scene.gear_body[s->placed];
    const double* R = env.data->xmat + 9 * s->scene.gear_body[s->placed];
    assert_true(hypot(x[0] - s->start[0], x[1] - s->start[1]) < 1e-5);
    assert_true(R[8] > cos(1e-3));
    assert_true(fabs(remainder(atan2(R[3], R[0]) - s->start[2], 2 * M_PI)) < 1e-3);
    double start[3 + TF_PANDA_NJOINT] = {s->start[0], s->start[1], s->start[2]};
    tf_robot_cell cell = tf_robot_cell_default();
    for (int i = 0; i < TF_PANDA_NJOINT; i++) {
      start[3 + i] = s->robot.q_start[i];
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

// the same run twice ends in the same state, bit for bit (the fingers close at 1.1 s)
static void test_deterministic(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, 1.3, 7, NULL);
  task_assert_same_end_state(&o);
}

// the default duration covers the slowest controller's script and drive
static void test_default_duration(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("gears");
  for (int c = 0; c < TF_ROBOT_NCONTROLLER; c++) {
    for (int g = 0; g < 2; g++) {
      assert_true(gears_robot_run_length((tf_robot_controller)c, g) <= task->default_duration);
    }
  }
}

// grasp=weld: the gear starts in the hand, its axis along the TCP's -z, and the run seats it
// in mesh with its neighbour (the weld still holds it: no drive)
static void test_weld(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("gears");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  tf_run_options o;
  options(&o, 0.002, 3, "grasp", "weld", NULL);
  tf_env env;
  task_run_env(&o, &env, row);
  const gears_robot_state* s = env.state;
  task_assert_in_hand(&s->robot, env.model, env.data, s->scene.gear_body[s->placed], s->grip_above);
  tf_env_free(task, &env);

  options(&o, gears_robot_run_length(TF_ROBOT_OSC, TF_ROBOT_GRASP_WELD), 3, "grasp", "weld", NULL);
  task_run_env(&o, &env, row);
  print_message(
      "weld: seat error %.3g m, tilt %.3g deg, mesh phase %.3g rad, slip %.3g m, "
      "overlap %.3g m, seated at %.3f s\n",
      tf_metrics_get(row, "gears.seat_error_m"), tf_metrics_get(row, "gears.tilt_deg"),
      tf_metrics_get(row, "gears.mesh_phase_rad"), tf_metrics_get(row, "robot.grasp_slip_max"),
      tf_metrics_get(row, "overlap.peak_m"), tf_metrics_get(row, "gears.seat_time_s"));
  assert_true(tf_metrics_get(row, "success") == 1);
  assert_true(tf_metrics_get(row, "gears.seated") == 1);
  // in mesh: within half the pair's backlash of the centred mesh (0.25 mm on the 18 mm pitch
  // radius: 14 mrad); the rest of the tooth pitch (262 mrad) would be tooth on tooth
  assert_true(fabs(tf_metrics_get(row, "gears.mesh_phase_rad")) < 0.25e-3 / 0.018);
  assert_true(tf_metrics_get(row, "robot.grasp_slip_max") < 1e-4);
  assert_string_equal(tf_metrics_text(row, "status"), "ok");
  tf_env_free(task, &env);
  test_free(row);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_parameters),   cmocka_unit_test(test_row_keys),
      cmocka_unit_test(test_starts),           cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_default_duration), cmocka_unit_test(test_weld),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
