// tf_report_write on a synthetic sweep directory (report_fixture.h): the four plots drawn
// with the right series and points, text from the results escaped, rows coloured by outcome,
// a corrupt line skipped with its number, and clear errors for a missing directory, a missing
// or empty results.jsonl. The HTML is checked as text: ids and classes are the contract.
#include "report_fixture.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report.h"

// occurrences of needle in s
static int count(const char* s, const char* needle) {
  int n = 0;
  size_t len = strlen(needle);
  for (const char* p = strstr(s, needle); p; p = strstr(p + len, needle)) n++;
  return n;
}

// the <svg id="id"> element's text, malloc'd, or NULL when the page has none
static char* svg_block(const char* html, const char* id) {
  char open[96];
  snprintf(open, sizeof open, "<svg id=\"%s\"", id);
  const char* a = strstr(html, open);
  if (!a) return NULL;
  const char* b = strstr(a, "</svg>");
  if (!b) return NULL;
  size_t n = (size_t)(b - a) + 6;
  char* s = malloc(n + 1);
  memcpy(s, a, n);
  s[n] = 0;
  return s;
}

// the report of the fixture, with its directory and info; the caller frees html and removes dir
typedef struct built {
  char dir[64];
  char* html;
  tf_report_info info;
} built;

static built* build_fixture(void) {
  built* b = calloc(1, sizeof *b);
  assert_non_null(b);
  assert_int_equal(fixture_make(b->dir), 0);
  char err[512] = "";
  int rc = tf_report_write_info(b->dir, &b->info, err, sizeof err);
  if (rc != 0) fail_msg("tf_report_write failed: %s", err);
  b->html = fixture_read(b->info.path);
  assert_non_null(b->html);
  return b;
}

static void built_free(built* b) {
  fixture_remove(b->dir);
  free(b->html);
  free(b);
}

static void check_plot(const char* html, const char* id, int nseries, int npoints) {
  char* svg = svg_block(html, id);
  if (!svg) fail_msg("no <svg id=\"%s\"> in the report", id);
  char attr[64];
  snprintf(attr, sizeof attr, "data-nseries=\"%d\"", nseries);
  if (!strstr(svg, attr)) fail_msg("%s: expected %s", id, attr);
  if (count(svg, "<g class=\"series\"") != nseries) {
    fail_msg("%s: %d series drawn, expected %d", id, count(svg, "<g class=\"series\""), nseries);
  }
  // "point" and "point bad" (a failed run's point) both count
  if (count(svg, "class=\"point") != npoints) {
    fail_msg("%s: %d points drawn, expected %d", id, count(svg, "class=\"point"), npoints);
  }
  free(svg);
}

static void test_report_draws_every_plot(void** state) {
  (void)state;
  built* b = build_fixture();
  check_plot(b->html, "plot-slip", FIXTURE_SLIP_SERIES, FIXTURE_SLIP_POINTS);
  check_plot(b->html, "plot-tunnel", FIXTURE_TUNNEL_SERIES, FIXTURE_TUNNEL_POINTS);
  check_plot(b->html, "plot-overlap", FIXTURE_OVERLAP_SERIES, FIXTURE_OVERLAP_POINTS);
  check_plot(b->html, "plot-throughput-gears", FIXTURE_THROUGHPUT_GEARS_SERIES,
             FIXTURE_THROUGHPUT_GEARS_POINTS);
  check_plot(b->html, "plot-throughput-peg", FIXTURE_THROUGHPUT_PEG_SERIES,
             FIXTURE_THROUGHPUT_PEG_POINTS);
  assert_null(svg_block(b->html, "plot-throughput"));  // no panel mixes the two tasks
  assert_int_equal(b->info.nplot, 4);
  assert_null(strstr(b->html, "no data for this plot"));
  // the slip of exactly 0 (run g3) sits on the floor decade of the log axis, labelled 0
  char* slip = svg_block(b->html, "plot-slip");
  assert_non_null(strstr(slip, ">0</text>"));
  free(slip);
  // series per solver and dt where dt varies; a panel per task where there are several
  char* tunnel = svg_block(b->html, "plot-tunnel");
  assert_non_null(strstr(tunnel, "data-name=\"al, dt 1/1000\""));
  assert_non_null(strstr(tunnel, "data-name=\"pgs, dt 1/500\""));
  free(tunnel);
  char* tp = svg_block(b->html, "plot-throughput-peg");
  assert_non_null(strstr(tp, "data-name=\"al\""));
  free(tp);
  built_free(b);
}

