// `tightfit CMD --help` and the one-line error contract, through the built binary
// (TIGHTFIT_BIN): every subcommand answers --help and -h with its own usage on stdout and
// exit 0; every usage error is exactly one line on stderr that starts with "tightfit", with
// exit 2, nothing on stdout and no usage page.
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

// args' help: exit 0, stdout starts with "usage: tightfit WORD", stderr empty
static void expect_help(const char* const* args, const char* word) {
  cli_exec_result r = cli_exec(args);
  char prefix[64];
  snprintf(prefix, sizeof(prefix), "usage: tightfit %s", word);
  int ok = r.exited && r.code == 0 && r.out && strncmp(r.out, prefix, strlen(prefix)) == 0 &&
           r.err && r.err[0] == 0;
  if (!ok) {
    print_message("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s\n", args[0], args[1] ? args[1] : "",
                  r.code, r.out ? r.out : "", r.err ? r.err : "");
  }
  cli_exec_free(&r);
  assert_true(ok);
}

static void test_every_command_help(void** state) {
  (void)state;
  static const char* const commands[] = {"run",    "validate", "video",  "asset", "sweep",
                                         "report", "list",     "export", "merge"};
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
    const char* long_form[] = {commands[i], "--help", NULL};
    const char* short_form[] = {commands[i], "-h", NULL};
    expect_help(long_form, commands[i]);
    expect_help(short_form, commands[i]);
  }
  // after other options, and under asset's own subcommands
  const char* run_task[] = {"run", "--task", "peg", "--help", NULL};
  expect_help(run_task, "run");
  const char* video[] = {"video", "--task", "peg", "--out", "x.mp4", "-h", NULL};
  expect_help(video, "video");
  const char* asset_list[] = {"asset", "list", "--help", NULL};
  expect_help(asset_list, "asset");
  const char* asset_export[] = {"asset", "export", "--help", NULL};
  expect_help(asset_export, "asset");
  const char* help_run[] = {"help", "run", NULL};
  expect_help(help_run, "run");
}

// the top-level help is still there
static void test_top_level_help(void** state) {
  (void)state;
  const char* args[] = {"--help", NULL};
  cli_exec_result r = cli_exec(args);
  int ok = r.exited && r.code == 0 && strstr(r.out, "usage: tightfit <command>") && !r.err[0];
  cli_exec_free(&r);
  assert_true(ok);
}

// exit 2, one line on stderr starting with "tightfit" and containing needle, no usage page
static void expect_one_line(const char* const* args, const char* needle) {
  cli_exec_result r = cli_exec(args);
  int ok = r.exited && r.code == 2 && lines_of(r.err) == 1 && strncmp(r.err, "tightfit", 8) == 0 &&
           !strstr(r.err, "usage:") && strstr(r.err, needle) && r.out[0] == 0;
  if (!ok) {
    print_message("args:");
    for (int i = 0; args[i]; i++) print_message(" %s", args[i]);
    print_message("\nexit %d (exited %d)\nstdout:\n%s\nstderr:\n%s\n", r.code, r.exited, r.out,
                  r.err);
  }
  cli_exec_free(&r);
  assert_true(ok);
}

static void test_errors_are_one_line(void** state) {
  (void)state;
  const char* none[] = {NULL};
  expect_one_line(none, "--help");
  const char* unknown[] = {"frobnicate", NULL};
  expect_one_line(unknown, "frobnicate");
  const char* run_option[] = {"run", "--scene", "pendulum", "--fast", NULL};
  expect_one_line(run_option, "--fast");
  const char* run_nothing[] = {"run", NULL};
  expect_one_line(run_nothing, "--scene");
  const char* run_missing[] = {"run", "--scene", "pendulum", "--dt", NULL};
  expect_one_line(run_missing, "--dt");
  const char* substeps[] = {"run", "--task", "peg", "--substeps", "abc", NULL};
  expect_one_line(substeps, "--substeps");
  const char* envs[] = {"run", "--task", "peg", "--envs", "1.5", NULL};
  expect_one_line(envs, "--envs");
  const char* seed[] = {"run", "--task", "peg", "--seed", "-1", NULL};
  expect_one_line(seed, "--seed");
  const char* fps[] = {"video", "--task", "peg", "--fps", "abc", "--out", "/tmp/x.mp4", NULL};
  expect_one_line(fps, "--fps");
  const char* vthreads[] = {"video", "--task", "peg",        "--threads",
                            "0",     "--out",  "/tmp/x.mp4", NULL};
  expect_one_line(vthreads, "--threads");
  const char* vout[] = {"video", "--task", "peg", NULL};
  expect_one_line(vout, "--out");
  const char* vopt[] = {"video", "--task", "peg", "--bogus", "--out", "/tmp/x.mp4", NULL};
  expect_one_line(vopt, "tightfit video: unknown option '--bogus'");
  const char* asset[] = {"asset", NULL};
  expect_one_line(asset, "list");
  const char* asset_export[] = {"asset", "export", NULL};
  expect_one_line(asset_export, "PART");
  const char* asset_option[] = {"asset", "export", "nut", "--bogus", NULL};
  expect_one_line(asset_option, "--bogus");
  const char* validate[] = {"validate", "--bogus", NULL};
  expect_one_line(validate, "--bogus");
  const char* list[] = {"list", "--bogus", NULL};
  expect_one_line(list, "--bogus");
  const char* sweep[] = {"sweep", NULL};
  expect_one_line(sweep, "config");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_command_help),
      cmocka_unit_test(test_top_level_help),
      cmocka_unit_test(test_errors_are_one_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
