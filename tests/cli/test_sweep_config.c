// The sweep config (cli/sweep_config.c): every error names its JSON path, the expansion's
// count and order, run ids that stay put when the grid is reordered or extended, and the
// reproduce command. The tests use two made-up tasks so that they do not move when the real
// tasks' schemas change.
//
// cli/ is not a library (its objects link only into the binary), so the unit under test, its
// error list (config_errors.c) and the video and record settings it checks (sweep_video.c,
// whose render calls link from the render and reports libraries; sweep_record.c) are
// compiled into this suite directly.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_errors.c"
#include "json_keys.c"
#include "sweep_assembly.c"
#include "sweep_config.c"
#include "sweep_record.c"
#include "sweep_video.c"

static const tf_param_spec alpha_params[] = {
    {"clearance_um", 100, 0, 500, "um", NULL, "radial clearance"},
    {"mu", 0.2, 0, 2, "", NULL, "friction"},
    {"shape", 0, 0, 1, "", "round|square", "peg shape"},
    {"teeth", 20, 6, 200, "", NULL, "tooth counts", 3, "20,40"},
};
static const tf_param_spec beta_params[] = {
    {"backlash_mm", 0.2, 0, 2, "mm", NULL, "backlash"},
    {"mu", 0.2, 0, 2, "", NULL, "friction"},
};
static const tf_task_info alpha = {"alpha", "test task", alpha_params, 4, 0.002, 0.5};
static const tf_task_info beta = {"beta", "test task", beta_params, 2, 0.001, 1.0};
static const tf_task_info* const tasks[] = {&alpha, &beta};

static int parse(tf_sweep_plan* plan, const char* text, char* err, size_t errlen) {
  return tf_sweep_plan_parse(plan, text, tasks, 2, err, errlen);
}

// parses text, which must fail with exactly `expected` (or, with prefix = 1, start with it)
static void expect_error_at(const char* text, const char* expected, int prefix, int line) {
  tf_sweep_plan plan;
  char err[2048] = "";
  int rc = parse(&plan, text, err, sizeof(err));
  int match = prefix ? strncmp(err, expected, strlen(expected)) == 0 : strcmp(err, expected) == 0;
  if (rc != -1 || !match) {
    print_message("line %d: config %s\n  got      '%s' (rc %d)\n  expected '%s'\n", line, text, err,
                  rc, expected);
  }
  assert_int_equal(rc, -1);
  assert_true(match);
  // a failed parse leaves an empty plan
  assert_int_equal(plan.nrun, 0);
  assert_null(plan.run);
  tf_sweep_plan_free(&plan);
}
#define expect_error(text, expected) expect_error_at(text, expected, 0, __LINE__)
#define expect_error_prefix(text, expected) expect_error_at(text, expected, 1, __LINE__)

static void parse_ok(tf_sweep_plan* plan, const char* text) {
  char err[2048] = "";
  int rc = parse(plan, text, err, sizeof(err));
  if (rc) print_message("config %s\n  error: %s\n", text, err);
  assert_int_equal(rc, 0);
}

// the value of key in run i, or NULL when the key does not apply to the run's task
static const char* value_of(const tf_sweep_plan* plan, int i, const char* key) {
  for (int k = 0; k < plan->nkey; k++) {
    if (strcmp(plan->key[k].name, key) == 0) {
      int c = plan->run[i].choice[k];
      return c >= 0 ? plan->key[k].text[c] : NULL;
    }
  }
  return NULL;
}

// ---------------------------------------------------------------- errors

static void test_errors_grid(void** state) {
  (void)state;
  expect_error("{\"task\": \"alpha\", \"grid\": {\"dt\": [0.001, 0.01, -0.001]}}",
               "grid.dt[2]: must be > 0 (got -0.001)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"dt\": [0]}}", "grid.dt[0]: must be > 0 (got 0)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"dt\": [2]}}",
               "grid.dt[0]: must be at most 1 s (got 2)");
  expect_error(
      "{\"task\": \"alpha\", \"grid\": {\"solvr\": [\"al\"]}}",
      "grid.solvr: unknown key (valid: solver, dt, substeps, iterations, relinearize, persist_tol, "
      "clearance_um, "
      "mu, shape, teeth)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"dt\": 0.001}}",
               "grid.dt: must be a list of values (a fixed value goes in \"set\")");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"dt\": []}}", "grid.dt: empty list");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"dt\": [\"fast\"]}}",
               "grid.dt[0]: must be a number (s)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"solver\": [\"al\", \"foo\"]}}",
               "grid.solver[1]: must be a solver name (pgs, newton, al, admm, fbnewton)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"solver\": [\"al\", \"al\"]}}",
               "grid.solver[1]: duplicate of grid.solver[0] (al)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"dt\": [0.001, 1e-3]}}",
               "grid.dt[1]: duplicate of grid.dt[0] (0.001)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"seed\": [1]}}",
               "grid.seed: not a grid key (\"seeds\" belongs at the top level)");
  expect_error("{\"task\": \"alpha\", \"grid\": [1]}", "grid: must be a JSON object");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"dt\": [0.001], \"dt\": [0.01]}}",
               "grid.dt: key given twice");
}

