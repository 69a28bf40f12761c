// A sweep config's "assembly" key (sweep_assembly.h).
#include "sweep_assembly.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tf_sweep_assembly_rewrite(const char* text, const char* config_path, char** out, char* err,
                              size_t errlen) {
  *out = NULL;
  cJSON* root = cJSON_Parse(text);
  if (!root) return 0;
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(root, "assembly");
  int rc = 0;
  if (!cJSON_IsObject(root) || !a) goto done;
  if (!cJSON_IsString(a) || !a->valuestring[0]) {
    snprintf(err, errlen, "assembly: must be an assembly file's name (FILE.json)");
    rc = -1;
    goto done;
  }
  if (cJSON_GetObjectItemCaseSensitive(root, "task")) {
    snprintf(err, errlen, "assembly: runs task assembly: leave \"task\" out");
    rc = -1;
    goto done;
  }
  cJSON* set = cJSON_GetObjectItemCaseSensitive(root, "set");
  cJSON* grid = cJSON_GetObjectItemCaseSensitive(root, "grid");
  if ((cJSON_IsObject(set) && cJSON_GetObjectItemCaseSensitive(set, "assembly")) ||
      (cJSON_IsObject(grid) && cJSON_GetObjectItemCaseSensitive(grid, "assembly"))) {
    snprintf(err, errlen, "assembly: also in set or grid (give the file once)");
    rc = -1;
    goto done;
  }
  // the file relative to the config's folder
  const char* rel = a->valuestring;
  const char* slash = config_path ? strrchr(config_path, '/') : NULL;
  size_t dir = rel[0] != '/' && slash ? (size_t)(slash - config_path + 1) : 0;
  char* path = malloc(dir + strlen(rel) + 1);
  if (!path) goto oom;
  memcpy(path, config_path ? config_path : "", dir);
  memcpy(path + dir, rel, strlen(rel) + 1);
  // absolute, and the same however the config was named or wherever the sweep runs from: the
  // path is part of every run's id (a merge or a --resume from another folder finds the same
  // runs). A file that is not there stays as written, for the check to name it
  char* absolute = realpath(path, NULL);
  if (!set) set = cJSON_AddObjectToObject(root, "set");
  int ok = set && cJSON_IsObject(set) &&
           cJSON_AddStringToObject(set, "assembly", absolute ? absolute : path) &&
           cJSON_AddStringToObject(root, "task", "assembly");
  free(absolute);
  free(path);
  if (!ok && set && !cJSON_IsObject(set)) goto done;  // the config's own parse names "set"
  if (!ok) goto oom;
  cJSON_DeleteItemFromObjectCaseSensitive(root, "assembly");
  *out = cJSON_PrintUnformatted(root);
  if (!*out) goto oom;
  goto done;
oom:
  snprintf(err, errlen, "assembly: out of memory");
  rc = -1;
done:
  cJSON_Delete(root);
  return rc;
}
