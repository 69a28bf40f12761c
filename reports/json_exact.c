// Exact numbers in JSON (see json_exact.h). The tree is copied and each number of the copy
// becomes a raw item holding its exact text, which cJSON's printer writes verbatim: strings,
// keys and layout stay exactly as cJSON prints them, only the digits change.
#include "json_exact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tf_number_text(char out[TF_NUMBER_TEXT], double v) {
  int w;
  if (!isfinite(v)) {
    w = snprintf(out, TF_NUMBER_TEXT, "null");
  } else if (v == floor(v) && fabs(v) < 1e17) {
    // at most 17 digits, and %.0f is the exact value: a seed of 2^53 - 1 stays 9007199254740991
    w = snprintf(out, TF_NUMBER_TEXT, "%.0f", v);
  } else {
    // the shortest that reads back as the same bits: 0.005, not 0.0050000000000000001
    w = snprintf(out, TF_NUMBER_TEXT, "%.15g", v);
    if (strtod(out, NULL) != v) w = snprintf(out, TF_NUMBER_TEXT, "%.16g", v);
    if (strtod(out, NULL) != v) w = snprintf(out, TF_NUMBER_TEXT, "%.17g", v);
  }
  return w > 0 ? (size_t)w : 0;
}

// turns every number under item (item included) into a raw item with its exact text; -1 when
// out of memory
static int numbers_to_raw(cJSON* item) {
  for (; item; item = item->next) {
    if (cJSON_IsNumber(item)) {
      char text[TF_NUMBER_TEXT];
      size_t n = tf_number_text(text, item->valuedouble);
      // cJSON_Delete frees valuestring with cJSON's allocator: take it from there too
      char* raw = cJSON_malloc(n + 1);
      if (!raw) return -1;
      memcpy(raw, text, n + 1);
      item->valuestring = raw;
      item->type = cJSON_Raw | (item->type & cJSON_StringIsConst);
    } else if (item->child && numbers_to_raw(item->child) != 0) {
      return -1;
    }
  }
  return 0;
}

char* tf_json_print(const cJSON* item, int formatted) {
  if (!item) return NULL;
  cJSON* copy = cJSON_Duplicate(item, 1);
  if (!copy) return NULL;
  // a duplicate has no siblings: the walk covers the copy and what it holds
  char* text = NULL;
  int ok = numbers_to_raw(copy) == 0;
  if (ok) text = formatted ? cJSON_Print(copy) : cJSON_PrintUnformatted(copy);
  cJSON_Delete(copy);
  return text;
}

int tf_json_puts(FILE* f, const cJSON* item) {
  char* text = tf_json_print(item, 0);
  if (!text) return -1;
  fprintf(f, "%s\n", text);
  cJSON_free(text);
  return 0;
}
