// Sharding a sweep by run id (sweep_shard.h).
#include "sweep_shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tf_sweep_shard_of(const char* run_id, int nshard) {
  if (nshard <= 1) return 1;
  // ids are 16 hex digits of a hash: their value is evenly spread, so are the shards
  unsigned long long id = strtoull(run_id, NULL, 16);
  return (int)(id % (unsigned long long)nshard) + 1;
}

static int parse_count(const char* s, const char* end, long* out) {
  if (s == end || end - s > 9) return -1;
  long v = 0;
  for (const char* c = s; c < end; c++) {
    if (*c < '0' || *c > '9') return -1;
    v = v * 10 + (*c - '0');
  }
  *out = v;
  return 0;
}

int tf_sweep_shard_parse(const char* text, int* k, int* n, char* err, size_t errlen) {
  const char* slash = strchr(text, '/');
  long kv = 0, nv = 0;
  if (!slash || parse_count(text, slash, &kv) ||
      parse_count(slash + 1, slash + strlen(slash), &nv) || nv < 1 || nv > TF_SHARD_MAX || kv < 1 ||
      kv > nv) {
    snprintf(err, errlen, "--shard needs K/N with 1 <= K <= N <= %d, got '%s'", TF_SHARD_MAX, text);
    return -1;
  }
  *k = (int)kv;
  *n = (int)nv;
  return 0;
}

size_t tf_sweep_shard_dir(const char* dir, int k, char* out, size_t n) {
  int len = snprintf(out, n, "%s/shards/%d", dir, k);
  return len < 0 ? 0 : (size_t)len;
}
