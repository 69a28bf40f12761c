// `tightfit sweep --shard K/N` and `tightfit merge DIR` end to end, through the built binary
// (TIGHTFIT_BIN): a 12-run sweep of short connector runs (0.02 s, two recorded) run as shards
// 1/3, 2/3 and 3/3 and merged equals the same sweep run whole, timings aside; merging twice
// changes no byte; a missing shard, an unfinished shard, mixed configs, mixed splits and a row
// of the wrong shard are each refused with one line per problem naming it, exit 2 and nothing
// written; a shard folder is not re-split; bad --shard values are one-line usage errors.
//
// "Timings aside": the keys whose values are wall-clock measurements and so differ between
// any two runs of the same row: steps_per_s, realtime_factor and every throughput.* key but
// throughput.threads (throughput.steps_per_s, .env_steps_per_s, .aggregate_env_steps_per_s,
// .realtime_factor, .us_per_step, .wall_s and the per-stage .*_us). Everything else, the
// simulated times (divergence.time_s, connectors.seat_time_s) included, must be equal.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_exec.h"
#include "test_folder.h"

typedef struct merge_fixture {
  char root[64];      // a fresh temporary folder
  char config[128];   // root/sweep.json
  char config2[128];  // root/other.json: another config
  char out[128];      // root/out: the shards' --out and the merge's folder
  char whole[128];    // root/whole: the same sweep unsharded
} merge_fixture;

static const char* const twelve_runs =
    "{\"task\": \"connectors\", \"duration\": 0.02, \"seeds\": 2,\n"
    " \"grid\": {\"solver\": [\"al\", \"pgs\"], \"dt\": [0.001, 0.002, 0.005]},\n"
    " \"record\": {\"runs\": [0, 5]}}\n";

static const char* const other_runs =
    "{\"task\": \"connectors\", \"duration\": 0.03, \"seeds\": 2,\n"
    " \"grid\": {\"solver\": [\"al\", \"pgs\"], \"dt\": [0.001, 0.002, 0.005]},\n"
    " \"record\": {\"runs\": [0, 5]}}\n";

static void write_text(const char* path, const char* text, const char* mode) {
  FILE* f = fopen(path, mode);
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

// a whole file (NULL when missing)
static char* read_text(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  char* text = cli_exec_slurp(fd);
  close(fd);
  return text;
}

// DIR/name
static char* read_in(const char* dir, const char* name) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return read_text(path);
}

static int exists_in(const char* dir, const char* name) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

static int lines_of(const char* text) {
  int n = 0;
  for (const char* c = text; c && *c; c++) n += *c == '\n';
  return n;
}

static int setup(void** state) {
  merge_fixture* fx = calloc(1, sizeof(*fx));
  if (!fx) return -1;
  snprintf(fx->root, sizeof(fx->root), "/tmp/tightfit_merge_XXXXXX");
  if (!mkdtemp(fx->root)) return -1;
  snprintf(fx->config, sizeof(fx->config), "%s/sweep.json", fx->root);
  snprintf(fx->config2, sizeof(fx->config2), "%s/other.json", fx->root);
  snprintf(fx->out, sizeof(fx->out), "%s/out", fx->root);
  snprintf(fx->whole, sizeof(fx->whole), "%s/whole", fx->root);
  write_text(fx->config, twelve_runs, "w");
  write_text(fx->config2, other_runs, "w");
  *state = fx;
  return 0;
}

static int teardown(void** state) {
  merge_fixture* fx = *state;
  test_remove_tree(fx->root);
  free(fx);
  return 0;
}

static void expect_exit(cli_exec_result* r, int code) {
  if (!r->exited || r->code != code) {
    print_message("exit %d (exited %d), expected %d\nstderr:\n%s\n", r->code, r->exited, code,
                  r->err ? r->err : "");
  }
  assert_true(r->exited);
  assert_int_equal(r->code, code);
}

// stderr holds needle
static void expect_said(const cli_exec_result* r, const char* needle) {
  if (!strstr(r->err, needle)) print_message("expected '%s' in stderr:\n%s", needle, r->err);
  assert_non_null(strstr(r->err, needle));
}

// `tightfit sweep CONFIG --out OUT --shard K/N` (plus one extra option)
static void run_shard(const merge_fixture* fx, const char* config, const char* shard,
                      const char* extra) {
  const char* args[] = {"sweep", config,    "--out", fx->out, "--jobs",
                        "2",     "--shard", shard,   extra,   NULL};
  cli_exec_result r = cli_exec(args);
  expect_exit(&r, 0);
  cli_exec_free(&r);
}

