// The videos a sweep renders after its runs (see sweep_video.h).
#include "sweep_video.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_keys.h"
#include "results_load.h"

// the section's settings into v, each problem into e with its JSON path, carrying on past a
// bad setting to the next; a repeated key is read from its first copy (the config check names
// the repeat). 0, or -1 when anything was wrong
static int read_section(tf_sweep_video* v, const cJSON* section, tf_config_errors* e) {
  memset(v, 0, sizeof(*v));
  tf_video_options_default(&v->options);
  v->max = 8;
  if (!section) return 0;
  if (!cJSON_IsObject(section)) return tf_config_fail(e, "video: must be an object");
  v->on = 1;
  int n = 0;
  unsigned char* repeat = tf_json_key_repeats(section, &n);
  if (!repeat && n > 0) return tf_config_oom(e);
  int rc = 0, index = 0;
  for (const cJSON* item = section->child; item; item = item->next, index++) {
    if (repeat[index] == 2) continue;
    const char* key = item->string;
    if (strcmp(key, "select") == 0) {
      static const char* const names[] = {"worst", "best", "both", "failed", "all"};
      int found = -1;
      for (int k = 0; k < 5 && cJSON_IsString(item); k++) {
        if (strcmp(item->valuestring, names[k]) == 0) found = k;
      }
      if (found < 0) {
        rc = tf_config_fail(e, "video.select: must be one of worst, best, both, failed, all");
      } else {
        v->pick = (tf_pick)found;
      }
    } else if (strcmp(key, "camera") == 0) {
      const char* c = cJSON_IsString(item) ? item->valuestring : "";
      if (strcmp(c, "closeup") == 0) {
        v->options.view = TF_VIEW_CLOSEUP;
      } else if (strcmp(c, "wide") == 0) {
        v->options.view = TF_VIEW_WIDE;
      } else if (strcmp(c, "grid") == 0) {
        v->options.view = TF_VIEW_GRID;
      } else {
        rc = tf_config_fail(e, "video.camera: must be closeup, wide or grid");
      }
    } else if (strcmp(key, "fps") == 0 || strcmp(key, "max") == 0) {
      double x = cJSON_IsNumber(item) ? item->valuedouble : NAN;
      int is_fps = strcmp(key, "fps") == 0;
      double hi = is_fps ? 240 : 1000;
      if (!(x >= 1 && x <= hi) || x != floor(x)) {
        rc = tf_config_fail(e, "video.%s: must be a whole number in [1, %g]", key, hi);
      } else if (is_fps) {
        v->options.fps = (int)x;
      } else {
        v->max = (int)x;
      }
    } else if (strcmp(key, "size") == 0) {
      int w = 0, h = 0;
      char tail = 0;
      if (!cJSON_IsString(item) || sscanf(item->valuestring, "%dx%d%c", &w, &h, &tail) != 2 ||
          w < 16 || h < 16 || w > 4096 || h > 4096 || w % 2 || h % 2) {
        rc = tf_config_fail(e, "video.size: must be \"WIDTHxHEIGHT\", even, 16 to 4096");
      } else {
        v->options.width = w, v->options.height = h;
      }
    } else {
      rc = tf_config_fail(e, "video.%s: unknown key (valid: select, camera, fps, size, max)", key);
    }
  }
  free(repeat);
  return rc;
}

int tf_sweep_video_check(const cJSON* section, tf_config_errors* e) {
  tf_sweep_video v;
  return read_section(&v, section, e);
}

int tf_sweep_video_parse(tf_sweep_video* v, const cJSON* section, char* err, size_t errlen) {
  tf_config_errors* e = calloc(1, sizeof(*e));
  if (!e) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  int rc = read_section(v, section, e);
  if (rc) snprintf(err, errlen, "%s", e->n > 0 ? e->msg[0] : "invalid video settings");
  free(e);
  return rc;
}

// how bad a run was: larger is worse (failed / diverged, missed, tunnelled, slip, overlap)
static double badness(const cJSON* row) {
  const char* status = tf_results_text(row, "status");
  int success = 0;
  tf_results_bool(row, "success", &success);
  double score = 0, x;
  if (!status || strcmp(status, "ok") != 0) score += 1e6;
  if (!success) score += 1e5;
  if (tf_results_number(row, "tunnel.through", &x)) score += 1e3 * x;
  if (tf_results_number(row, "tunnel.flythrough", &x)) score += 1e3 * x;
  if (tf_results_number(row, "gear_slip.skipped_teeth", &x)) score += fmin(x, 100);
  if (tf_results_number(row, "overlap.peak_m", &x)) score += fmin(1e3 * x, 100);
  return score;
}

