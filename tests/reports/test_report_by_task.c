// tf_report_write on a sweep over two tasks: the why column says what a run missed (the task's
// own words, a failed run's status and error, tunnelled environments), no plot line joins two
// tasks, a task whose runs all share a plot's x is left out of that plot with a note, and the
// "fixed in this sweep" line is split by task.
#include "report_fixture.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report.h"

// peg: two runs at clearance 100 (impact 1 and 2 m/s); boltnut: clearance 30 and 50 at the same
// impact speeds; every run at dt 0.001. p2 missed with a reason, b2 failed to build, b1
// tunnelled.
static const char results[] =
    "{\"run_id\":\"p1\",\"task\":\"peg\",\"mode\":\"rig\",\"envs\":4,\"solver\":\"al\",\"dt\":0."
    "001,"
    "\"chamfer_mm\":0.5,\"clearance_um\":100,\"impact_speed\":1,\"status\":\"ok\","
    "\"success\":true,\"why\":\"\",\"tunnel.through\":0,\"overlap.peak_m\":6e-05,"
    "\"throughput.env_steps_per_s\":1000}\n"
    "{\"run_id\":\"p2\",\"task\":\"peg\",\"mode\":\"rig\",\"envs\":4,\"solver\":\"al\",\"dt\":0."
    "001,"
    "\"chamfer_mm\":0.5,\"clearance_um\":100,\"impact_speed\":2,\"status\":\"ok\","
    "\"success\":false,\"why\":\"overlap peak 62 um > 50 um allowed\",\"tunnel.through\":0,"
    "\"overlap.peak_m\":6.2e-05,\"throughput.env_steps_per_s\":1100}\n"
    "{\"run_id\":\"b1\",\"task\":\"boltnut\",\"mode\":\"rig\",\"envs\":4,\"solver\":\"al\",\"dt\":"
    "0.001,"
    "\"size\":\"M6\",\"clearance_um\":30,\"impact_speed\":1,\"status\":\"ok\",\"success\":false,"
    "\"why\":\"not reached\",\"tunnel.through\":2,\"overlap.peak_m\":2e-05,"
    "\"throughput.env_steps_per_s\":900}\n"
    "{\"run_id\":\"b2\",\"task\":\"boltnut\",\"mode\":\"rig\",\"envs\":4,\"solver\":\"al\",\"dt\":"
    "0.001,"
    "\"size\":\"M6\",\"clearance_um\":50,\"impact_speed\":2,\"status\":\"failed\","
    "\"success\":false,\"error\":\"parts <do> not fit\",\"tunnel.through\":0,"
    "\"overlap.peak_m\":3e-05,\"throughput.env_steps_per_s\":950}\n"
    "{\"run_id\":\"b3\",\"task\":\"boltnut\",\"mode\":\"rig\",\"envs\":4,\"solver\":\"al\",\"dt\":"
    "0.001,"
    "\"size\":\"M6\",\"clearance_um\":50,\"impact_speed\":1,\"status\":\"ok\",\"success\":false,"
    "\"success_envs\":3,\"why\":\"\",\"tunnel.through\":0,\"overlap.peak_m\":2.5e-05,"
    "\"throughput.env_steps_per_s\":980}\n";

typedef struct built {
  char dir[64];
  char* html;
  tf_report_info info;
} built;

static built* build(void) {
  built* b = calloc(1, sizeof *b);
  assert_non_null(b);
  snprintf(b->dir, sizeof b->dir, "/tmp/tightfit_report_XXXXXX");
  assert_non_null(mkdtemp(b->dir));
  assert_int_equal(fixture_write(b->dir, "results.jsonl", results), 0);
  char err[512] = "";
  if (tf_report_write_info(b->dir, &b->info, err, sizeof err)) fail_msg("report: %s", err);
  b->html = fixture_read(b->info.path);
  assert_non_null(b->html);
  return b;
}

static void built_free(built* b) {
  fixture_remove(b->dir);
  free(b->html);
  free(b);
}

