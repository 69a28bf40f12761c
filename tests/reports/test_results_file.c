// A sweep's results files (reports/results_file.c, results_recover.c): the CSV header and
// rows, columns that stay put when a later row brings a new metric, CSV quoting, rows that
// wait for the header, a write that does not fit leaving the file as it was, and --resume's
// repairs: a partial last JSONL line cut, a CSV rebuilt byte for byte from the JSONL.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics_format.h"
#include "results_file.h"
#include "results_internal.h"

static const char* const known[] = {"clearance_um", "backlash_mm"};

// ---------------------------------------------------------------- helpers

static char* make_dir(void) {
  char* dir = malloc(64);
  assert_non_null(dir);
  snprintf(dir, 64, "/tmp/tightfit_results_XXXXXX");
  assert_non_null(mkdtemp(dir));
  return dir;
}

static void path_of(char* out, size_t n, const char* dir, const char* name) {
  snprintf(out, n, "%s/%s", dir, name);
}

// the whole file as a string (NULL when missing)
static char* slurp(const char* dir, const char* name) {
  char path[256];
  path_of(path, sizeof(path), dir, name);
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)n + 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  text[n] = 0;
  fclose(f);
  return text;
}

static void spill(const char* dir, const char* name, const char* text, const char* mode) {
  char path[256];
  path_of(path, sizeof(path), dir, name);
  FILE* f = fopen(path, mode);
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void remove_dir(char* dir) {
  const char* names[] = {"results.csv", "results.jsonl"};
  for (int i = 0; i < 2; i++) {
    char path[256];
    path_of(path, sizeof(path), dir, names[i]);
    unlink(path);
  }
  assert_int_equal(rmdir(dir), 0);
  free(dir);
}

static int count_lines(const char* text) {
  int n = 0;
  for (const char* c = text; *c; c++) n += *c == '\n';
  return n;
}

// a runner-like row: what ran, then status and metrics
static void row_metrics(tf_metrics* m, double dt, long seed, double clearance) {
  tf_metrics_clear(m);
  tf_metrics_set_text(m, "task", "peg");
  tf_metrics_set(m, "dt", dt);
  tf_metrics_set_int(m, "seed", seed);
  tf_metrics_set(m, "clearance_um", clearance);
  tf_metrics_set_text(m, "status", "ok");
  tf_metrics_set_bool(m, "success", seed % 2 == 0);
  tf_metrics_set(m, "overlap.peak_m", seed == 1 ? NAN : 1.5e-6 * (double)(seed + 1));
}

static void append(tf_results_file* f, const char* id, const char* command, const char* error,
                   const tf_metrics* m) {
  tf_results_row row = {id, command, error, m};
  char err[512];
  int rc = tf_results_append(f, &row, err, sizeof(err));
  if (rc) print_message("append: %s\n", err);
  assert_int_equal(rc, 0);
}

static tf_results_file* open_results(const char* dir) {
  tf_results_file* f = NULL;
  char err[512];
  int rc = tf_results_open(&f, dir, known, 2, err, sizeof(err));
  if (rc) print_message("open: %s\n", err);
  assert_int_equal(rc, 0);
  return f;
}

static void close_results(tf_results_file* f) {
  char err[512];
  assert_int_equal(tf_results_close(f, err, sizeof(err)), 0);
}

// three rows written the way a sweep writes them
static void write_three(const char* dir) {
  tf_results_file* f = open_results(dir);
  tf_metrics m;
  const char* ids[] = {"aaaa", "bbbb", "cccc"};
  for (int i = 0; i < 3; i++) {
    row_metrics(&m, 0.001 * (i + 1), i, 50 + 50 * i);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "tightfit run --task peg --set clearance_um=%d --seed %d",
             50 + 50 * i, i);
    append(f, ids[i], cmd, NULL, &m);
  }
  close_results(f);
}

