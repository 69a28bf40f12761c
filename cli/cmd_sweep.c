// `tightfit sweep CONFIG.json --out DIR [--jobs N] [--resume] [--force]`: expands a sweep
// config (sweep_config.h) into runs, runs them on a pool of threads, appends each finished
// run's row to DIR/results.jsonl and DIR/results.csv (results_file.h) in completion order,
// and ends with DIR/report.html.
//
// Runs are independent (tf_task_run is reentrant), so each thread takes the next run from a
// shared index and only the appends are serialized. A run's numbers do not depend on the
// thread count; the row order does. Ctrl-C stops handing out runs and lets the runs in
// flight finish and write their rows; a second Ctrl-C drops them, taking the results lock
// first so that no row is cut in half. Either way the files stay valid for --resume.
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "file_io.h"
#include "record.h"
#include "report.h"
#include "results_file.h"
#include "sweep_config.h"
#include "sweep_lock.h"
#include "sweep_mpi.h"
#include "sweep_pool.h"
#include "sweep_record.h"
#include "sweep_shard.h"
#include "sweep_video.h"
#include "task.h"
#include "interrupts.h"
#include "json_exact.h"

#define MAX_JOBS 1024
#define DEFAULT_RANK_TIMEOUT_S 30.0  // MPI: a rank signs life each second; 30 s allows a busy host
#define EXIT_INTERRUPTED 130  // the shell's code for a command ended by Ctrl-C (128 + SIGINT)

typedef struct sweep_args {
  const char* config;
  const char* out;
  int jobs;  // 0: one per core
  int resume, force;
  int shard, nshard;      // --shard K/N: this is part K of N (0 / 0: the whole sweep)
  int progress_json;      // --progress json: machine-readable progress lines on stdout
  double rank_timeout;    // MPI: seconds of silence after which a rank counts as dead
  char dir[TF_PATH_MAX];  // the folder the files go to: --out, or its shards/K
} sweep_args;

static int usage_error(const char* fmt, const char* arg) {
  fprintf(stderr, "tightfit sweep: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see tightfit sweep --help)\n");
  return TF_EXIT_USAGE;
}

static int parse_args(int argc, char** argv, sweep_args* a) {
  memset(a, 0, sizeof(*a));
  a->rank_timeout = DEFAULT_RANK_TIMEOUT_S;
  for (int i = 0; i < argc; i++) {
    const char* opt = argv[i];
    if (strcmp(opt, "--resume") == 0) {
      a->resume = 1;
    } else if (strcmp(opt, "--force") == 0) {
      a->force = 1;
    } else if (strcmp(opt, "--out") == 0 || strcmp(opt, "--jobs") == 0 ||
               strcmp(opt, "--shard") == 0 || strcmp(opt, "--progress") == 0 ||
               strcmp(opt, "--rank-timeout") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs a value", opt);
      const char* value = argv[++i];
      if (strcmp(opt, "--shard") == 0) {
        char err[256];
        if (tf_sweep_shard_parse(value, &a->shard, &a->nshard, err, sizeof(err))) {
          fprintf(stderr, "tightfit sweep: %s\n", err);
          return TF_EXIT_USAGE;
        }
      } else if (strcmp(opt, "--rank-timeout") == 0) {
        if (tf_cli_parse_number("--rank-timeout", value, 0.1, 86400, &a->rank_timeout)) {
          return TF_EXIT_USAGE;
        }
      } else if (strcmp(opt, "--progress") == 0) {
        if (strcmp(value, "json") != 0 && strcmp(value, "human") != 0) {
          fprintf(stderr, "tightfit sweep: --progress takes human or json, got '%s'\n", value);
          return TF_EXIT_USAGE;
        }
        a->progress_json = strcmp(value, "json") == 0;
      } else if (strcmp(opt, "--out") == 0) {
        if (!value[0]) return usage_error("%s needs a folder", opt);
        a->out = value;
      } else {
        char* end = NULL;
        long n = strtol(value, &end, 10);
        if (end == value || *end || n < 1 || n > MAX_JOBS) {
          fprintf(stderr, "tightfit sweep: --jobs needs a whole number in [1, %d], got '%s'\n",
                  MAX_JOBS, value);
          return TF_EXIT_USAGE;
        }
        a->jobs = (int)n;
      }
    } else if (opt[0] == '-' && opt[1]) {
      return usage_error("unknown option '%s'", opt);
    } else if (a->config) {
      fprintf(stderr, "tightfit sweep: one config file only (got '%s' and '%s')\n", a->config, opt);
      return TF_EXIT_USAGE;
    } else {
      a->config = opt;
    }
  }
  if (!a->config) return usage_error("%s", "a config file is required: tightfit sweep CONFIG.json");
  if (!a->out) return usage_error("%s", "--out DIR is required");
  if (a->resume && a->force) {
    return usage_error("%s", "--resume and --force exclude each other");
  }
  size_t need = a->shard ? tf_sweep_shard_dir(a->out, a->shard, a->dir, sizeof(a->dir))
                         : (size_t)snprintf(a->dir, sizeof(a->dir), "%s", a->out);
  if (need >= sizeof(a->dir)) return usage_error("--out '%s' is too long a path", a->out);
  return 0;
}

