// Reading results.jsonl back: rows in order with their line numbers, blank lines ignored,
// each kind of corrupt line skipped with its number and reason, typed accessors that refuse
// nulls and wrong types, and a clear error for a file that is not there.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results_load.h"

// a temporary file holding n bytes of text (NULs allowed); the caller unlinks it
static void write_temp(char path[64], const char* text, size_t n) {
  snprintf(path, 64, "/tmp/tightfit_results_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, n), (ssize_t)n);
  close(fd);
}

static void test_rows_and_skips(void** state) {
  (void)state;
  static const char text[] =
      "{\"run_id\":\"a\",\"dt\":0.001,\"success\":true,\"x\":null}\n"  // 1
      "\n"                                                             // 2 blank
      "{\"run_id\":\"b\",\"dt\":\n"                                    // 3 cut short
      "[1,2,3]\n"                                                      // 4 not an object
      "{}\n"                                                           // 5 empty
      "{\"a\":1} trailing\n"                                           // 6 garbage after
      "bad\0line\n"                                                    // 7 a NUL byte
      "  {\"run_id\":\"c\",\"status\":\"ok\"}  \r\n"                   // 8 CRLF, spaces
      "{\"run_id\":\"d\"}";                                            // 9 no final newline
  char path[64];
  write_temp(path, text, sizeof text - 1);
  tf_results r;
  char err[256] = "";
  assert_int_equal(tf_results_load(&r, path, err, sizeof err), 0);
  unlink(path);
  assert_int_equal(r.nrow, 3);
  assert_int_equal(r.line[0], 1);
  assert_int_equal(r.line[1], 8);
  assert_int_equal(r.line[2], 9);
  assert_string_equal(tf_results_text(r.row[1], "run_id"), "c");
  assert_int_equal(r.nskipped, 5);
  assert_int_equal(r.nskip_kept, 5);
  const int lines[] = {3, 4, 5, 6, 7};
  for (int i = 0; i < 5; i++) assert_int_equal(r.skip[i].line, lines[i]);
  assert_non_null(strstr(r.skip[0].why, "not valid JSON at column"));
  assert_string_equal(r.skip[1].why, "not a JSON object");
  assert_string_equal(r.skip[2].why, "an empty object");
  assert_non_null(strstr(r.skip[3].why, "not valid JSON"));
  assert_string_equal(r.skip[4].why, "holds a NUL byte");

  double v = 0;
  int b = 0;
  assert_int_equal(tf_results_number(r.row[0], "dt", &v), 1);
  assert_float_equal(v, 0.001, 0);
  assert_int_equal(tf_results_number(r.row[0], "x", &v), 0);       // null
  assert_int_equal(tf_results_number(r.row[0], "run_id", &v), 0);  // a string
  assert_int_equal(tf_results_number(r.row[0], "nope", &v), 0);
  assert_int_equal(tf_results_bool(r.row[0], "success", &b), 1);
  assert_int_equal(b, 1);
  assert_int_equal(tf_results_bool(r.row[0], "dt", &b), 0);
  assert_null(tf_results_text(r.row[0], "dt"));
  assert_null(tf_results_text(NULL, "dt"));
  tf_results_free(&r);
  assert_int_equal(r.nrow, 0);
}

static void test_many_corrupt_lines_are_counted(void** state) {
  (void)state;
  size_t n = 100 * 4;
  char* text = malloc(n + 1);
  for (int i = 0; i < 100; i++) memcpy(text + 4 * i, "{x}\n", 4);
  char path[64];
  write_temp(path, text, n);
  free(text);
  tf_results r;
  char err[256];
  assert_int_equal(tf_results_load(&r, path, err, sizeof err), 0);
  unlink(path);
  assert_int_equal(r.nrow, 0);
  assert_int_equal(r.nskipped, 100);
  assert_int_equal(r.nskip_kept, TF_RESULTS_SKIP_MAX);
  tf_results_free(&r);
}

static void test_missing_file(void** state) {
  (void)state;
  tf_results r;
  char err[256] = "";
  assert_int_equal(tf_results_load(&r, "/nonexistent/results.jsonl", err, sizeof err), -1);
  assert_non_null(strstr(err, "/nonexistent/results.jsonl"));
  tf_results_free(&r);  // safe after a failure
  // a directory opens on Linux but cannot be read as lines
  assert_int_equal(tf_results_load(&r, "/tmp", err, sizeof err), -1);
  assert_non_null(strstr(err, "/tmp"));
  tf_results_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_and_skips),
      cmocka_unit_test(test_many_corrupt_lines_are_counted),
      cmocka_unit_test(test_missing_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
