// Robot mode with an arm from a URDF file (`robot_urdf`, task_robot.h): the shipped Panda URDF
// (examples/robots/panda.urdf, run from the repository root) picks and seats the peg under osc
// on seeds 0..2 (the full 10 seeds: docs/robot.md's command), its row names the file and the
// built-in arm's row does not, its run ends where the built-in arm's does (same kinematics and
// inertias; the arm's collision shapes touch nothing in this task), and a bad file stops the
// run before it starts with the loader's one line.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "task.h"
#include "task_checks.h"

#define PANDA_URDF "examples/robots/panda.urdf"

static void options(tf_run_options* o, uint64_t seed, const char* urdf) {
  tf_run_options_default(o);
  o->task = "peg";
  o->mode = TF_MODE_ROBOT;
  o->seed = seed;
  o->set[0].key = "controller", o->set[0].value = "osc";
  o->nset = 1;
  if (urdf) o->set[o->nset].key = "robot_urdf", o->set[o->nset++].value = urdf;
}

static void run(const tf_run_options* o, tf_metrics* row) {
  char err[512] = "";
  if (tf_task_run(o, row, err, sizeof(err))) fail_msg("%s", err);
}

static void test_urdf_panda_seats_the_peg(void** state) {
  (void)state;
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  tf_metrics* builtin = test_malloc(sizeof(tf_metrics));
  tf_run_options o;
  for (uint64_t seed = 0; seed < 3; seed++) {
    options(&o, seed, PANDA_URDF);
    run(&o, row);
    printf("seed %d: success %d, depth %.9g m, why '%s'\n", (int)seed,
           tf_metrics_get(row, "success") > 0, tf_metrics_get(row, "peg.depth_m"),
           tf_metrics_text(row, "why"));
    assert_true(tf_metrics_get(row, "success") > 0);
    assert_string_equal(tf_metrics_text(row, "robot_urdf"), PANDA_URDF);
  }
  // the last seed again with the built-in arm: the same end
  options(&o, 2, NULL);
  run(&o, builtin);
  assert_null(tf_metrics_find(builtin, "robot_urdf"));
  assert_true(tf_metrics_get(builtin, "peg.depth_m") == tf_metrics_get(row, "peg.depth_m"));
  assert_true(tf_metrics_get(builtin, "robot.grasp_slip_max") ==
              tf_metrics_get(row, "robot.grasp_slip_max"));
  test_free(row);
  test_free(builtin);
}

static void test_bad_file_stops_the_run(void** state) {
  (void)state;
  const char* path = "/tmp/tf_urdf_robot_bad.urdf";
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  fputs(
      "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/>\n"
      "<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
      "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint></robot>\n",
      f);
  fclose(f);
  tf_run_options o;
  options(&o, 0, path);
  task_expect_refused(&o,
                      "/tmp/tf_urdf_robot_bad.urdf:1: <robot name='r'>: the chain from 'a' "
                      "to 'b' has 1 moving joints");
  remove(path);
  options(&o, 0, "/nonexistent/arm.urdf");
  task_expect_refused(&o, "/nonexistent/arm.urdf: cannot open");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_urdf_panda_seats_the_peg),
      cmocka_unit_test(test_bad_file_stops_the_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
