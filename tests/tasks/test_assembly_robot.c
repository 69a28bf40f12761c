// The assembly task in robot mode (tasks/assembly/assembly_robot.c, docs/assemblies.md "Robot
// mode"): robot keys belong to robot mode only, bad robot and grasp sections and scenes the
// script cannot do are refused naming the problem, the cell is laid out from the file (seat on
// the z axis, fixed parts' top at z = 0, the grasp at the part's centre), the file's "robot"
// key loads a URDF arm, and the STL peg example seats: picked by friction with osc (seeds 0..2),
// and welded in the hand of the URDF Panda. Run from the repository's root (the examples).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/assembly_robot.h"
#include "task.h"
#include "task_checks.h"
#include "test_folder.h"

#define PEG_EXAMPLE "examples/assemblies/peg_hole_stl/assembly.json"
#define PANDA_URDF "examples/robots/panda.urdf"

static char dir[64];
static char cwd[512];

static int setup(void** state) {
  (void)state;
  test_make_folder(dir, "tf_assembly_robot");
  assert_non_null(getcwd(cwd, sizeof(cwd)));
  return 0;
}

static int teardown(void** state) {
  (void)state;
  test_remove_tree(dir);
  return 0;
}

// robot-mode options on file at dt 2 ms (al) with "key", "value", ..., NULL pairs
static void options(tf_run_options* o, const char* file, double duration, uint64_t seed, ...) {
  tf_run_options_default(o);
  o->task = "assembly";
  o->mode = TF_MODE_ROBOT;
  o->physics.dt = 0.002;
  o->duration = duration;
  o->seed = seed;
  o->set[0].key = "assembly", o->set[0].value = file;
  o->nset = 1;
  va_list ap;
  va_start(ap, seed);
  task_set_pairs(o, ap);
  va_end(ap);
}

// the peg example with its meshes by absolute path, `extra` (JSON keys, may be "") added at the
// top level and insertion's axis as given; the file's path into path
static void write_peg(char path[256], const char* extra, const char* axis) {
  snprintf(path, 256, "%s/peg.json", dir);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f,
          "{\"units\": \"mm\", \"friction\": 0.01, \"min_margin\": 0.01,%s\n"
          " \"parts\": {\"hole\": {\"mesh\": \"%s/examples/assemblies/peg_hole_stl/hole.stl\","
          " \"units\": \"m\", \"chord\": 0.002},\n"
          "  \"peg\": {\"mesh\": \"%s/examples/assemblies/peg_hole_stl/peg.stl\", \"units\": "
          "\"m\", \"chord\": 0.002, \"mount\": \"free\", \"pos\": [0, 0, 5]}},\n"
          " \"insertion\": {\"part\": \"peg\", \"axis\": %s, \"seat\": [0, 0, -25]}}\n",
          extra, cwd, cwd, axis);
  assert_int_equal(fclose(f), 0);
}

static void test_refused(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, PEG_EXAMPLE, 0.01, 0, "controller", "id", NULL);
  task_expect_refused(&o, "controller");
  options(&o, PEG_EXAMPLE, 0.01, 0, "grasp", "suction", NULL);
  task_expect_refused(&o, "grasp");
  // the rig's start and drive keys have nothing to act on
  options(&o, PEG_EXAMPLE, 0.01, 0, "offset_mm", "1,0,0", NULL);
  task_expect_build_refused(&o, "offset_mm");
  // the rig knows no robot keys
  options(&o, PEG_EXAMPLE, 0.01, 0, "perturb_deg", "1", NULL);
  o.mode = TF_MODE_RIG;
  task_expect_refused(&o, "unknown parameter 'perturb_deg'");
  // the script inserts down -z only
  char path[256];
  write_peg(path, "", "[1, 0, 0]");
  options(&o, path, 0.01, 0, NULL);
  task_expect_build_refused(&o, "insertion.axis");
  // a grasp too low for the fingers to clear the hole's block when seated, a width over the
  // gripper's
  write_peg(path, " \"grasp\": {\"pos\": [0, 0, 30]},", "[0, 0, -1]");
  options(&o, path, 0.01, 0, NULL);
  task_expect_build_refused(&o, "grasp.pos");
  write_peg(path, " \"grasp\": {\"width_mm\": 79},", "[0, 0, -1]");
  options(&o, path, 0.01, 0, NULL);
  task_expect_build_refused(&o, "grasp.width_mm");
  // the file's robot section is checked with the rest of the file
  char err[2048];
  asm_file* f = test_malloc(sizeof(asm_file));
  write_peg(path, " \"robot\": {\"urdf\": \"no_such.urdf\", \"gripper\": {\"force_n\": 0}},",
            "[0, 0, -1]");
  assert_int_equal(asm_file_load(f, path, 1, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "robot.urdf"));
  assert_non_null(strstr(err, "robot.gripper.force_n"));
  write_peg(path, " \"grasp\": {\"pos\": [0, 0]},", "[0, 0, -1]");
  assert_int_equal(asm_file_load(f, path, 1, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "grasp.pos"));
  test_free(f);
}

