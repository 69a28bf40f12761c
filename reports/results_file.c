// A sweep's results files: appending rows (see results_file.h). Rows are formatted in memory
// (open_memstream) and written with one write() each, so that nothing but a whole line ever
// reaches a file; recovery after a crash is in results_recover.c.
#include "results_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_io.h"
#include "json_exact.h"
#include "metrics_format.h"
#include "results_internal.h"

#define MAX_MISSING 64  // distinct names remembered for the "JSONL only" note

// a row that could not start, waiting for the first row that did to fix the columns
typedef struct pending_row {
  char* run_id;
  char* command;
  char* error;
  tf_metrics metrics;
} pending_row;

struct tf_results_file {
  int jsonl_fd, csv_fd;
  char jsonl_path[TF_PATH_MAX], csv_path[TF_PATH_MAX], dir[TF_PATH_MAX];
  tf_results_columns columns;  // n == 0 until the header is written
  char** known;
  int nknown;
  pending_row* pending;
  int npending;
  char* missing[MAX_MISSING];
  int nmissing, missing_total;
};

int tf_results_fail(char* err, size_t errlen, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static char* dup_text(const char* s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char* d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

// ---- cells

void tf_results_csv_text(FILE* f, const char* s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (const char* c = s; *c; c++) {
    if (*c == '"') fputc('"', f);
    fputc(*c, f);
  }
  fputc('"', f);
}

void tf_results_csv_metric(FILE* f, const tf_metric* m) {
  if (m->kind == TF_METRIC_TEXT) {
    // the same rule as tf_metric_csv_cell, without its cell-size limit
    tf_results_csv_text(f, m->text);
    return;
  }
  char cell[64];
  tf_metric_csv_cell(m, cell, sizeof(cell));
  fputs(cell, f);
}

int tf_results_csv_line(const tf_results_columns* c, tf_results_cell_fn cell, const void* ctx,
                        char** line, size_t* len) {
  *line = NULL;
  *len = 0;
  FILE* f = open_memstream(line, len);
  if (!f) return -1;
  for (int i = 0; i < c->n; i++) {
    if (i) fputc(',', f);
    cell(f, c->name[i], ctx);
  }
  fputc('\n', f);
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    free(*line);
    *line = NULL;
    return -1;
  }
  return 0;
}

typedef struct row_ctx {
  const char* run_id;
  const char* command;
  const char* error;
  const tf_metrics* metrics;
} row_ctx;

static void row_cell(FILE* f, const char* column, const void* ctx) {
  const row_ctx* r = ctx;
  if (strcmp(column, "run_id") == 0) {
    tf_results_csv_text(f, r->run_id);
  } else if (strcmp(column, "command") == 0) {
    if (r->command) tf_results_csv_text(f, r->command);
  } else if (strcmp(column, "error") == 0 && r->error) {
    tf_results_csv_text(f, r->error);
  } else {
    // includes "error" as the runner reports it for a run that did not build
    const tf_metric* m = tf_metrics_find(r->metrics, column);
    if (m) tf_results_csv_metric(f, m);
  }
}

// ---- writing

int tf_results_write_line(int fd, const char* path, const char* line, size_t len, char* err,
                          size_t errlen) {
  struct stat st;
  if (fstat(fd, &st) != 0) return tf_results_fail(err, errlen, "%s: %s", path, strerror(errno));
  ssize_t w;
  do {
    w = write(fd, line, len);
  } while (w < 0 && errno == EINTR);
  if (w == (ssize_t)len) return 0;
  int e = w < 0 ? errno : ENOSPC;
  // a short write (disk full) would leave half a line: cut the file back to where it was
  if (w > 0 && ftruncate(fd, st.st_size) != 0) {
    return tf_results_fail(err, errlen, "%s: %s; a partial line is left (run --resume to repair)",
                           path, strerror(e));
  }
  return tf_results_fail(err, errlen, "%s: %s", path, strerror(e));
}

// the row's JSON object as one line with its newline: run_id first, then the metrics, then
// command and error
static char* json_line(const tf_results_row* row, size_t* len) {
  cJSON* o = cJSON_CreateObject();
  cJSON* m = tf_metrics_to_json(row->metrics);
  char* text = NULL;
  if (o && m && cJSON_AddStringToObject(o, "run_id", row->run_id)) {
    while (m->child) {
      cJSON* item = cJSON_DetachItemViaPointer(m, m->child);
      // the runner's own "error" (a run that did not build) stays unless the row overrides it
      int skip =
          tf_results_reserved(item->string) && (strcmp(item->string, "error") != 0 || row->error);
      if (!skip) {
        cJSON_AddItemToObject(o, item->string, item);
      } else {
        cJSON_Delete(item);
      }
    }
    int ok = 1;
    if (row->command) ok = ok && cJSON_AddStringToObject(o, "command", row->command);
    if (row->error) ok = ok && cJSON_AddStringToObject(o, "error", row->error);
    if (row->metrics->overflow > 0) {
      ok = ok && cJSON_AddNumberToObject(o, "metrics_overflow", row->metrics->overflow);
    }
    if (ok) text = tf_json_print(o, 0);  // every digit: the CSV is rebuilt from these
  }
  cJSON_Delete(o);
  cJSON_Delete(m);
  if (!text) return NULL;
  // one extra byte for the newline, so the line goes out in one write()
  size_t n = strlen(text);
  char* line = malloc(n + 2);
  if (line) {
    memcpy(line, text, n);
    line[n] = '\n';
    line[n + 1] = 0;
    *len = n + 1;
  }
  cJSON_free(text);
  return line;
}

static void note_missing(tf_results_file* f, const tf_metrics* m) {
  for (int i = 0; i < m->n; i++) {
    const char* name = m->item[i].name;
    if (tf_results_columns_has(&f->columns, name) || tf_results_reserved(name)) continue;
    int seen = 0;
    for (int k = 0; k < f->nmissing && !seen; k++) seen = strcmp(f->missing[k], name) == 0;
    if (seen) continue;
    f->missing_total++;
    if (f->nmissing < MAX_MISSING && (f->missing[f->nmissing] = dup_text(name))) f->nmissing++;
  }
}

static int write_csv_row(tf_results_file* f, const char* run_id, const char* command,
                         const char* error, const tf_metrics* metrics, char* err, size_t errlen) {
  row_ctx ctx = {run_id, command, error, metrics};
  char* line = NULL;
  size_t len = 0;
  if (tf_results_csv_line(&f->columns, row_cell, &ctx, &line, &len)) {
    return tf_results_fail(err, errlen, "%s: out of memory", f->csv_path);
  }
  int rc = tf_results_write_line(f->csv_fd, f->csv_path, line, len, err, errlen);
  free(line);
  if (rc == 0) note_missing(f, metrics);
  return rc;
}

// fixes the columns from a row and writes the header line
static int write_header(tf_results_file* f, const tf_metrics* m, char* err, size_t errlen) {
  const char** names = calloc((size_t)m->n + 1, sizeof(char*));
  if (!names) return tf_results_fail(err, errlen, "%s: out of memory", f->csv_path);
  for (int i = 0; i < m->n; i++) names[i] = m->item[i].name;
  tf_results_columns columns;
  int rc = tf_results_columns_build(&columns, names, m->n, (const char* const*)f->known, f->nknown);
  free(names);
  if (rc) return tf_results_fail(err, errlen, "%s: out of memory", f->csv_path);
  char* line = NULL;
  size_t len = 0;
  FILE* s = open_memstream(&line, &len);
  if (s) {
    for (int i = 0; i < columns.n; i++) {
      if (i) fputc(',', s);
      tf_results_csv_text(s, columns.name[i]);
    }
    fputc('\n', s);
    if (fclose(s) != 0) {
      free(line);
      line = NULL;
    }
  }
  if (!line) {
    tf_results_columns_free(&columns);
    return tf_results_fail(err, errlen, "%s: out of memory", f->csv_path);
  }
  rc = tf_results_write_line(f->csv_fd, f->csv_path, line, len, err, errlen);
  free(line);
  if (rc) {
    tf_results_columns_free(&columns);
    return -1;
  }
  f->columns = columns;
  return 0;
}

static void pending_free(pending_row* p) {
  free(p->run_id);
  free(p->command);
  free(p->error);
}

// writes the header from m (when not yet written), then the waiting rows
static int flush_pending(tf_results_file* f, const tf_metrics* m, char* err, size_t errlen) {
  int rc = f->columns.n == 0 ? write_header(f, m, err, errlen) : 0;
  for (int i = 0; i < f->npending && rc == 0; i++) {
    pending_row* p = &f->pending[i];
    rc = write_csv_row(f, p->run_id, p->command, p->error, &p->metrics, err, errlen);
  }
  // on a failure the rows are still in the JSONL, and --resume rebuilds the CSV from it
  for (int i = 0; i < f->npending; i++) pending_free(&f->pending[i]);
  free(f->pending);
  f->pending = NULL;
  f->npending = 0;
  return rc;
}

int tf_results_append(tf_results_file* f, const tf_results_row* row, char* err, size_t errlen) {
  size_t len = 0;
  char* line = json_line(row, &len);
  if (!line) return tf_results_fail(err, errlen, "%s: out of memory", f->jsonl_path);
  // the JSONL first: it is the record --resume trusts, and recovery rebuilds the CSV from it
  int rc = tf_results_write_line(f->jsonl_fd, f->jsonl_path, line, len, err, errlen);
  free(line);
  if (rc) return -1;
  // a run that did not start or build has few columns: it must not fix the header
  int ran = !row->error && !tf_metrics_find(row->metrics, "error");
  if (f->columns.n == 0 && !ran) {
    pending_row* more = realloc(f->pending, sizeof(*more) * (size_t)(f->npending + 1));
    if (!more) return tf_results_fail(err, errlen, "%s: out of memory", f->csv_path);
    f->pending = more;
    pending_row* p = &f->pending[f->npending++];
    p->run_id = dup_text(row->run_id);
    p->command = dup_text(row->command);
    p->error = dup_text(row->error);
    p->metrics = *row->metrics;
    return 0;
  }
  if (flush_pending(f, row->metrics, err, errlen)) return -1;
  return write_csv_row(f, row->run_id, row->command, row->error, row->metrics, err, errlen);
}

int tf_results_csv_missing(const tf_results_file* f, const char** first) {
  if (first) *first = f->nmissing > 0 ? f->missing[0] : NULL;
  return f->missing_total;
}

// ---- opening and closing

int tf_results_path(char* out, size_t n, const char* dir, const char* name) {
  int w = snprintf(out, n, "%s/%s", dir, name);
  return w < 0 || (size_t)w >= n ? -1 : 0;
}

void tf_results_sync_dir(const char* dir) {
  // makes the files' directory entries durable too; best effort (some file systems refuse)
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);
  close(fd);
}

