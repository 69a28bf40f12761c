// Reading a sweep's results back for --resume (see results_file.h). What a crash can leave:
// a partial last JSONL line (the process died inside a write, or the machine lost power
// before the page cache reached the disk), and a CSV one row behind or ahead of the JSONL
// (the two files get one write each). The JSONL is the record: its partial tail is cut, and
// the CSV is rewritten from it whenever their run ids differ or the CSV is not whole.
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_io.h"
#include "json_exact.h"
#include "results_file.h"
#include "results_internal.h"

// ---- CSV reading

int tf_results_csv_record(const char* s, size_t n, size_t* pos, tf_results_columns* cells,
                          char* first, size_t firstlen) {
  size_t i = *pos;
  if (i >= n) return 0;
  char cur[256];
  size_t len = 0;
  int count = 0, quoted = 0;
  while (i < n) {
    char c = s[i++];
    int end_cell = 0, end_record = 0;
    if (quoted) {
      if (c != '"') {
        if (len + 1 < sizeof(cur)) cur[len++] = c;
      } else if (i < n && s[i] == '"') {
        if (len + 1 < sizeof(cur)) cur[len++] = '"';
        i++;
      } else {
        quoted = 0;
      }
    } else if (c == '"') {
      quoted = 1;
    } else if (c == ',') {
      end_cell = 1;
    } else if (c == '\n') {
      end_cell = end_record = 1;
    } else if (c != '\r') {
      if (len + 1 < sizeof(cur)) cur[len++] = c;
    }
    if (!end_cell) continue;
    cur[len] = 0;
    if (count == 0 && first) snprintf(first, firstlen, "%s", cur);
    if (cells) {
      char** more = realloc(cells->name, sizeof(char*) * (size_t)(cells->n + 1));
      if (!more) return -1;
      cells->name = more;
      if (!(cells->name[cells->n] = malloc(len + 1))) return -1;
      memcpy(cells->name[cells->n++], cur, len + 1);
    }
    count++;
    len = 0;
    if (end_record) {
      *pos = i;
      return count;
    }
  }
  return -1;
}

int tf_results_csv_header(const char* s, size_t n, tf_results_columns* columns) {
  size_t pos = 0;
  memset(columns, 0, sizeof(*columns));
  if (tf_results_csv_record(s, n, &pos, columns, NULL, 0) < 1 ||
      strcmp(columns->name[0], "run_id") != 0) {
    tf_results_columns_free(columns);
    return -1;
  }
  return 0;
}

// ---- JSONL reading

// one complete line of the JSONL
typedef struct line_ref {
  size_t at, len;
  char id[TF_RESULTS_ID_MAX];
} line_ref;

// the run id of a JSONL line, or -1 when the line is not a row
static int line_id(const char* s, size_t len, char* id) {
  cJSON* o = cJSON_ParseWithLength(s, len);
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, "run_id");
  int rc = -1;
  if (cJSON_IsObject(o) && cJSON_IsString(v) && v->valuestring[0] &&
      strlen(v->valuestring) < TF_RESULTS_ID_MAX) {
    snprintf(id, TF_RESULTS_ID_MAX, "%s", v->valuestring);
    rc = 0;
  }
  cJSON_Delete(o);
  return rc;
}

static int compare_refs(const void* a, const void* b) {
  return strcmp(((const line_ref*)a)->id, ((const line_ref*)b)->id);
}

static int compare_ids(const void* a, const void* b) { return strcmp(a, b); }

static int file_size(const char* path, off_t* size) {
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  *size = st.st_size;
  return 0;
}

// ---- CSV rebuild

static void json_cell(FILE* f, const char* column, const void* ctx) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive((const cJSON*)ctx, column);
  if (!v || cJSON_IsNull(v)) return;
  if (cJSON_IsString(v)) {
    tf_results_csv_text(f, v->valuestring);
    return;
  }
  tf_metric m;
  memset(&m, 0, sizeof(m));
  if (cJSON_IsBool(v)) {
    m.kind = TF_METRIC_BOOL;
    m.value = cJSON_IsTrue(v);
  } else if (cJSON_IsNumber(v)) {
    m.kind = TF_METRIC_NUMBER;  // counts and numbers share one format (tf_number_text)
    m.value = v->valuedouble;
  } else {
    char* text = tf_json_print(v, 0);  // never written by a sweep; kept, not lost
    if (text) tf_results_csv_text(f, text);
    cJSON_free(text);
    return;
  }
  tf_results_csv_metric(f, &m);
}