// the text of <svg id="id"> .. </svg>, malloc'd, or NULL
static char* svg_block(const char* html, const char* id) {
  char open[96];
  snprintf(open, sizeof open, "<svg id=\"%s\"", id);
  const char* a = strstr(html, open);
  if (!a) return NULL;
  const char* e = strstr(a, "</svg>");
  assert_non_null(e);
  size_t n = (size_t)(e - a);
  char* s = malloc(n + 1);
  memcpy(s, a, n);
  s[n] = 0;
  return s;
}

// the table row of a run, malloc'd
static char* row_of(const char* html, const char* run) {
  char key[64];
  snprintf(key, sizeof key, ">%s</td>", run);
  const char* a = strstr(html, key);
  assert_non_null(a);
  const char* e = strstr(a, "</tr>");
  size_t n = (size_t)(e - a);
  char* s = malloc(n + 1);
  memcpy(s, a, n);
  s[n] = 0;
  return s;
}

static void expect_why(const char* html, const char* run, const char* why) {
  char* row = row_of(html, run);
  char cell[256];
  snprintf(cell, sizeof cell, "<td class=\"why\">%s</td>", why);
  if (!strstr(row, cell)) fail_msg("run %s: no %s in %s", run, cell, row);
  free(row);
}

static void test_why_column(void** state) {
  (void)state;
  built* b = build();
  assert_non_null(strstr(b->html, "<th title=\"why\">why</th>"));
  expect_why(b->html, "p1", "");
  expect_why(b->html, "p2", "overlap peak 62 um &gt; 50 um allowed");
  expect_why(b->html, "b1", "tunnelled in 2 envs");
  expect_why(b->html, "b2", "failed: parts &lt;do&gt; not fit");
  expect_why(b->html, "b3", "3 of 4 envs succeeded");
  // the error is in the why column, not a column of its own
  assert_null(strstr(b->html, "<th title=\"error\">"));
  built_free(b);
}

static void test_plots_split_by_task(void** state) {
  (void)state;
  built* b = build();
  // tunnelling against impact speed varies in both tasks: a panel each, none shared
  assert_null(svg_block(b->html, "plot-tunnel"));
  for (int t = 0; t < 2; t++) {
    char* tunnel = svg_block(b->html, t ? "plot-tunnel-boltnut" : "plot-tunnel-peg");
    assert_non_null(tunnel);
    assert_non_null(strstr(tunnel, "data-nseries=\"1\""));
    assert_non_null(strstr(tunnel, "data-name=\"al\""));
    free(tunnel);
  }
  // peg's runs are all at clearance 100: only bolt-nut is drawn, peg gets a note
  char* overlap = svg_block(b->html, "plot-overlap");
  assert_non_null(overlap);
  assert_non_null(strstr(overlap, "data-nseries=\"1\""));
  assert_null(strstr(overlap, "100"));
  free(overlap);
  assert_non_null(strstr(b->html, "data-plot=\"plot-overlap\" data-task=\"peg\">not drawn for"));
  assert_null(strstr(b->html, "data-plot=\"plot-overlap\" data-task=\"boltnut\""));
  // every run at one dt: no throughput plot, a note per task
  assert_null(svg_block(b->html, "plot-throughput"));
  assert_non_null(strstr(b->html, "data-plot=\"plot-throughput\" data-task=\"peg\""));
  assert_non_null(strstr(b->html, "data-plot=\"plot-throughput\" data-task=\"boltnut\""));
  assert_int_equal(b->info.nplot, 2);  // tunnel and overlap; slip has no data
  built_free(b);
}

static void test_fixed_by_task(void** state) {
  (void)state;
  built* b = build();
  assert_non_null(
      strstr(b->html, "Fixed in this sweep, every task: <b>mode</b> = rig, <b>envs</b> = 4</p>"));
  assert_non_null(strstr(b->html, "data-task=\"peg\">Fixed for peg: <b>chamfer_mm</b> = 0.5</p>"));
  assert_non_null(strstr(b->html, "data-task=\"boltnut\">Fixed for boltnut: <b>size</b> = M6</p>"));
  built_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_why_column),
      cmocka_unit_test(test_plots_split_by_task),
      cmocka_unit_test(test_fixed_by_task),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