static void free_file(tf_results_file* f) {
  if (f->jsonl_fd >= 0) close(f->jsonl_fd);
  if (f->csv_fd >= 0) close(f->csv_fd);
  tf_results_columns_free(&f->columns);
  for (int i = 0; i < f->nknown; i++) free(f->known[i]);
  free(f->known);
  for (int i = 0; i < f->npending; i++) pending_free(&f->pending[i]);
  free(f->pending);
  for (int i = 0; i < f->nmissing; i++) free(f->missing[i]);
  free(f);
}

// the columns of an existing CSV (its header); n == 0 for a missing or empty file
static int read_header(tf_results_file* f, char* err, size_t errlen) {
  struct stat st;
  if (fstat(f->csv_fd, &st) != 0) {
    return tf_results_fail(err, errlen, "%s: %s", f->csv_path, strerror(errno));
  }
  if (st.st_size == 0) return 0;
  char last = 0;
  if (pread(f->csv_fd, &last, 1, st.st_size - 1) != 1 || last != '\n') {
    return tf_results_fail(err, errlen,
                           "%s: ends in a partial line (run the sweep with --resume to repair)",
                           f->csv_path);
  }
  // the header is a few KB at most; TF_RESULTS_HEADER_MAX bounds the read
  size_t cap = st.st_size < TF_RESULTS_HEADER_MAX ? (size_t)st.st_size : TF_RESULTS_HEADER_MAX;
  char* text = malloc(cap + 1);
  if (!text) return tf_results_fail(err, errlen, "%s: out of memory", f->csv_path);
  ssize_t got = pread(f->csv_fd, text, cap, 0);
  int rc = -1;
  if (got > 0) {
    text[got] = 0;
    rc = tf_results_csv_header(text, (size_t)got, &f->columns);
  }
  free(text);
  if (rc) {
    tf_results_columns_free(&f->columns);
    return tf_results_fail(err, errlen,
                           "%s: not a results file of tightfit sweep (its header does not start "
                           "with run_id)",
                           f->csv_path);
  }
  return 0;
}

