// `tightfit merge DIR`: joins the finished shards of a sweep (`tightfit sweep CONFIG --out DIR
// --shard K/N`, sweep_shard.h) into DIR: config.json, machine.json, results.jsonl,
// results.csv, record/, the config's videos and report.html, as one unsharded sweep would
// have left them, timings aside.
//
// Everything is checked before anything is written, and every problem is named, one line
// each: no shards, a shard.json missing or malformed, shards of different splits, shards of
// different configs (compared byte for byte, and with DIR/config.json when an earlier merge
// left one), a shard of 1..N missing, a shard with runs still to do, a row that is not the
// shard's. Then, under DIR's lock (sweep_lock.h) and with each shard's lock held so that no
// shard changes under the merge:
//
// - results.jsonl holds the shards' lines byte for byte (no re-serialisation), in the plan's
//   run order, so the file depends on the rows alone and not on which shard finished first;
// - results.csv is built from it by tf_results_recover (results_file.h), the function that
//   rebuilds a resumed sweep's CSV, in a staging folder DIR/.merge.XXXXXX beside the
//   destination; both files are renamed into place from there (each rename atomic);
// - machine.json lists the shards' machine.json objects under "shards" (in shard order) and
//   their hostnames under "hosts" (each once, in shard order), and no clock: merging twice
//   gives the same bytes in every file but the report's videos;
// - record/<run_id>.npz: the recorded runs' files from their shards, hard-linked (copied
//   where a link is refused).
//
// Exit status: 0 merged, 1 a file could not be written (or a video, the report), 2 a check
// failed (nothing written) or bad usage.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "file_io.h"
#include "interrupts.h"
#include "json_exact.h"
#include "report.h"
#include "results_file.h"
#include "sweep_config.h"
#include "sweep_lock.h"
#include "sweep_record.h"
#include "sweep_shard.h"
#include "sweep_video.h"
#include "task.h"

#define EXIT_INTERRUPTED 130
#define SHARD_JSON_MAX 4096
#define RESULTS_MAX ((size_t)1 << 30)  // a shard's results.jsonl (1 GiB: ~10^6 rows)
#define ROW_ERRORS_SHOWN 20            // rows of the wrong shard named before "... and N more"

// one folder DIR/shards/K
typedef struct merge_shard {
  int k;                  // the folder's number
  int of, runs;           // shard.json: "of" (N) and "runs" (M)
  char dir[TF_PATH_MAX];  // DIR/shards/K
  unsigned char* config;  // its config.json, as read
  size_t config_len;
  char* config_path;  // shard.json's "config": the file the sweep read (relative paths in the
                      // config, an assembly file's, resolve from its folder); NULL if none
  char* jsonl;        // its results.jsonl (NULL when it has none)
  size_t jsonl_len;
  int lock_fd;  // its lock, held from the checks to the end
} merge_shard;

// where a plan run's row lies: in which shard, at which bytes of its results.jsonl
typedef struct row_at {
  int shard;  // index into the shard array, -1: no row
  size_t at, len;
} row_at;

// the plan's ids, sorted, for looking rows up
typedef struct id_index {
  const char* id;
  int run;
} id_index;

typedef struct merge {
  const char* dir;
  char shards_dir[TF_PATH_MAX];
  merge_shard* shard;  // sorted by k
  int nshard;
  int nsplit;  // N
  tf_sweep_plan plan;
  int have_plan;
  row_at* row;   // (plan.nrun)
  int* owner;    // (plan.nrun) the shard each run falls to
  int* nowned;   // (nsplit + 1) runs per shard
  int problems;  // check failures printed
} merge;

