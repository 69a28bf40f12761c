// `tightfit sweep` end to end, through the built binary (TIGHTFIT_BIN): a two-run sweep of the
// peg task with a short duration writes results.csv (header + 2 rows), results.jsonl,
// config.json, machine.json and report.html; --resume then has nothing to do; an existing
// folder without flags is refused with exit 2; --force starts over; an extended grid resumes
// with the new run only; a partial last line is repaired; bad configs and options exit 2
// with one line and touch nothing.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_exec.h"
#include "test_folder.h"

typedef struct sweep_fixture {
  char root[64];     // a fresh temporary folder
  char config[128];  // root/sweep.json
  char out[128];     // root/out (the sweep's folder)
} sweep_fixture;

static const char* const two_runs =
    "{\"task\": \"peg\", \"duration\": 0.01, \"envs\": 1,\n"
    " \"grid\": {\"clearance_um\": [100, 200]},\n"
    " \"set\": {\"mu\": 0.05}, \"video\": {\"select\": \"worst\", \"max\": 1, \"size\": \"64x48\", "
    "\"fps\": 10}}\n";

static void write_text(const char* path, const char* text, const char* mode) {
  FILE* f = fopen(path, mode);
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

// a file in the sweep's folder (NULL when missing)
static char* read_out(const sweep_fixture* fx, const char* name) {
  char path[256];
  snprintf(path, sizeof(path), "%s/%s", fx->out, name);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  char* text = cli_exec_slurp(fd);
  close(fd);
  return text;
}

static int lines_of(const char* text) {
  int n = 0;
  for (const char* c = text; c && *c; c++) n += *c == '\n';
  return n;
}

static int setup(void** state) {
  sweep_fixture* fx = calloc(1, sizeof(*fx));
  if (!fx) return -1;
  snprintf(fx->root, sizeof(fx->root), "/tmp/tightfit_sweep_XXXXXX");
  if (!mkdtemp(fx->root)) return -1;
  snprintf(fx->config, sizeof(fx->config), "%s/sweep.json", fx->root);
  snprintf(fx->out, sizeof(fx->out), "%s/out", fx->root);
  write_text(fx->config, two_runs, "w");
  *state = fx;
  return 0;
}

static int teardown(void** state) {
  sweep_fixture* fx = *state;
  test_remove_tree(fx->root);
  free(fx);
  return 0;
}

// runs `tightfit sweep CONFIG --out DIR` plus extra (NULL-terminated)
static cli_exec_result sweep(const sweep_fixture* fx, const char* extra0, const char* extra1) {
  const char* args[] = {"sweep", fx->config, "--out", fx->out, "--jobs", "2", extra0, extra1, NULL};
  return cli_exec(args);
}

static void expect_exit(cli_exec_result* r, int code) {
  if (!r->exited || r->code != code) {
    print_message("exit %d (exited %d), expected %d\nstderr:\n%s\n", r->code, r->exited, code,
                  r->err ? r->err : "");
  }
  assert_true(r->exited);
  assert_int_equal(r->code, code);
}

// the usage-error contract: exit 2, one line on stderr naming the program, nothing on stdout
static void expect_one_line_error(cli_exec_result* r, const char* needle) {
  expect_exit(r, 2);
  assert_int_equal(lines_of(r->err), 1);
  assert_true(strncmp(r->err, "tightfit sweep: ", 16) == 0);
  if (needle && !strstr(r->err, needle)) print_message("stderr: %s", r->err);
  if (needle) assert_non_null(strstr(r->err, needle));
  assert_string_equal(r->out, "");
}

// the CSV's rows: header + n, each row's first cell a 16-digit run id
static void check_csv(const sweep_fixture* fx, int nrows) {
  char* csv = read_out(fx, "results.csv");
  assert_non_null(csv);
  assert_int_equal(lines_of(csv), 1 + nrows);
  assert_true(strncmp(csv, "run_id,task,", 12) == 0);
  assert_non_null(strstr(csv, ",clearance_um,"));
  assert_non_null(strstr(csv, ",status,"));
  const char* row = strchr(csv, '\n') + 1;
  for (int i = 0; i < nrows; i++) {
    assert_int_equal(strspn(row, "0123456789abcdef"), 16);
    assert_int_equal(row[16], ',');
    assert_true(strncmp(row + 17, "peg,", 4) == 0);
    row = strchr(row, '\n') + 1;
  }
  free(csv);
}

// a timing, not a result: differs from run to run
static int is_timing(const char* key) {
  return strstr(key, "per_s") || strstr(key, "realtime") || strstr(key, "throughput.") ||
         strstr(key, "_us");
}

// the row's command, run on its own, gives the row again (timings aside)
static void check_reproduces(const cJSON* row) {
  const char* command = cJSON_GetObjectItem(row, "command")->valuestring;
  char words[1024];
  snprintf(words, sizeof(words), "%s", command);
  const char* args[CLI_EXEC_MAX_ARGS + 1];
  int n = 0;
  // the command's words are plain here (no quotes): split at spaces, drop "tightfit"
  for (char* w = strtok(words, " "); w && n < CLI_EXEC_MAX_ARGS; w = strtok(NULL, " ")) {
    if (strcmp(w, "tightfit") != 0) args[n++] = w;
  }
  args[n] = NULL;
  cli_exec_result r = cli_exec(args);
  expect_exit(&r, 0);
  cJSON* again = cJSON_Parse(r.out);
  assert_non_null(again);
  int compared = 0;
  for (const cJSON* item = again->child; item; item = item->next) {
    if (is_timing(item->string)) continue;
    const cJSON* same = cJSON_GetObjectItemCaseSensitive(row, item->string);
    if (!same || !cJSON_Compare(item, same, 1)) print_message("differs: %s\n", item->string);
    assert_non_null(same);
    assert_true(cJSON_Compare(item, same, 1));
    compared++;
  }
  assert_true(compared > 20);
  cJSON_Delete(again);
  cli_exec_free(&r);
}

static void test_two_runs(void** state) {
  sweep_fixture* fx = *state;
  cli_exec_result r = sweep(fx, NULL, NULL);
  expect_exit(&r, 0);
  assert_non_null(strstr(r.err, "[sweep] 2/2 done, 0 failed"));
  cli_exec_free(&r);
  check_csv(fx, 2);

  char* jsonl = read_out(fx, "results.jsonl");
  assert_int_equal(lines_of(jsonl), 2);
  cJSON* row = cJSON_ParseWithLength(jsonl, (size_t)(strchr(jsonl, '\n') - jsonl));
  assert_non_null(row);
  assert_string_equal(row->child->string, "run_id");
  const cJSON* command = cJSON_GetObjectItem(row, "command");
  assert_true(cJSON_IsString(command));
  assert_true(strncmp(command->valuestring, "tightfit run --task peg ", 24) == 0);
  assert_non_null(strstr(command->valuestring, "--set mu=0.05"));
  assert_non_null(strstr(command->valuestring, " --json"));
  assert_string_equal(cJSON_GetObjectItem(row, "task")->valuestring, "peg");
  assert_true(cJSON_GetObjectItem(row, "mu")->valuedouble == 0.05);
  check_reproduces(row);
  cJSON_Delete(row);

  char* config = read_out(fx, "config.json");
  assert_string_equal(config, two_runs);  // a copy, video settings included
  char* machine = read_out(fx, "machine.json");
  cJSON* m = cJSON_Parse(machine);
  assert_non_null(m);
  const char* fields[] = {"hostname", "cores", "tightfit_version", "compiler", "date"};
  for (int i = 0; i < 5; i++) assert_non_null(cJSON_GetObjectItem(m, fields[i]));
  cJSON_Delete(m);
  char* report = read_out(fx, "report.html");
  assert_non_null(report);
  free(jsonl);
  free(config);
  free(machine);
  free(report);

  // --resume: nothing left to run, files untouched
  char* before = read_out(fx, "results.jsonl");
  r = sweep(fx, "--resume", NULL);
  expect_exit(&r, 0);
  assert_non_null(strstr(r.err, "2 of 2 runs already done, 0 to run"));
  cli_exec_free(&r);
  char* after = read_out(fx, "results.jsonl");
  assert_string_equal(after, before);
  free(after);

  // the folder holds a sweep: refused without a flag, nothing changed
  r = sweep(fx, NULL, NULL);
  expect_one_line_error(&r, "use --resume to continue its sweep or --force to start over");
  cli_exec_free(&r);
  after = read_out(fx, "results.jsonl");
  assert_string_equal(after, before);
  free(after);
  free(before);

  // --force starts over: two rows, not four
  r = sweep(fx, "--force", NULL);
  expect_exit(&r, 0);
  cli_exec_free(&r);
  check_csv(fx, 2);
}

// a grown grid resumes with the new runs only; a cut last line is repaired and its run redone
static void test_resume_extended_and_repaired(void** state) {
  sweep_fixture* fx = *state;
  cli_exec_result r = sweep(fx, NULL, NULL);
  expect_exit(&r, 0);
  cli_exec_free(&r);
  write_text(fx->config,
             "{\"task\": \"peg\", \"duration\": 0.01, \"envs\": 1,\n"
             " \"grid\": {\"clearance_um\": [100, 200, 300]},\n"
             " \"set\": {\"mu\": 0.05}, \"video\": {\"select\": \"worst\", \"max\": 1, \"size\": "
             "\"64x48\", \"fps\": 10}}\n",
             "w");
  r = sweep(fx, "--resume", NULL);
  expect_exit(&r, 0);
  assert_non_null(strstr(r.err, "2 of 3 runs already done, 1 to run"));
  cli_exec_free(&r);
  check_csv(fx, 3);

  // a crash mid-row: the partial line is cut, the CSV still agrees, nothing is redone
  char path[256];
  snprintf(path, sizeof(path), "%s/results.jsonl", fx->out);
  write_text(path, "{\"run_id\":\"0123456789abcdef\",\"task\":\"pe", "a");
  r = sweep(fx, "--resume", NULL);
  expect_exit(&r, 0);
  assert_non_null(strstr(r.err, "cut a partial last line"));
  assert_non_null(strstr(r.err, "3 of 3 runs already done, 0 to run"));
  cli_exec_free(&r);
  char* jsonl = read_out(fx, "results.jsonl");
  assert_int_equal(lines_of(jsonl), 3);
  assert_int_equal(jsonl[strlen(jsonl) - 1], '\n');
  free(jsonl);
  check_csv(fx, 3);
}

// bad configs: exit 2, the JSON path in the one line, and no output folder made
static void test_bad_config(void** state) {
  sweep_fixture* fx = *state;
  write_text(fx->config, "{\"task\": \"peg\", \"grid\": {\"dt\": [0.001, -0.5]}}", "w");
  cli_exec_result r = sweep(fx, NULL, NULL);
  expect_one_line_error(&r, "sweep.json: grid.dt[1]: must be > 0 (got -0.5)");
  cli_exec_free(&r);
  write_text(fx->config, "{\"task\": \"peg\", \"grid\": {\"clearance_um\": [100, 1e9]}}", "w");
  r = sweep(fx, NULL, NULL);
  expect_one_line_error(&r, "grid.clearance_um[1]: task 'peg': clearance_um must be in");
  cli_exec_free(&r);
  write_text(fx->config, "{\"task\": \"peg\",\n \"grid\": {\"solvr\": [\"al\"]}}", "w");
  r = sweep(fx, NULL, NULL);
  expect_one_line_error(&r, "grid.solvr: unknown key (valid: solver, dt, substeps, iterations, ");
  cli_exec_free(&r);
  write_text(fx->config, "{\"task\": \"peg\",\n \"grid\": {\"dt\": [0.001,]}}", "w");
  r = sweep(fx, NULL, NULL);
  expect_one_line_error(&r, "sweep.json: line 2, column");
  cli_exec_free(&r);
  unlink(fx->config);
  r = sweep(fx, NULL, NULL);
  expect_one_line_error(&r, "sweep.json: cannot open: No such file or directory");
  cli_exec_free(&r);
  struct stat st;
  assert_int_not_equal(stat(fx->out, &st), 0);  // nothing was created
}

static void test_bad_options(void** state) {
  sweep_fixture* fx = *state;
  const char* no_out[] = {"sweep", fx->config, NULL};
  cli_exec_result r = cli_exec(no_out);
  expect_one_line_error(&r, "--out DIR is required");
  cli_exec_free(&r);
  const char* no_config[] = {"sweep", "--out", fx->out, NULL};
  r = cli_exec(no_config);
  expect_one_line_error(&r, "a config file is required");
  cli_exec_free(&r);
  r = sweep(fx, "--resume", "--force");
  expect_one_line_error(&r, "--resume and --force exclude each other");
  cli_exec_free(&r);
  r = sweep(fx, "--fast", NULL);
  expect_one_line_error(&r, "unknown option '--fast'");
  cli_exec_free(&r);
  const char* zero_jobs[] = {"sweep", fx->config, "--out", fx->out, "--jobs", "0", NULL};
  r = cli_exec(zero_jobs);
  expect_one_line_error(&r, "--jobs needs a whole number in [1, 1024], got '0'");
  cli_exec_free(&r);
  // --out naming a file
  const char* out_file[] = {"sweep", fx->config, "--out", fx->config, NULL};
  r = cli_exec(out_file);
  expect_one_line_error(&r, "exists and is not a folder");
  cli_exec_free(&r);
  const char* help[] = {"sweep", "--help", NULL};
  r = cli_exec(help);
  expect_exit(&r, 0);
  assert_non_null(strstr(r.out, "usage: tightfit sweep CONFIG.json --out DIR"));
  cli_exec_free(&r);
}

static int group_setup(void** state) {
  (void)state;
  if (access(cli_exec_path(), X_OK) != 0) {
    fprintf(stderr, "test_sweep: %s is not an executable (set TIGHTFIT_BIN or build it)\n",
            cli_exec_path());
    return -1;
  }
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_two_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resume_extended_and_repaired, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_config, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