static tf_results_done recover(const char* dir) {
  tf_results_done done;
  char err[512];
  int rc = tf_results_recover(dir, known, 2, &done, err, sizeof(err));
  if (rc) print_message("recover: %s\n", err);
  assert_int_equal(rc, 0);
  return done;
}

// ---------------------------------------------------------------- writing

static void test_header_and_rows(void** state) {
  (void)state;
  char* dir = make_dir();
  write_three(dir);
  char* csv = slurp(dir, "results.csv");
  // run_id first; backlash_mm (known, absent from the row) just before status; command, error
  assert_string_equal(
      csv,
      "run_id,task,dt,seed,clearance_um,backlash_mm,status,success,overlap.peak_m,command,error\n"
      "aaaa,peg,0.001,0,50,,ok,true,1.5e-06,"
      "tightfit run --task peg --set clearance_um=50 --seed 0,\n"
      "bbbb,peg,0.002,1,100,,ok,false,,tightfit run --task peg --set clearance_um=100 --seed 1,\n"
      "cccc,peg,0.003,2,150,,ok,true,4.5e-06,"
      "tightfit run --task peg --set clearance_um=150 --seed 2,\n");
  char* jsonl = slurp(dir, "results.jsonl");
  assert_int_equal(count_lines(jsonl), 3);
  const char* second = strchr(jsonl, '\n') + 1;
  assert_true(strncmp(second,
                      "{\"run_id\":\"bbbb\",\"task\":\"peg\",\"dt\":0.002,\"seed\":1,"
                      "\"clearance_um\":100,\"status\":\"ok\",\"success\":false,"
                      "\"overlap.peak_m\":null,\"command\":\"tightfit run --task peg --set "
                      "clearance_um=100 --seed 1\"}\n",
                      strlen("{\"run_id\":\"bbbb\"")) == 0);
  size_t len = (size_t)(strchr(second, '\n') - second);
  cJSON* o = cJSON_ParseWithLength(second, len);
  assert_non_null(o);
  assert_string_equal(o->child->string, "run_id");  // the key first
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "overlap.peak_m")));
  assert_false(cJSON_HasObjectItem(o, "error"));
  cJSON_Delete(o);
  free(csv);
  free(jsonl);
  remove_dir(dir);
}

// a metric the first row did not have goes to the JSONL only; the CSV keeps its columns
static void test_columns_stay(void** state) {
  (void)state;
  char* dir = make_dir();
  tf_results_file* f = open_results(dir);
  tf_metrics m;
  row_metrics(&m, 0.001, 0, 50);
  append(f, "aaaa", "cmd a", NULL, &m);
  tf_metrics_set(&m, "gears.slip", 0.25);
  tf_metrics_set(&m, "gears.skipped", 1);
  append(f, "bbbb", "cmd b", NULL, &m);
  const char* first = NULL;
  assert_int_equal(tf_results_csv_missing(f, &first), 2);
  assert_string_equal(first, "gears.slip");
  close_results(f);
  char* csv = slurp(dir, "results.csv");
  assert_null(strstr(csv, "gears"));
  size_t pos = 0, n = strlen(csv);
  int count, records = 0;
  while ((count = tf_results_csv_record(csv, n, &pos, NULL, NULL, 0)) > 0) {
    assert_int_equal(count, 11);
    records++;
  }
  assert_int_equal(count, 0);
  assert_int_equal(records, 3);
  char* jsonl = slurp(dir, "results.jsonl");
  assert_non_null(strstr(jsonl, "\"gears.slip\":0.25"));
  free(csv);
  free(jsonl);
  remove_dir(dir);
}