static void problem(merge* m, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(char* err, size_t errlen, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// one check failure: one line on stderr
static void problem(merge* m, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tightfit merge: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  m->problems++;
}

// a message into err; returns -1
static int fail(char* err, size_t errlen, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static int compare_shards(const void* a, const void* b) {
  return ((const merge_shard*)a)->k - ((const merge_shard*)b)->k;
}

static int compare_index(const void* a, const void* b) {
  return strcmp(((const id_index*)a)->id, ((const id_index*)b)->id);
}

static void free_merge(merge* m) {
  for (int i = 0; i < m->nshard; i++) {
    free(m->shard[i].config);
    free(m->shard[i].config_path);
    free(m->shard[i].jsonl);
    if (m->shard[i].lock_fd >= 0) close(m->shard[i].lock_fd);  // releases the lock
  }
  free(m->shard);
  free(m->row);
  free(m->owner);
  free(m->nowned);
  if (m->have_plan) tf_sweep_plan_free(&m->plan);
}

// a folder name that is a shard number (1..TF_SHARD_MAX, no sign, no leading zero)
static int shard_number(const char* name) {
  if (name[0] < '1' || name[0] > '9' || strlen(name) > 5) return 0;
  long v = 0;
  for (const char* c = name; *c; c++) {
    if (*c < '0' || *c > '9') return 0;
    v = v * 10 + (*c - '0');
  }
  return v <= TF_SHARD_MAX ? (int)v : 0;
}

static int is_folder(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

// ---- the checks

// the shard folders of DIR/shards, sorted; 0, or -1 after naming the problem
static int find_shards(merge* m) {
  DIR* d = opendir(m->shards_dir);
  if (!d) {
    problem(m, "%s: no shards to merge (%s); run tightfit sweep CONFIG --out %s --shard K/N first",
            m->shards_dir, strerror(errno), m->dir);
    return -1;
  }
  int cap = 0;
  for (struct dirent* e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[TF_PATH_MAX + 300];
    snprintf(path, sizeof(path), "%s/%s", m->shards_dir, e->d_name);
    if (!is_folder(path)) continue;
    int k = shard_number(e->d_name);
    if (!k) {
      problem(m, "%s: not a shard folder (shards are folders named 1 to N)", path);
      continue;
    }
    if (m->nshard == cap) {
      cap = cap ? 2 * cap : 16;
      merge_shard* more = realloc(m->shard, sizeof(*more) * (size_t)cap);
      if (!more) {
        closedir(d);
        problem(m, "out of memory");
        return -1;
      }
      m->shard = more;
    }
    merge_shard* s = &m->shard[m->nshard++];
    memset(s, 0, sizeof(*s));
    s->k = k;
    s->lock_fd = -1;
    size_t len = strlen(path);
    if (len >= sizeof(s->dir)) {
      m->nshard--;
      problem(m, "%s: path too long", path);
      continue;
    }
    memcpy(s->dir, path, len + 1);
  }
  closedir(d);
  if (m->nshard == 0 && m->problems == 0) {
    problem(m, "%s: no shards to merge; run tightfit sweep CONFIG --out %s --shard K/N first",
            m->shards_dir, m->dir);
  }
  if (m->nshard > 0) qsort(m->shard, (size_t)m->nshard, sizeof(*m->shard), compare_shards);
  return m->problems ? -1 : 0;
}

// a whole number in [lo, hi] from a JSON member, or -1
static int json_count(const cJSON* o, const char* key, int lo, int hi) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int)v->valuedouble) return -1;
  int n = (int)v->valuedouble;
  return n >= lo && n <= hi ? n : -1;
}

// reads shard.json and config.json of one shard, and locks it
static void read_shard(merge* m, merge_shard* s) {
  char path[TF_PATH_MAX + 32], err[TF_PATH_MAX + 256];
  snprintf(path, sizeof(path), "%s/%s", s->dir, TF_SHARD_FILE);
  unsigned char* text = NULL;
  size_t size = 0;
  if (access(path, F_OK) != 0) {
    problem(m, "%s: missing; not a finished shard folder (tightfit sweep --shard K/N writes it)",
            path);
  } else if (tf_file_read(&text, &size, path, SHARD_JSON_MAX, err, sizeof(err))) {
    problem(m, "%s", err);
  } else {
    cJSON* o = cJSON_ParseWithLength((const char*)text, size);
    int k = json_count(o, "shard", 1, TF_SHARD_MAX);
    s->of = json_count(o, "of", 1, TF_SHARD_MAX);
    s->runs = json_count(o, "runs", 0, TF_SWEEP_MAX_RUNS);
    if (!cJSON_IsObject(o) || k < 0 || s->of < 0 || s->runs < 0 || k > s->of) {
      problem(m, "%s: malformed (expected {\"shard\": K, \"of\": N, \"runs\": M})", path);
      s->of = -1;
    } else if (k != s->k) {
      problem(m, "%s: says shard %d/%d, but its folder is shards/%d", path, k, s->of, s->k);
      s->of = -1;
    }
    const cJSON* from = cJSON_GetObjectItemCaseSensitive(o, "config");
    if (cJSON_IsString(from) && from->valuestring[0]) s->config_path = strdup(from->valuestring);
    cJSON_Delete(o);
    free(text);
  }
  snprintf(path, sizeof(path), "%s/config.json", s->dir);
  if (access(path, F_OK) != 0) {
    problem(m, "%s: missing; not a finished shard folder", path);
  } else if (tf_file_read(&s->config, &s->config_len, path, TF_SWEEP_MAX_CONFIG, err,
                          sizeof(err))) {
    problem(m, "%s", err);
  }
}

// the split all shards share; 0, or -1 after naming the mix
static int check_split(merge* m) {
  m->nsplit = m->shard[0].of;
  int mixed = -1;
  for (int i = 1; i < m->nshard; i++) {
    if (m->shard[i].of != m->nsplit && mixed < 0) mixed = i;
  }
  if (mixed < 0) return 0;
  const merge_shard *a = &m->shard[0], *b = &m->shard[mixed];
  problem(m,
          "%s: mixed splits (shards/%d is shard %d/%d, shards/%d is shard %d/%d); merge the "
          "shards of one split, move the others away",
          m->shards_dir, a->k, a->k, a->of, b->k, b->k, b->of);
  return -1;
}

// the shards' config.json are the same bytes, and the same as DIR/config.json when present
static int check_configs(merge* m) {
  const merge_shard* first = &m->shard[0];
  for (int i = 1; i < m->nshard; i++) {
    const merge_shard* s = &m->shard[i];
    if (s->config_len != first->config_len || memcmp(s->config, first->config, s->config_len)) {
      problem(m, "%s/config.json differs from %s/config.json; refusing to merge mixed configs",
              s->dir, first->dir);
    }
  }
  char path[TF_PATH_MAX + 32], err[TF_PATH_MAX + 256];
  snprintf(path, sizeof(path), "%s/config.json", m->dir);
  if (m->problems == 0 && access(path, F_OK) == 0) {
    unsigned char* text = NULL;
    size_t size = 0;
    if (tf_file_read(&text, &size, path, TF_SWEEP_MAX_CONFIG, err, sizeof(err))) {
      problem(m, "%s", err);
    } else if (size != first->config_len || memcmp(text, first->config, size)) {
      problem(m,
              "%s differs from the shards' config (%s/config.json); refusing to merge mixed "
              "configs (remove %s's results files to merge these shards)",
              path, first->dir, m->dir);
    }
    free(text);
  }
  return m->problems ? -1 : 0;
}

// the plan, from the first shard's config.json (the task registry, as tf_cmd_sweep)
static int load_plan(merge* m) {
  const tf_task_info* tasks[TF_SWEEP_MAX_TASKS * 4];
  int ntasks = 0;
  for (int i = 0; i < tf_task_count() && ntasks < (int)(sizeof(tasks) / sizeof(tasks[0])); i++) {
    tasks[ntasks++] = tf_task_at(i);
  }
  char path[TF_PATH_MAX + 32];
  snprintf(path, sizeof(path), "%s/config.json", m->shard[0].dir);
  char err[TF_CONFIG_ERRORS_TEXT];
  // the copy's bytes, read as the sweep read them: paths in it from the original's folder
  const merge_shard* first = &m->shard[0];
  int rc = first->config_path
               ? tf_sweep_plan_parse_at(&m->plan, (const char*)first->config, first->config_path,
                                        tasks, ntasks, err, sizeof(err))
               : tf_sweep_plan_load(&m->plan, path, tasks, ntasks, err, sizeof(err));
  if (rc) {
    for (char *line = err, *next; line; line = next) {
      next = strchr(line, '\n');
      if (next) *next++ = 0;
      if (first->config_path) {
        problem(m, "%s (read as %s): %s", path, first->config_path, line);
      } else {
        problem(m, "%s", line);
      }
    }
    return -1;
  }
  m->have_plan = 1;
  m->row = malloc(sizeof(*m->row) * ((size_t)m->plan.nrun + 1));
  m->owner = malloc(sizeof(int) * ((size_t)m->plan.nrun + 1));
  m->nowned = calloc((size_t)m->nsplit + 1, sizeof(int));
  if (!m->row || !m->owner || !m->nowned) {
    problem(m, "out of memory");
    return -1;
  }
  for (int i = 0; i < m->plan.nrun; i++) {
    m->row[i].shard = -1;
    m->owner[i] = tf_sweep_shard_of(m->plan.run[i].id, m->nsplit);
    m->nowned[m->owner[i]]++;
  }
  return 0;
}

// the run id of a JSONL line, or NULL when it is not a row (the caller frees the tree)
static const char* line_id(cJSON** tree, const char* s, size_t len) {
  *tree = cJSON_ParseWithLength(s, len);
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(*tree, "run_id");
  return cJSON_IsObject(*tree) && cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

// one shard's rows: each must be a run of the plan that falls to this shard; every run of the
// shard must have one. *shown counts the row lines named so far (all shards)
static void check_rows(merge* m, int si, const id_index* index, int* shown, int* hidden) {
  merge_shard* s = &m->shard[si];
  char path[TF_PATH_MAX + 32], err[TF_PATH_MAX + 256];
  snprintf(path, sizeof(path), "%s/results.jsonl", s->dir);
  if (access(path, F_OK) == 0) {
    unsigned char* data = NULL;
    if (tf_file_read(&data, &s->jsonl_len, path, RESULTS_MAX, err, sizeof(err))) {
      problem(m, "%s", err);
      return;
    }
    s->jsonl = (char*)data;
  }
  int expected = m->nowned[s->k];
  if (s->runs != expected) {
    problem(m, "%s/%s: says %d runs, but the config gives shard %d/%d %d runs", s->dir,
            TF_SHARD_FILE, s->runs, s->k, m->nsplit, expected);
  }
  // whole lines only: a partial last one (a killed sweep) is a run not done yet
  int done = 0, notrow = 0, line = 0;
  for (size_t at = 0; s->jsonl && at < s->jsonl_len;) {
    const char* nl = memchr(s->jsonl + at, '\n', s->jsonl_len - at);
    if (!nl) break;
    size_t len = (size_t)(nl - (s->jsonl + at));
    line++;
    cJSON* tree = NULL;
    const char* id = line_id(&tree, s->jsonl + at, len);
    if (!id) {
      notrow += strspn(s->jsonl + at, " \t\r") < len;
    } else {
      id_index key = {id, -1};
      const id_index* hit =
          bsearch(&key, index, (size_t)m->plan.nrun, sizeof(*index), compare_index);
      int owner = hit ? m->owner[hit->run] : 0;
      const char* why = !hit ? "is not a run of the shards' config" : NULL;
      if (hit && owner != s->k) why = "belongs to another shard";
      if (why) {
        m->problems++;
        if ((*shown)++ < ROW_ERRORS_SHOWN) {
          if (hit) {
            fprintf(stderr, "tightfit merge: %s line %d: run %s %s (%d/%d), not %d/%d\n", path,
                    line, id, why, owner, m->nsplit, s->k, m->nsplit);
          } else {
            fprintf(stderr, "tightfit merge: %s line %d: run %s %s\n", path, line, id, why);
          }
        } else {
          (*hidden)++;
        }
      } else {
        row_at* r = &m->row[hit->run];
        done += r->shard < 0;
        // a run written twice (never by a sweep; by hand): the later line, as the later word
        r->shard = si;
        r->at = at;
        r->len = len + 1;
      }
    }
    cJSON_Delete(tree);
    at += len + 1;
  }
  if (notrow > 0) {
    fprintf(stderr, "[merge] %s: %d line%s that %s not rows left out\n", path, notrow,
            notrow == 1 ? "" : "s", notrow == 1 ? "is" : "are");
  }
  if (done < expected) {
    problem(m,
            "shard %d/%d: %d of %d runs done; finish it with tightfit sweep %s/config.json --out "
            "%s --shard %d/%d --resume",
            s->k, m->nsplit, done, expected, s->dir, m->dir, s->k, m->nsplit);
  }
}

// every check, in order; 0 when the shards can be merged
static int check(merge* m) {
  if (find_shards(m)) return -1;
  for (int i = 0; i < m->nshard; i++) read_shard(m, &m->shard[i]);
  if (m->problems) return -1;
  // no shard may change while it is read and merged
  for (int i = 0; i < m->nshard; i++) {
    int status = tf_sweep_lock(m->shard[i].dir, &m->shard[i].lock_fd);
    if (status) m->problems++;  // tf_sweep_lock named it
  }
  if (m->problems || check_split(m) || check_configs(m) || load_plan(m)) return -1;
  // every shard of the split is there
  char* present = calloc((size_t)m->nsplit + 1, 1);
  if (!present) {
    problem(m, "out of memory");
    return -1;
  }
  for (int i = 0; i < m->nshard; i++) present[m->shard[i].k] = 1;
  for (int k = 1; k <= m->nsplit; k++) {
    if (present[k]) continue;
    problem(m, "shard %d/%d is missing: %s/%d; run it with --shard %d/%d", k, m->nsplit,
            m->shards_dir, k, k, m->nsplit);
  }
  free(present);
  id_index* index = malloc(sizeof(*index) * ((size_t)m->plan.nrun + 1));
  if (!index) {
    problem(m, "out of memory");
    return -1;
  }
  for (int i = 0; i < m->plan.nrun; i++) index[i] = (id_index){m->plan.run[i].id, i};
  qsort(index, (size_t)m->plan.nrun, sizeof(*index), compare_index);
  int shown = 0, hidden = 0;
  for (int i = 0; i < m->nshard; i++) check_rows(m, i, index, &shown, &hidden);
  if (hidden > 0) fprintf(stderr, "tightfit merge: ... and %d more such rows\n", hidden);
  free(index);
  return m->problems ? -1 : 0;
}

// ---- writing

// text to DIR/name through a temporary file and a rename; 0, or -1 after a message
static int write_atomic(const char* dir, const char* name, const void* text, size_t len) {
  char err[TF_PATH_MAX + 256];
  if (tf_write_atomic(dir, name, text, len, err, sizeof(err)) == 0) return 0;
  fprintf(stderr, "tightfit merge: %s\n", err);
  return -1;
}

// DIR/machine.json: {"hosts": [...], "tightfit_version": V (when the shards share it),
// "shards": [each shard's machine.json, null when it has none]}
static int write_machine(const merge* m) {
  cJSON* o = cJSON_CreateObject();
  cJSON* hosts = cJSON_AddArrayToObject(o, "hosts");
  cJSON* shards = cJSON_CreateArray();
  const char* version = NULL;
  int same_version = 1;
  for (int i = 0; i < m->nshard; i++) {
    char path[TF_PATH_MAX + 32], err[TF_PATH_MAX + 256];
    snprintf(path, sizeof(path), "%s/machine.json", m->shard[i].dir);
    unsigned char* text = NULL;
    size_t size = 0;
    cJSON* one = NULL;
    if (tf_file_read(&text, &size, path, 1u << 20, err, sizeof(err)) == 0) {
      one = cJSON_ParseWithLength((const char*)text, size);
      free(text);
    }
    if (!cJSON_IsObject(one)) {
      fprintf(stderr, "[merge] %s: missing or not a JSON object; listed as null\n", path);
      cJSON_Delete(one);
      one = cJSON_CreateNull();
    }
    const cJSON* host = cJSON_GetObjectItemCaseSensitive(one, "hostname");
    int seen = !cJSON_IsString(host);
    for (const cJSON* h = hosts ? hosts->child : NULL; h && !seen; h = h->next) {
      seen = strcmp(h->valuestring, host->valuestring) == 0;
    }
    if (!seen) cJSON_AddItemToArray(hosts, cJSON_CreateString(host->valuestring));
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(one, "tightfit_version");
    if (!cJSON_IsString(v) || (version && strcmp(version, v->valuestring) != 0)) same_version = 0;
    if (cJSON_IsString(v) && !version) version = v->valuestring;
    cJSON_AddItemToArray(shards, one);
  }
  if (same_version && version) cJSON_AddStringToObject(o, "tightfit_version", version);
  cJSON_AddItemToObject(o, "shards", shards);
  char* text = tf_json_print(o, 1);
  cJSON_Delete(o);
  if (!text) {
    fprintf(stderr, "tightfit merge: out of memory\n");
    return -1;
  }
  size_t len = strlen(text);
  int rc = -1;
  char* line = malloc(len + 2);
  if (line) {
    memcpy(line, text, len);
    line[len] = '\n';
    rc = write_atomic(m->dir, "machine.json", line, len + 1);
  }
  free(line);
  cJSON_free(text);
  return rc;
}

// removes a staging folder and the files in it
static void remove_staging(const char* path) {
  DIR* d = opendir(path);
  if (d) {
    for (struct dirent* e; (e = readdir(d));) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char child[TF_PATH_MAX + 300];
      snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
      unlink(child);
    }
    closedir(d);
  }
  rmdir(path);
}

// what a killed merge left: DIR/.merge.XXXXXX folders (none is in use: we hold the lock)
static void clean_staging(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return;
  for (struct dirent* e; (e = readdir(d));) {
    if (strncmp(e->d_name, ".merge.", 7) != 0) continue;
    char path[TF_PATH_MAX + 300];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    remove_staging(path);
  }
  closedir(d);
}

// DIR/results.jsonl (the rows in plan order) and DIR/results.csv (tf_results_recover's
// rebuild of it), made in a staging folder and renamed into place
static int write_results(const merge* m) {
  char staging[TF_PATH_MAX], path[TF_PATH_MAX + 32], dest[TF_PATH_MAX + 32] = "";
  char err[TF_PATH_MAX + 512];
  if ((size_t)snprintf(staging, sizeof(staging), "%s/.merge.XXXXXX", m->dir) >= sizeof(staging) ||
      !mkdtemp(staging)) {
    fprintf(stderr, "tightfit merge: %s: cannot make a staging folder: %s\n", m->dir,
            strerror(errno));
    return -1;
  }
  snprintf(path, sizeof(path), "%s/results.jsonl", staging);
  tf_atomic_file file;
  int rc = tf_atomic_open(&file, path, err, sizeof(err));
  if (rc == 0) {
    for (int i = 0; i < m->plan.nrun; i++) {
      const row_at* r = &m->row[i];
      fwrite(m->shard[r->shard].jsonl + r->at, 1, r->len, file.f);
    }
    rc = tf_atomic_commit(&file, err, sizeof(err));
  }
  // the CSV from the JSONL, as a resumed sweep rebuilds it: the columns of the first row that
  // ran, the plan's parameter columns, then every other key the rows have
  const char** known = calloc(TF_SWEEP_MAX_TASKS * 64 + 1, sizeof(char*));
  if (rc == 0 && !known) rc = fail(err, sizeof(err), "out of memory");
  if (rc == 0) {
    int nknown = tf_sweep_plan_param_columns(&m->plan, known, TF_SWEEP_MAX_TASKS * 64);
    tf_results_done done;
    rc = tf_results_recover(staging, known, nknown, &done, err, sizeof(err));
    if (rc == 0) {
      if (done.n != m->plan.nrun) {
        rc =
            fail(err, sizeof(err), "%s: %d rows read back, %d written", path, done.n, m->plan.nrun);
      }
      tf_results_done_free(&done);
    }
  }
  free(known);
  // the JSONL first: it is the record, and a CSV that disagrees is rebuilt from it
  static const char* const names[] = {"results.jsonl", "results.csv"};
  for (int i = 0; i < 2 && rc == 0; i++) {
    snprintf(path, sizeof(path), "%s/%s", staging, names[i]);
    snprintf(dest, sizeof(dest), "%s/%s", m->dir, names[i]);
    if (rename(path, dest) != 0) {
      rc = fail(err, sizeof(err), "%s: %s", dest, strerror(errno));
    }
  }
  if (rc) fprintf(stderr, "tightfit merge: %s\n", err);
  remove_staging(staging);
  if (rc == 0) tf_sync_folder(dest);
  return rc;
}

// copies src to dest through a temporary file (a recording on another file system)
static int copy_file(const char* src, const char* dest, char* err, size_t errlen) {
  FILE* in = fopen(src, "rb");
  if (!in) {
    snprintf(err, errlen, "%s: %s", src, strerror(errno));
    return -1;
  }
  tf_atomic_file file;
  if (tf_atomic_open(&file, dest, err, errlen)) {
    fclose(in);
    return -1;
  }
  char buf[1 << 16];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), in)) > 0;) fwrite(buf, 1, n, file.f);
  int bad = ferror(in);
  fclose(in);
  if (bad) {
    tf_atomic_abort(&file);
    snprintf(err, errlen, "%s: read error", src);
    return -1;
  }
  return tf_atomic_commit(&file, err, errlen);
}

