// Tests of `tightfit export --task T ... --format mjcf --out DIR` (cli/cmd_export.c): the scene
// is written as DIR/model.xml plus its meshes and loads back; a bad task, key, value, format,
// mode or folder is one stderr line with exit 2 and leaves nothing behind.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli_exec.h"
#include "mjcf.h"
#include "test_folder.h"

static int count_lines(const char* s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static void test_export_loads_back(void** state) {
  (void)state;
  char dir[64], out[256], path[320];
  test_make_folder(dir, "tf_export_mjcf");
  snprintf(out, sizeof(out), "%s/peg", dir);
  const char* args[] = {"export",   "--task", "peg",   "--set", "clearance_um=50",
                        "--format", "mjcf",   "--out", out,     NULL};
  cli_exec_result r = cli_exec(args);
  assert_true(r.exited);
  assert_int_equal(r.code, 0);
  assert_string_equal(r.err, "");
  assert_non_null(strstr(r.out, "model.xml: 1 bodies, 1 joints"));
  cli_exec_free(&r);
  snprintf(path, sizeof(path), "%s/model.xml", out);
  char err[512], unsup[256];
  tf_model* m = tf_mjcf_load(path, NULL, err, sizeof(err), unsup, sizeof(unsup));
  if (!m) fail_msg("%s", err);
  assert_int_equal(m->nbody, 2);
  assert_int_equal(m->njnt, 1);
  tf_model_destroy(m);
  snprintf(path, sizeof(path), "%s/meshes", out);
  assert_true(test_folder_entries(path) > 0);

  // robot mode, meshes as STL; a second export over the first replaces it
  const char* robot[] = {"export", "--task", "gears", "--mode",   "robot", "--format",
                         "mjcf",   "--out",  out,     "--meshes", "stl",   NULL};
  r = cli_exec(robot);
  assert_int_equal(r.code, 0);
  assert_string_equal(r.err, "");
  cli_exec_free(&r);
  snprintf(path, sizeof(path), "%s/model.xml", out);
  m = tf_mjcf_load(path, NULL, err, sizeof(err), unsup, sizeof(unsup));
  if (!m) fail_msg("%s", err);
  assert_true(tf_name_to_body(m, "panda_link7") > 0);
  assert_true(tf_name_to_body(m, "gear1") > 0);
  tf_model_destroy(m);
  test_remove_tree(dir);
}

// each args is refused with exit 2, one stderr line holding want, nothing on stdout and
// nothing written
static void expect_refused(const char* dir, const char* const* args, const char* want) {
  cli_exec_result r = cli_exec(args);
  assert_true(r.exited);
  assert_int_equal(r.code, 2);
  assert_int_equal(count_lines(r.err), 1);
  if (!strstr(r.err, want)) fail_msg("'%s' does not say '%s'", r.err, want);
  assert_string_equal(r.out, "");
  cli_exec_free(&r);
  assert_int_equal(test_folder_entries(dir), 0);
}

static void test_bad_arguments(void** state) {
  (void)state;
  char dir[64], out[256], file[256];
  test_make_folder(dir, "tf_export_mjcf");
  snprintf(out, sizeof(out), "%s/out", dir);
  const char* task[] = {"export", "--task", "pegg", "--format", "mjcf", "--out", out, NULL};
  expect_refused(dir, task, "unknown task 'pegg'");
  const char* key[] = {"export",   "--task", "peg",   "--set", "nope=1",
                       "--format", "mjcf",   "--out", out,     NULL};
  expect_refused(dir, key, "nope");
  const char* value[] = {"export",   "--task", "peg",   "--set", "clearance_um=1e9",
                         "--format", "mjcf",   "--out", out,     NULL};
  expect_refused(dir, value, "clearance_um");
  const char* noeq[] = {"export",   "--task", "peg",   "--set", "x",
                        "--format", "mjcf",   "--out", out,     NULL};
  expect_refused(dir, noeq, "key=value");
  const char* format[] = {"export", "--task", "peg", "--format", "urdf", "--out", out, NULL};
  expect_refused(dir, format, "unknown format 'urdf'");
  const char* noformat[] = {"export", "--task", "peg", "--out", out, NULL};
  expect_refused(dir, noformat, "--format");
  const char* noout[] = {"export", "--task", "peg", "--format", "mjcf", NULL};
  expect_refused(dir, noout, "--out");
  const char* mode[] = {"export",   "--task", "peg",   "--mode", "arm",
                        "--format", "mjcf",   "--out", out,      NULL};
  expect_refused(dir, mode, "unknown mode 'arm'");
  const char* meshes[] = {"export", "--task", "peg",      "--format", "mjcf",
                          "--out",  out,      "--meshes", "ply",      NULL};
  expect_refused(dir, meshes, "--meshes");
  const char* json[] = {"export", "--task", "peg",    "--format", "mjcf",
                        "--out",  out,      "--json", NULL};
  expect_refused(dir, json, "--json");

  // a folder that cannot be made: its parent is a file
  snprintf(file, sizeof(file), "%s/file", dir);
  FILE* f = fopen(file, "w");
  assert_non_null(f);
  fclose(f);
  snprintf(out, sizeof(out), "%s/file/out", dir);
  const char* unwritable[] = {"export", "--task", "peg", "--format", "mjcf", "--out", out, NULL};
  cli_exec_result r = cli_exec(unwritable);
  assert_int_equal(r.code, 2);
  assert_int_equal(count_lines(r.err), 1);
  assert_non_null(strstr(r.err, "tightfit export: "));
  cli_exec_free(&r);
  assert_int_equal(test_folder_entries(dir), 1);
  test_remove_tree(dir);
}

static void test_help(void** state) {
  (void)state;
  const char* args[] = {"export", "--help", NULL};
  cli_exec_result r = cli_exec(args);
  assert_int_equal(r.code, 0);
  assert_non_null(strstr(r.out, "usage: tightfit export"));
  assert_non_null(strstr(r.out, "--format mjcf"));
  cli_exec_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_export_loads_back),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_help),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