// the columns from the JSONL when the CSV has no usable header: the first row that ran (no
// "error"), as appending fixes them
static int columns_from_jsonl(const char* text, const line_ref* lines, int nlines,
                              const char* const* known, int nknown, tf_results_columns* c) {
  cJSON* pick = NULL;
  for (int i = 0; i < nlines; i++) {
    cJSON* o = cJSON_ParseWithLength(text + lines[i].at, lines[i].len);
    if (!o) return -1;
    int ran = !cJSON_HasObjectItem(o, "error");
    if (ran || i == 0) {
      cJSON_Delete(pick);
      pick = o;
    } else {
      cJSON_Delete(o);
    }
    if (ran) break;
  }
  if (!pick) return -1;
  int n = cJSON_GetArraySize(pick), k = 0;
  const char** names = calloc((size_t)n + 1, sizeof(char*));
  int rc = -1;
  if (names) {
    for (const cJSON* item = pick->child; item; item = item->next) names[k++] = item->string;
    rc = tf_results_columns_build(c, names, k, known, nknown);
  }
  free(names);
  cJSON_Delete(pick);
  return rc;
}

// rewrites the CSV (temporary file + rename): the header, then one row per JSONL line
static int rebuild_csv(const char* path, const tf_results_columns* columns, const char* text,
                       const line_ref* lines, int nlines, char* err, size_t errlen) {
  tf_atomic_file file;
  if (tf_atomic_open(&file, path, err, errlen)) return -1;
  for (int i = 0; i < columns->n; i++) {
    if (i) fputc(',', file.f);
    tf_results_csv_text(file.f, columns->name[i]);
  }
  fputc('\n', file.f);
  for (int i = 0; i < nlines; i++) {
    cJSON* o = cJSON_ParseWithLength(text + lines[i].at, lines[i].len);
    char* line = NULL;
    size_t len = 0;
    if (!o || tf_results_csv_line(columns, json_cell, o, &line, &len)) {
      cJSON_Delete(o);
      tf_atomic_abort(&file);
      return tf_results_fail(err, errlen, "%s: out of memory", path);
    }
    fwrite(line, 1, len, file.f);
    free(line);
    cJSON_Delete(o);
  }
  return tf_atomic_commit(&file, err, errlen);
}

// 1 when the CSV is whole (header starting with run_id, every record complete and as wide as
// the header) and holds exactly the JSONL's run ids; its columns go to *columns when the
// header is usable
static int csv_agrees(const char* csv, size_t size, const line_ref* sorted, int nlines,
                      tf_results_columns* columns) {
  size_t pos = 0;
  memset(columns, 0, sizeof(*columns));
  if (size == 0) return nlines == 0;
  if (tf_results_csv_record(csv, size, &pos, columns, NULL, 0) < 1 ||
      strcmp(columns->name[0], "run_id") != 0) {
    tf_results_columns_free(columns);
    return 0;
  }
  char(*ids)[TF_RESULTS_ID_MAX] = malloc(sizeof(*ids) * ((size_t)nlines + 1));
  if (!ids) return 0;
  int n = 0, whole = 1, count;
  char first[TF_RESULTS_ID_MAX];
  while ((count = tf_results_csv_record(csv, size, &pos, NULL, first, sizeof(first))) != 0) {
    if (count != columns->n || n >= nlines) {
      whole = 0;
      break;
    }
    snprintf(ids[n++], TF_RESULTS_ID_MAX, "%s", first);
  }
  int agree = whole && n == nlines;
  if (agree) {
    qsort(ids, (size_t)n, sizeof(*ids), compare_ids);
    for (int i = 0; i < n && agree; i++) agree = strcmp(ids[i], sorted[i].id) == 0;
  }
  free(ids);
  return agree;
}

// ---- recovery

// cuts a partial last line off the JSONL, or ends it when it is a whole row that only lacks
// its newline (a file edited by hand); *keep is the length of the whole lines after that
static int repair_tail(const char* path, char* text, size_t size, size_t* keep,
                       tf_results_done* done, char* err, size_t errlen) {
  size_t end = size;
  while (end > 0 && text[end - 1] != '\n') end--;
  *keep = end;
  if (end == size) return 0;
  char id[TF_RESULTS_ID_MAX];
  if (line_id(text + end, size - end, id) == 0) {
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0 || write(fd, "\n", 1) != 1) {
      if (fd >= 0) close(fd);
      return tf_results_fail(err, errlen, "%s: %s", path, strerror(errno));
    }
    close(fd);
    text[size] = '\n';  // tf_file_read leaves one byte after the data
    *keep = size + 1;
    return 0;
  }
  if (truncate(path, (off_t)end) != 0) {
    return tf_results_fail(err, errlen, "%s: cannot cut its partial last line: %s", path,
                           strerror(errno));
  }
  done->dropped_bytes = (long)(size - end);
  return 0;
}