static void test_report_escapes_text(void** state) {
  (void)state;
  built* b = build_fixture();
  assert_non_null(strstr(b->html, FIXTURE_ESCAPED_COMMAND));
  assert_null(strstr(b->html, FIXTURE_RAW_COMMAND));
  assert_null(strstr(b->html, "<b>sdf</b>"));
  assert_non_null(strstr(b->html, "&lt;b&gt;sdf&lt;/b&gt;&amp;co"));
  // the config's "</pre><script>" stays text: the page's only script is its own
  assert_null(strstr(b->html, "<script>alert"));
  assert_int_equal(count(b->html, "<script"), 1);
  assert_int_equal(count(b->html, "</pre>"), 1);
  built_free(b);
}

static void test_report_colours_outcomes(void** state) {
  (void)state;
  built* b = build_fixture();
  assert_int_equal(count(b->html, "<tr class=\"run pass\""), 4);  // g1 g3 p1 p5
  assert_int_equal(count(b->html, "<tr class=\"run miss\""), 1);  // g2: ran, no success
  assert_int_equal(count(b->html, "<tr class=\"run fail\""), 3);  // g4 diverged, p3, p4
  assert_int_equal(b->info.npass, 4);
  assert_int_equal(b->info.nmiss, 1);
  assert_int_equal(b->info.nfail, 3);
  assert_int_equal(count(b->html, "class=\"status-diverged\""), 1);
  assert_int_equal(count(b->html, "class=\"status-failed\""), 1);
  assert_int_equal(count(b->html, "class=\"status-ok\""), 6);
  // p3's 3 tunnelled and 1 fly-through environments, g2's 1.5 skipped teeth are red cells
  assert_non_null(strstr(b->html, "<td class=\"num bad\" data-v=\"3\">3</td>"));
  assert_non_null(strstr(b->html, "<td class=\"num bad\" data-v=\"1\">1</td>"));
  assert_non_null(strstr(b->html, "<td class=\"num bad\" data-v=\"1.5\">1.5</td>"));
  built_free(b);
}

static void test_report_skips_corrupt_line(void** state) {
  (void)state;
  built* b = build_fixture();
  assert_int_equal(b->info.nrun, FIXTURE_RUNS);
  assert_int_equal(count(b->html, "<tr class=\"run "), FIXTURE_RUNS);
  assert_int_equal(b->info.nskipped, 1);
  assert_int_equal(b->info.nskip_kept, 1);
  assert_int_equal(b->info.skip[0].line, FIXTURE_CORRUPT_LINE);
  assert_non_null(strstr(b->info.skip[0].why, "not valid JSON"));
  assert_non_null(strstr(b->html, "<section id=\"skipped\">"));
  assert_non_null(strstr(b->html, "<li>line 7: not valid JSON"));
  // the rows keep their line numbers for tracing back to the file
  assert_non_null(strstr(b->html, "data-line=\"8\""));
  built_free(b);
}

static void test_report_table_content(void** state) {
  (void)state;
  built* b = build_fixture();
  assert_non_null(strstr(b->html,
                         "<td class=\"cmd\"><code>tightfit run --task gears --solver al --dt "
                         "0.001</code></td>"));
  assert_non_null(strstr(b->html, "(1/60)"));  // dt written as users think of it
  assert_non_null(strstr(b->html, "(1/1000)"));
  // parameters that vary are columns; overlap is shown in micrometres
  assert_non_null(strstr(b->html, ">backlash_mm</th>"));
  assert_non_null(strstr(b->html, ">clearance_um</th>"));
  assert_non_null(strstr(b->html, ">impact_speed</th>"));
  assert_non_null(strstr(b->html, ">peg.depth_m</th>"));
  assert_non_null(strstr(b->html, "overlap peak (&micro;m)</th>"));
  assert_non_null(strstr(b->html, "<td class=\"num\" data-v=\"80\">80</td>"));
  // steps/s falls back to the run's own count when the throughput probe is absent (p1)
  assert_non_null(strstr(b->html, "<td class=\"num\" data-v=\"120000\">120000</td>"));
  // machine, version, date, config
  assert_non_null(strstr(b->html, "bench-01"));
  assert_non_null(strstr(b->html, "gcc 12.2"));
  assert_non_null(strstr(b->html, "2025-01-31T10:00:00Z"));
  assert_non_null(strstr(b->html, "&quot;solvers&quot;"));
  assert_non_null(strstr(b->html, "<a href=\"results.csv\">"));
  // no videos/ folder: no Videos section
  assert_null(strstr(b->html, "<video"));
  assert_null(strstr(b->html, "id=\"videos\""));
  built_free(b);
}