// once the sweep is over, widening gives those metrics their columns, every row aligned
static void test_widen(void** state) {
  (void)state;
  char* dir = make_dir();
  tf_results_file* f = open_results(dir);
  tf_metrics m;
  row_metrics(&m, 0.001, 0, 50);
  append(f, "aaaa", "cmd a", NULL, &m);
  tf_metrics_set(&m, "gears.slip", 0.25);
  tf_metrics_set_bool(&m, "gears.ok", 1);
  append(f, "bbbb", "cmd b", NULL, &m);
  close_results(f);
  int added = -1;
  char err[512];
  assert_int_equal(tf_results_widen(dir, &added, err, sizeof(err)), 0);
  assert_int_equal(added, 2);
  char* csv = slurp(dir, "results.csv");
  assert_string_equal(csv,
                      "run_id,task,dt,seed,clearance_um,backlash_mm,status,success,overlap.peak_m,"
                      "gears.slip,gears.ok,command,error\n"
                      "aaaa,peg,0.001,0,50,,ok,true,1.5e-06,,,cmd a,\n"
                      "bbbb,peg,0.001,0,50,,ok,true,1.5e-06,0.25,true,cmd b,\n");
  // nothing new: the file is left alone
  assert_int_equal(tf_results_widen(dir, &added, err, sizeof(err)), 0);
  assert_int_equal(added, 0);
  char* again = slurp(dir, "results.csv");
  assert_string_equal(again, csv);
  // and --resume finds it whole
  tf_results_done done = recover(dir);
  assert_int_equal(done.n, 2);
  assert_int_equal(done.csv_rebuilt, 0);
  tf_results_done_free(&done);
  free(csv);
  free(again);
  remove_dir(dir);
}

static void test_quoting(void** state) {
  (void)state;
  char* dir = make_dir();
  tf_results_file* f = open_results(dir);
  tf_metrics m;
  row_metrics(&m, 0.001, 0, 50);
  tf_metrics_set_text(&m, "note", "say \"hi\", then\nleave");
  const char* cmd = "tightfit run --task peg --set 'teeth=60,40' --set x=\"y\"";
  append(f, "aaaa", cmd, NULL, &m);
  close_results(f);
  char* csv = slurp(dir, "results.csv");
  assert_non_null(strstr(csv, ",\"say \"\"hi\"\", then\nleave\","));
  assert_non_null(
      strstr(csv, ",\"tightfit run --task peg --set 'teeth=60,40' --set x=\"\"y\"\"\","));
  // and back: the parser restores each cell
  tf_results_columns header = {0, NULL}, cells = {0, NULL};
  size_t pos = 0, n = strlen(csv);
  assert_int_equal(tf_results_csv_record(csv, n, &pos, &header, NULL, 0), 12);
  assert_int_equal(tf_results_csv_record(csv, n, &pos, &cells, NULL, 0), 12);
  for (int i = 0; i < header.n; i++) {
    if (strcmp(header.name[i], "note") == 0) {
      assert_string_equal(cells.name[i], "say \"hi\", then\nleave");
    }
    if (strcmp(header.name[i], "command") == 0) assert_string_equal(cells.name[i], cmd);
  }
  assert_int_equal(tf_results_csv_record(csv, n, &pos, NULL, NULL, 0), 0);
  tf_results_columns_free(&header);
  tf_results_columns_free(&cells);
  // the same rule as the metrics formatter for short texts
  tf_metric t;
  memset(&t, 0, sizeof(t));
  t.kind = TF_METRIC_TEXT;
  snprintf(t.text, sizeof(t.text), "a,\"b\"");
  char cell[64], *mine = NULL;
  size_t size = 0;
  tf_metric_csv_cell(&t, cell, sizeof(cell));
  FILE* s = open_memstream(&mine, &size);
  tf_results_csv_metric(s, &t);
  fclose(s);
  assert_string_equal(mine, cell);
  free(mine);
  free(csv);
  remove_dir(dir);
}