// the rows of a JSONL file: its whole lines that are JSON objects with a run id
typedef struct jsonl_rows {
  char* text;  // the file (malloc'd), NULL when there is none
  line_ref* line;
  int n;
  int bad;  // whole, non-blank lines that are not rows
} jsonl_rows;

static void free_rows(jsonl_rows* rows) {
  free(rows->text);
  free(rows->line);
  memset(rows, 0, sizeof(*rows));
}

// reads path (when exists); with done, first repairs its tail (repair_tail), else just leaves
// a partial last line out
static int read_rows(const char* path, int exists, tf_results_done* done, jsonl_rows* rows,
                     char* err, size_t errlen) {
  memset(rows, 0, sizeof(*rows));
  unsigned char* data = NULL;
  size_t size = 0;
  if (exists && tf_file_read(&data, &size, path, TF_RESULTS_MAX_FILE, err, errlen) != 0) return -1;
  char* text = (char*)data;
  size_t keep = size;
  while (keep > 0 && text[keep - 1] != '\n') keep--;
  if (text && done && repair_tail(path, text, size, &keep, done, err, errlen)) {
    free(data);
    return -1;
  }
  size_t nbreak = 0;
  for (size_t at = 0; at < keep; at++) nbreak += text[at] == '\n';
  rows->text = text;
  rows->line = calloc(nbreak + 1, sizeof(line_ref));
  if (!rows->line) {
    free_rows(rows);
    return tf_results_fail(err, errlen, "%s: out of memory", path);
  }
  for (size_t at = 0; at < keep;) {
    size_t len = (size_t)((char*)memchr(text + at, '\n', keep - at) - (text + at));
    line_ref* r = &rows->line[rows->n];
    r->at = at;
    r->len = len;
    if (line_id(text + at, len, r->id) == 0) {
      rows->n++;
    } else if (strspn(text + at, " \t\r") < len) {
      rows->bad++;
    }
    at += len + 1;
  }
  return 0;
}

// the header's columns in place, then each key the rows bring that it lacks, in the order
// they bring them (command and error stay last); *added: how many. 0, or -1 when out of memory
static int union_columns(const tf_results_columns* header, const jsonl_rows* rows,
                         tf_results_columns* out, int* added) {
  tf_results_columns names = {0};
  memset(out, 0, sizeof(*out));
  *added = 0;
  int rc = 0;
  for (int i = 0; i < header->n && rc == 0; i++) {
    if (!tf_results_reserved(header->name[i])) rc = tf_results_columns_add(&names, header->name[i]);
  }
  for (int i = 0; i < rows->n && rc == 0; i++) {
    cJSON* o = cJSON_ParseWithLength(rows->text + rows->line[i].at, rows->line[i].len);
    for (const cJSON* item = o ? o->child : NULL; item && rc == 0; item = item->next) {
      if (tf_results_reserved(item->string) || tf_results_columns_has(&names, item->string)) {
        continue;
      }
      rc = tf_results_columns_add(&names, item->string);
      (*added)++;
    }
    cJSON_Delete(o);
  }
  if (rc == 0) rc = tf_results_columns_build(out, (const char* const*)names.name, names.n, NULL, 0);
  tf_results_columns_free(&names);
  return rc;
}