static cli_exec_result merge(const char* dir) {
  const char* args[] = {"merge", dir, NULL};
  return cli_exec(args);
}

// a refused merge: exit 2, nlines lines each starting "tightfit merge: ", nothing on stdout,
// and none of the merged files written
static void expect_refused(const merge_fixture* fx, cli_exec_result* r, int nlines) {
  expect_exit(r, 2);
  if (lines_of(r->err) != nlines) print_message("stderr:\n%s", r->err);
  assert_int_equal(lines_of(r->err), nlines);
  for (const char* line = r->err; *line; line = strchr(line, '\n') + 1) {
    assert_true(strncmp(line, "tightfit merge: ", 16) == 0);
  }
  assert_string_equal(r->out, "");
  static const char* const written[] = {"results.jsonl", "results.csv", "report.html",
                                        "machine.json", "record"};
  for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++) {
    if (exists_in(fx->out, written[i])) print_message("%s was written\n", written[i]);
    assert_false(exists_in(fx->out, written[i]));
  }
}

// ---- comparing results timings aside

// a wall-clock measurement (see the top of the file)
static int is_timing(const char* key) {
  if (strcmp(key, "steps_per_s") == 0 || strcmp(key, "realtime_factor") == 0) return 1;
  return strncmp(key, "throughput.", 11) == 0 && strcmp(key, "throughput.threads") != 0;
}

// the JSONL's rows as one array, in file order
static cJSON* jsonl_rows(const char* text) {
  cJSON* rows = cJSON_CreateArray();
  for (const char* line = text; line && *line;) {
    const char* nl = strchr(line, '\n');
    assert_non_null(nl);
    cJSON* row = cJSON_ParseWithLength(line, (size_t)(nl - line));
    assert_non_null(row);
    cJSON_AddItemToArray(rows, row);
    line = nl + 1;
  }
  return rows;
}

static const char* row_id(const cJSON* row) {
  const cJSON* id = cJSON_GetObjectItemCaseSensitive(row, "run_id");
  assert_true(cJSON_IsString(id));
  return id->valuestring;
}

static const cJSON* find_row(const cJSON* rows, const char* id) {
  for (const cJSON* row = rows->child; row; row = row->next) {
    if (strcmp(row_id(row), id) == 0) return row;
  }
  return NULL;
}

// the same keys in both rows, and the same values but for the timings; returns the timings
// skipped
static int compare_rows(const cJSON* a, const cJSON* b) {
  assert_int_equal(cJSON_GetArraySize(a), cJSON_GetArraySize(b));
  int timings = 0;
  for (const cJSON* item = a->child; item; item = item->next) {
    const cJSON* same = cJSON_GetObjectItemCaseSensitive(b, item->string);
    if (!same) print_message("run %s: %s missing\n", row_id(a), item->string);
    assert_non_null(same);
    if (is_timing(item->string)) {
      timings++;
      continue;
    }
    if (!cJSON_Compare(item, same, 1))
      print_message("run %s: %s differs\n", row_id(a), item->string);
    assert_true(cJSON_Compare(item, same, 1));
  }
  return timings;
}

// one CSV record's cells (quotes undone) from *pos; NULL at the end
static cJSON* csv_record(const char* s, size_t* pos) {
  if (!s[*pos]) return NULL;
  cJSON* cells = cJSON_CreateArray();
  char cell[4096];
  size_t len = 0;
  int quoted = 0;
  for (size_t i = *pos;; i++) {
    char c = s[i];
    assert_true(c != 0);  // every record ends with a line break
    if (quoted) {
      if (c == '"' && s[i + 1] == '"') {
        cell[len++] = '"';
        i++;
      } else if (c == '"') {
        quoted = 0;
      } else {
        cell[len++] = c;
      }
    } else if (c == '"') {
      quoted = 1;
    } else if (c == ',' || c == '\n') {
      cell[len] = 0;
      cJSON_AddItemToArray(cells, cJSON_CreateString(cell));
      len = 0;
      if (c == '\n') {
        *pos = i + 1;
        return cells;
      }
    } else {
      cell[len++] = c;
    }
    assert_true(len < sizeof(cell));
  }
}

