// Mistakes a config or a run's options can hold that used to pass validation and fail (or
// run for weeks) later: each is now refused before anything runs, with exit 2 and one line
// naming it. Gear trains need 2 to 4 whole tooth counts; a sweep's "video" object refuses a
// repeated key; "set" takes one value, not a list; grid [0, -0] is one value given twice; a
// run is capped at TF_TASK_MAX_STEPS control steps per environment.
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

// a sweep of config text into a fresh folder: refused with needle, no folder made
static void expect_sweep_refused(const char* config, const char* needle) {
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
  expect_refused(args, needle);
  assert_true(access(out, F_OK) != 0);
  unlink(path);
  rmdir(dir);
}

static void test_sweep_config_gaps(void** state) {
  (void)state;
  expect_sweep_refused("{\"task\": \"gears\", \"grid\": {\"teeth\": [60, 40]}}", "grid.teeth[0]");
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_run_teeth),
      cmocka_unit_test(test_run_step_cap),
      cmocka_unit_test(test_sweep_config_gaps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