// rows with an error wait until a row that ran fixes the columns; then all go out in order
static void test_failed_rows_wait(void** state) {
  (void)state;
  char* dir = make_dir();
  tf_results_file* f = open_results(dir);
  tf_metrics refused, built, ok;
  tf_metrics_clear(&refused);
  tf_metrics_set_text(&refused, "task", "peg");
  tf_metrics_set_text(&refused, "status", "failed");
  append(f, "r1", "cmd 1", "task 'peg': mode 'robot' is not available yet", &refused);
  // the runner's own failure: an "error" metric
  tf_metrics_clear(&built);
  tf_metrics_set_text(&built, "task", "peg");
  tf_metrics_set_text(&built, "status", "failed");
  tf_metrics_set_text(&built, "error", "parts overlap");
  append(f, "r2", "cmd 2", NULL, &built);
  char* csv = slurp(dir, "results.csv");
  assert_string_equal(csv, "");  // nothing yet: no row has run
  free(csv);
  row_metrics(&ok, 0.001, 0, 50);
  append(f, "r3", "cmd 3", NULL, &ok);
  close_results(f);
  csv = slurp(dir, "results.csv");
  assert_string_equal(
      csv,
      "run_id,task,dt,seed,clearance_um,backlash_mm,status,success,overlap.peak_m,command,error\n"
      "r1,peg,,,,,failed,,,cmd 1,task 'peg': mode 'robot' is not available yet\n"
      "r2,peg,,,,,failed,,,cmd 2,parts overlap\n"
      "r3,peg,0.001,0,50,,ok,true,1.5e-06,cmd 3,\n");
  char* jsonl = slurp(dir, "results.jsonl");
  assert_non_null(strstr(jsonl, "\"error\":\"task 'peg': mode 'robot' is not available yet\""));
  assert_non_null(strstr(jsonl,
                         "{\"run_id\":\"r2\",\"task\":\"peg\",\"status\":\"failed\","
                         "\"error\":\"parts overlap\",\"command\":\"cmd 2\"}"));
  free(csv);
  free(jsonl);
  remove_dir(dir);
}

// a sweep where nothing ran still gets its CSV (from the first row) when it closes
static void test_all_failed(void** state) {
  (void)state;
  char* dir = make_dir();
  tf_results_file* f = open_results(dir);
  tf_metrics refused;
  tf_metrics_clear(&refused);
  tf_metrics_set_text(&refused, "task", "peg");
  tf_metrics_set_text(&refused, "status", "failed");
  append(f, "r1", NULL, "bad", &refused);
  append(f, "r2", NULL, "worse", &refused);
  close_results(f);
  char* csv = slurp(dir, "results.csv");
  assert_string_equal(csv,
                      "run_id,task,clearance_um,backlash_mm,status,command,error\n"
                      "r1,peg,,,failed,,bad\n"
                      "r2,peg,,,failed,,worse\n");
  free(csv);
  remove_dir(dir);
}

// reopening appends under the existing header, whatever order the new row has
static void test_reopen(void** state) {
  (void)state;
  char* dir = make_dir();
  write_three(dir);
  tf_results_file* f = open_results(dir);
  tf_metrics m;
  tf_metrics_clear(&m);
  tf_metrics_set(&m, "overlap.peak_m", 2e-6);
  tf_metrics_set_text(&m, "status", "diverged");
  tf_metrics_set_text(&m, "task", "peg");
  append(f, "dddd", "cmd d", NULL, &m);
  close_results(f);
  char* csv = slurp(dir, "results.csv");
  const char* last = csv + strlen(csv) - 1;
  while (last > csv && last[-1] != '\n') last--;
  assert_string_equal(last, "dddd,peg,,,,,diverged,,2e-06,cmd d,\n");
  free(csv);
  remove_dir(dir);
}

// a row that does not fit (the file size limit, as a full disk would) leaves both files as
// they were: never half a line
static void test_short_write_cut(void** state) {
  (void)state;
  char* dir = make_dir();
  write_three(dir);
  char* before = slurp(dir, "results.jsonl");
  struct rlimit old, tight;
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
  tight = old;
  tight.rlim_cur = strlen(before) + 20;
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  tf_results_file* f = open_results(dir);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &tight), 0);
  tf_metrics m;
  row_metrics(&m, 0.004, 3, 200);
  tf_results_row row = {"dddd", "cmd d", NULL, &m};
  char err[512];
  int rc = tf_results_append(f, &row, err, sizeof(err));
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
  signal(SIGXFSZ, old_handler);
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err, "results.jsonl"));
  char* after = slurp(dir, "results.jsonl");
  assert_string_equal(after, before);
  close_results(f);
  free(before);
  free(after);
  remove_dir(dir);
}