// the CSV's rows without the timing columns, keyed by run id: {"<id>": [cells...]}; the
// header (every column) into *header
static cJSON* csv_rows(const char* text, cJSON** header) {
  size_t pos = 0;
  *header = csv_record(text, &pos);
  assert_non_null(*header);
  assert_string_equal(cJSON_GetArrayItem(*header, 0)->valuestring, "run_id");
  cJSON* rows = cJSON_CreateObject();
  for (cJSON* rec; (rec = csv_record(text, &pos));) {
    assert_int_equal(cJSON_GetArraySize(rec), cJSON_GetArraySize(*header));
    cJSON* kept = cJSON_CreateArray();
    int i = 0;
    for (const cJSON* c = rec->child; c; c = c->next, i++) {
      if (!is_timing(cJSON_GetArrayItem(*header, i)->valuestring)) {
        cJSON_AddItemToArray(kept, cJSON_CreateString(c->valuestring));
      }
    }
    assert_null(cJSON_GetObjectItemCaseSensitive(rows, rec->child->valuestring));
    cJSON_AddItemToObject(rows, rec->child->valuestring, kept);
    cJSON_Delete(rec);
  }
  return rows;
}

// 1 when the line (with its newline) is one of text's lines
static int has_line(const char* text, const char* line, size_t len) {
  for (const char* at = text; at && *at; at = strchr(at, '\n') + 1) {
    if (strncmp(at, line, len) == 0 && (at == text || at[-1] == '\n')) return 1;
  }
  return 0;
}

// the record/ folder's file names, sorted, joined by spaces
static void record_names(const char* dir, char* out, size_t n) {
  char path[512];
  snprintf(path, sizeof(path), "%s/record", dir);
  struct dirent** list = NULL;
  int count = scandir(path, &list, NULL, alphasort);
  out[0] = 0;
  for (int i = 0; i < count; i++) {
    if (list[i]->d_name[0] != '.') {
      strncat(out, list[i]->d_name, n - strlen(out) - 1);
      strncat(out, " ", n - strlen(out) - 1);
    }
    free(list[i]);
  }
  free(list);
}

// ---- the tests

