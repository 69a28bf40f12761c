// Repeated keys in a JSON object, found in O(n log n): cJSON keeps every member of an object
// in order and finds only the first of a repeated name, so a config's checks ask this which
// members repeat an earlier one (300,000 keys took minutes with a pairwise scan).
#ifndef TF_JSON_KEYS_H
#define TF_JSON_KEYS_H

#include <cJSON.h>

// per member of obj, in order: 0 when its key is the first of its name and no later member
// repeats it, 1 when it is the first and a later one repeats it, 2 when it repeats an
// earlier one. malloc'd (free it), *n the member count; NULL when out of memory (or obj has
// no members: *n 0)
unsigned char* tf_json_key_repeats(const cJSON* obj, int* n);

#endif  // TF_JSON_KEYS_H
