// A sweep's recordings (cli/sweep_record.c): the run numbers chosen, the folder made and
// checked before any run, and the temporary files a killed recording leaves removed by
// --resume. The section's messages within a whole config: test_sweep_config.c.
//
// cli/ is not a library, so the unit and what it calls from cli/ are compiled in directly.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_errors.c"
#include "json_keys.c"
#include "sweep_record.c"

static void test_select(void** state) {
  (void)state;
  tf_config_errors* e = calloc(1, sizeof(*e));
  cJSON* section = cJSON_Parse("{\"runs\": [3, 1]}");
  unsigned char chosen[4] = {0};
  assert_int_equal(tf_sweep_record_select(section, 4, chosen, e), 0);
  assert_memory_equal(chosen, "\0\1\0\1", 4);
  // the form alone, before the run count is known: any number passes
  assert_int_equal(tf_sweep_record_select(section, -1, NULL, e), 0);
  assert_int_equal(e->n, 0);
  memset(chosen, 0, sizeof(chosen));
  assert_int_equal(tf_sweep_record_select(section, 3, chosen, e), -1);
  assert_string_equal(e->msg[0],
                      "record.runs[0]: run 3 does not exist (the sweep has 3 runs: 0 to 2)");
  cJSON_Delete(section);
  assert_int_equal(tf_sweep_record_select(NULL, 3, chosen, e), 0);  // no section: none chosen
  free(e);
}

static void test_prepare_and_clean(void** state) {
  (void)state;
  char dir[] = "/tmp/tightfit_sweep_record_XXXXXX", path[128], err[512];
  assert_non_null(mkdtemp(dir));
  assert_int_equal(tf_sweep_record_prepare(dir, err, sizeof(err)), 0);
  snprintf(path, sizeof(path), "%s/record", dir);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  tf_sweep_record_path(dir, "0123456789abcdef", path, sizeof(path));
  char want[128];
  snprintf(want, sizeof(want), "%s/record/0123456789abcdef.npz", dir);
  assert_string_equal(path, want);

  // what a killed recording leaves: the archive's temporary name and libzip's own
  static const char* const names[] = {"a.npz.tmp.Ab12Cd", "a.npz.tmp.Ab12Cd.Ef34Gh", "b.npz"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof(path), "%s/record/%s", dir, names[i]);
    FILE* f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
  }
  assert_int_equal(tf_sweep_record_clean(dir), 2);
  snprintf(path, sizeof(path), "%s/record/b.npz", dir);
  assert_int_equal(stat(path, &st), 0);  // a finished recording stays
  unlink(path);
  snprintf(path, sizeof(path), "%s/record", dir);
  assert_int_equal(rmdir(path), 0);

  // DIR/record taken by a file: the sweep cannot record, and says where
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
  assert_int_equal(tf_sweep_record_prepare(dir, err, sizeof(err)), -1);
  assert_non_null(strstr(err, path));
  assert_null(strchr(err, '\n'));
  unlink(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_select),
      cmocka_unit_test(test_prepare_and_clean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
