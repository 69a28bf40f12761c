// The connectors task in robot mode (tasks/connectors/connectors_robot.c,
// connectors_robot_scene.c): bad parameters are refused naming the key, a robot row carries
// robot mode's keys, every environment's start is drawn from the seed within its stated
// bounds, a welded plug starts in the hand, and a welded run seats the plug (the friction
// pick is the connectors_robot gate's).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "connectors/connectors_robot.h"
#include "task.h"
#include "task_checks.h"

// robot-mode options at dt 2 ms (al) with key=value pairs given as "key", "value", ..., NULL
static void options(tf_run_options* o, double duration, uint64_t seed, ...) {
  tf_run_options_default(o);
  o->task = "connectors";
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
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256] = "";
  tf_run_options o;
  options(&o, 0.01, 0, "controller", "hybrid", NULL);
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "controller"));
  options(&o, 0.01, 0, "push", "force", NULL);  // the rig's drive has no place here
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "unknown parameter 'push'"));
  options(&o, 0.01, 0, "type", "usb", NULL);
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "type"));
  options(&o, 0.01, 0, "type", "rj45", "controller", "pd", NULL);
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), 0);
  assert_string_equal(tf_metrics_text(row, "mode"), "robot");
  assert_string_equal(tf_metrics_text(row, "type"), "rj45");
  assert_string_equal(tf_metrics_text(row, "controller"), "pd");
  test_free(row);
}

// the plug starts on the rack within perturb_mm along it and the slot's slack across it; a
// seed draws the same start every time, another seed another
static void test_starts(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("connectors");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  double first[2][2];
  for (int run = 0; run < 3; run++) {
    tf_run_options o;
    options(&o, 0.002, run == 2 ? 0 : (uint64_t)run, "perturb_mm", "2", NULL);
    tf_env env;
    task_run_env(&o, &env, row);
    const connectors_robot_state* s = env.state;
    assert_true(fabs(s->start[0] - s->rack[0]) <= 2e-3);
    assert_true(fabs(s->start[1] - s->rack[1]) <= 0.25e-3);
    // on the rails: the overmold's underside at the rails' top, the shell between them
    const double* x = env.data->xpos + 3 * s->plug_body;
    assert_true(fabs(x[2] + s->shell_top - s->rack_top) < 2e-4);
    if (run < 2) {
      memcpy(first[run], s->start, sizeof(s->start));
    } else {
      assert_memory_equal(first[0], s->start, sizeof(s->start));
    }
    tf_env_free(task, &env);
  }
  assert_true(memcmp(first[0], first[1], sizeof(first[0])) != 0);
  test_free(row);
}

// grasp=weld: the plug starts in the hand (mating face grip_height past the TCP, axis along
// the TCP's -z) and the run seats it without touching the socket's walls
static void test_weld(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("connectors");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  tf_run_options o;
  options(&o, 0.002, 5, "grasp", "weld", NULL);
  tf_env env;
  task_run_env(&o, &env, row);
  const connectors_robot_state* s = env.state;
  task_assert_in_hand(&s->robot, env.model, env.data, s->plug_body, s->grip_height);
  tf_env_free(task, &env);

  double length = connectors_robot_script_length(TF_ROBOT_OSC, TF_ROBOT_GRASP_WELD);
  options(&o, length + 0.1, 5, "grasp", "weld", NULL);
  task_run_env(&o, &env, row);
  print_message(
      "weld: seat error %.3g m, overlap peak %.3g m, lateral error %.3g m, seated at "
      "%.3f s\n",
      tf_metrics_get(row, "connectors.seat_error_m"), tf_metrics_get(row, "overlap.peak_m"),
      tf_metrics_get(row, "robot.align_error_max"), tf_metrics_get(row, "connectors.seat_time_s"));
  assert_true(tf_metrics_get(row, "success") == 1);
  assert_string_equal(tf_metrics_text(row, "status"), "ok");
  tf_env_free(task, &env);
  test_free(row);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_parameters),
      cmocka_unit_test(test_starts),
      cmocka_unit_test(test_weld),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