// src into dest: a hard link renamed over dest (a copy where links are refused); nothing to
// do when dest already is src
static int place_recording(const char* src, const char* dest, char* err, size_t errlen) {
  struct stat a, b;
  if (stat(src, &a) != 0) {
    snprintf(err, errlen, "%s: %s", src, strerror(errno));
    return -1;
  }
  if (stat(dest, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) return 0;
  char tmp[TF_PATH_MAX + 320];
  snprintf(tmp, sizeof(tmp), "%s.merge.tmp", dest);
  unlink(tmp);
  if (link(src, tmp) == 0) {
    if (rename(tmp, dest) == 0) return 0;
    snprintf(err, errlen, "%s: %s", dest, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return copy_file(src, dest, err, errlen);
}

// the recordings of the plan's recorded runs, each from the shard it fell to, into
// DIR/record (a recording of a run the config no longer has stays behind in its shard);
// returns the count, or -1 after a message
static int merge_recordings(const merge* m) {
  char dest_dir[TF_PATH_MAX + 32], err[2 * TF_PATH_MAX + 256];
  snprintf(dest_dir, sizeof(dest_dir), "%s/record", m->dir);
  int placed = 0;
  for (int i = 0; m->plan.recorded && i < m->plan.nrun; i++) {
    if (!m->plan.recorded[i]) continue;
    char src[TF_PATH_MAX + 64], dest[TF_PATH_MAX + 64];
    const merge_shard* s = &m->shard[m->row[i].shard];
    tf_sweep_record_path(s->dir, m->plan.run[i].id, src, sizeof(src));
    if (access(src, F_OK) != 0) continue;  // a run that failed before it recorded anything
    if (placed == 0 && tf_mkdir_p(dest_dir, err, sizeof(err))) {
      fprintf(stderr, "tightfit merge: %s\n", err);
      return -1;
    }
    tf_sweep_record_path(m->dir, m->plan.run[i].id, dest, sizeof(dest));
    if (place_recording(src, dest, err, sizeof(err))) {
      fprintf(stderr, "tightfit merge: record: %s\n", err);
      return -1;
    }
    placed++;
  }
  if (placed > 0) {
    char inside[TF_PATH_MAX + 64];
    snprintf(inside, sizeof(inside), "%s/.", dest_dir);  // a path in the folder: its own sync
    tf_sync_folder(inside);
  }
  return placed;
}

// the merge proper, once every check passed and DIR is locked; returns the exit status
static int write_merge(const merge* m) {
  const merge_shard* first = &m->shard[0];
  clean_staging(m->dir);
  if (write_atomic(m->dir, "config.json", first->config, first->config_len) || write_machine(m) ||
      write_results(m)) {
    return TF_EXIT_FAIL;
  }
  fprintf(stderr, "[merge] %d shards, %d runs -> %s/results.jsonl, results.csv\n", m->nshard,
          m->plan.nrun, m->dir);
  int recorded = merge_recordings(m);
  if (recorded < 0) return TF_EXIT_FAIL;
  if (recorded > 0) fprintf(stderr, "[merge] %d recordings -> %s/record\n", recorded, m->dir);
  int status = 0;
  char err[TF_PATH_MAX + 512];
  tf_sweep_video video;
  if (tf_sweep_video_parse(&video, m->plan.video, err, sizeof(err)) == 0 && video.on) {
    // Ctrl-C stops a video and removes its partial file; merging again renders them again
    tf_cli_trap trap;
    video.options.cancel = tf_cli_trap_interrupts(&trap, 0);
    int rendered = tf_sweep_video_render(&video, &m->plan, m->dir, err, sizeof(err));
    tf_cli_release_interrupts(&trap);
    if (rendered < 0 && *video.options.cancel) {
      fprintf(stderr, "[merge] interrupted during the videos; merge again to finish\n");
      return EXIT_INTERRUPTED;
    }
    if (rendered < 0) {
      fprintf(stderr, "tightfit merge: video: %s\n", err);
      status = TF_EXIT_FAIL;
    }
  }
  if (tf_report_write(m->dir, err, sizeof(err))) {
    fprintf(stderr, "tightfit merge: report: %s\n", err);
    return TF_EXIT_FAIL;
  }
  fprintf(stderr, "[merge] report: %s/report.html\n", m->dir);
  return status;
}

int tf_cmd_merge(int argc, char** argv) {
  const char* dir = NULL;
  for (int i = 0; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "tightfit merge: unknown option '%s' (see tightfit merge --help)\n", argv[i]);
      return TF_EXIT_USAGE;
    }
    if (dir) {
      fprintf(stderr, "tightfit merge: one folder only (got '%s' and '%s')\n", dir, argv[i]);
      return TF_EXIT_USAGE;
    }
    dir = argv[i];
  }
  if (!dir || !dir[0]) {
    fprintf(stderr,
            "tightfit merge: needs the --out folder of a sharded sweep: tightfit merge DIR (see "
            "tightfit merge --help)\n");
    return TF_EXIT_USAGE;
  }
  merge m;
  memset(&m, 0, sizeof(m));
  m.dir = dir;
  if ((size_t)snprintf(m.shards_dir, sizeof(m.shards_dir), "%s/shards", dir) >=
      sizeof(m.shards_dir) - 64) {
    fprintf(stderr, "tightfit merge: '%s' is too long a path\n", dir);
    return TF_EXIT_USAGE;
  }
  if (!is_folder(dir)) {
    fprintf(stderr, "tightfit merge: %s: not a folder (%s)\n", dir,
            access(dir, F_OK) == 0 ? "a file" : "missing");
    return TF_EXIT_USAGE;
  }
  if (!is_folder(m.shards_dir)) {
    fprintf(stderr,
            "tightfit merge: %s: no shards to merge; run tightfit sweep CONFIG --out %s --shard "
            "K/N first\n",
            m.shards_dir, dir);
    return TF_EXIT_USAGE;
  }
  // one merge or sweep at a time in DIR
  int lock_fd = -1;
  int status = tf_sweep_lock(dir, &lock_fd);
  if (status) return status;
  if (check(&m)) {
    status = TF_EXIT_USAGE;
  } else {
    status = write_merge(&m);
  }
  free_merge(&m);
  close(lock_fd);
  return status;
}