int tf_results_open(tf_results_file** out, const char* dir, const char* const* known, int nknown,
                    char* err, size_t errlen) {
  *out = NULL;
  tf_results_file* f = calloc(1, sizeof(*f));
  if (!f) return tf_results_fail(err, errlen, "%s: out of memory", dir);
  f->jsonl_fd = f->csv_fd = -1;
  snprintf(f->dir, sizeof(f->dir), "%s", dir);
  if (tf_results_path(f->jsonl_path, sizeof(f->jsonl_path), dir, "results.jsonl") ||
      tf_results_path(f->csv_path, sizeof(f->csv_path), dir, "results.csv")) {
    free_file(f);
    return tf_results_fail(err, errlen, "%s: path too long", dir);
  }
  f->known = calloc((size_t)nknown + 1, sizeof(char*));
  if (!f->known) {
    free_file(f);
    return tf_results_fail(err, errlen, "%s: out of memory", dir);
  }
  for (; f->nknown < nknown; f->nknown++) {
    if (!(f->known[f->nknown] = dup_text(known[f->nknown]))) {
      free_file(f);
      return tf_results_fail(err, errlen, "%s: out of memory", dir);
    }
  }
  int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
  f->jsonl_fd = open(f->jsonl_path, flags, 0644);
  if (f->jsonl_fd < 0) {
    tf_results_fail(err, errlen, "%s: %s", f->jsonl_path, strerror(errno));
    free_file(f);
    return -1;
  }
  // read and append through one descriptor: O_APPEND writes ignore the read offset
  f->csv_fd = open(f->csv_path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (f->csv_fd < 0) {
    tf_results_fail(err, errlen, "%s: %s", f->csv_path, strerror(errno));
    free_file(f);
    return -1;
  }
  if (read_header(f, err, errlen)) {
    free_file(f);
    return -1;
  }
  *out = f;
  return 0;
}

int tf_results_close(tf_results_file* f, char* err, size_t errlen) {
  if (!f) return 0;
  int rc = 0;
  // every run so far could not start: their own columns are all there is
  if (f->npending > 0) rc = flush_pending(f, &f->pending[0].metrics, err, errlen);
  if (rc == 0 && (fsync(f->jsonl_fd) != 0 || fsync(f->csv_fd) != 0)) {
    rc = tf_results_fail(err, errlen, "%s: fsync: %s", f->dir, strerror(errno));
  }
  if (rc == 0) tf_results_sync_dir(f->dir);
  free_file(f);
  return rc;
}
