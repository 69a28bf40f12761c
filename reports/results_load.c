// Reading results.jsonl line by line (see results_load.h).
#include "results_load.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int tf_results_load(tf_results* r, const char* path, char* err, size_t errlen) {
  memset(r, 0, sizeof *r);
  FILE* f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  char* buf = NULL;
  size_t bufcap = 0;
  int cap = 0, lineno = 0, status = 0;
  ssize_t n;
  errno = 0;
  while ((n = getline(&buf, &bufcap, f)) >= 0) {
    lineno++;
    if (strlen(buf) != (size_t)n) {
      skip_line(r, lineno, "holds a NUL byte", 0);
      continue;
    }
    if (blank(buf)) continue;
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
  if (status == 0 && ferror(f)) {
    snprintf(err, errlen, "%s: read failed after line %d: %s", path, lineno,
             strerror(errno ? errno : EIO));
    status = -1;
  }
  free(buf);
  fclose(f);
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
