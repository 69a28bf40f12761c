// Mistakes a config or a run's options can hold that used to pass validation and fail (or
// run for weeks) later: each is now refused before anything runs, with exit 2 and one line
// naming it; several in one config are all named in one pass (the first 20, then a count). Gear
// trains need 2 to 4 whole tooth counts; a sweep's "video" object refuses a repeated key and
// its bad settings are named with the rest of the config's problems; "set"
// takes one value, not a list; grid [0, -0] is one value given twice; a run is capped at
// TF_TASK_MAX_STEPS control steps per environment.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli_exec.h"

static int lines_of(const char* text) {
  int n = 0;
  for (const char* c = text; c && *c; c++) n += *c == '\n';
  return n;
}

static void expect_refused(const char* const* args, const char* needle) {
  cli_exec_result r = cli_exec(args);
  int ok = r.exited && r.code == 2 && lines_of(r.err) == 1 && strstr(r.err, needle);
  if (!ok) print_message("exit %d\nstderr:\n%s\n", r.code, r.err);
  cli_exec_free(&r);
  assert_true(ok);
}

static void test_run_teeth(void** state) {
  (void)state;
  const char* one[] = {"run", "--task", "gears", "--set", "teeth=60", NULL};
  expect_refused(one, "teeth needs a list of 2 to 4 whole numbers");
  const char* frac[] = {"run", "--task", "gears", "--set", "teeth=60.5,40", NULL};
  expect_refused(frac, "'60.5,40'");
}

static void test_run_step_cap(void** state) {
  (void)state;
  const char* args[] = {"run", "--task", "peg", "--dt", "1e-7", "--duration", "3600", NULL};
  expect_refused(args, "control steps per environment (at most 1e+08)");
}

// `tightfit sweep` of config text into a fresh folder, which must not be made (every check
// comes before the folder is touched)
static cli_exec_result sweep_config(const char* config) {
  char dir[] = "/tmp/tightfit_cfg_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128], out[128];
  snprintf(path, sizeof(path), "%s/c.json", dir);
  snprintf(out, sizeof(out), "%s/out", dir);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(config, f);
  fclose(f);
  const char* args[] = {"sweep", path, "--out", out, NULL};
  cli_exec_result r = cli_exec(args);
  int made = access(out, F_OK) == 0;
  unlink(path);
  rmdir(out);
  rmdir(dir);
  assert_false(made);
  return r;
}

// a sweep of config text: refused with needle, in `lines` lines (one per problem)
static void expect_sweep_refused_in(const char* config, const char* needle, int lines) {
  cli_exec_result r = sweep_config(config);
  int ok = r.exited && r.code == 2 && lines_of(r.err) == lines && strstr(r.err, needle);
  if (!ok) print_message("exit %d\nstderr:\n%s\n", r.code, r.err);
  cli_exec_free(&r);
  assert_true(ok);
}
#define expect_sweep_refused(config, needle) expect_sweep_refused_in(config, needle, 1)

static void test_sweep_config_gaps(void** state) {
  (void)state;
  // two values, each not a list of tooth counts: a line each
  expect_sweep_refused_in("{\"task\": \"gears\", \"grid\": {\"teeth\": [60, 40]}}", "grid.teeth[0]",
                          2);
  expect_sweep_refused_in("{\"task\": \"gears\", \"grid\": {\"teeth\": [60, 40]}}", "grid.teeth[1]",
                          2);
  expect_sweep_refused("{\"task\": \"gears\", \"set\": {\"teeth\": [60.5, 40]}}", "set.teeth");
  expect_sweep_refused(
      "{\"task\": \"peg\", \"video\": {\"select\": \"worst\", \"select\": \"best\"}}",
      "video.select: key given twice");
  expect_sweep_refused("{\"task\": \"peg\", \"set\": {\"mu\": [0.1]}}",
                       "set.mu: must be one value, not a list");
  expect_sweep_refused("{\"task\": \"peg\", \"grid\": {\"mu\": [0, -0]}}",
                       "grid.mu[1]: duplicate of grid.mu[0]");
  expect_sweep_refused("{\"task\": \"peg\", \"duration\": 3600, \"grid\": {\"dt\": [1e-7]}}",
                       "control steps per environment");
}

