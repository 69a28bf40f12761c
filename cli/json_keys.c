// Repeated keys in a JSON object (json_keys.h): the members sorted by (key, position), so
// equal keys stand together with the first in the object first.
#include "json_keys.h"

#include <stdlib.h>
#include <string.h>

typedef struct member {
  const char* key;
  int index;
} member;

static int by_key_then_index(const void* pa, const void* pb) {
  const member* a = pa;
  const member* b = pb;
  int c = strcmp(a->key, b->key);
  if (c) return c;
  return (a->index > b->index) - (a->index < b->index);
}

unsigned char* tf_json_key_repeats(const cJSON* obj, int* n) {
  *n = 0;
  for (const cJSON* c = obj ? obj->child : NULL; c; c = c->next) (*n)++;
  if (*n == 0) return NULL;
  member* m = malloc(sizeof(*m) * (size_t)*n);
  unsigned char* flag = calloc((size_t)*n, 1);
  if (!m || !flag) {
    free(m);
    free(flag);
    return NULL;
  }
  int i = 0;
  for (const cJSON* c = obj->child; c; c = c->next, i++) {
    m[i].key = c->string ? c->string : "";
    m[i].index = i;
  }
  qsort(m, (size_t)*n, sizeof(*m), by_key_then_index);
  for (int k = 1; k < *n; k++) {
    if (strcmp(m[k].key, m[k - 1].key) != 0) continue;
    flag[m[k].index] = 2;
    // the first of the run of equal keys is the one before the first repeat
    if (flag[m[k - 1].index] != 2) flag[m[k - 1].index] = 1;
  }
  free(m);
  return flag;
}