// the row says mode robot with its controller; the cell: the seat on the z axis, the hole's
// top at z = 0, the grasp 25 mm under the peg's top (75 mm up its axis: its centre would put
// the top into the hand), 50 mm wide; the file's
// "robot" key puts the URDF arm in the cell with the given gripper force
static void test_cell(void** state) {
  (void)state;
  const tf_task_info* task = task_robot_mode("assembly");
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  tf_run_options o;
  char err[256] = "";
  options(&o, PEG_EXAMPLE, 0.002, 0, "controller", "impedance", NULL);
  assert_int_equal(tf_task_run(&o, row, err, sizeof(err)), 0);
  assert_string_equal(tf_metrics_text(row, "mode"), "robot");
  assert_string_equal(tf_metrics_text(row, "controller"), "impedance");
  tf_env env;
  task_run_env(&o, &env, row);
  const asm_robot_state* s = env.state;
  assert_true(fabs(s->a.file.insertion.seat[0]) < 1e-12);
  assert_true(fabs(s->a.file.insertion.seat[1]) < 1e-12);
  assert_true(fabs(s->a.file.insertion.seat[2] + 0.025) < 1e-6);
  assert_true(fabs(s->grip[2] - 0.075) < 1e-3 && fabs(s->grip[0]) < 1e-3);
  assert_true(fabs(s->width - 0.05) < 1e-3);
  assert_null(s->robot.urdf);
  double off = hypot(s->start[0] + 0 - s->stand[0], s->start[1] - s->stand[1]);
  assert_true(off <= 3e-3 + 1e-9);
  tf_env_free(task, &env);

  char path[256], extra[1024];
  snprintf(extra, sizeof(extra),
           " \"robot\": {\"urdf\": \"%s/%s\", \"gripper\": {\"opening_mm\": 70, \"force_n\": 50}},",
           cwd, PANDA_URDF);
  write_peg(path, extra, "[0, 0, -1]");
  options(&o, path, 0.002, 0, NULL);
  task_run_env(&o, &env, row);
  s = env.state;
  assert_non_null(s->robot.urdf);
  int a = s->robot.panda.finger_actuator[0];
  assert_true(env.model->actuator_forcerange[2 * a + 1] == 50);
  tf_env_free(task, &env);
  test_free(row);
}

// a whole run; success expected
static void expect_seated(const tf_run_options* o) {
  tf_metrics* row = test_malloc(sizeof(tf_metrics));
  char err[256] = "";
  int rc = tf_task_run(o, row, err, sizeof(err));
  if (rc) print_message("run: %s\n", err);
  assert_int_equal(rc, 0);
  const char* why = tf_metrics_text(row, "why");
  print_message(
      "seat error %.1f um, overlap peak %.2f um, grasp slip %.2f mm, seated at %.2f s%s%s\n",
      tf_metrics_get(row, "assembly.seat_error_m") * 1e6,
      tf_metrics_get(row, "overlap.peak_m") * 1e6,
      tf_metrics_get(row, "robot.grasp_slip_max") * 1e3, tf_metrics_get(row, "robot.seat_time_s"),
      why[0] ? ": " : "", why);
  assert_true(tf_metrics_get(row, "success") == 1);
  test_free(row);
}

// the STL peg: picked off its stand by friction and inserted with osc (seeds 0..2)
static void test_friction_osc_seats(void** state) {
  (void)state;
  for (uint64_t seed = 0; seed < 3; seed++) {
    tf_run_options o;
    options(&o, PEG_EXAMPLE, tf_robot_script_length(NULL, TF_ROBOT_OSC, 0) + 0.15, seed, NULL);
    expect_seated(&o);
  }
}

// welded in the hand of the URDF Panda (robot_urdf) and inserted with osc (seed 1)
static void test_weld_urdf_seats(void** state) {
  (void)state;
  tf_run_options o;
  options(&o, PEG_EXAMPLE, tf_robot_script_length(NULL, TF_ROBOT_OSC, 1) + 0.15, 1, "grasp", "weld",
          "robot_urdf", PANDA_URDF, NULL);
  expect_seated(&o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_refused),
      cmocka_unit_test(test_cell),
      cmocka_unit_test(test_friction_osc_seats),
      cmocka_unit_test(test_weld_urdf_seats),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