// ---- the output folder

static int folder_is_empty(const char* path) {
  DIR* d = opendir(path);
  if (!d) return 0;
  int empty = 1;
  for (struct dirent* e; empty && (e = readdir(d));) {
    empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, TF_SWEEP_LOCK_NAME) == 0;
  }
  closedir(d);
  return empty;
}

// refuses a folder with a sweep in it unless --resume or --force; --force deletes the results
// files (and the report made from them), nothing else
// The lock is taken before anything in the folder is read, deleted or written, and held
// until the sweep ends (the kernel drops it when the process dies, even by SIGKILL). The file
// stays: unlinking a lock file lets a third sweep lock a fresh inode while a second still
// holds the old one. *lock_fd is the open descriptor, or -1 after an error
static int prepare_folder(const sweep_args* a, int* lock_fd) {
  struct stat st;
  char err[TF_PATH_MAX + 256];
  *lock_fd = -1;
  if (stat(a->dir, &st) != 0) {
    if (tf_mkdir_p(a->dir, err, sizeof(err))) {
      fprintf(stderr, "tightfit sweep: %s\n", err);
      return TF_EXIT_USAGE;
    }
  } else if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "tightfit sweep: --out '%s' exists and is not a folder\n", a->dir);
    return TF_EXIT_USAGE;
  }
  int status = tf_sweep_lock(a->dir, lock_fd);
  if (status) return status;
  if (folder_is_empty(a->dir) || a->resume) return 0;
  if (!a->force) {
    fprintf(stderr,
            "tightfit sweep: '%s' is not empty; use --resume to continue its sweep or --force "
            "to start over\n",
            a->dir);
    return TF_EXIT_USAGE;
  }
  static const char* const stale[] = {"results.jsonl", "results.csv", "report.html"};
  for (size_t i = 0; i < sizeof(stale) / sizeof(stale[0]); i++) {
    char path[TF_PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/%s", a->dir, stale[i]);
    if (unlink(path) != 0 && errno != ENOENT) {
      fprintf(stderr, "tightfit sweep: %s: %s\n", path, strerror(errno));
      return TF_EXIT_FAIL;
    }
  }
  return 0;
}

// writes text to DIR/name through a temporary file and a rename
static int write_atomic(const char* dir, const char* name, const char* text, size_t len) {
  char err[TF_PATH_MAX + 256];
  if (tf_write_atomic(dir, name, text, len, err, sizeof(err)) == 0) return 0;
  fprintf(stderr, "tightfit sweep: %s\n", err);
  return -1;
}