static void test_open_partial_csv(void** state) {
  (void)state;
  char* dir = make_dir();
  write_three(dir);
  spill(dir, "results.csv", "eeee,peg,0.0", "a");
  tf_results_file* f = NULL;
  char err[512];
  assert_int_equal(tf_results_open(&f, dir, known, 2, err, sizeof(err)), -1);
  assert_null(f);
  assert_non_null(strstr(err, "results.csv: ends in a partial line"));
  assert_non_null(strstr(err, "--resume"));
  spill(dir, "results.csv", "name,value\nx,1\n", "w");
  assert_int_equal(tf_results_open(&f, dir, known, 2, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "not a results file"));
  remove_dir(dir);
}

// ---------------------------------------------------------------- resume

static void test_resume_partial_line(void** state) {
  (void)state;
  char* dir = make_dir();
  write_three(dir);
  char* whole = slurp(dir, "results.jsonl");
  char* csv = slurp(dir, "results.csv");
  const char* partial = "{\"run_id\":\"dddd\",\"task\":\"pe";
  spill(dir, "results.jsonl", partial, "a");
  tf_results_done done = recover(dir);
  assert_int_equal(done.n, 3);
  assert_int_equal(done.dropped_bytes, (long)strlen(partial));
  assert_int_equal(done.bad_lines, 0);
  assert_int_equal(done.csv_rebuilt, 0);
  assert_true(tf_results_done_has(&done, "aaaa"));
  assert_true(tf_results_done_has(&done, "bbbb"));
  assert_true(tf_results_done_has(&done, "cccc"));
  assert_false(tf_results_done_has(&done, "dddd"));
  assert_false(tf_results_done_has(&done, ""));
  tf_results_done_free(&done);
  char* after = slurp(dir, "results.jsonl");
  assert_string_equal(after, whole);  // cut back to the whole lines
  char* csv_after = slurp(dir, "results.csv");
  assert_string_equal(csv_after, csv);
  // and the sweep appends after it cleanly
  tf_results_file* f = open_results(dir);
  tf_metrics m;
  row_metrics(&m, 0.004, 3, 200);
  append(f, "dddd", "cmd d", NULL, &m);
  close_results(f);
  done = recover(dir);
  assert_int_equal(done.n, 4);
  assert_int_equal(done.csv_rebuilt, 0);
  tf_results_done_free(&done);
  free(whole);
  free(after);
  free(csv);
  free(csv_after);
  remove_dir(dir);
}

// a whole row that only lacks its newline (a hand edit) is kept, not cut
static void test_resume_missing_newline(void** state) {
  (void)state;
  char* dir = make_dir();
  write_three(dir);
  char* whole = slurp(dir, "results.jsonl");
  whole[strlen(whole) - 1] = 0;
  spill(dir, "results.jsonl", whole, "w");
  tf_results_done done = recover(dir);
  assert_int_equal(done.n, 3);
  assert_int_equal(done.dropped_bytes, 0);
  tf_results_done_free(&done);
  char* after = slurp(dir, "results.jsonl");
  assert_int_equal(strlen(after), strlen(whole) + 1);
  assert_int_equal(after[strlen(after) - 1], '\n');
  free(whole);
  free(after);
  remove_dir(dir);
}