static void test_report_atomic_and_deterministic(void** state) {
  (void)state;
  built* b = build_fixture();
  char err[512];
  assert_int_equal(tf_report_write(b->dir, err, sizeof err), 0);
  char* again = fixture_read(b->info.path);
  assert_non_null(again);
  assert_string_equal(again, b->html);  // same inputs, same bytes
  free(again);
  // nothing left behind but the report; readable by others
  DIR* d = opendir(b->dir);
  assert_non_null(d);
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, ".report", 7) == 0) fail_msg("temporary file left: %s", e->d_name);
  }
  closedir(d);
  struct stat st;
  assert_int_equal(stat(b->info.path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0644);
  built_free(b);
}

static void test_report_videos(void** state) {
  (void)state;
  built* b = build_fixture();
  char videos[128];
  snprintf(videos, sizeof videos, "%s/videos", b->dir);
  assert_int_equal(mkdir(videos, 0755), 0);
  assert_int_equal(fixture_write(videos, "run 1.mp4", "x"), 0);
  assert_int_equal(fixture_write(videos, "run 1.png", "x"), 0);
  assert_int_equal(fixture_write(videos, "wide.png", "x"), 0);
  assert_int_equal(fixture_write(videos, "notes.txt", "x"), 0);
  tf_report_info info;
  char err[512];
  assert_int_equal(tf_report_write_info(b->dir, &info, err, sizeof err), 0);
  assert_int_equal(info.nmedia, 2);
  char* html = fixture_read(info.path);
  assert_non_null(strstr(html, "<section id=\"videos\"><h2>Videos</h2>"));
  assert_non_null(strstr(html,
                         "<video controls preload=\"metadata\" src=\"videos/run%201.mp4\" "
                         "poster=\"videos/run%201.png\">"));
  assert_non_null(strstr(html, "<img src=\"videos/wide.png\""));
  assert_null(strstr(html, "notes.txt"));
  free(html);
  built_free(b);
}

// a directory holding only results.jsonl with the given text
static void make_dir_with(char dir[64], const char* results) {
  snprintf(dir, 64, "/tmp/tightfit_report_XXXXXX");
  assert_non_null(mkdtemp(dir));
  if (results) assert_int_equal(fixture_write(dir, "results.jsonl", results), 0);
}

static void test_report_no_plot_data(void** state) {
  (void)state;
  char dir[64];
  make_dir_with(dir,
                "{\"run_id\":1,\"task\":\"peg\",\"mu\":0.3,\"size\":\"M6\",\"status\":\"ok\"}\n"
                "{\"run_id\":2,\"task\":\"peg\",\"mu\":0.3,\"size\":\"M6\",\"status\":\"ok\"}\n");
  tf_report_info info;
  char err[512];
  assert_int_equal(tf_report_write_info(dir, &info, err, sizeof err), 0);
  assert_int_equal(info.nplot, 0);
  char* html = fixture_read(info.path);
  assert_int_equal(count(html, "no data for this plot"), 4);
  assert_null(strstr(html, "<svg"));
  assert_non_null(strstr(html, "data-plot=\"plot-slip\""));
  assert_non_null(strstr(html, "data-plot=\"plot-throughput\""));
  // parameters shared by every run are listed once, not as columns
  assert_non_null(strstr(html, "Fixed in this sweep: <b>mu</b> = 0.3, <b>size</b> = M6"));
  assert_null(strstr(html, ">mu</th>"));
  assert_non_null(strstr(html, "<tr class=\"run unknown\""));
  assert_non_null(strstr(html, "no machine.json"));
  assert_non_null(strstr(html, "no config.json"));
  free(html);
  fixture_remove(dir);
}

