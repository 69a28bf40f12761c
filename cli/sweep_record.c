// The runs a sweep records (see sweep_record.h).
#include "sweep_record.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_io.h"
#include "json_keys.h"
#include "npz_write.h"

#define FOLDER "record"

// record.runs: "all", or a list of distinct run numbers (in [0, nrun) when nrun is known)
static int check_runs(const cJSON* runs, int nrun, unsigned char* chosen, tf_config_errors* e) {
  if (cJSON_IsString(runs) && strcmp(runs->valuestring, "all") == 0) {
    for (int i = 0; chosen && i < nrun; i++) chosen[i] = 1;
    return 0;
  }
  if (!cJSON_IsArray(runs)) {
    return tf_config_fail(e, "record.runs: must be \"all\" or a list of run numbers");
  }
  int rc = 0, index = 0;
  for (const cJSON* v = runs->child; v; v = v->next, index++) {
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(x >= 0 && x <= 1e9) || x != floor(x)) {
      rc = tf_config_fail(e, "record.runs[%d]: must be a run number (0 is the first run)", index);
      continue;
    }
    // a repeat is most likely a typo for another run: name the first copy
    int k = 0;
    for (const cJSON* u = runs->child; u != v; u = u->next, k++) {
      if (cJSON_IsNumber(u) && u->valuedouble == x) break;
    }
    if (k < index) {
      rc = tf_config_fail(e, "record.runs[%d]: run %.0f is listed twice (record.runs[%d])", index,
                          x, k);
    } else if (chosen && x >= nrun) {
      rc = tf_config_fail(e,
                          "record.runs[%d]: run %.0f does not exist (the sweep has %d runs: 0 "
                          "to %d)",
                          index, x, nrun, nrun - 1);
    } else if (chosen) {
      chosen[(int)x] = 1;
    }
  }
  return rc;
}

int tf_sweep_record_select(const cJSON* section, int nrun, unsigned char* chosen,
                           tf_config_errors* e) {
  if (!section) return 0;
  if (!cJSON_IsObject(section)) {
    return tf_config_fail(e,
                          "record: must be an object, e.g. {\"runs\": [0, 3]} or "
                          "{\"runs\": \"all\"}");
  }
  int n = 0;
  unsigned char* repeat = tf_json_key_repeats(section, &n);
  if (!repeat && n > 0) return tf_config_oom(e);
  int rc = 0, index = 0;
  const cJSON* runs = NULL;
  for (const cJSON* item = section->child; item; item = item->next, index++) {
    if (repeat[index] == 2) continue;  // the config check names a repeated key
    if (strcmp(item->string, "runs") == 0) {
      runs = item;
    } else if (!chosen) {
      rc = tf_config_fail(e, "record.%s: unknown key (valid: runs)", item->string);
    }
  }
  free(repeat);
  if (!runs) {
    return chosen ? -1
                  : tf_config_fail(e, "record.runs: missing (\"all\" or a list of run numbers)");
  }
  // the form's problems are listed by the first pass only (the second runs only without any)
  if (check_runs(runs, nrun, chosen, e)) rc = -1;
  return rc;
}

void tf_sweep_record_path(const char* dir, const char* run_id, char* out, size_t n) {
  snprintf(out, n, "%s/" FOLDER "/%s.npz", dir, run_id);
}

int tf_sweep_record_prepare(const char* dir, char* err, size_t errlen) {
  char folder[TF_PATH_MAX];
  snprintf(folder, sizeof(folder), "%s/" FOLDER, dir);
  if (tf_mkdir_p(folder, err, errlen)) return -1;
  // the writer's own check: a temporary file created and removed in the folder
  char probe[TF_PATH_MAX + 32];
  tf_sweep_record_path(dir, "check", probe, sizeof(probe));
  tf_npz_writer* w = tf_npz_open(probe, NULL, err, errlen);
  if (!w) return -1;
  tf_npz_abort(w);
  return 0;
}

int tf_sweep_record_clean(const char* dir) {
  char folder[TF_PATH_MAX];
  snprintf(folder, sizeof(folder), "%s/" FOLDER, dir);
  DIR* d = opendir(folder);
  if (!d) return 0;
  int removed = 0;
  for (struct dirent* e; (e = readdir(d));) {
    if (!strstr(e->d_name, ".npz.tmp.")) continue;
    char path[TF_PATH_MAX + 300];
    snprintf(path, sizeof(path), "%s/%s", folder, e->d_name);
    if (unlink(path) == 0) removed++;
  }
  closedir(d);
  return removed;
}