// a CSV missing, a row behind, a row ahead or cut: rebuilt from the JSONL, byte for byte what
// appending wrote
static void test_resume_rebuilds_csv(void** state) {
  (void)state;
  char* dir = make_dir();
  write_three(dir);
  char* csv = slurp(dir, "results.csv");
  char path[256];
  path_of(path, sizeof(path), dir, "results.csv");
  const char* cut = strrchr(csv, '\n');
  while (cut > csv && cut[-1] != '\n') cut--;  // the start of the last row
  size_t without_last = (size_t)(cut - csv);
  for (int variant = 0; variant < 5; variant++) {
    if (variant == 0) {
      unlink(path);  // missing
    } else if (variant == 1) {
      assert_int_equal(truncate(path, (off_t)without_last), 0);  // a row behind
    } else if (variant == 2) {
      spill(dir, "results.csv", "zzzz,peg,0.004,3,200,,ok,true,,cmd z,\n", "a");  // a row ahead
    } else if (variant == 3) {
      spill(dir, "results.csv", "zzzz,peg,0.0", "a");  // a partial row
    } else {
      spill(dir, "results.csv", "garbage\"\n", "w");  // no header at all
    }
    tf_results_done done = recover(dir);
    assert_int_equal(done.n, 3);
    assert_int_equal(done.csv_rebuilt, 1);
    tf_results_done_free(&done);
    char* rebuilt = slurp(dir, "results.csv");
    if (strcmp(rebuilt, csv) != 0) print_message("variant %d:\n%s\nvs\n%s", variant, rebuilt, csv);
    assert_string_equal(rebuilt, csv);
    free(rebuilt);
  }
  free(csv);
  remove_dir(dir);
}

// the first row that ran decides the rebuilt header too, as it did when appending
static void test_resume_rebuild_after_failed_rows(void** state) {
  (void)state;
  char* dir = make_dir();
  tf_results_file* f = open_results(dir);
  tf_metrics refused, ok;
  tf_metrics_clear(&refused);
  tf_metrics_set_text(&refused, "task", "peg");
  tf_metrics_set_text(&refused, "status", "failed");
  append(f, "r1", "cmd 1", "refused", &refused);
  row_metrics(&ok, 0.001, 0, 50);
  append(f, "r2", "cmd 2", NULL, &ok);
  close_results(f);
  char* csv = slurp(dir, "results.csv");
  char path[256];
  path_of(path, sizeof(path), dir, "results.csv");
  unlink(path);
  tf_results_done done = recover(dir);
  assert_int_equal(done.n, 2);
  tf_results_done_free(&done);
  char* rebuilt = slurp(dir, "results.csv");
  assert_string_equal(rebuilt, csv);
  free(csv);
  free(rebuilt);
  remove_dir(dir);
}

// a sweep of two tasks killed (kill -9) before it could widen the CSV: the rows of the second
// task sit in the CSV without their metrics. The resumed sweep may add only rows of the first
// task (nothing it appends is missing a column, so it never widens): recovery must widen the
// CSV to the union of the JSONL's keys, or the table lacks those columns for good
static void test_resume_widens_to_every_row(void** state) {
  (void)state;
  char* dir = make_dir();
  tf_results_file* f = open_results(dir);
  tf_metrics a, b;
  row_metrics(&a, 0.001, 0, 50);
  append(f, "a1", "cmd a1", NULL, &a);
  row_metrics(&b, 0.002, 1, 100);
  tf_metrics_set_text(&b, "task", "gears");
  tf_metrics_set(&b, "gears.slip", 0.25);
  tf_metrics_set_int(&b, "gears.skipped", 2);
  append(f, "b1", "cmd b1", NULL, &b);
  // killed: no tf_results_close, no tf_results_widen (the descriptors die with the process)
  tf_results_file* killed = f;
  (void)killed;
  char* narrow = slurp(dir, "results.csv");
  assert_null(strstr(narrow, "gears.slip"));
  free(narrow);

  tf_results_done done = recover(dir);
  assert_int_equal(done.n, 2);
  assert_int_equal(done.csv_rebuilt, 1);
  assert_int_equal(done.csv_added, 2);
  tf_results_done_free(&done);
  const char* wide =
      "run_id,task,dt,seed,clearance_um,backlash_mm,status,success,overlap.peak_m,gears.slip,"
      "gears.skipped,command,error\n"
      "a1,peg,0.001,0,50,,ok,true,1.5e-06,,,cmd a1,\n"
      "b1,gears,0.002,1,100,,ok,false,,0.25,2,cmd b1,\n";
  char* csv = slurp(dir, "results.csv");
  assert_string_equal(csv, wide);
  free(csv);

  // the resumed sweep appends a row of the first task under the wide header, and needs no
  // widening at its end
  tf_results_file* g = open_results(dir);
  row_metrics(&a, 0.001, 2, 150);
  append(g, "a2", "cmd a2", NULL, &a);
  const char* first = NULL;
  assert_int_equal(tf_results_csv_missing(g, &first), 0);
  close_results(g);
  csv = slurp(dir, "results.csv");
  assert_non_null(strstr(csv, wide));
  assert_non_null(strstr(csv, "a2,peg,0.001,2,150,,ok,true,4.5e-06,,,cmd a2,\n"));
  free(csv);
  // and a second recovery has nothing to do
  done = recover(dir);
  assert_int_equal(done.n, 3);
  assert_int_equal(done.csv_rebuilt, 0);
  assert_int_equal(done.csv_added, 0);
  tf_results_done_free(&done);
  tf_results_close(killed, NULL, 0);
  remove_dir(dir);
}