// independent mistakes in one config: every one is reported in the same pass, a line each
static void test_sweep_every_problem(void** state) {
  (void)state;
  cli_exec_result r = sweep_config(
      "{\"task\": [\"peg\", \"gears\", \"pegg\"], \"grid\": {\"mu\": [0.1, 0.1]}, "
      "\"set\": {\"teeth\": [60.5, 40]}}");
  const char* needles[] = {"task[2]: unknown task 'pegg'", "grid.mu[1]: duplicate of grid.mu[0]",
                           "set.teeth: task 'gears': teeth needs a list"};
  int ok = r.exited && r.code == 2 && lines_of(r.err) == 3;
  for (int i = 0; i < 3; i++) ok = ok && strstr(r.err, needles[i]);
  // each line on its own, with the command's prefix
  for (const char* line = r.err; ok && *line; line = strchr(line, '\n') + 1) {
    ok = strncmp(line, "tightfit sweep: ", 16) == 0;
  }
  if (!ok) print_message("exit %d\nstderr:\n%s\n", r.code, r.err);
  cli_exec_free(&r);
  assert_true(ok);
}

// a bad grid value and two bad video settings: all three named in the one pass before
// anything runs (the video settings used to be checked only after the rest had passed)
static void test_sweep_video_problems(void** state) {
  (void)state;
  cli_exec_result r = sweep_config(
      "{\"task\": \"peg\", \"grid\": {\"dt\": [0.001, -0.001]}, "
      "\"video\": {\"select\": \"worst\", \"fps\": 0, \"size\": \"641x480\"}}");
  const char* needles[] = {"grid.dt[1]: must be > 0 (got -0.001)",
                           "video.fps: must be a whole number in [1, 240]",
                           "video.size: must be \"WIDTHxHEIGHT\", even, 16 to 4096"};
  int ok = r.exited && r.code == 2 && lines_of(r.err) == 3;
  for (int i = 0; i < 3; i++) ok = ok && strstr(r.err, needles[i]);
  for (const char* line = r.err; ok && *line; line = strchr(line, '\n') + 1) {
    ok = strncmp(line, "tightfit sweep: ", 16) == 0;
  }
  // nothing ran: no progress line, no report
  ok = ok && !strstr(r.err, "[sweep]") && r.out && r.out[0] == 0;
  if (!ok) print_message("exit %d\nstderr:\n%s\n", r.code, r.err);
  cli_exec_free(&r);
  assert_true(ok);
}

// 25 mistakes: the first 20 in full, then one line counting the rest
static void test_sweep_problem_cap(void** state) {
  (void)state;
  char config[512];
  int at = snprintf(config, sizeof(config), "{\"task\": \"peg\", \"grid\": {\"dt\": [");
  for (int i = 0; i < 25; i++) {
    at += snprintf(config + at, sizeof(config) - (size_t)at, "%s%d", i ? ", " : "", -(i + 1));
  }
  snprintf(config + at, sizeof(config) - (size_t)at, "]}}");
  cli_exec_result r = sweep_config(config);
  int ok = r.exited && r.code == 2 && lines_of(r.err) == 21 &&
           strstr(r.err, "grid.dt[19]: must be > 0 (got -20)\n") && !strstr(r.err, "grid.dt[20]");
  const char* last = r.err ? strrchr(r.err, '\n') : NULL;
  while (ok && last > r.err && last[-1] != '\n') last--;
  ok = ok && last && strstr(last, "... and 5 more\n") && strncmp(last, "tightfit sweep: ", 16) == 0;
  if (!ok) print_message("exit %d\nstderr:\n%s\n", r.code, r.err);
  cli_exec_free(&r);
  assert_true(ok);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_run_teeth),         cmocka_unit_test(test_run_step_cap),
      cmocka_unit_test(test_sweep_config_gaps), cmocka_unit_test(test_sweep_every_problem),
      cmocka_unit_test(test_sweep_problem_cap), cmocka_unit_test(test_sweep_video_problems),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