// numbers a double holds but the option does not, and numbers a double does not hold
static void test_errors_range(void** state) {
  (void)state;
  expect_error("{\"task\": \"alpha\", \"grid\": {\"substeps\": [1e300]}}",
               "grid.substeps[0]: must be an integer in [1, 1000] (got 1e+300)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"substeps\": [2.5]}}",
               "grid.substeps[0]: must be an integer in [1, 1000] (got 2.5)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"relinearize\": [101]}}",
               "grid.relinearize[0]: must be an integer in [0, 100] (got 101)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"relinearize\": [-1]}}",
               "grid.relinearize[0]: must be an integer in [0, 100] (got -1)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"iterations\": [-1]}}",
               "grid.iterations[0]: must be an integer in [0, 100000] (got -1)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"persist_tol\": [-1e-9]}}",
               "grid.persist_tol[0]: must be in [0, 0.001] m (got -1e-09)");
  expect_error("{\"task\": \"alpha\", \"set\": {\"persist_tol\": 0.01}}",
               "set.persist_tol: must be in [0, 0.001] m (got 0.01)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"persist_tol\": [\"x\"]}}",
               "grid.persist_tol[0]: must be a number (m)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"dt\": [1e999]}}",
               "grid.dt[0]: number out of range (overflows a double)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"clearance_um\": [-1e999]}}",
               "grid.clearance_um[0]: number out of range (overflows a double)");
  expect_error("{\"task\": \"alpha\", \"set\": {\"clearance_um\": 1e308}}",
               "set.clearance_um: task 'alpha': clearance_um must be in [0, 500] um (got 1e+308)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"clearance_um\": [50, 900]}}",
               "grid.clearance_um[1]: task 'alpha': clearance_um must be in [0, 500] um (got 900)");
  expect_error("{\"task\": \"alpha\", \"duration\": 1e9}",
               "duration: must be at most 3600 s (got 1e+09)");
  expect_error("{\"task\": \"alpha\", \"duration\": -1}", "duration: must be > 0 (got -1)");
  expect_error("{\"task\": \"alpha\", \"envs\": 1000}",
               "envs: must be an integer in [1, 256] (got 1000)");
  expect_error("{\"task\": \"alpha\", \"seeds\": 0}",
               "seeds: must be an integer in [1, 100000] (got 0)");
  expect_error("{\"task\": \"alpha\", \"seeds\": [1.5]}",
               "seeds[0]: must be an integer in [0, 9007199254740992] (got 1.5)");
  expect_error("{\"task\": \"alpha\", \"seeds\": [3, 1, 3]}",
               "seeds[2]: duplicate of seeds[0] (3)");
  expect_error("{\"task\": \"alpha\", \"seeds\": 100000, \"grid\": {\"dt\": [0.001, 0.002]}}",
               "grid: expands to 200000 runs (at most 100000); split the sweep");
}

static void test_errors_types(void** state) {
  (void)state;
  expect_error("{\"task\": \"alpha\", \"envs\": \"4\"}", "envs: must be an integer");
  expect_error("{\"task\": \"alpha\", \"duration\": \"1s\"}", "duration: must be a number (s)");
  expect_error("{\"task\": \"alpha\", \"mode\": \"sim\"}", "mode: must be \"rig\" or \"robot\"");
  expect_error("{\"task\": \"alpha\", \"seeds\": \"all\"}",
               "seeds: must be a list of seeds or a count");
  expect_error("{\"task\": \"alpha\", \"seeds\": []}", "seeds: empty list");
  expect_error("{\"task\": \"alpha\", \"description\": 7}", "description: must be a string");
  expect_error("{\"task\": \"alpha\", \"set\": {\"mu\": true}}",
               "set.mu: must be a number, a name or a list of numbers");
  expect_error("{\"task\": \"alpha\", \"set\": {\"mu\": null}}",
               "set.mu: must be a number, a name or a list of numbers");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"teeth\": [[20, \"x\"]]}}",
               "grid.teeth[0][1]: must be a number");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"teeth\": [[]]}}", "grid.teeth[0]: empty list");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"shape\": [\"round\", \"hex\"]}}",
               "grid.shape[1]: task 'alpha': shape must be one of round|square (got 'hex')");
  expect_error("{\"task\": \"alpha\", \"set\": {\"solver\": \"magic\"}}",
               "set.solver: must be a solver name (pgs, newton, al, admm, fbnewton)");
  expect_error("{\"task\": \"alpha\", \"grid\": {\"mu\": [0.1]}, \"set\": {\"mu\": 0.2}}",
               "set.mu: also in grid (a key is either swept or fixed)");
  expect_error("{\"task\": \"alpha\", \"colour\": 1}",
               "colour: unknown key (valid: task, mode, duration, envs, seeds, grid, set, video, "
               "description, record)");
}

