// `asset export --json` and `video --json` print the paths they wrote as JSON strings: a path
// holding a quote, a backslash or a control byte must still give one valid JSON object whose
// field reads back as the exact path.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cJSON.h>

#include "cli_exec.h"

// a fresh folder and in it a file name with a quote, a backslash and a tab
static void odd_path(char* dir, size_t ndir, char* path, size_t npath, const char* ext) {
  snprintf(dir, ndir, "/tmp/tightfit_json_XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(path, npath, "%s/a\"b\\c\td%s", dir, ext);
}

// stdout is one JSON object whose string field key equals want
static void expect_field(const char* out, const char* key, const char* want) {
  cJSON* o = cJSON_Parse(out);
  if (!o) print_message("not JSON: %s\n", out);
  assert_non_null(o);
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  int ok = cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
  if (!ok) print_message("field %s of %s is not '%s'\n", key, out, want);
  cJSON_Delete(o);
  assert_true(ok);
}

static void test_asset_export_json_path(void** state) {
  (void)state;
  char dir[64], path[128];
  odd_path(dir, sizeof(dir), path, sizeof(path), ".stl");
  const char* args[] = {"asset", "export", "peg", "--out", path, "--json", NULL};
  cli_exec_result r = cli_exec(args);
  if (!r.exited || r.code != 0) print_message("exit %d: %s\n", r.code, r.err);
  assert_true(r.exited && r.code == 0);
  expect_field(r.out, "out", path);
  expect_field(r.out, "part", "peg");
  cli_exec_free(&r);
  unlink(path);
  rmdir(dir);
}

static void test_video_json_path(void** state) {
  (void)state;
  char dir[64], path[128], thumb[128];
  odd_path(dir, sizeof(dir), path, sizeof(path), ".mp4");
  snprintf(thumb, sizeof(thumb), "%s/t\"\\.png", dir);
  const char* args[] = {"video", "--task", "peg", "--duration",  "0.05", "--fps",  "10", "--size",
                        "64x48", "--out",  path,  "--thumbnail", thumb,  "--json", NULL};
  cli_exec_result r = cli_exec(args);
  if (!r.exited || r.code != 0) print_message("exit %d: %s\n", r.code, r.err);
  assert_true(r.exited && r.code == 0);
  expect_field(r.out, "video", path);
  cli_exec_free(&r);
  unlink(path);
  unlink(thumb);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_asset_export_json_path),
      cmocka_unit_test(test_video_json_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
