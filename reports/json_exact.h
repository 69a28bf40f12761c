// Numbers written exactly: the one place that turns a double into the text that JSON, JSONL
// and CSV files carry, so that a value read back is the same double, bit for bit, whichever
// file it came from. cJSON's own printer tries %.15g and keeps it when it reads back "close
// enough" (within a relative DBL_EPSILON), which turns 0.1 + 0.2 into 0.3 and the seed
// 2^53 - 1 into 9.00719925474099e+15; everything tightfit writes goes through here instead.
#ifndef TF_JSON_EXACT_H
#define TF_JSON_EXACT_H

#include <cJSON.h>
#include <stddef.h>
#include <stdio.h>

#define TF_NUMBER_TEXT 32  // room for any number's text, NUL included

// v as the shortest of %.15g / %.16g / %.17g that reads back (strtod) as v; integral values
// under 1e17 in magnitude as plain integers (seeds, counts: no exponent); NaN and inf as
// "null" (JSON has no token for them). Returns the length written
size_t tf_number_text(char out[TF_NUMBER_TEXT], double v);

// the tree as text, like cJSON_PrintUnformatted (formatted 0) or cJSON_Print (formatted 1),
// with every number written by tf_number_text; malloc'd (free with cJSON_free), NULL when out
// of memory
char* tf_json_print(const cJSON* item, int formatted);

// the tree printed by tf_json_print(item, 0) as one line on f; 0, or -1 when out of memory
// (nothing printed)
int tf_json_puts(FILE* f, const cJSON* item);

#endif  // TF_JSON_EXACT_H