// a dt sweep: per task and setting, the largest dt at which every run passed and the
// simulated seconds per wall second there; a setting that never passed says none; a sweep of
// one dt has no such section
static void test_report_largest_dt(void** state) {
  (void)state;
  char dir[64];
  make_dir_with(
      dir,
      "{\"run_id\":1,\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"al\",\"dt\":0.001,"
      "\"substeps\":1,\"status\":\"ok\",\"success\":true,\"realtime_factor\":0.5}\n"
      "{\"run_id\":2,\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"al\",\"dt\":0.002,"
      "\"substeps\":1,\"status\":\"ok\",\"success\":true,\"realtime_factor\":2}\n"
      "{\"run_id\":3,\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"al\",\"dt\":0.002,"
      "\"substeps\":1,\"status\":\"ok\",\"success\":true,\"realtime_factor\":4}\n"
      "{\"run_id\":4,\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"al\",\"dt\":0.005,"
      "\"substeps\":1,\"status\":\"ok\",\"success\":true,\"realtime_factor\":9}\n"
      "{\"run_id\":5,\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"al\",\"dt\":0.005,"
      "\"substeps\":1,\"status\":\"ok\",\"success\":false,\"realtime_factor\":9}\n"
      "{\"run_id\":6,\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"pgs\",\"dt\":0.001,"
      "\"substeps\":1,\"status\":\"diverged\",\"success\":false,\"realtime_factor\":1}\n");
  tf_report_info info;
  char err[512];
  assert_int_equal(tf_report_write_info(dir, &info, err, sizeof err), 0);
  char* html = fixture_read(info.path);
  assert_non_null(strstr(html, "<section id=\"largest-dt\">"));
  // al: 2 ms passes in both its runs (mean 3), 5 ms does not (one of two missed)
  assert_non_null(strstr(html,
                         "<tr class=\"pass\"><td>gears</td><td>rig</td><td>al</td><td>1</td>"
                         "<td>0</td><td>2</td><td>3</td><td>2 of 3</td></tr>"));
  assert_non_null(strstr(html,
                         "<tr class=\"miss\"><td>gears</td><td>rig</td><td>pgs</td>"
                         "<td>1</td><td>0</td><td>none</td><td></td><td>0 of 1</td></tr>"));
  free(html);
  fixture_remove(dir);
  make_dir_with(dir,
                "{\"run_id\":1,\"task\":\"gears\",\"solver\":\"al\",\"dt\":0.001,"
                "\"status\":\"ok\",\"success\":true}\n");
  assert_int_equal(tf_report_write_info(dir, &info, err, sizeof err), 0);
  html = fixture_read(info.path);
  assert_null(strstr(html, "largest-dt"));
  free(html);
  fixture_remove(dir);
}

// values no sweep should write, but a hand-edited or future file might: wrong types, the
// ends of the double range, a run_id that is an object. The page must still be whole.
static void test_report_odd_values(void** state) {
  (void)state;
  char dir[64];
  make_dir_with(dir,
                "{\"run_id\":{\"a\":[1]},\"solver\":7,\"dt\":1e-300,\"impact_speed\":1e308,"
                "\"tunnel.through\":1e308,\"gear_slip.max\":\"big\",\"status\":3,"
                "\"success\":\"yes\"}\n"
                "{\"run_id\":2,\"solver\":\"al\",\"dt\":-1,\"clearance_um\":5e-324,"
                "\"overlap.peak_m\":-1e-6,\"status\":\"ok\",\"success\":true}\n");
  tf_report_info info;
  char err[512];
  assert_int_equal(tf_report_write_info(dir, &info, err, sizeof err), 0);
  assert_int_equal(info.nrun, 2);
  assert_int_equal(info.nplot, 0);  // nothing in range for any plot
  char* html = fixture_read(info.path);
  assert_null(strstr(html, "nan"));
  assert_non_null(strstr(html, "</html>"));
  assert_int_equal(count(html, "no data for this plot"), 4);
  assert_non_null(strstr(html, "{&quot;a&quot;:[1]}"));
  free(html);
  fixture_remove(dir);
}