// shards 1/3, 2/3, 3/3 merged = the sweep run whole, timings aside; merging again changes
// nothing
static void test_merge_equals_whole(void** state) {
  merge_fixture* fx = *state;
  run_shard(fx, fx->config, "1/3", NULL);
  run_shard(fx, fx->config, "2/3", NULL);
  run_shard(fx, fx->config, "3/3", NULL);
  // one job: the rows in the plan's order, as the merge writes them
  const char* whole[] = {"sweep", fx->config, "--out", fx->whole, "--jobs", "1", NULL};
  cli_exec_result r = cli_exec(whole);
  expect_exit(&r, 0);
  cli_exec_free(&r);

  r = merge(fx->out);
  expect_exit(&r, 0);
  expect_said(&r, "[merge] 3 shards, 12 runs");
  assert_string_equal(r.out, "");
  cli_exec_free(&r);

  char* jsonl = read_in(fx->out, "results.jsonl");
  char* csv = read_in(fx->out, "results.csv");
  char* jsonl_whole = read_in(fx->whole, "results.jsonl");
  char* csv_whole = read_in(fx->whole, "results.csv");
  assert_non_null(jsonl);
  assert_non_null(csv);
  assert_int_equal(lines_of(jsonl), 12);
  assert_int_equal(lines_of(csv), 13);

  // every merged line is a shard's line, byte for byte
  char* shard_text[3];
  for (int k = 0; k < 3; k++) {
    char name[64];
    snprintf(name, sizeof(name), "shards/%d/results.jsonl", k + 1);
    shard_text[k] = read_in(fx->out, name);
    assert_non_null(shard_text[k]);
  }
  for (const char* line = jsonl; *line; line = strchr(line, '\n') + 1) {
    size_t len = (size_t)(strchr(line, '\n') - line) + 1;
    assert_true(has_line(shard_text[0], line, len) || has_line(shard_text[1], line, len) ||
                has_line(shard_text[2], line, len));
  }
  for (int k = 0; k < 3; k++) free(shard_text[k]);

  // the same rows in the same (plan) order, equal but for the timings
  cJSON* merged_rows = jsonl_rows(jsonl);
  cJSON* whole_rows = jsonl_rows(jsonl_whole);
  assert_int_equal(cJSON_GetArraySize(merged_rows), cJSON_GetArraySize(whole_rows));
  const cJSON* w = whole_rows->child;
  for (const cJSON* m = merged_rows->child; m; m = m->next, w = w->next) {
    assert_string_equal(row_id(m), row_id(w));
    assert_non_null(find_row(whole_rows, row_id(m)));
    assert_true(compare_rows(m, w) > 10);  // the timings were there and were skipped
  }
  cJSON_Delete(merged_rows);
  cJSON_Delete(whole_rows);

  // the CSV: the same header, and the same cells per run but for the timing columns
  cJSON *header = NULL, *header_whole = NULL;
  cJSON* cells = csv_rows(csv, &header);
  cJSON* cells_whole = csv_rows(csv_whole, &header_whole);
  assert_true(cJSON_Compare(header, header_whole, 1));
  assert_int_equal(cJSON_GetArraySize(cells), 12);
  assert_true(cJSON_Compare(cells, cells_whole, 0));  // keyed by run id: order aside
  cJSON_Delete(header);
  cJSON_Delete(header_whole);
  cJSON_Delete(cells);
  cJSON_Delete(cells_whole);

  // the rest of the folder
  char* config = read_in(fx->out, "config.json");
  assert_string_equal(config, twelve_runs);
  free(config);
  char* machine = read_in(fx->out, "machine.json");
  cJSON* m = cJSON_Parse(machine);
  assert_non_null(m);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(m, "shards")), 3);
  const cJSON* hosts = cJSON_GetObjectItem(m, "hosts");
  assert_int_equal(cJSON_GetArraySize(hosts), 1);  // all three ran here
  assert_true(cJSON_IsString(
      cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "shards"), 0), "hostname")));
  cJSON_Delete(m);
  assert_true(exists_in(fx->out, "report.html"));
  char names[512], names_whole[512];
  record_names(fx->out, names, sizeof(names));
  record_names(fx->whole, names_whole, sizeof(names_whole));
  assert_int_equal(strlen(names), 2 * 21);  // two "<16 hex>.npz "
  assert_string_equal(names, names_whole);

  // again: the same bytes
  r = merge(fx->out);
  expect_exit(&r, 0);
  cli_exec_free(&r);
  char* jsonl_again = read_in(fx->out, "results.jsonl");
  char* csv_again = read_in(fx->out, "results.csv");
  char* machine_again = read_in(fx->out, "machine.json");
  assert_string_equal(jsonl_again, jsonl);
  assert_string_equal(csv_again, csv);
  assert_string_equal(machine_again, machine);
  free(jsonl_again);
  free(csv_again);
  free(machine_again);
  free(machine);
  free(jsonl);
  free(csv);
  free(jsonl_whole);
  free(csv_whole);
}

// a missing shard is named with the command that makes it, every missing one on its line
static void test_missing_shard(void** state) {
  merge_fixture* fx = *state;
  run_shard(fx, fx->config, "1/3", NULL);
  cli_exec_result r = merge(fx->out);
  expect_refused(fx, &r, 2);
  char line[256];
  snprintf(line, sizeof(line), "shard 2/3 is missing: %s/shards/2; run it with --shard 2/3\n",
           fx->out);
  expect_said(&r, line);
  expect_said(&r, "shard 3/3 is missing");
  cli_exec_free(&r);
  run_shard(fx, fx->config, "3/3", NULL);
  r = merge(fx->out);
  expect_refused(fx, &r, 1);
  expect_said(&r, line);
  cli_exec_free(&r);

  // a shard still running (its lock held, as its sweep holds it) is named, nothing else read
  char lock[256];
  snprintf(lock, sizeof(lock), "%s/shards/1/.lock", fx->out);
  int fd = open(lock, O_RDWR | O_CREAT, 0644);
  assert_true(fd >= 0);
  assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
  r = merge(fx->out);
  close(fd);
  expect_exit(&r, 2);
  assert_int_equal(lines_of(r.err), 1);
  expect_said(&r, "/shards/1 is in use");
  assert_false(exists_in(fx->out, "results.jsonl"));
  cli_exec_free(&r);
}

