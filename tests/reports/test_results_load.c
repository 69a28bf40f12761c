// Reading results.jsonl back: rows in order with their line numbers, blank lines ignored,
// each kind of corrupt line skipped with its number and reason, typed accessors that refuse
// nulls and wrong types, a clear error for a file that is not there, and the limits that keep
// a file that never ends (a link to /dev/zero, a FIFO, one line gigabytes long, too many
// rows) from growing memory without end: a one-line error naming the file, and no rows.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results_load.h"

// a read that hangs (a FIFO with no writer) fails the suite instead of stalling it
#define HANG_GUARD_S 30

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

// a temporary folder with results.jsonl linked to target; the caller calls drop_link
static void link_temp(char dir[64], char path[96], const char* target) {
  snprintf(dir, 64, "/tmp/tightfit_limits_XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(path, 96, "%s/results.jsonl", dir);
  assert_int_equal(symlink(target, path), 0);
}

static void drop_link(const char* dir, const char* path) {
  unlink(path);
  assert_int_equal(rmdir(dir), 0);
}

// loads path expecting the failure whose message holds want (and names the file)
static void expect_refused(const char* path, const char* want) {
  tf_results r;
  char err[512] = "";
  alarm(HANG_GUARD_S);
  assert_int_equal(tf_results_load(&r, path, err, sizeof err), -1);
  alarm(0);
  if (!strstr(err, want)) print_message("error: %s\n", err);
  assert_non_null(strstr(err, path));
  assert_non_null(strstr(err, want));
  assert_null(strchr(err, '\n'));  // one line
  assert_int_equal(r.nrow, 0);
  tf_results_free(&r);
}

static void test_device_and_fifo_refused(void** state) {
  (void)state;
  char dir[64], path[96];
  // /dev/zero: NUL bytes without end, never a line
  link_temp(dir, path, "/dev/zero");
  expect_refused(path, "not a regular file");
  drop_link(dir, path);
  // a FIFO with no writer: open would wait for one forever
  snprintf(dir, 64, "/tmp/tightfit_limits_XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(path, 96, "%s/results.jsonl", dir);
  assert_int_equal(mkfifo(path, 0600), 0);
  expect_refused(path, "FIFO");
  drop_link(dir, path);
}

static void test_long_line_refused(void** state) {
  (void)state;
  // one line a byte over the limit, no newline; and NUL bytes (a sparse file) past it
  size_t n = (size_t)TF_RESULTS_LINE_MAX + 1;
  char* text = malloc(n);
  assert_non_null(text);
  memset(text, 'x', n);
  text[0] = '{';
  char path[64];
  write_temp(path, text, n);
  free(text);
  expect_refused(path, "line 1 is over 1048576 bytes");
  unlink(path);
  write_temp(path, "{\"a\":1}\n", 8);
  assert_int_equal(truncate(path, 8 + 3 * (off_t)TF_RESULTS_LINE_MAX), 0);
  expect_refused(path, "line 2 is over 1048576 bytes, more than any run's row (and holds NUL");
  unlink(path);
  // a line just under the limit is read (and skipped as not JSON)
  n = (size_t)TF_RESULTS_LINE_MAX;
  text = malloc(n);
  assert_non_null(text);
  memset(text, ' ', n);
  memcpy(text, "{\"a\":1}", 7);
  text[7] = 'x';
  text[n - 1] = '\n';
  write_temp(path, text, n);
  free(text);
  tf_results r;
  char err[256] = "";
  assert_int_equal(tf_results_load(&r, path, err, sizeof err), 0);
  assert_int_equal(r.nskipped, 1);
  tf_results_free(&r);
  unlink(path);
}

static void test_too_many_rows_or_bytes(void** state) {
  (void)state;
  // one row over the count
  size_t each = 8, n = each * ((size_t)TF_RESULTS_ROWS_MAX + 1);
  char* text = malloc(n);
  assert_non_null(text);
  for (size_t i = 0; i < n; i += each) memcpy(text + i, "{\"a\":1}\n", each);
  char path[64];
  write_temp(path, text, n);
  expect_refused(path, "more than 100000 rows");
  // exactly the count is fine
  assert_int_equal(truncate(path, (off_t)(n - each)), 0);
  tf_results r;
  char err[256] = "";
  assert_int_equal(tf_results_load(&r, path, err, sizeof err), 0);
  assert_int_equal(r.nrow, TF_RESULTS_ROWS_MAX);
  tf_results_free(&r);
  free(text);
  // over the byte limit (sparse: no disk used)
  assert_int_equal(truncate(path, (off_t)TF_RESULTS_BYTES_MAX + 1), 0);
  expect_refused(path, "bytes, over the 1073741824 a report reads");
  unlink(path);
}

// a row of many keys loads in linear time: nothing compares each key with all the others
static void test_many_keys_fast(void** state) {
  (void)state;
  int nkey = 60000;
  size_t cap = (size_t)nkey * 16 + 16, at = 0;
  char* text = malloc(cap);
  assert_non_null(text);
  text[at++] = '{';
  for (int k = 0; k < nkey; k++) {
    at += (size_t)snprintf(text + at, cap - at, "%s\"k%d\":%d", k ? "," : "", k, k);
  }
  text[at++] = '}';
  text[at++] = '\n';
  assert_true(at < TF_RESULTS_LINE_MAX);
  char path[64];
  write_temp(path, text, at);
  free(text);
  tf_results r;
  char err[256] = "";
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  alarm(HANG_GUARD_S);
  assert_int_equal(tf_results_load(&r, path, err, sizeof err), 0);
  alarm(0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  unlink(path);
  assert_int_equal(r.nrow, 1);
  assert_int_equal(cJSON_GetArraySize(r.row[0]), nkey);
  double v = 0;
  assert_int_equal(tf_results_number(r.row[0], "k59999", &v), 1);
  assert_true(v == 59999);
  double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  assert_true(s < 2.0);  // ~10 ms; quadratic would take seconds
  tf_results_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_and_skips),
      cmocka_unit_test(test_many_corrupt_lines_are_counted),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_device_and_fifo_refused),
      cmocka_unit_test(test_long_line_refused),
      cmocka_unit_test(test_too_many_rows_or_bytes),
      cmocka_unit_test(test_many_keys_fast),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