// numbers that 15 digits do not hold (0.1 + 0.2, 1/3, the seed 2^53 - 1) go to the JSONL and
// the CSV with the same digits, read back as the same doubles, and survive a CSV rebuilt from
// the JSONL unchanged
static void test_numbers_exact(void** state) {
  (void)state;
  char* dir = make_dir();
  tf_results_file* f = open_results(dir);
  tf_metrics m;
  row_metrics(&m, 0.1 + 0.2, 9007199254740991L, 1.0 / 3.0);
  tf_metrics_set(&m, "x.small", 5e-324);
  tf_metrics_set(&m, "x.big", 1.7976931348623157e308);
  tf_metrics_set(&m, "x.neg", -2.0 / 3.0);
  tf_metrics_set(&m, "x.round", 0.005);
  tf_metrics_set(&m, "x.count", 1e16);
  tf_metrics_set(&m, "x.nan", NAN);
  tf_metrics_set(&m, "x.inf", INFINITY);
  append(f, "aaaa", "cmd", NULL, &m);
  close_results(f);
  char* jsonl = slurp(dir, "results.jsonl");
  char* csv = slurp(dir, "results.csv");
  assert_non_null(strstr(jsonl, "\"dt\":0.30000000000000004,"));
  assert_non_null(strstr(jsonl, "\"seed\":9007199254740991,"));
  assert_non_null(strstr(jsonl, "\"clearance_um\":0.3333333333333333,"));
  assert_non_null(strstr(jsonl, "\"x.round\":0.005,"));
  assert_non_null(strstr(jsonl, "\"x.count\":10000000000000000,"));
  assert_non_null(strstr(jsonl, "\"x.nan\":null,\"x.inf\":null"));
  assert_non_null(strstr(csv, ",0.30000000000000004,9007199254740991,0.3333333333333333,"));
  // every number reads back as the same bits from either file
  cJSON* o = cJSON_Parse(jsonl);
  assert_non_null(o);
  tf_results_columns header = {0}, cells = {0};
  size_t pos = 0, n = strlen(csv);
  assert_true(tf_results_csv_record(csv, n, &pos, &header, NULL, 0) > 0);
  assert_int_equal(tf_results_csv_record(csv, n, &pos, &cells, NULL, 0), header.n);
  for (int i = 0; i < m.n; i++) {
    const tf_metric* mi = &m.item[i];
    if (mi->kind != TF_METRIC_NUMBER && mi->kind != TF_METRIC_INT) continue;
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, mi->name);
    int column = -1;
    for (int k = 0; k < header.n; k++) {
      if (strcmp(header.name[k], mi->name) == 0) column = k;
    }
    assert_true(column >= 0);
    if (!isfinite(mi->value)) {
      assert_true(cJSON_IsNull(v));
      assert_string_equal(cells.name[column], "");
      continue;
    }
    assert_true(cJSON_IsNumber(v));
    if (memcmp(&v->valuedouble, &mi->value, sizeof(double)) != 0 ||
        strtod(cells.name[column], NULL) != mi->value) {
      fail_msg("%s: %.17g wrote %.17g / %s", mi->name, mi->value, v->valuedouble,
               cells.name[column]);
    }
    // integers (seeds, counts) as integers, never with an exponent
    if (mi->value == floor(mi->value) && fabs(mi->value) < 1e17) {
      assert_null(strpbrk(cells.name[column], "eE."));
    }
  }
  cJSON_Delete(o);
  tf_results_columns_free(&header);
  tf_results_columns_free(&cells);
  // a CSV rebuilt from the JSONL is the one appending wrote, byte for byte
  char path[256];
  path_of(path, sizeof(path), dir, "results.csv");
  unlink(path);
  tf_results_done done = recover(dir);
  assert_int_equal(done.csv_rebuilt, 1);
  tf_results_done_free(&done);
  char* rebuilt = slurp(dir, "results.csv");
  assert_string_equal(rebuilt, csv);
  free(rebuilt);
  // and so is `tightfit run --json`'s line, digit for digit the JSONL's numbers
  char* line = tf_metrics_json_line(&m);
  assert_non_null(line);
  assert_non_null(strstr(line, "\"dt\":0.30000000000000004,\"seed\":9007199254740991,"));
  line[strlen(line) - 1] = 0;                // the JSONL row goes on with command
  assert_non_null(strstr(jsonl, line + 1));  // after its run_id, the same text
  free(line);
  free(jsonl);
  free(csv);
  remove_dir(dir);
}

