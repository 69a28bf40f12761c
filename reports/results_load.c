// Reading results.jsonl line by line (see results_load.h).
#include "results_load.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// remembers why a line was skipped; past TF_RESULTS_SKIP_MAX only the count grows
static void skip_line(tf_results* r, int line, const char* why, long column) {
  if (r->nskip_kept < TF_RESULTS_SKIP_MAX) {
    tf_results_skip* s = &r->skip[r->nskip_kept++];
    s->line = line;
    if (column > 0) {
      snprintf(s->why, sizeof s->why, "%s at column %ld", why, column);
    } else {
      snprintf(s->why, sizeof s->why, "%s", why);
    }
  }
  r->nskipped++;
}

// appends a row, growing the arrays geometrically; -1 when out of memory
static int push_row(tf_results* r, cJSON* row, int line, int* cap) {
  if (r->nrow == *cap) {
    int ncap = *cap ? 2 * *cap : 64;
    cJSON** nrow = realloc(r->row, (size_t)ncap * sizeof *nrow);
    if (!nrow) return -1;
    r->row = nrow;
    int* nline = realloc(r->line, (size_t)ncap * sizeof *nline);
    if (!nline) return -1;
    r->line = nline;
    *cap = ncap;
  }
  r->row[r->nrow] = row;
  r->line[r->nrow] = line;
  r->nrow++;
  return 0;
}

// 1 when the text holds only whitespace
static int blank(const char* s) {
  for (; *s; s++) {
    if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') return 0;
  }
  return 1;
}

typedef enum read_status {
  READ_LINE = 0,  // a line (the last one may lack its newline)
  READ_END,       // nothing left
  READ_TOO_LONG,  // more than TF_RESULTS_LINE_MAX bytes without a line end
  READ_NO_MEMORY,
} read_status;

// reads one line into *buf (NUL-terminated, newline kept) and its length into *len, never
// holding more than TF_RESULTS_LINE_MAX bytes: getline(3) would grow without end on a file
// that never ends a line (a link to /dev/zero, gigabytes of one line). *nul: the line holds a
// NUL byte (strlen would cut it short)
static read_status read_line(FILE* f, char** buf, size_t* cap, size_t* len, int* nul) {
  *len = 0;
  *nul = 0;
  int c;
  while ((c = getc_unlocked(f)) != EOF) {
    if (*len >= TF_RESULTS_LINE_MAX) return READ_TOO_LONG;
    if (*len + 2 > *cap) {
      size_t ncap = *cap ? 2 * *cap : 4096;
      if (ncap > TF_RESULTS_LINE_MAX + 2) ncap = TF_RESULTS_LINE_MAX + 2;
      char* more = realloc(*buf, ncap);
      if (!more) return READ_NO_MEMORY;
      *buf = more;
      *cap = ncap;
    }
    (*buf)[(*len)++] = (char)c;
    if (c == 0) *nul = 1;
    if (c == '\n') break;
  }
  if (*len == 0) return READ_END;
  (*buf)[*len] = 0;
  return READ_LINE;
}

// opens path for reading when it is a regular file: a FIFO would block the report until a
// writer came (O_NONBLOCK keeps open from waiting), a device never ends
static FILE* open_regular(const char* path, char* err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    close(fd);
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "%s: not a regular file (a %s); give the results.jsonl a sweep wrote",
             path,
             S_ISFIFO(st.st_mode)  ? "FIFO"
             : S_ISDIR(st.st_mode) ? "folder"
                                   : "device");
    close(fd);
    return NULL;
  }
  if ((uint64_t)st.st_size > TF_RESULTS_BYTES_MAX) {
    snprintf(err, errlen, "%s: %lld bytes, over the %llu a report reads", path,
             (long long)st.st_size, (unsigned long long)TF_RESULTS_BYTES_MAX);
    close(fd);
    return NULL;
  }
  FILE* f = fdopen(fd, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    close(fd);
  }
  return f;
}

int tf_results_load(tf_results* r, const char* path, char* err, size_t errlen) {
  memset(r, 0, sizeof *r);
  FILE* f = open_regular(path, err, errlen);
  if (!f) return -1;
  char* buf = NULL;
  size_t bufcap = 0, n = 0, total = 0;
  int cap = 0, lineno = 0, status = 0, nul = 0;
  read_status got;
  errno = 0;
  while ((got = read_line(f, &buf, &bufcap, &n, &nul)) == READ_LINE) {
    lineno++;
    // the file can grow while it is read (a sweep still appending): bound what is read too
    total += n;
    if (total > TF_RESULTS_BYTES_MAX) {
      snprintf(err, errlen, "%s: over %llu bytes at line %d, more than a report reads", path,
               (unsigned long long)TF_RESULTS_BYTES_MAX, lineno);
      status = -1;
      break;
    }
    if (nul) {
      skip_line(r, lineno, "holds a NUL byte", 0);
      continue;
    }
    if (blank(buf)) continue;
    if (r->nrow >= TF_RESULTS_ROWS_MAX) {
      snprintf(err, errlen, "%s: more than %d rows at line %d, more than a report shows", path,
               TF_RESULTS_ROWS_MAX, lineno);
      status = -1;
      break;
    }
    const char* end = NULL;
    cJSON* row = cJSON_ParseWithOpts(buf, &end, 1);
    if (!row) {
      // a parse failure leaves `end` at the offending byte, which is what a user needs
      long column = end && end >= buf && end <= buf + n ? (long)(end - buf) + 1 : 0;
      skip_line(r, lineno, "not valid JSON", column);
      continue;
    }
    if (!cJSON_IsObject(row)) {
      skip_line(r, lineno, "not a JSON object", 0);
      cJSON_Delete(row);
      continue;
    }
    if (!row->child) {
      skip_line(r, lineno, "an empty object", 0);
      cJSON_Delete(row);
      continue;
    }
    if (push_row(r, row, lineno, &cap) != 0) {
      cJSON_Delete(row);
      snprintf(err, errlen, "%s: out of memory at line %d", path, lineno);
      status = -1;
      break;
    }
  }
  if (status == 0 && got == READ_TOO_LONG) {
    snprintf(err, errlen, "%s: line %d is over %d bytes, more than any run's row%s", path,
             lineno + 1, TF_RESULTS_LINE_MAX, nul ? " (and holds NUL bytes: not text)" : "");
    status = -1;
  } else if (status == 0 && got == READ_NO_MEMORY) {
    snprintf(err, errlen, "%s: out of memory at line %d", path, lineno + 1);
    status = -1;
  }
  if (status == 0 && ferror(f)) {
    snprintf(err, errlen, "%s: read failed after line %d: %s", path, lineno,
             strerror(errno ? errno : EIO));
    status = -1;
  }
  free(buf);
  fclose(f);
  // a report from part of the file would pass for the whole sweep: nothing, or all of it
  if (status != 0) tf_results_free(r);
  return status;
}

void tf_results_free(tf_results* r) {
  for (int i = 0; i < r->nrow; i++) cJSON_Delete(r->row[i]);
  free(r->row);
  free(r->line);
  memset(r, 0, sizeof *r);
}

int tf_results_number(const cJSON* row, const char* key, double* out) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(row, key);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return 0;
  *out = v->valuedouble;
  return 1;
}

const char* tf_results_text(const cJSON* row, const char* key) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(row, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

int tf_results_bool(const cJSON* row, const char* key, int* out) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(row, key);
  if (!cJSON_IsBool(v)) return 0;
  *out = cJSON_IsTrue(v) ? 1 : 0;
  return 1;
}
