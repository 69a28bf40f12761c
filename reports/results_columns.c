// The CSV's column set (see results_internal.h): an ordered list of names with a hash index,
// so that "is this key a column yet" costs the same for the tenth key and the ten-thousandth.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results_internal.h"

int tf_results_reserved(const char* name) {
  return strcmp(name, "run_id") == 0 || strcmp(name, "command") == 0 ||
         strcmp(name, "error") == 0 || strcmp(name, "metrics_overflow") == 0;
}

// FNV-1a: short keys, no adversary to resist beyond a slow report
static uint32_t hash_of(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

// the slot holding name, or the empty slot where it would go
static int find_slot(const tf_results_columns* c, const char* name) {
  uint32_t mask = (uint32_t)c->nslot - 1;
  for (uint32_t i = hash_of(name) & mask;; i = (i + 1) & mask) {
    int k = c->slot[i];
    if (k == 0 || strcmp(c->name[k - 1], name) == 0) return (int)i;
  }
}

// indexes every name (those appended directly included), growing the table to keep it at
// most half full; -1 when out of memory
static int index_all(tf_results_columns* c, int extra) {
  if (c->nindexed == c->n && 2 * (c->n + extra) <= c->nslot) return 0;
  int nslot = c->nslot ? c->nslot : 16;
  while (2 * (c->n + extra) > nslot) nslot *= 2;
  if (nslot != c->nslot) {
    int* slot = calloc((size_t)nslot, sizeof(int));
    if (!slot) return -1;
    free(c->slot);
    c->slot = slot;
    c->nslot = nslot;
    c->nindexed = 0;
  }
  for (; c->nindexed < c->n; c->nindexed++) {
    int i = find_slot(c, c->name[c->nindexed]);
    if (c->slot[i] == 0) c->slot[i] = c->nindexed + 1;  // a duplicate keeps the first
  }
  return 0;
}

int tf_results_columns_has(const tf_results_columns* c, const char* name) {
  if (c->nslot > 0 && c->slot[find_slot(c, name)] != 0) return 1;
  for (int i = c->nindexed; i < c->n; i++) {
    if (strcmp(c->name[i], name) == 0) return 1;
  }
  return 0;
}

int tf_results_columns_add(tf_results_columns* c, const char* name) {
  if (index_all(c, 1) != 0) return -1;
  int i = find_slot(c, name);
  if (c->slot[i] != 0) return 0;
  char** more = realloc(c->name, sizeof(char*) * (size_t)(c->n + 1));
  if (!more) return -1;
  c->name = more;
  if (!(c->name[c->n] = strdup(name))) return -1;
  c->n++;
  c->slot[i] = c->n;
  c->nindexed = c->n;
  return 0;
}

void tf_results_columns_free(tf_results_columns* c) {
  for (int i = 0; i < c->n; i++) free(c->name[i]);
  free(c->name);
  free(c->slot);
  memset(c, 0, sizeof(*c));
}

int tf_results_columns_build(tf_results_columns* c, const char* const* names, int n,
                             const char* const* known, int nknown) {
  memset(c, 0, sizeof(*c));
  int rc = tf_results_columns_add(c, "run_id");
  // the known parameter columns the row lacks go just before "status": next to the row's own
  // parameters when the row has the runner's layout, else at the end
  int status = -1;
  for (int i = 0; i < n && status < 0; i++) {
    if (strcmp(names[i], "status") == 0) status = i;
  }
  for (int i = 0; i <= n && rc == 0; i++) {
    if (i == (status >= 0 ? status : n)) {
      for (int k = 0; k < nknown && rc == 0; k++) {
        if (!tf_results_reserved(known[k])) rc = tf_results_columns_add(c, known[k]);
      }
    }
    if (i < n && !tf_results_reserved(names[i])) rc = tf_results_columns_add(c, names[i]);
  }
  if (rc == 0) rc = tf_results_columns_add(c, "command");
  if (rc == 0) rc = tf_results_columns_add(c, "error");
  if (rc) tf_results_columns_free(c);
  return rc;
}