static void test_errors_tasks(void** state) {
  (void)state;
  expect_error("{\"grid\": {}}", "task: missing (valid: alpha, beta)");
  expect_error("{\"task\": \"gamma\"}", "task: unknown task 'gamma' (valid: alpha, beta)");
  expect_error("{\"task\": [\"alpha\", 3]}", "task[1]: must be a task name");
  expect_error("{\"task\": [\"beta\", \"gamma\"]}",
               "task[1]: unknown task 'gamma' (valid: alpha, beta)");
  expect_error("{\"task\": []}", "task: empty list (valid: alpha, beta)");
  expect_error("{\"task\": [\"alpha\", \"alpha\"]}", "task[1]: task 'alpha' is listed twice");
  expect_error("{\"task\": {\"name\": \"alpha\"}}",
               "task: must be a task name or a list of names (valid: alpha, beta)");
  // a parameter neither task has; the message lists both tasks' parameters once
  expect_error("{\"task\": [\"alpha\", \"beta\"], \"set\": {\"bogus\": 1}}",
               "set.bogus: unknown key (valid: solver, dt, substeps, iterations, relinearize, "
               "persist_tol, clearance_um, "
               "mu, shape, teeth, backlash_mm)");
  // beta's parameter on alpha alone
  expect_error_prefix("{\"task\": \"alpha\", \"grid\": {\"backlash_mm\": [0.1]}}",
                      "grid.backlash_mm: unknown key (valid: solver,");
  // a shared parameter is checked against every task that has it
  expect_error("{\"task\": [\"alpha\", \"beta\"], \"grid\": {\"mu\": [0.1, 3]}}",
               "grid.mu[1]: task 'alpha': mu must be in [0, 2]  (got 3)");
}

static void test_errors_json(void** state) {
  (void)state;
  expect_error_prefix("{\n  \"task\": \"alpha\",\n  \"grid\": {\"dt\": [0.001,]}\n}",
                      "line 3, column 25: malformed JSON");
  expect_error("{\"task\": \"alpha\"", "line 1, column 17: malformed JSON (ends too early)");
  expect_error("{\"task\": \"alpha\"} x", "line 1, column 19: malformed JSON");
  expect_error("", "empty file (no JSON)");
  expect_error(" \n\t", "empty file (no JSON)");
  expect_error("[1, 2]", "(top level): must be a JSON object {\"task\": ..., \"grid\": ...}");
}