// DIR/machine.json: where and with what the numbers were made, for the report
// (hosts: each rank's host, rank 0's first; one entry without MPI)
static int write_machine(const char* dir, int jobs, char (*hosts)[TF_MPI_HOST_LEN], int nrank) {
  cJSON* o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "hostname", hosts[0]);
  cJSON_AddNumberToObject(o, "cores", (double)sysconf(_SC_NPROCESSORS_ONLN));
  cJSON_AddNumberToObject(o, "jobs", jobs);
  cJSON_AddNumberToObject(o, "ranks", nrank);
  cJSON* list = cJSON_AddArrayToObject(o, "hosts");
  for (int r = 0; r < nrank; r++) cJSON_AddItemToArray(list, cJSON_CreateString(hosts[r]));
  cJSON_AddStringToObject(o, "tightfit_version", TF_VERSION);
#if defined(__clang__)
  cJSON_AddStringToObject(o, "compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
  cJSON_AddStringToObject(o, "compiler", "gcc " __VERSION__);
#else
  cJSON_AddStringToObject(o, "compiler", __VERSION__);
#endif
  struct utsname u;
  if (uname(&u) == 0) {
    char os[3 * sizeof(u.release)];
    snprintf(os, sizeof(os), "%s %s %s", u.sysname, u.release, u.machine);
    cJSON_AddStringToObject(o, "os", os);
  }
  char date[32] = "";
  time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc)) strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &utc);
  cJSON_AddStringToObject(o, "date", date);
  char* text = tf_json_print(o, 1);
  cJSON_Delete(o);
  if (!text) {
    fprintf(stderr, "tightfit sweep: out of memory\n");
    return -1;
  }
  size_t len = strlen(text);
  char* line = malloc(len + 2);
  int rc = -1;
  if (line) {
    memcpy(line, text, len);
    line[len] = '\n';
    rc = write_atomic(dir, "machine.json", line, len + 1);
  }
  free(line);
  cJSON_free(text);
  return rc;
}

// ---- the command

static void report_resume(const char* dir, const tf_results_done* done, int nrun, int npending) {
  if (done->dropped_bytes > 0) {
    fprintf(stderr, "[sweep] resume: cut a partial last line (%ld bytes) off %s/results.jsonl\n",
            done->dropped_bytes, dir);
  }
  if (done->bad_lines > 0) {
    fprintf(stderr, "[sweep] resume: ignored %d lines of %s/results.jsonl that are not rows\n",
            done->bad_lines, dir);
  }
  if (done->csv_rebuilt && done->csv_added > 0) {
    fprintf(stderr,
            "[sweep] resume: rewrote %s/results.csv from results.jsonl, adding the %d columns "
            "its header lacked\n",
            dir, done->csv_added);
  } else if (done->csv_rebuilt) {
    fprintf(stderr, "[sweep] resume: rewrote %s/results.csv from results.jsonl\n", dir);
  }
  fprintf(stderr, "[sweep] resume: %d of %d runs already done, %d to run\n", nrun - npending, nrun,
          npending);
}

// a shard folder resumed under another split would mix runs of two splits: refused before
// anything in it is written; returns 0 or TF_EXIT_USAGE
static int check_shard(const sweep_args* a) {
  char path[TF_PATH_MAX + 16];
  snprintf(path, sizeof(path), "%s/%s", a->dir, TF_SHARD_FILE);
  if (!a->shard || access(path, F_OK) != 0) return 0;
  unsigned char* old = NULL;
  size_t size = 0;
  char err[TF_PATH_MAX + 256];
  int same = 0;
  if (tf_file_read(&old, &size, path, 4096, err, sizeof(err)) == 0) {
    cJSON* o = cJSON_ParseWithLength((const char*)old, size);
    const cJSON* of = cJSON_GetObjectItemCaseSensitive(o, "of");
    same = cJSON_IsNumber(of) && of->valuedouble == a->nshard;
    cJSON_Delete(o);
    free(old);
  }
  if (same) return 0;
  fprintf(stderr, "tightfit sweep: %s: this folder holds a shard of another split than %d/%d\n",
          path, a->shard, a->nshard);
  return TF_EXIT_USAGE;
}