int tf_results_recover(const char* dir, const char* const* known, int nknown, tf_results_done* done,
                       char* err, size_t errlen) {
  memset(done, 0, sizeof(*done));
  char jsonl_path[TF_PATH_MAX], csv_path[TF_PATH_MAX];
  if (tf_results_path(jsonl_path, sizeof(jsonl_path), dir, "results.jsonl") ||
      tf_results_path(csv_path, sizeof(csv_path), dir, "results.csv")) {
    return tf_results_fail(err, errlen, "%s: path too long", dir);
  }
  off_t jsonl_size = 0, csv_size = 0;
  int have_jsonl = file_size(jsonl_path, &jsonl_size) == 0;
  int have_csv = file_size(csv_path, &csv_size) == 0;
  if (!have_jsonl && have_csv && csv_size > 0) {
    return tf_results_fail(err, errlen,
                           "%s: missing while results.csv has rows; restore it, or start over "
                           "with --force",
                           jsonl_path);
  }
  jsonl_rows rows;
  if (read_rows(jsonl_path, have_jsonl, done, &rows, err, errlen)) return -1;
  done->bad_lines = rows.bad;
  char* text = rows.text;
  line_ref* lines = rows.line;
  int nlines = rows.n;
  // the CSV, rebuilt from the rows when it does not hold exactly them
  line_ref* sorted = malloc(sizeof(line_ref) * ((size_t)nlines + 1));
  unsigned char* csv = NULL;
  size_t csvlen = 0;
  int rc = sorted ? 0 : tf_results_fail(err, errlen, "%s: out of memory", jsonl_path);
  if (rc == 0) {
    memcpy(sorted, lines, sizeof(line_ref) * (size_t)nlines);
    qsort(sorted, (size_t)nlines, sizeof(line_ref), compare_refs);
  }
  if (rc == 0 && have_csv) {
    rc = tf_file_read(&csv, &csvlen, csv_path, TF_RESULTS_MAX_FILE, err, errlen);
  }
  if (rc == 0) {
    tf_results_columns columns, wide = {0};
    int agree = csv_agrees((const char*)csv, csv ? csvlen : 0, sorted, nlines, &columns);
    if (!agree && nlines == 0) {
      // no rows: an empty CSV (the first appended row writes the header)
      if (truncate(csv_path, 0) != 0 && errno != ENOENT) {
        rc = tf_results_fail(err, errlen, "%s: %s", csv_path, strerror(errno));
      }
      done->csv_rebuilt = rc == 0 && csvlen > 0;
    } else if (nlines > 0) {
      if (columns.n == 0 && columns_from_jsonl(text, lines, nlines, known, nknown, &columns) != 0) {
        rc = tf_results_fail(err, errlen, "%s: out of memory", csv_path);
      }
      // a CSV that holds every row may still lack the metrics of rows that came after its
      // header was fixed (another task's, the sweep killed before tf_results_widen): the
      // resumed sweep would keep that header, and the table its gap, for good. The JSONL is
      // the record: the CSV gets the union of its rows' keys
      int added = 0;
      if (rc == 0 && union_columns(&columns, &rows, &wide, &added) != 0) {
        rc = tf_results_fail(err, errlen, "%s: out of memory", csv_path);
      }
      if (rc == 0 && (!agree || added > 0)) {
        rc = rebuild_csv(csv_path, added > 0 ? &wide : &columns, text, lines, nlines, err, errlen);
        done->csv_rebuilt = rc == 0;
        done->csv_added = rc == 0 ? added : 0;
      }
    }
    tf_results_columns_free(&wide);
    tf_results_columns_free(&columns);
  }
  // the finished ids: sorted, unique
  if (rc == 0) {
    done->id = malloc(sizeof(*done->id) * ((size_t)nlines + 1));
    if (!done->id) rc = tf_results_fail(err, errlen, "%s: out of memory", jsonl_path);
    for (int i = 0; rc == 0 && i < nlines; i++) {
      if (done->n == 0 || strcmp(done->id[done->n - 1], sorted[i].id) != 0) {
        memcpy(done->id[done->n++], sorted[i].id, TF_RESULTS_ID_MAX);
      }
    }
  }
  free(csv);
  free(sorted);
  free_rows(&rows);
  if (rc) tf_results_done_free(done);
  return rc;
}

int tf_results_done_has(const tf_results_done* done, const char* id) {
  char key[TF_RESULTS_ID_MAX];
  if (!done->n || strlen(id) >= sizeof(key)) return 0;
  snprintf(key, sizeof(key), "%s", id);
  return bsearch(key, done->id, (size_t)done->n, sizeof(*done->id), compare_ids) != NULL;
}

void tf_results_done_free(tf_results_done* done) {
  free(done->id);
  done->id = NULL;
  done->n = 0;
}

int tf_results_widen(const char* dir, int* added, char* err, size_t errlen) {
  *added = 0;
  char jsonl_path[TF_PATH_MAX], csv_path[TF_PATH_MAX];
  if (tf_results_path(jsonl_path, sizeof(jsonl_path), dir, "results.jsonl") ||
      tf_results_path(csv_path, sizeof(csv_path), dir, "results.csv")) {
    return tf_results_fail(err, errlen, "%s: path too long", dir);
  }
  jsonl_rows rows;
  if (read_rows(jsonl_path, 1, NULL, &rows, err, errlen)) return -1;
  unsigned char* csv = NULL;
  size_t csvlen = 0;
  if (tf_file_read(&csv, &csvlen, csv_path, TF_RESULTS_MAX_FILE, err, errlen)) {
    free_rows(&rows);
    return -1;
  }
  tf_results_columns header, columns = {0};
  int rc = 0;
  if (tf_results_csv_header((const char*)csv, csvlen, &header)) {
    free(csv);
    free_rows(&rows);
    return tf_results_fail(err, errlen, "%s: not a results file of tightfit sweep", csv_path);
  }
  if (union_columns(&header, &rows, &columns, added) != 0) {
    rc = tf_results_fail(err, errlen, "%s: out of memory", csv_path);
  } else if (*added > 0) {
    rc = rebuild_csv(csv_path, &columns, rows.text, rows.line, rows.n, err, errlen);
  }
  tf_results_columns_free(&columns);
  tf_results_columns_free(&header);
  free(csv);
  free_rows(&rows);
  return rc;
}