static void test_resume_odd_files(void** state) {
  (void)state;
  char* dir = make_dir();
  // nothing there: nothing done, nothing created
  tf_results_done done = recover(dir);
  assert_int_equal(done.n, 0);
  assert_int_equal(done.csv_rebuilt, 0);
  tf_results_done_free(&done);
  char* none = slurp(dir, "results.csv");
  assert_null(none);
  // lines that are not rows are counted and skipped; duplicates count once
  write_three(dir);
  spill(dir, "results.jsonl", "not json\n\n{\"no_id\":1}\n", "a");
  char* line = slurp(dir, "results.jsonl");
  const char* end = strchr(line, '\n');
  char first[256];
  snprintf(first, sizeof(first), "%.*s\n", (int)(end - line), line);
  spill(dir, "results.jsonl", first, "a");
  done = recover(dir);
  assert_int_equal(done.n, 3);
  assert_int_equal(done.bad_lines, 2);
  assert_int_equal(done.csv_rebuilt, 1);  // the CSV now lacks the duplicate's row
  tf_results_done_free(&done);
  free(line);
  // a CSV with rows but no JSONL: refuse rather than lose the rows
  char path[256];
  path_of(path, sizeof(path), dir, "results.jsonl");
  unlink(path);
  char err[512];
  assert_int_equal(tf_results_recover(dir, known, 2, &done, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "results.jsonl: missing while results.csv has rows"));
  assert_non_null(strstr(err, "--force"));
  remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_header_and_rows),
      cmocka_unit_test(test_columns_stay),
      cmocka_unit_test(test_widen),
      cmocka_unit_test(test_quoting),
      cmocka_unit_test(test_failed_rows_wait),
      cmocka_unit_test(test_all_failed),
      cmocka_unit_test(test_reopen),
      cmocka_unit_test(test_short_write_cut),
      cmocka_unit_test(test_open_partial_csv),
      cmocka_unit_test(test_resume_partial_line),
      cmocka_unit_test(test_resume_missing_newline),
      cmocka_unit_test(test_resume_rebuilds_csv),
      cmocka_unit_test(test_resume_rebuild_after_failed_rows),
      cmocka_unit_test(test_resume_widens_to_every_row),
      cmocka_unit_test(test_numbers_exact),
      cmocka_unit_test(test_resume_odd_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
