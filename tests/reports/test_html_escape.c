// Text into HTML: every markup character becomes a reference, other bytes (UTF-8 included)
// pass through, and file names become URL paths that still name their file.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_escape.h"

typedef void (*writer)(FILE* f, const char* s);

// what a writer produces for s, as a heap string
static char* written(writer w, const char* s) {
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  assert_non_null(f);
  w(f, s);
  assert_int_equal(fclose(f), 0);
  return buf;
}

static void test_puts(void** state) {
  (void)state;
  char* s = written(tf_html_puts, "<a href=\"x\">it's & \xc2\xb5m</a>");
  assert_string_equal(s, "&lt;a href=&quot;x&quot;&gt;it&#39;s &amp; \xc2\xb5m&lt;/a&gt;");
  free(s);
  s = written(tf_html_puts, NULL);
  assert_string_equal(s, "");
  free(s);
}

static void test_printf(void** state) {
  (void)state;
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  tf_html_printf(f, "%s=%d", "<k>", 3);
  fclose(f);
  assert_string_equal(buf, "&lt;k&gt;=3");
  free(buf);
}

static void test_url_path(void** state) {
  (void)state;
  char* s = written(tf_html_url_path, "run 1#a?b/c%d\"e.mp4");
  assert_string_equal(s, "run%201%23a%3Fb/c%25d%22e.mp4");
  free(s);
  s = written(tf_html_url_path, "\xc2\xb5.png");
  assert_string_equal(s, "%C2%B5.png");
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_puts),
      cmocka_unit_test(test_printf),
      cmocka_unit_test(test_url_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
