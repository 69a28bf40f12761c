// The fixture report opened in headless Chromium (scripts/check_report_chromium.sh): it loads,
// its script runs without an exception and sorts the table, and each plot is drawn with the
// series the fixture implies. Chromium is a test dependency (scripts/deps.sh installs it for
// `make test`), so a missing browser fails this test rather than skipping it.
#include "report_fixture.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/wait.h>

#include "report.h"

#define CHECK_SCRIPT "scripts/check_report_chromium.sh"

static void test_report_loads_in_chromium(void** state) {
  (void)state;
  if (access(CHECK_SCRIPT, R_OK) != 0) {
    fail_msg("%s not found: run the tests from the repository root", CHECK_SCRIPT);
  }
  char dir[64], err[512] = "";
  assert_int_equal(fixture_make(dir), 0);
  if (tf_report_write(dir, err, sizeof err) != 0) fail_msg("tf_report_write: %s", err);

  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "bash " CHECK_SCRIPT
           " %s/report.html plot-slip=%d plot-tunnel=%d plot-overlap=%d "
           "plot-throughput-gears=%d plot-throughput-peg=%d",
           dir, FIXTURE_SLIP_SERIES, FIXTURE_TUNNEL_SERIES, FIXTURE_OVERLAP_SERIES,
           FIXTURE_THROUGHPUT_GEARS_SERIES, FIXTURE_THROUGHPUT_PEG_SERIES);
  fflush(stdout);
  int status = system(cmd);
  fixture_remove(dir);
  if (status == -1 || !WIFEXITED(status)) fail_msg("could not run %s", CHECK_SCRIPT);
  if (WEXITSTATUS(status) != 0) {
    fail_msg("%s failed (exit %d; a missing chromium is installed by bash scripts/deps.sh)",
             CHECK_SCRIPT, WEXITSTATUS(status));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_report_loads_in_chromium),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