static void test_load_errors(void** state) {
  (void)state;
  tf_sweep_plan plan;
  char err[2048];
  assert_int_equal(tf_sweep_plan_load(&plan, "/nonexistent/sweep.json", tasks, 2, err, sizeof(err)),
                   -1);
  assert_non_null(strstr(err, "/nonexistent/sweep.json"));
  assert_non_null(strstr(err, "No such file"));
  tf_sweep_plan_free(&plan);

  char path[] = "/tmp/tightfit_sweep_config_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char text[] = "{\"task\": \"alpha\",\n \"grid\": {\"dt\": [0.001, -1]}}";
  assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
  assert_int_equal(tf_sweep_plan_load(&plan, path, tasks, 2, err, sizeof(err)), -1);
  char expected[256];
  snprintf(expected, sizeof(expected), "%s: grid.dt[1]: must be > 0 (got -1)", path);
  assert_string_equal(err, expected);
  // an embedded NUL: not a text file
  assert_int_equal(pwrite(fd, "\0", 1, 3), 1);
  assert_int_equal(tf_sweep_plan_load(&plan, path, tasks, 2, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "line 1, column 4: NUL byte"));
  close(fd);
  unlink(path);
}

// ---------------------------------------------------------------- many problems at once

// independent mistakes are all reported, in file order, one line each; a key that may belong
// to the unknown task (bogus) is not called unknown
static void test_errors_all_at_once(void** state) {
  (void)state;
  expect_error(
      "{\"task\": [\"alpha\", \"gamma\"], \"duration\": -1, \"seeds\": [1, 1], "
      "\"grid\": {\"mu\": [0.1, 0.1], \"bogus\": [1], \"dt\": [0.001, -1]}, "
      "\"set\": {\"teeth\": [20, \"x\"]}}",
      "task[1]: unknown task 'gamma' (valid: alpha, beta)\n"
      "duration: must be > 0 (got -1)\n"
      "seeds[1]: duplicate of seeds[0] (1)\n"
      "grid.mu[1]: duplicate of grid.mu[0] (0.1)\n"
      "grid.dt[1]: must be > 0 (got -1)\n"
      "set.teeth[1]: must be a number");
  // a repeated key is named and its first copy still checked, with the keys after it
  expect_error(
      "{\"task\": \"alpha\", \"colour\": 1, \"grid\": {\"dt\": [-1], \"dt\": [0.01], "
      "\"mu\": [5]}, \"set\": {\"mu\": 0.1}}",
      "colour: unknown key (valid: task, mode, duration, envs, seeds, grid, set, video, "
      "description, record)\n"
      "grid.dt: key given twice\n"
      "grid.dt[0]: must be > 0 (got -1)\n"
      "grid.mu[0]: task 'alpha': mu must be in [0, 2]  (got 5)\n"
      "set.mu: also in grid (a key is either swept or fixed)");
  // the runs are checked once the keys pass: the first bad run of each task
  expect_error(
      "{\"task\": [\"alpha\", \"beta\"], \"duration\": 3600, \"seeds\": 2, "
      "\"grid\": {\"dt\": [1e-7]}}",
      "run 0 (task alpha): duration 3600 s / dt 1e-07 s is 3.6e+10 control steps per "
      "environment (at most 1e+08); raise dt or shorten duration\n"
      "run 2 (task beta): duration 3600 s / dt 1e-07 s is 3.6e+10 control steps per "
      "environment (at most 1e+08); raise dt or shorten duration");
}

// the video settings are checked with the rest of the config, each message naming its path
static void test_errors_video(void** state) {
  (void)state;
  expect_error("{\"task\": \"alpha\", \"video\": {\"select\": \"worse\"}}",
               "video.select: must be one of worst, best, both, failed, all");
  expect_error("{\"task\": \"alpha\", \"video\": {\"camera\": 3}}",
               "video.camera: must be closeup, wide or grid");
  expect_error("{\"task\": \"alpha\", \"video\": {\"fps\": 0}}",
               "video.fps: must be a whole number in [1, 240]");
  expect_error("{\"task\": \"alpha\", \"video\": {\"fps\": 29.97}}",
               "video.fps: must be a whole number in [1, 240]");
  expect_error("{\"task\": \"alpha\", \"video\": {\"max\": 1001}}",
               "video.max: must be a whole number in [1, 1000]");
  expect_error("{\"task\": \"alpha\", \"video\": {\"size\": \"641x480\"}}",
               "video.size: must be \"WIDTHxHEIGHT\", even, 16 to 4096");
  expect_error("{\"task\": \"alpha\", \"video\": {\"sizes\": \"64x48\"}}",
               "video.sizes: unknown key (valid: select, camera, fps, size, max)");
  expect_error("{\"task\": \"alpha\", \"video\": \"worst\"}", "video: must be an object");
  // a repeated key is named once; its first copy is the one checked
  expect_error("{\"task\": \"alpha\", \"video\": {\"fps\": 0, \"fps\": 30}}",
               "video.fps: key given twice\n"
               "video.fps: must be a whole number in [1, 240]");
  expect_error("{\"task\": \"alpha\", \"video\": {\"fps\": 30, \"fps\": 0}}",
               "video.fps: key given twice");
  // with a bad grid value: every problem in the one pass, the video's after the grid's
  expect_error(
      "{\"task\": \"alpha\", \"video\": {\"fps\": 0, \"camera\": \"top\", \"max\": 2}, "
      "\"grid\": {\"dt\": [-1]}}",
      "grid.dt[0]: must be > 0 (got -1)\n"
      "video.fps: must be a whole number in [1, 240]\n"
      "video.camera: must be closeup, wide or grid");
  // a bad task name does not hide the video's problems either
  expect_error("{\"task\": \"gamma\", \"video\": {\"select\": 1}}",
               "task: unknown task 'gamma' (valid: alpha, beta)\n"
               "video.select: must be one of worst, best, both, failed, all");
}

// a video section that passed the config check reads without error after the runs, with the
// settings it gives and the defaults for the rest
// the "record" section: its form is checked with everything else, its run numbers against
// the expanded grid; the plan flags the chosen runs
static void test_record_section(void** state) {
  (void)state;
  tf_sweep_plan plan;
  parse_ok(&plan, "{\"task\": \"alpha\", \"grid\": {\"mu\": [0.1, 0.2, 0.3]}}");
  assert_null(plan.recorded);
  tf_sweep_plan_free(&plan);
  parse_ok(
      &plan,
      "{\"task\": \"alpha\", \"grid\": {\"mu\": [0.1, 0.2, 0.3]}, \"record\": {\"runs\": [2, 0]}}");
  assert_non_null(plan.recorded);
  assert_int_equal(plan.recorded[0], 1);
  assert_int_equal(plan.recorded[1], 0);
  assert_int_equal(plan.recorded[2], 1);
  tf_sweep_plan_free(&plan);
  parse_ok(&plan, "{\"task\": \"alpha\", \"seeds\": 2, \"record\": {\"runs\": \"all\"}}");
  assert_int_equal(plan.recorded[0] + plan.recorded[1], 2);
  tf_sweep_plan_free(&plan);
  expect_error("{\"task\": \"alpha\", \"record\": true}",
               "record: must be an object, e.g. {\"runs\": [0, 3]} or {\"runs\": \"all\"}");
  expect_error("{\"task\": \"alpha\", \"record\": {}}",
               "record.runs: missing (\"all\" or a list of run numbers)");
  expect_error("{\"task\": \"alpha\", \"record\": {\"runs\": \"some\"}}",
               "record.runs: must be \"all\" or a list of run numbers");
  // every problem of the section in one pass, with the others of the file
  expect_error(
      "{\"task\": \"alpha\", \"grid\": {\"dt\": [-1]}, "
      "\"record\": {\"runs\": [0, 1.5, \"a\", 0], \"runz\": 1, \"runs\": 2}}",
      "grid.dt[0]: must be > 0 (got -1)\n"
      "record.runs: key given twice\n"
      "record.runz: unknown key (valid: runs)\n"
      "record.runs[1]: must be a run number (0 is the first run)\n"
      "record.runs[2]: must be a run number (0 is the first run)\n"
      "record.runs[3]: run 0 is listed twice (record.runs[0])");
  // numbers past the last run, once the grid is known
  expect_error(
      "{\"task\": \"alpha\", \"grid\": {\"mu\": [0.1, 0.2]}, \"record\": {\"runs\": [1, 2]}}",
      "record.runs[1]: run 2 does not exist (the sweep has 2 runs: 0 to 1)");
}

static void test_video_after_check(void** state) {
  (void)state;
  tf_sweep_plan plan;
  char err[256] = "";
  tf_sweep_video v;
  parse_ok(&plan, "{\"task\": \"alpha\"}");
  assert_int_equal(tf_sweep_video_parse(&v, plan.video, err, sizeof(err)), 0);
  assert_int_equal(v.on, 0);
  tf_sweep_plan_free(&plan);
  parse_ok(&plan,
           "{\"task\": \"alpha\", \"video\": {\"select\": \"both\", \"camera\": \"grid\", "
           "\"fps\": 24, \"size\": \"64x48\", \"max\": 3}}");
  assert_int_equal(tf_sweep_video_parse(&v, plan.video, err, sizeof(err)), 0);
  assert_int_equal(v.on, 1);
  assert_int_equal(v.pick, TF_PICK_BOTH);
  assert_int_equal(v.options.view, TF_VIEW_GRID);
  assert_int_equal(v.options.fps, 24);
  assert_int_equal(v.options.width, 64);
  assert_int_equal(v.options.height, 48);
  assert_int_equal(v.max, 3);
  tf_sweep_plan_free(&plan);
  parse_ok(&plan, "{\"task\": \"alpha\", \"video\": {}}");
  assert_int_equal(tf_sweep_video_parse(&v, plan.video, err, sizeof(err)), 0);
  assert_int_equal(v.on, 1);
  assert_int_equal(v.pick, TF_PICK_WORST);
  assert_int_equal(v.max, 8);
  tf_sweep_plan_free(&plan);
  // the safety net itself still refuses, with the first problem's message
  cJSON* bad = cJSON_Parse("{\"fps\": 0, \"camera\": \"top\"}");
  assert_non_null(bad);
  assert_int_equal(tf_sweep_video_parse(&v, bad, err, sizeof(err)), -1);
  assert_string_equal(err, "video.fps: must be a whole number in [1, 240]");
  cJSON_Delete(bad);
}

// a config with n bad dt values: "grid.dt[i]: must be > 0 (got -(i+1))" each
static char* bad_dts(int n) {
  char* text = malloc(64 + (size_t)n * 8);
  assert_non_null(text);
  int at = sprintf(text, "{\"task\": \"alpha\", \"grid\": {\"dt\": [");
  for (int i = 0; i < n; i++) at += sprintf(text + at, "%s%d", i ? ", " : "", -(i + 1));
  sprintf(text + at, "]}}");
  return text;
}

static int count_lines(const char* s) {
  int n = s[0] != 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

// past TF_CONFIG_MAX_ERRORS problems the rest are counted in one last line
static void test_errors_capped(void** state) {
  (void)state;
  char* text = bad_dts(25);
  tf_sweep_plan plan;
  char err[TF_CONFIG_ERRORS_TEXT];
  assert_int_equal(parse(&plan, text, err, sizeof(err)), -1);
  assert_int_equal(count_lines(err), TF_CONFIG_MAX_ERRORS + 1);
  assert_non_null(strstr(err, "grid.dt[0]: must be > 0 (got -1)\n"));
  assert_non_null(strstr(err, "\ngrid.dt[19]: must be > 0 (got -20)\n"));
  assert_null(strstr(err, "grid.dt[20]"));
  const char* last = strrchr(err, '\n') + 1;
  assert_string_equal(last, "... and 5 more");
  // a buffer too short for every line keeps those that fit and counts the others
  char small[100];
  assert_int_equal(parse(&plan, text, small, sizeof(small)), -1);
  assert_string_equal(small,
                      "grid.dt[0]: must be > 0 (got -1)\ngrid.dt[1]: must be > 0 (got -2)\n"
                      "... and 23 more");
  free(text);
  // exactly the cap: no count line
  text = bad_dts(TF_CONFIG_MAX_ERRORS);
  assert_int_equal(parse(&plan, text, err, sizeof(err)), -1);
  assert_int_equal(count_lines(err), TF_CONFIG_MAX_ERRORS);
  assert_null(strstr(err, "more"));
  free(text);
}

// from a file every line names it
static void test_load_many_errors(void** state) {
  (void)state;
  char path[] = "/tmp/tightfit_sweep_config_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char text[] = "{\"task\": \"alpha\", \"envs\": 0, \"grid\": {\"dt\": [-1]}}";
  assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
  close(fd);
  tf_sweep_plan plan;
  char err[TF_CONFIG_ERRORS_TEXT], expected[512];
  assert_int_equal(tf_sweep_plan_load(&plan, path, tasks, 2, err, sizeof(err)), -1);
  snprintf(expected, sizeof(expected),
           "%s: envs: must be an integer in [1, 256] (got 0)\n%s: grid.dt[0]: must be > 0 (got -1)",
           path, path);
  assert_string_equal(err, expected);
  assert_null(plan.source);
  unlink(path);
}

// ---------------------------------------------------------------- expansion

static void test_minimal(void** state) {
  (void)state;
  tf_sweep_plan plan;
  parse_ok(&plan, "{\"task\": \"alpha\"}");
  assert_int_equal(plan.nrun, 1);
  assert_int_equal(plan.envs, 1);
  assert_int_equal(plan.mode, TF_MODE_RIG);
  assert_null(plan.video);
  tf_run_options o;
  tf_sweep_run_options(&plan, 0, &o);
  assert_string_equal(o.task, "alpha");
  assert_int_equal(o.seed, 0);
  assert_int_equal(o.nset, 0);
  assert_true(o.physics.dt <= 0);  // the task's default
  char* cmd = tf_sweep_run_command(&plan, 0);
  assert_string_equal(cmd, "tightfit run --task alpha --envs 1 --seed 0 --json");
  free(cmd);
  assert_int_equal(strlen(plan.run[0].id), 16);
  assert_int_equal(strspn(plan.run[0].id, "0123456789abcdef"), 16);
  tf_sweep_plan_free(&plan);
}

// a swept persistence tolerance reaches the run's physics and its command as --persist-tol
static void test_persist_tol(void** state) {
  (void)state;
  tf_sweep_plan plan;
  parse_ok(&plan, "{\"task\": \"alpha\", \"grid\": {\"persist_tol\": [0, 1e-8]}}");
  assert_int_equal(plan.nrun, 2);
  tf_run_options o;
  tf_sweep_run_options(&plan, 0, &o);
  assert_true(o.physics.persist_tol == 0);
  tf_sweep_run_options(&plan, 1, &o);
  assert_true(o.physics.persist_tol == 1e-8);
  char* cmd = tf_sweep_run_command(&plan, 1);
  assert_string_equal(cmd,
                      "tightfit run --task alpha --persist-tol 1e-08 --envs 1 --seed 0 --json");
  free(cmd);
  tf_sweep_plan_free(&plan);
}

// tasks x grid (last key fastest) x seeds (fastest of all), the count their product
static void test_order(void** state) {
  (void)state;
  tf_sweep_plan plan;
  parse_ok(&plan,
           "{\"task\": \"alpha\", \"seeds\": [7, 3], \"grid\": {\"solver\": [\"al\", \"pgs\"], "
           "\"dt\": [0.001, 0.01], \"clearance_um\": [50, 100, 150]}}");
  assert_int_equal(plan.nrun, 2 * 2 * 3 * 2);
  int i = 0;
  const char* solvers[] = {"al", "pgs"};
  const char* dts[] = {"0.001", "0.01"};
  const char* clearances[] = {"50", "100", "150"};
  const uint64_t seeds[] = {7, 3};
  for (int s = 0; s < 2; s++) {
    for (int d = 0; d < 2; d++) {
      for (int c = 0; c < 3; c++) {
        for (int k = 0; k < 2; k++, i++) {
          assert_string_equal(value_of(&plan, i, "solver"), solvers[s]);
          assert_string_equal(value_of(&plan, i, "dt"), dts[d]);
          assert_string_equal(value_of(&plan, i, "clearance_um"), clearances[c]);
          assert_true(plan.run[i].seed == seeds[k]);
          tf_run_options o;
          tf_sweep_run_options(&plan, i, &o);
          assert_int_equal(o.physics.solver, s == 0 ? TF_SOLVER_AL : TF_SOLVER_PGS);
          assert_true(o.physics.dt == (d == 0 ? 0.001 : 0.01));
          assert_int_equal(o.nset, 1);
          assert_string_equal(o.set[0].key, "clearance_um");
          assert_string_equal(o.set[0].value, clearances[c]);
        }
      }
    }
  }
  tf_sweep_plan_free(&plan);
}

// a parameter only one task has multiplies only that task's runs
static void test_multi_task(void** state) {
  (void)state;
  tf_sweep_plan plan;
  parse_ok(
      &plan,
      "{\"task\": [\"alpha\", \"beta\"], \"seeds\": 2, \"grid\": {\"clearance_um\": [50, 100], "
      "\"backlash_mm\": [0.1, 0.2, 0.3], \"substeps\": [1, 4]}, \"set\": {\"mu\": 0.5}}");
  assert_int_equal(plan.nrun, 2 * 2 * 2 + 3 * 2 * 2);
  for (int i = 0; i < plan.nrun; i++) {
    int is_alpha = i < 8;
    assert_int_equal(plan.run[i].task, is_alpha ? 0 : 1);
    assert_true((value_of(&plan, i, "clearance_um") != NULL) == is_alpha);
    assert_true((value_of(&plan, i, "backlash_mm") != NULL) == !is_alpha);
    assert_string_equal(value_of(&plan, i, "mu"), "0.5");
    tf_run_options o;
    tf_sweep_run_options(&plan, i, &o);
    assert_string_equal(o.task, is_alpha ? "alpha" : "beta");
    assert_int_equal(o.nset, 2);
  }
  assert_string_equal(value_of(&plan, 8, "backlash_mm"), "0.1");
  assert_string_equal(value_of(&plan, 8 + 4, "backlash_mm"), "0.2");
  const char* columns[16];
  int n = tf_sweep_plan_param_columns(&plan, columns, 16);
  assert_int_equal(n, 5);
  const char* expected[] = {"clearance_um", "mu", "shape", "teeth", "backlash_mm"};
  for (int i = 0; i < n; i++) assert_string_equal(columns[i], expected[i]);
  tf_sweep_plan_free(&plan);
}

// ---------------------------------------------------------------- run ids

// the id of the run with these values in plan (NULL when none)
static const char* id_of(const tf_sweep_plan* plan, const char* dt, const char* solver,
                         uint64_t seed) {
  for (int i = 0; i < plan->nrun; i++) {
    if (strcmp(value_of(plan, i, "dt"), dt) == 0 &&
        strcmp(value_of(plan, i, "solver"), solver) == 0 && plan->run[i].seed == seed) {
      return plan->run[i].id;
    }
  }
  return NULL;
}

static void test_run_ids(void** state) {
  (void)state;
  tf_sweep_plan a, b, c, d;
  parse_ok(&a,
           "{\"task\": \"alpha\", \"seeds\": 2, \"grid\": {\"dt\": [0.001, 0.01], "
           "\"solver\": [\"al\", \"pgs\"]}}");
  // the same config: the same ids
  parse_ok(&b,
           "{\"task\": \"alpha\", \"seeds\": 2, \"grid\": {\"dt\": [0.001, 0.01], "
           "\"solver\": [\"al\", \"pgs\"]}}");
  for (int i = 0; i < a.nrun; i++) assert_string_equal(a.run[i].id, b.run[i].id);
  // all distinct
  for (int i = 0; i < a.nrun; i++) {
    for (int j = i + 1; j < a.nrun; j++) assert_string_not_equal(a.run[i].id, a.run[j].id);
  }
  // keys in another order, numbers spelled otherwise, seeds as a list, the grid extended:
  // every run of the first sweep keeps its id
  parse_ok(&c,
           "{\"seeds\": [0, 1, 2], \"grid\": {\"solver\": [\"pgs\", \"al\", \"newton\"], "
           "\"dt\": [1e-3, 0.02, 1.0e-2]}, \"task\": \"alpha\"}");
  assert_int_equal(c.nrun, 27);
  for (int i = 0; i < a.nrun; i++) {
    const char* id = id_of(&c, value_of(&a, i, "dt"), value_of(&a, i, "solver"), a.run[i].seed);
    assert_non_null(id);
    assert_string_equal(id, a.run[i].id);
  }
  // anything that changes the physics changes the id
  parse_ok(&d,
           "{\"task\": \"alpha\", \"seeds\": 2, \"envs\": 2, \"grid\": {\"dt\": [0.001, 0.01], "
           "\"solver\": [\"al\", \"pgs\"]}}");
  for (int i = 0; i < a.nrun; i++) assert_string_not_equal(a.run[i].id, d.run[i].id);
  char canonical[512];
  size_t n = tf_sweep_run_canonical(&a, 0, canonical, sizeof(canonical));
  assert_int_equal(n, strlen(canonical));
  assert_string_equal(canonical,
                      "task=alpha;mode=rig;duration=default;envs=1;seed=0;dt=0.001;solver=al");
  // a short buffer still gets the full length back
  assert_int_equal(tf_sweep_run_canonical(&a, 0, canonical, 8), n);
  assert_string_equal(canonical, "task=al");
  // a known value: the hash is part of the results files' format, it must not drift
  assert_string_equal(a.run[0].id, "af9af6a86687f14f");  // FNV-1a 64 + murmur3 finalizer
  tf_sweep_plan_free(&a);
  tf_sweep_plan_free(&b);
  tf_sweep_plan_free(&c);
  tf_sweep_plan_free(&d);
}

// ---------------------------------------------------------------- the command

static void test_command(void** state) {
  (void)state;
  tf_sweep_plan plan;
  parse_ok(&plan,
           "{\"task\": \"alpha\", \"mode\": \"rig\", \"duration\": 0.25, \"envs\": 4, "
           "\"seeds\": [12], \"grid\": {\"clearance_um\": [50], \"iterations\": [80], "
           "\"dt\": [0.001], \"solver\": [\"newton\"], \"substeps\": [4]}, "
           "\"set\": {\"teeth\": [60, 40, 60.5], \"shape\": \"square\"}, "
           "\"video\": {\"camera\": \"wide\"}, \"description\": \"a test\"}");
  assert_int_equal(plan.nrun, 1);
  char* cmd = tf_sweep_run_command(&plan, 0);
  // physics flags in a fixed order, then the task parameters in the config's order
  assert_string_equal(cmd,
                      "tightfit run --task alpha --solver newton --dt 0.001 --substeps 4 "
                      "--iterations 80 --duration 0.25 --envs 4 --set clearance_um=50 "
                      "--set teeth=60,40,60.5 --set shape=square --seed 12 --json");
  free(cmd);
  tf_run_options o;
  tf_sweep_run_options(&plan, 0, &o);
  assert_int_equal(o.physics.solver, TF_SOLVER_NEWTON);
  assert_int_equal(o.physics.substeps, 4);
  assert_int_equal(o.physics.iterations, 80);
  assert_true(o.duration == 0.25);
  assert_int_equal(o.envs, 4);
  assert_int_equal(o.seed, 12);
  // the video settings are kept as given, for a later command
  assert_non_null(plan.video);
  assert_string_equal(cJSON_GetObjectItem(plan.video, "camera")->valuestring, "wide");
  assert_string_equal(plan.description, "a test");
  tf_sweep_plan_free(&plan);

  // robot mode shows in the command; a value outside the shell's plain words is quoted
  FILE* f = NULL;
  char* text = NULL;
  size_t size = 0;
  f = open_memstream(&text, &size);
  shell_word(f, "a b'c");
  shell_word(f, " ");
  shell_word(f, "x=1,2");
  fclose(f);
  assert_string_equal(text, "'a b'\\''c'' 'x=1,2");
  free(text);
  parse_ok(&plan, "{\"task\": \"alpha\", \"mode\": \"robot\"}");
  cmd = tf_sweep_run_command(&plan, 0);
  assert_string_equal(cmd, "tightfit run --task alpha --mode robot --envs 1 --seed 0 --json");
  free(cmd);
  tf_sweep_plan_free(&plan);
}

// a task with a robot mode: under "mode": "robot" the keys are its robot schema's (a grid over
// the controller), under rig they are the rig's
static const tf_param_spec gamma_robot_params[] = {
    {"clearance_um", 100, 0, 500, "um", NULL, "radial clearance"},
    {"controller", 0, 0, 3, "", "osc|impedance|ik|pd", "the arm's controller"},
};
static const tf_task_info gamma_robot = {
    "gamma", "test task, robot mode", gamma_robot_params, 2, 0.002, 4.0};
static const tf_task_info gamma_rig = {"gamma", "test task", beta_params,          2,
                                       0.001,   1.0,         .robot = &gamma_robot};

static void test_robot_mode_keys(void** state) {
  (void)state;
  const tf_task_info* const list[] = {&gamma_rig};
  tf_sweep_plan plan;
  char err[2048] = "";
  const char* robot =
      "{\"task\": \"gamma\", \"mode\": \"robot\", \"grid\": {\"controller\": [\"osc\", \"pd\"]}}";
  int rc = tf_sweep_plan_parse(&plan, robot, list, 1, err, sizeof(err));
  if (rc) print_message("error: %s\n", err);
  assert_int_equal(rc, 0);
  assert_int_equal(plan.nrun, 2);
  assert_string_equal(value_of(&plan, 0, "controller"), "osc");
  assert_string_equal(value_of(&plan, 1, "controller"), "pd");
  const char* cols[8];
  int ncol = tf_sweep_plan_param_columns(&plan, cols, 8);
  assert_int_equal(ncol, 2);
  assert_string_equal(cols[1], "controller");
  char* cmd = tf_sweep_run_command(&plan, 1);
  assert_non_null(strstr(cmd, "--mode robot"));
  assert_non_null(strstr(cmd, "controller=pd"));
  free(cmd);
  tf_sweep_plan_free(&plan);
  const char* rig = "{\"task\": \"gamma\", \"grid\": {\"controller\": [\"osc\"]}}";
  assert_int_equal(tf_sweep_plan_parse(&plan, rig, list, 1, err, sizeof(err)), -1);
  assert_string_equal(err,
                      "grid.controller: unknown key (valid: solver, dt, substeps, iterations, "
                      "relinearize, persist_tol, "
                      "backlash_mm, mu)");
  tf_sweep_plan_free(&plan);
}

// number_text: the shortest digits that read back exactly
static void test_number_text(void** state) {
  (void)state;
  char buf[64];
  const double values[] = {0.001,     1.0 / 60.0, 1e-7, 100,
                           0.1 + 0.2, 1e300,      -2.5, 123456789012345678.0};
  for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
    number_text(values[i], buf, sizeof(buf));
    assert_true(strtod(buf, NULL) == values[i]);
  }
  number_text(0.001, buf, sizeof(buf));
  assert_string_equal(buf, "0.001");
  number_text(0.1 + 0.2, buf, sizeof(buf));
  assert_string_equal(buf, "0.30000000000000004");
}

// 300,000 grid keys and one of them given twice: named in a second, not after minutes of
// comparing every key with every other (an alarm fails the test rather than hang the suite)
static void test_many_keys_fast(void** state) {
  (void)state;
  enum { NKEY = 300000 };
  size_t cap = (size_t)NKEY * 16 + 64, at = 0;
  char* text = malloc(cap);
  assert_non_null(text);
  at += (size_t)snprintf(text + at, cap - at, "{\"task\": \"alpha\", \"grid\": {");
  for (int k = 0; k < NKEY; k++) at += (size_t)snprintf(text + at, cap - at, "\"k%d\": [1], ", k);
  snprintf(text + at, cap - at, "\"k7\": [2]}}");
  alarm(60);
  tf_sweep_plan plan;
  char err[4096] = "";
  int rc = parse(&plan, text, err, sizeof(err));
  alarm(0);
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err, "grid.k7: key given twice"));
  tf_sweep_plan_free(&plan);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_errors_grid),
      cmocka_unit_test(test_errors_range),
      cmocka_unit_test(test_errors_types),
      cmocka_unit_test(test_errors_tasks),
      cmocka_unit_test(test_errors_json),
      cmocka_unit_test(test_load_errors),
      cmocka_unit_test(test_minimal),
      cmocka_unit_test(test_persist_tol),
      cmocka_unit_test(test_order),
      cmocka_unit_test(test_multi_task),
      cmocka_unit_test(test_run_ids),
      cmocka_unit_test(test_command),
      cmocka_unit_test(test_number_text),
      cmocka_unit_test(test_robot_mode_keys),
      cmocka_unit_test(test_errors_all_at_once),
      cmocka_unit_test(test_errors_video),
      cmocka_unit_test(test_video_after_check),
      cmocka_unit_test(test_record_section),
      cmocka_unit_test(test_errors_capped),
      cmocka_unit_test(test_many_keys_fast),
      cmocka_unit_test(test_load_many_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