// DIR/shards/K/shard.json: which part of which split the folder holds, and the config file
// the sweep read (absolute: relative paths in the config resolve from its folder), for the
// merge
static int write_shard(const sweep_args* a, int nrun) {
  cJSON* o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "shard", a->shard);
  cJSON_AddNumberToObject(o, "of", a->nshard);
  cJSON_AddNumberToObject(o, "runs", nrun);
  char* config = realpath(a->config, NULL);
  cJSON_AddStringToObject(o, "config", config ? config : a->config);
  free(config);
  char* text = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!text) {
    fprintf(stderr, "tightfit sweep: out of memory\n");
    return -1;
  }
  size_t len = strlen(text);
  char* line = malloc(len + 2);
  int rc = -1;
  if (line) {
    memcpy(line, text, len);
    memcpy(line + len, "\n", 2);
    rc = write_atomic(a->dir, TF_SHARD_FILE, line, len + 1);
  }
  free(line);
  cJSON_free(text);
  return rc;
}

// the sweep proper, once the plan is valid and the folder is ours; returns the exit status
static int sweep_locked(const sweep_args* a, const tf_sweep_plan* plan, tf_sweep_mpi* mpi,
                        char (*hosts)[TF_MPI_HOST_LEN], int nrank) {
  int status = 0;
  int jobs = a->jobs > 0 ? a->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (jobs < 1) jobs = 1;
  if (write_atomic(a->dir, "config.json", plan->source, plan->source_len) ||
      write_machine(a->dir, jobs, hosts, nrank)) {
    return TF_EXIT_FAIL;
  }
  const char** known = calloc(TF_SWEEP_MAX_TASKS * 64 + 1, sizeof(char*));
  int* pending = calloc((size_t)plan->nrun + 1, sizeof(int));
  if (!known || !pending) {
    free(known);
    free(pending);
    fprintf(stderr, "tightfit sweep: out of memory\n");
    return TF_EXIT_FAIL;
  }
  int nknown = tf_sweep_plan_param_columns(plan, known, TF_SWEEP_MAX_TASKS * 64);
  char err[TF_PATH_MAX + 512];
  tf_results_done done;
  memset(&done, 0, sizeof(done));
  if (a->resume && tf_results_recover(a->dir, known, nknown, &done, err, sizeof(err))) {
    fprintf(stderr, "tightfit sweep: %s\n", err);
    free(known);
    free(pending);
    return TF_EXIT_FAIL;
  }
  // a shard's runs are those whose id falls to it; the rest belong to the other shards
  int nrun = 0, npending = 0;
  for (int i = 0; i < plan->nrun; i++) {
    if (a->shard && tf_sweep_shard_of(plan->run[i].id, a->nshard) != a->shard) continue;
    nrun++;
    if (!tf_results_done_has(&done, plan->run[i].id)) pending[npending++] = i;
  }
  if (a->shard && write_shard(a, nrun)) {
    tf_results_done_free(&done);
    free(known);
    free(pending);
    return TF_EXIT_FAIL;
  }
  if (a->resume) {
    report_resume(a->dir, &done, nrun, npending);
    // what an interrupted or crashed video left: its temporary file, an old thumbnail
    int removed = tf_sweep_video_clean(a->dir);
    if (removed > 0) {
      fprintf(stderr, "[sweep] resume: removed %d stale file%s from %s/videos\n", removed,
              removed == 1 ? "" : "s", a->dir);
    }
    // and a recording killed while its archive was being written (a second Ctrl-C)
    removed = tf_sweep_record_clean(a->dir);
    if (removed > 0) {
      fprintf(stderr, "[sweep] resume: removed %d stale file%s from %s/record\n", removed,
              removed == 1 ? "" : "s", a->dir);
    }
  }
  tf_results_done_free(&done);

  // the folder the recordings go to, before any run: a sweep that cannot write them stops here
  if (plan->recorded && tf_sweep_record_prepare(a->dir, err, sizeof(err))) {
    fprintf(stderr, "tightfit sweep: record: %s\n", err);
    free(known);
    free(pending);
    return TF_EXIT_FAIL;
  }
  tf_results_file* results = NULL;
  if (tf_results_open(&results, a->dir, known, nknown, err, sizeof(err))) {
    fprintf(stderr, "tightfit sweep: %s\n", err);
    free(known);
    free(pending);
    return TF_EXIT_FAIL;
  }
  free(known);
  tf_sweep_pool p;
  if (tf_sweep_pool_init(&p, plan, a->dir, pending, npending, nrun - npending, results)) {
    fprintf(stderr, "tightfit sweep: out of memory\n");
    tf_results_close(results, err, sizeof(err));
    free(pending);
    return TF_EXIT_FAIL;
  }
  p.progress_json = a->progress_json;
  if (npending > 0) {
    int threads = jobs < npending ? jobs : npending;
    char ranks[64] = "";
    if (nrank > 1) snprintf(ranks, sizeof(ranks), "%d ranks x ", nrank);
    fprintf(stderr, "[sweep] %d run%s on %s%d thread%s -> %s\n", npending, npending == 1 ? "" : "s",
            ranks, threads, threads == 1 ? "" : "s", a->dir);
    if (tf_sweep_pool_run(&p, threads, mpi ? tf_sweep_mpi_serve : NULL, mpi)) {
      status = TF_EXIT_FAIL;
    }
  }
  tf_sweep_mpi_drain(mpi, &p);
  const char* missing = NULL;
  char first_missing[TF_METRIC_NAME] = "";
  int nmissing = tf_results_csv_missing(p.results, &missing);
  if (missing) snprintf(first_missing, sizeof(first_missing), "%s", missing);
  if (tf_results_close(p.results, err, sizeof(err))) {
    fprintf(stderr, "tightfit sweep: %s\n", err);
    status = TF_EXIT_FAIL;
  }
  tf_sweep_pool_destroy(&p);
  free(pending);
  // rows of another task brought metrics the first row's header lacks: widen the CSV now that
  // no row is being appended (while the sweep ran, its columns stayed put)
  int added = 0;
  if (nmissing > 0 && tf_results_widen(a->dir, &added, err, sizeof(err)) == 0) {
    fprintf(stderr, "[sweep] results.csv: %d column%s added for metrics of later rows (%s%s)\n",
            added, added == 1 ? "" : "s", first_missing, added > 1 ? ", ..." : "");
  } else if (nmissing > 0) {
    fprintf(stderr, "tightfit sweep: %s; %d metric%s (%s%s) only in results.jsonl\n", err, nmissing,
            nmissing == 1 ? " is" : "s are", first_missing, nmissing > 1 ? ", ..." : "");
  }
  if (p.write_failed) {
    fprintf(stderr, "tightfit sweep: %s; stopped (rerun with --resume)\n", p.write_err);
    return TF_EXIT_FAIL;
  }
  if (p.stop && p.finished < p.npending) {
    fprintf(stderr, "[sweep] stopped: %d of %d runs done; rerun with --resume to finish\n",
            p.already + p.finished, nrun);
    return EXIT_INTERRUPTED;
  }
  if (p.nstart_failed > 1) {
    fprintf(stderr, "tightfit sweep: %d runs could not start (the first: %s)\n", p.nstart_failed,
            p.start_err);
  }
  if (a->shard) {
    // the videos and the report are the merge's: they need every shard's rows
    fprintf(stderr, "[sweep] shard %d/%d: %d runs in %s; join the shards with: tightfit merge %s\n",
            a->shard, a->nshard, p.already + p.finished, a->dir, a->out);
  } else if (p.already + p.finished > 0) {
    // the videos the config asks for, before the report that embeds them
    tf_sweep_video video;
    if (tf_sweep_video_parse(&video, plan->video, err, sizeof(err)) == 0 && video.on) {
      // Ctrl-C during a video stops it and removes its partial file (the flag is polled
      // every frame); --resume renders the videos again
      tf_cli_trap trap;
      video.options.cancel = tf_cli_trap_interrupts(&trap, 0);
      int rendered = tf_sweep_video_render(&video, plan, a->dir, err, sizeof(err));
      tf_cli_release_interrupts(&trap);
      if (rendered < 0 && *video.options.cancel) {
        fprintf(stderr, "[sweep] interrupted during the videos; rerun with --resume to finish\n");
        return EXIT_INTERRUPTED;
      }
      if (rendered < 0) {
        fprintf(stderr, "tightfit sweep: video: %s\n", err);
        if (status == 0) status = TF_EXIT_FAIL;
      }
    }
    if (tf_report_write(a->dir, err, sizeof(err))) {
      fprintf(stderr, "tightfit sweep: report: %s\n", err);
      if (status == 0) status = TF_EXIT_FAIL;
    } else {
      fprintf(stderr, "[sweep] report: %s/report.html\n", a->dir);
    }
  }
  if (status == 0 && p.failed > 0) status = TF_EXIT_FAIL;
  return status;
}