// an unfinished shard is named with the command that finishes it; that command works
static void test_incomplete_shard(void** state) {
  merge_fixture* fx = *state;
  for (int k = 1; k <= 3; k++) {
    char shard[16];
    snprintf(shard, sizeof(shard), "%d/3", k);
    run_shard(fx, fx->config, shard, NULL);
  }
  // shard 2 killed after its first row, in the middle of its second
  char path[256];
  snprintf(path, sizeof(path), "%s/shards/2/results.jsonl", fx->out);
  char* text = read_text(path);
  char* shard_json = read_in(fx->out, "shards/2/shard.json");
  cJSON* s = cJSON_Parse(shard_json);
  int runs = cJSON_GetObjectItem(s, "runs")->valueint;
  cJSON_Delete(s);
  free(shard_json);
  assert_true(runs >= 2);
  char* second = strchr(text, '\n') + 1;
  second[20] = 0;
  write_text(path, text, "w");
  free(text);

  cli_exec_result r = merge(fx->out);
  expect_refused(fx, &r, 1);
  char line[512];
  snprintf(line, sizeof(line),
           "shard 2/3: 1 of %d runs done; finish it with tightfit sweep %s/shards/2/config.json "
           "--out %s --shard 2/3 --resume\n",
           runs, fx->out, fx->out);
  expect_said(&r, line);
  cli_exec_free(&r);

  // the command it names
  char config[256];
  snprintf(config, sizeof(config), "%s/shards/2/config.json", fx->out);
  run_shard(fx, config, "2/3", "--resume");
  r = merge(fx->out);
  expect_exit(&r, 0);
  cli_exec_free(&r);
  char* jsonl = read_in(fx->out, "results.jsonl");
  assert_int_equal(lines_of(jsonl), 12);
  free(jsonl);
}

// shards of two configs, or of another config than the merged one in DIR: refused
static void test_mixed_configs(void** state) {
  merge_fixture* fx = *state;
  run_shard(fx, fx->config, "1/3", NULL);
  run_shard(fx, fx->config, "2/3", NULL);
  run_shard(fx, fx->config2, "3/3", NULL);
  cli_exec_result r = merge(fx->out);
  expect_refused(fx, &r, 1);
  char line[512];
  snprintf(line, sizeof(line),
           "%s/shards/3/config.json differs from %s/shards/1/config.json; refusing to merge "
           "mixed configs\n",
           fx->out, fx->out);
  expect_said(&r, line);
  cli_exec_free(&r);

  // shard 3 redone with the first config, but DIR already holds a merge of another
  const char* args[] = {"sweep", fx->config, "--out", fx->out,   "--jobs",
                        "2",     "--shard",  "3/3",   "--force", NULL};
  r = cli_exec(args);
  expect_exit(&r, 0);
  cli_exec_free(&r);
  char path[256];
  snprintf(path, sizeof(path), "%s/config.json", fx->out);
  write_text(path, other_runs, "w");
  r = merge(fx->out);
  expect_exit(&r, 2);
  assert_int_equal(lines_of(r.err), 1);
  expect_said(&r, "config.json differs from the shards' config");
  expect_said(&r, "refusing to merge mixed configs");
  cli_exec_free(&r);
  assert_false(exists_in(fx->out, "results.jsonl"));
  unlink(path);
  r = merge(fx->out);
  expect_exit(&r, 0);
  cli_exec_free(&r);
}

// shards of two splits, a row in the wrong shard, no shards at all: refused, one line each
static void test_mixed_splits_and_rows(void** state) {
  merge_fixture* fx = *state;
  cli_exec_result r = merge(fx->out);  // no folder at all
  expect_exit(&r, 2);
  assert_int_equal(lines_of(r.err), 1);
  cli_exec_free(&r);
  mkdir(fx->out, 0755);
  r = merge(fx->out);  // a folder without shards
  expect_exit(&r, 2);
  assert_int_equal(lines_of(r.err), 1);
  expect_said(&r, "no shards to merge");
  cli_exec_free(&r);

  run_shard(fx, fx->config, "1/2", NULL);
  run_shard(fx, fx->config, "2/2", NULL);
  // a row of shard 1 copied into shard 2's results
  char* one = read_in(fx->out, "shards/1/results.jsonl");
  char* nl = strchr(one, '\n');
  nl[1] = 0;
  char path[256];
  snprintf(path, sizeof(path), "%s/shards/2/results.jsonl", fx->out);
  write_text(path, one, "a");
  free(one);
  r = merge(fx->out);
  expect_refused(fx, &r, 1);
  expect_said(&r, "belongs to another shard (1/2), not 2/2");
  cli_exec_free(&r);

  // a third shard folder of a 3-way split beside the 2-way split
  const char* args[] = {"sweep", fx->config, "--out", fx->out, "--jobs",
                        "2",     "--shard",  "3/3",   NULL};
  r = cli_exec(args);
  expect_exit(&r, 0);
  cli_exec_free(&r);
  r = merge(fx->out);
  expect_refused(fx, &r, 1);
  expect_said(&r, "mixed splits (shards/1 is shard 1/2, shards/3 is shard 3/3)");
  cli_exec_free(&r);

  // and a shard.json that is not one
  snprintf(path, sizeof(path), "%s/shards/3/shard.json", fx->out);
  write_text(path, "{\"shard\": 3}", "w");
  r = merge(fx->out);
  expect_refused(fx, &r, 1);
  expect_said(&r, "shards/3/shard.json: malformed");
  cli_exec_free(&r);
}