static void test_report_missing_dir(void** state) {
  (void)state;
  char err[512] = "";
  assert_int_equal(tf_report_write("/nonexistent/tightfit_sweep", err, sizeof err), -1);
  assert_non_null(strstr(err, "/nonexistent/tightfit_sweep"));
  assert_null(strchr(err, '\n'));
  assert_int_equal(tf_report_write("", err, sizeof err), -1);
  assert_true(strlen(err) > 0);
  assert_int_equal(tf_report_write(NULL, err, sizeof err), -1);
}

static void test_report_not_a_directory(void** state) {
  (void)state;
  char dir[64], file[128], err[512] = "";
  make_dir_with(dir, "{\"run_id\":1}\n");
  snprintf(file, sizeof file, "%s/results.jsonl", dir);
  assert_int_equal(tf_report_write(file, err, sizeof err), -1);
  assert_non_null(strstr(err, "not a directory"));
  fixture_remove(dir);
}

static void test_report_missing_results(void** state) {
  (void)state;
  char dir[64], err[512] = "";
  make_dir_with(dir, NULL);
  assert_int_equal(tf_report_write(dir, err, sizeof err), -1);
  assert_non_null(strstr(err, "results.jsonl: not found"));
  assert_non_null(strstr(err, "tightfit sweep"));
  fixture_remove(dir);
}

static void test_report_empty_results(void** state) {
  (void)state;
  char dir[64], err[512] = "", path[128];
  make_dir_with(dir, "\n\n");
  assert_int_equal(tf_report_write(dir, err, sizeof err), -1);
  assert_non_null(strstr(err, "no runs"));
  snprintf(path, sizeof path, "%s/report.html", dir);
  assert_int_equal(access(path, F_OK), -1);  // nothing written on failure
  fixture_remove(dir);
}

static void test_report_only_corrupt_lines(void** state) {
  (void)state;
  char dir[64], err[512] = "";
  make_dir_with(dir, "garbage\n[1,2]\n{}\n");
  assert_int_equal(tf_report_write(dir, err, sizeof err), -1);
  assert_non_null(strstr(err, "3 corrupt lines"));
  assert_non_null(strstr(err, "line 1"));
  fixture_remove(dir);
}

// a results.jsonl that never ends (a link to /dev/zero, one line too long to hold): a one-line
// error naming it, and the report already there left as it was
static void test_report_endless_results(void** state) {
  (void)state;
  for (int variant = 0; variant < 2; variant++) {
    char dir[64], err[512] = "", path[128], results[128];
    make_dir_with(dir, NULL);
    snprintf(results, sizeof results, "%s/results.jsonl", dir);
    if (variant == 0) {
      assert_int_equal(symlink("/dev/zero", results), 0);
    } else {
      assert_int_equal(fixture_write(dir, "results.jsonl", "{\"run_id\":\"a\"}\n{"), 0);
      assert_int_equal(truncate(results, 64 << 20), 0);  // 64 MiB of NUL bytes, no newline
    }
    assert_int_equal(fixture_write(dir, "report.html", "the previous report"), 0);
    alarm(30);  // a loader that reads on would fail here, not stall the suite
    assert_int_equal(tf_report_write(dir, err, sizeof err), -1);
    alarm(0);
    assert_non_null(strstr(err, results));
    assert_null(strchr(err, '\n'));
    assert_non_null(strstr(err, variant == 0 ? "not a regular file" : "over 1048576 bytes"));
    snprintf(path, sizeof path, "%s/report.html", dir);
    char* html = fixture_read(path);
    assert_non_null(html);
    assert_string_equal(html, "the previous report");
    free(html);
    fixture_remove(dir);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_report_draws_every_plot),
      cmocka_unit_test(test_report_escapes_text),
      cmocka_unit_test(test_report_colours_outcomes),
      cmocka_unit_test(test_report_skips_corrupt_line),
      cmocka_unit_test(test_report_table_content),
      cmocka_unit_test(test_report_atomic_and_deterministic),
      cmocka_unit_test(test_report_videos),
      cmocka_unit_test(test_report_no_plot_data),
      cmocka_unit_test(test_report_largest_dt),
      cmocka_unit_test(test_report_odd_values),
      cmocka_unit_test(test_report_missing_dir),
      cmocka_unit_test(test_report_not_a_directory),
      cmocka_unit_test(test_report_missing_results),
      cmocka_unit_test(test_report_empty_results),
      cmocka_unit_test(test_report_only_corrupt_lines),
      cmocka_unit_test(test_report_endless_results),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
