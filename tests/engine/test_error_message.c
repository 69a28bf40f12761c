// Tests of the shared one-line error message (error_message.h): the message lands in the
// caller's buffer, cut to its size and terminated, and a caller without a buffer still gets -1.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "error_message.h"

static void test_message_written(void** state) {
  (void)state;
  char err[64];
  memset(err, 'x', sizeof(err));
  assert_int_equal(tf_fail(err, sizeof(err), "mesh '%s': line %d: bad face", "nut.obj", 7), -1);
  assert_string_equal(err, "mesh 'nut.obj': line 7: bad face");
}

static void test_message_cut_to_buffer(void** state) {
  (void)state;
  char err[8];
  memset(err, 'x', sizeof(err));
  assert_int_equal(tf_fail(err, sizeof(err), "value %g out of range", 1.5), -1);
  assert_string_equal(err, "value 1");  // seven characters and the terminator
}

static void test_no_buffer(void** state) {
  (void)state;
  char err[4] = {'a', 'b', 'c', 0};
  assert_int_equal(tf_fail(NULL, 16, "ignored %d", 1), -1);
  assert_int_equal(tf_fail(err, 0, "ignored %d", 2), -1);
  assert_string_equal(err, "abc");  // errlen 0: the buffer is left as it was
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_message_written),
      cmocka_unit_test(test_message_cut_to_buffer),
      cmocka_unit_test(test_no_buffer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