// the sweep under DIR/.lock; with MPI, the other ranks learn whether it goes ahead
static int sweep(const sweep_args* a, const tf_sweep_plan* plan, tf_sweep_mpi* mpi, int nrank) {
  int lock_fd = -1;
  int status = prepare_folder(a, &lock_fd);
  if (status == 0) status = check_shard(a);
  char(*hosts)[TF_MPI_HOST_LEN] = calloc((size_t)nrank, TF_MPI_HOST_LEN);
  if (!hosts && status == 0) {
    fprintf(stderr, "tightfit sweep: out of memory\n");
    status = TF_EXIT_FAIL;
  }
  if (tf_sweep_mpi_share(mpi, status, plan->source, plan->source_len, a->config, hosts) &&
      status == 0) {
    fprintf(stderr, "tightfit sweep: MPI could not send the config to the other ranks\n");
    status = TF_EXIT_FAIL;
  }
  if (status == 0) status = sweep_locked(a, plan, mpi, hosts, nrank);
  free(hosts);
  if (lock_fd >= 0) close(lock_fd);  // releases the lock
  return status;
}

int tf_cmd_sweep(int argc, char** argv) {
  sweep_args a;
  int status = parse_args(argc, argv, &a);
  if (status) return status;
  const tf_task_info* tasks[TF_SWEEP_MAX_TASKS * 4];
  int ntasks = 0;
  for (int i = 0; i < tf_task_count() && ntasks < (int)(sizeof(tasks) / sizeof(tasks[0])); i++) {
    tasks[ntasks++] = tf_task_at(i);
  }
  // under mpirun: rank 0 is the sweep, the others run what it hands them
  tf_sweep_mpi* mpi = NULL;
  int rank = 0, nrank = 1;
  char err[TF_CONFIG_ERRORS_TEXT];
  if (tf_sweep_mpi_start(&mpi, &rank, &nrank, a.rank_timeout, err, sizeof(err))) {
    fprintf(stderr, "tightfit sweep: %s\n", err);
    return TF_EXIT_USAGE;
  }
  if (rank > 0) {
    status = tf_sweep_mpi_worker(mpi, a.jobs > 0 ? a.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN),
                                 tasks, ntasks);
    tf_sweep_mpi_end(mpi);
    return status;
  }
  tf_sweep_plan plan;
  // every problem in the config is reported before the folder is touched or anything runs,
  // one line each
  if (tf_sweep_plan_load(&plan, a.config, tasks, ntasks, err, sizeof(err))) {
    for (char *line = err, *next; line; line = next) {
      next = strchr(line, '\n');
      if (next) *next++ = 0;
      fprintf(stderr, "tightfit sweep: %s\n", line);
    }
    tf_sweep_mpi_share(mpi, TF_EXIT_USAGE, NULL, 0, NULL, NULL);
    tf_sweep_mpi_end(mpi);
    return TF_EXIT_USAGE;
  }
  // a safety net: the config check above already checked the video settings
  tf_sweep_video video;
  if (tf_sweep_video_parse(&video, plan.video, err, sizeof(err))) {
    fprintf(stderr, "tightfit sweep: %s: %s\n", a.config, err);
    tf_sweep_plan_free(&plan);
    tf_sweep_mpi_share(mpi, TF_EXIT_USAGE, NULL, 0, NULL, NULL);
    tf_sweep_mpi_end(mpi);
    return TF_EXIT_USAGE;
  }
  status = sweep(&a, &plan, mpi, nrank);
  tf_sweep_plan_free(&plan);
  tf_sweep_mpi_end(mpi);
  return status;
}