// a shard folder keeps its split: --shard 1/4 after 1/3 is refused
static void test_resplit_refused(void** state) {
  merge_fixture* fx = *state;
  run_shard(fx, fx->config, "1/3", NULL);
  const char* again[] = {"sweep", fx->config, "--out", fx->out, "--shard", "1/4", NULL};
  cli_exec_result r = cli_exec(again);
  expect_exit(&r, 2);
  assert_int_equal(lines_of(r.err), 1);
  expect_said(&r, "is not empty");
  cli_exec_free(&r);
  const char* resumed[] = {"sweep",   fx->config, "--out",    fx->out,
                           "--shard", "1/4",      "--resume", NULL};
  // the config.json and machine.json already there stay as they were
  char* config_before = read_in(fx->out, "shards/1/config.json");
  r = cli_exec(resumed);
  expect_exit(&r, 2);
  assert_int_equal(lines_of(r.err), 1);
  expect_said(&r, "holds a shard of another split than 1/4");
  cli_exec_free(&r);
  char* config_after = read_in(fx->out, "shards/1/config.json");
  assert_string_equal(config_before, config_after);
  free(config_before);
  free(config_after);
  char* shard = read_in(fx->out, "shards/1/shard.json");
  assert_non_null(strstr(shard, "\"of\":3"));
  free(shard);
}

// bad --shard values and merge usage errors: one line, exit 2, nothing made
static void test_bad_values(void** state) {
  merge_fixture* fx = *state;
  static const char* const bad[] = {"0/3", "4/3", "1/0", "abc", "1/3/2", "/3", "1/", "-1/3"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    const char* args[] = {"sweep", fx->config, "--out", fx->out, "--shard", bad[i], NULL};
    cli_exec_result r = cli_exec(args);
    expect_exit(&r, 2);
    if (lines_of(r.err) != 1) print_message("--shard %s:\n%s", bad[i], r.err ? r.err : "");
    assert_int_equal(lines_of(r.err), 1);
    assert_true(strncmp(r.err, "tightfit sweep: --shard needs K/N", 33) == 0);
    assert_string_equal(r.out, "");
    cli_exec_free(&r);
  }
  assert_false(exists_in(fx->root, "out"));
  const char* none[] = {"merge", NULL};
  const char* two[] = {"merge", fx->out, fx->root, NULL};
  const char* option[] = {"merge", "--fast", fx->out, NULL};
  const char* const* usage[] = {none, two, option};
  for (int i = 0; i < 3; i++) {
    cli_exec_result r = cli_exec(usage[i]);
    expect_exit(&r, 2);
    assert_int_equal(lines_of(r.err), 1);
    assert_true(strncmp(r.err, "tightfit merge: ", 16) == 0);
    cli_exec_free(&r);
  }
  const char* help[] = {"merge", "--help", NULL};
  cli_exec_result r = cli_exec(help);
  expect_exit(&r, 0);
  assert_true(strncmp(r.out, "usage: tightfit merge DIR", 25) == 0);
  cli_exec_free(&r);
}

static int group_setup(void** state) {
  (void)state;
  if (access(cli_exec_path(), X_OK) != 0) {
    fprintf(stderr, "test_sweep_merge: %s is not an executable (set TIGHTFIT_BIN or build it)\n",
            cli_exec_path());
    return -1;
  }
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_merge_equals_whole, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_shard, setup, teardown),
      cmocka_unit_test_setup_teardown(test_incomplete_shard, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mixed_configs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mixed_splits_and_rows, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resplit_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_values, setup, teardown),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