static int run_index(const tf_sweep_plan* plan, const char* id) {
  for (int i = 0; id && i < plan->nrun; i++) {
    if (strcmp(plan->run[i].id, id) == 0) return i;
  }
  return -1;
}

int tf_sweep_video_render(const tf_sweep_video* v, const tf_sweep_plan* plan, const char* dir,
                          char* err, size_t errlen) {
  if (!v->on) return 0;
  char path[4096];
  snprintf(path, sizeof(path), "%s/results.jsonl", dir);
  tf_results res;
  if (tf_results_load(&res, path, err, errlen)) return -1;
  // the chosen rows, as indices into res.row
  int* chosen = calloc((size_t)res.nrow + 1, sizeof(int));
  if (!chosen) {
    tf_results_free(&res);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  int nchosen = 0;
  if (v->pick == TF_PICK_ALL || v->pick == TF_PICK_FAILED) {
    for (int i = 0; i < res.nrow; i++) {
      if (v->pick == TF_PICK_ALL || badness(res.row[i]) >= 1e3) chosen[nchosen++] = i;
    }
  } else {
    for (int t = 0; t < plan->ntask; t++) {
      int best = -1, worst = -1;
      for (int i = 0; i < res.nrow; i++) {
        const char* task = tf_results_text(res.row[i], "task");
        if (!task || strcmp(task, plan->task[t]->name) != 0) continue;
        // ties keep the first row in the file: deterministic for a given results.jsonl
        if (best < 0 || badness(res.row[i]) < badness(res.row[best])) best = i;
        if (worst < 0 || badness(res.row[i]) > badness(res.row[worst])) worst = i;
      }
      if (v->pick != TF_PICK_BEST && worst >= 0) chosen[nchosen++] = worst;
      if (v->pick != TF_PICK_WORST && best >= 0 && best != worst) chosen[nchosen++] = best;
    }
  }
  if (nchosen > v->max) nchosen = v->max;
  snprintf(path, sizeof(path), "%s/videos", dir);
  if (nchosen > 0 && mkdir(path, 0755) != 0 && errno != EEXIST) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    free(chosen);
    tf_results_free(&res);
    return -1;
  }
  int written = 0, rc = 0;
  for (int k = 0; k < nchosen && rc == 0; k++) {
    const char* id = tf_results_text(res.row[chosen[k]], "run_id");
    int run = run_index(plan, id);
    if (run < 0) continue;  // a row of an older config resumed into this folder
    tf_run_options o;
    tf_sweep_run_options(plan, run, &o);
    char mp4[4096 + 64], png[4096 + 64];
    snprintf(mp4, sizeof(mp4), "%s/videos/%s.mp4", dir, id);
    snprintf(png, sizeof(png), "%s/videos/%s.png", dir, id);
    tf_video_options opt = v->options;
    opt.thumbnail = png;
    fprintf(stderr, "[sweep] video %d/%d: %s\n", k + 1, nchosen, mp4);
    if (tf_video_render_run(&o, &opt, mp4, NULL, err, errlen)) {
      rc = -1;
    } else {
      written++;
    }
  }
  free(chosen);
  tf_results_free(&res);
  return rc ? -1 : written;
}

// 1 when name ends with suffix
static int ends_with(const char* name, const char* suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n > k && strcmp(name + n - k, suffix) == 0;
}

int tf_sweep_video_clean(const char* dir) {
  char folder[4096];
  snprintf(folder, sizeof(folder), "%s/videos", dir);
  DIR* d = opendir(folder);
  if (!d) return 0;
  int removed = 0;
  for (struct dirent* e; (e = readdir(d));) {
    char path[4096 + 300], video[4096 + 300];
    snprintf(path, sizeof(path), "%s/%s", folder, e->d_name);
    int stale = strstr(e->d_name, ".tmp.") != NULL;
    if (!stale && ends_with(e->d_name, ".png")) {
      // a thumbnail without its video (older versions wrote it first)
      size_t n = strlen(path);
      snprintf(video, sizeof(video), "%.*s.mp4", (int)(n - 4), path);
      struct stat st;
      stale = stat(video, &st) != 0 && errno == ENOENT;
    }
    if (stale && unlink(path) == 0) removed++;
  }
  closedir(d);
  return removed;
}
