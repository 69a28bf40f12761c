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
#include "sweep_record.h"
#include "sweep_shard.h"
#include "sweep_video.h"
#include "task.h"
#include "interrupts.h"
#include "json_exact.h"

#define MAX_JOBS 1024
#define EXIT_INTERRUPTED 130  // the shell's code for a command ended by Ctrl-C (128 + SIGINT)
#define POLL_NS 200000000L    // the main thread checks for Ctrl-C and redraws 5 times a second
#define LOG_EVERY_S 10.0      // progress lines when stderr is not a terminal

typedef struct sweep_args {
  const char* config;
  const char* out;
  int jobs;  // 0: one per core
  int resume, force;
  int shard, nshard;     // --shard K/N: this is part K of N (0 / 0: the whole sweep)
  int progress_json;     // --progress json: machine-readable progress lines on stdout
  char dir[TF_PATH_MAX];  // the folder the files go to: --out, or its shards/K
} sweep_args;

// the state the threads share; every field below `lock` is guarded by it
typedef struct sweep_pool {
  const tf_sweep_plan* plan;
  const char* dir;     // the output folder (recordings go to DIR/record)
  const int* pending;  // plan run indices still to run
  int npending;
  int already;  // runs finished by an earlier sweep into the same folder
  pthread_mutex_t lock;
  pthread_cond_t changed;
  tf_results_file* results;
  int next;      // the next pending run to hand out
  int running;   // threads still working
  int inflight;  // runs being computed
  int finished, failed, diverged;
  int stop;          // hand out no more runs (Ctrl-C or a write error)
  int write_failed;  // the results files could not take a row: the sweep stops
  char write_err[512];
  int nstart_failed;    // runs tf_task_run refused (bad options it alone could see)
  char start_err[640];  // "run ID: " and the runner's message (512)
  int start_err_shown;
  int progress_json;  // progress as JSON lines on stdout (--progress json)
} sweep_pool;

static int usage_error(const char* fmt, const char* arg) {
  fprintf(stderr, "tightfit sweep: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see tightfit sweep --help)\n");
  return TF_EXIT_USAGE;
}

static int parse_args(int argc, char** argv, sweep_args* a) {
  memset(a, 0, sizeof(*a));
  for (int i = 0; i < argc; i++) {
    const char* opt = argv[i];
    if (strcmp(opt, "--resume") == 0) {
      a->resume = 1;
    } else if (strcmp(opt, "--force") == 0) {
      a->force = 1;
    } else if (strcmp(opt, "--out") == 0 || strcmp(opt, "--jobs") == 0 ||
               strcmp(opt, "--shard") == 0 || strcmp(opt, "--progress") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs a value", opt);
      const char* value = argv[++i];
      if (strcmp(opt, "--shard") == 0) {
        char err[256];
        if (tf_sweep_shard_parse(value, &a->shard, &a->nshard, err, sizeof(err))) {
          fprintf(stderr, "tightfit sweep: %s\n", err);
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
  char path[TF_PATH_MAX], err[TF_PATH_MAX + 256];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  tf_atomic_file file;
  if (tf_atomic_open(&file, path, err, sizeof(err)) == 0) {
    fwrite(text, 1, len, file.f);
    if (tf_atomic_commit(&file, err, sizeof(err)) == 0) return 0;
  }
  fprintf(stderr, "tightfit sweep: %s\n", err);
  return -1;
}

// DIR/machine.json: where and with what the numbers were made, for the report
static int write_machine(const char* dir, int jobs) {
  cJSON* o = cJSON_CreateObject();
  char host[256] = "";
  if (gethostname(host, sizeof(host) - 1) != 0) snprintf(host, sizeof(host), "unknown");
  cJSON_AddStringToObject(o, "hostname", host);
  cJSON_AddNumberToObject(o, "cores", (double)sysconf(_SC_NPROCESSORS_ONLN));
  cJSON_AddNumberToObject(o, "jobs", jobs);
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

// ---- the pool

// a row for a run tf_task_run refused: what was asked, so the row still says which run it is
static void refused_row(tf_metrics* m, const tf_run_options* o, const tf_task_info* task) {
  tf_metrics_clear(m);
  tf_metrics_set_text(m, "task", o->task);
  tf_metrics_set_text(m, "mode", o->mode == TF_MODE_ROBOT ? "robot" : "rig");
  tf_metrics_set_text(m, "solver", tf_solver_name(o->physics.solver));
  tf_metrics_set(m, "dt", o->physics.dt > 0 ? o->physics.dt : task->default_dt);
  tf_metrics_set_int(m, "substeps", o->physics.substeps);
  tf_metrics_set_int(m, "iterations", o->physics.iterations);
  tf_metrics_set_int(m, "relinearize", o->physics.relinearize);
  tf_metrics_set(m, "persist_tol", o->physics.persist_tol);
  tf_metrics_set(m, "duration", o->duration > 0 ? o->duration : task->default_duration);
  tf_metrics_set_int(m, "envs", o->envs);
  tf_metrics_set_int(m, "seed", (long)o->seed);
  for (int k = 0; k < o->nset; k++) {
    char* end = NULL;
    double x = strtod(o->set[k].value, &end);
    if (end != o->set[k].value && *end == 0 && isfinite(x)) {
      tf_metrics_set(m, o->set[k].key, x);
    } else {
      tf_metrics_set_text(m, o->set[k].key, o->set[k].value);
    }
  }
  tf_metrics_set_text(m, "status", "failed");
  tf_metrics_set_bool(m, "success", 0);
}

static void* worker(void* arg) {
  sweep_pool* p = arg;
  tf_metrics* m = malloc(sizeof(*m));
  for (;;) {
    pthread_mutex_lock(&p->lock);
    if (!m && !p->write_failed) {
      // a run without room for its row cannot be recorded: stop rather than skip it silently
      snprintf(p->write_err, sizeof(p->write_err), "out of memory");
      p->write_failed = p->stop = 1;
    }
    if (!m || p->stop || p->next >= p->npending) break;  // leaves the loop holding the lock
    int i = p->pending[p->next++];
    p->inflight++;
    pthread_mutex_unlock(&p->lock);

    tf_run_options o;
    tf_sweep_run_options(p->plan, i, &o);
    const tf_task_info* task = p->plan->task[p->plan->run[i].task];
    char err[TF_PATH_MAX + 512] = "";
    tf_metrics_clear(m);
    int refused = 0, record_failed = 0;
    if (p->plan->recorded && p->plan->recorded[i]) {
      // the same run, watched step by step into DIR/record/<run_id>.npz
      char path[TF_PATH_MAX];
      int written = 0;
      tf_sweep_record_path(p->dir, p->plan->run[i].id, path, sizeof(path));
      int rc = tf_record_run(&o, path, NULL, m, &written, err, sizeof(err));
      refused = rc == TF_RECORD_REFUSED;
      record_failed = rc == TF_RECORD_FAILED;
    } else {
      refused = tf_task_run(&o, m, err, sizeof(err)) != 0;
    }
    if (refused) refused_row(m, &o, task);
    char* command = tf_sweep_run_command(p->plan, i);
    const char* status = tf_metrics_text(m, "status");

    pthread_mutex_lock(&p->lock);
    p->inflight--;
    if (record_failed && !p->write_failed) {
      // a recording that cannot be written (a full disk) stops the sweep like a row that
      // cannot be: the run has no row, so --resume runs it again
      // err may hold a long path: cut to what write_err holds, as every other message here
      snprintf(p->write_err, sizeof(p->write_err), "run %s: record: %.400s", p->plan->run[i].id,
               err);
      p->write_failed = 1;
      p->stop = 1;
    } else if (!p->write_failed) {
      tf_results_row row = {p->plan->run[i].id, command, refused ? err : NULL, m};
      if (tf_results_append(p->results, &row, p->write_err, sizeof(p->write_err))) {
        p->write_failed = 1;
        p->stop = 1;
      } else {
        p->finished++;
        if (refused || (status && strcmp(status, "failed") == 0)) p->failed++;
        if (status && strcmp(status, "diverged") == 0) p->diverged++;
        if (refused && p->nstart_failed++ == 0) {
          snprintf(p->start_err, sizeof(p->start_err), "run %s: %.560s", p->plan->run[i].id, err);
        }
      }
    }
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    free(command);
  }
  p->running--;
  pthread_cond_broadcast(&p->changed);
  pthread_mutex_unlock(&p->lock);
  free(m);
  return NULL;
}

static void format_eta(double s, char* out, size_t n) {
  if (!isfinite(s) || s < 0) {
    snprintf(out, n, "--");
  } else if (s >= 3600) {
    snprintf(out, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
  } else if (s >= 60) {
    snprintf(out, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
  } else {
    snprintf(out, n, "%ds", (int)ceil(s));
  }
}

// one JSON object per line for schedulers and dashboards: {"done": 12, "total": 48,
// "failed": 1, "diverged": 0, "running": 2, "elapsed_s": 8.1, "eta_s": 24.3, "final": false}
// (eta_s null until a run has finished)
static void progress_json(const sweep_pool* p, double elapsed, double eta, int final) {
  char eta_text[32] = "null";
  if (isfinite(eta)) snprintf(eta_text, sizeof(eta_text), "%.1f", eta);
  printf("{\"done\": %d, \"total\": %d, \"failed\": %d, \"diverged\": %d, \"running\": %d, "
         "\"elapsed_s\": %.1f, \"eta_s\": %s, \"final\": %s}\n",
         p->already + p->finished, p->already + p->npending, p->failed, p->diverged, p->inflight,
         elapsed, eta_text, final ? "true" : "false");
  fflush(stdout);
}

// "[sweep] 12/48 done, 1 failed, ETA 1m23s"; called with the lock held
static void progress(const sweep_pool* p, double started, int tty, int final) {
  char eta[32];
  int left = p->npending - p->finished;
  double elapsed = tf_clock() - started;
  double eta_s = p->finished > 0 ? elapsed / p->finished * left : NAN;
  if (p->progress_json) {
    progress_json(p, elapsed, final ? 0.0 : eta_s, final);
    return;
  }
  format_eta(eta_s, eta, sizeof(eta));
  char diverged[32] = "";
  if (p->diverged) snprintf(diverged, sizeof(diverged), ", %d diverged", p->diverged);
  fprintf(stderr, "%s[sweep] %d/%d done, %d failed%s", tty ? "\r" : "", p->already + p->finished,
          p->already + p->npending, p->failed, diverged);
  if (!final) fprintf(stderr, ", ETA %s", eta);
  fprintf(stderr, "%s%s", tty ? "\033[K" : "", final || !tty ? "\n" : "");
  fflush(stderr);
}

// runs the pool to the end (or to Ctrl-C); returns 0, or -1 when it could not start
static int run_pool(sweep_pool* p, int jobs, const char* dir) {
  int tty = !p->progress_json && isatty(STDERR_FILENO);
  // only the main thread takes Ctrl-C: the workers start with it blocked
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  tf_cli_trap trap;
  pthread_sigmask(SIG_BLOCK, &block, &old);
  // Ctrl-C counted: the first stops starting runs, the second drops those in flight
  const volatile sig_atomic_t* interrupts = tf_cli_trap_interrupts(&trap, 1);

  pthread_t* threads = calloc((size_t)jobs, sizeof(pthread_t));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, (size_t)16 << 20);  // the runner keeps arrays on its stack
  int started = 0;
  pthread_mutex_lock(&p->lock);
  for (; threads && started < jobs; started++) {
    if (pthread_create(&threads[started], &attr, worker, p) != 0) break;
    p->running++;
  }
  pthread_mutex_unlock(&p->lock);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (started == 0) {
    fprintf(stderr, "tightfit sweep: cannot start a thread\n");
    free(threads);
    tf_cli_release_interrupts(&trap);
    return -1;
  }

  double t0 = tf_clock(), last_log = t0;
  int announced = 0, shown = -1;
  pthread_mutex_lock(&p->lock);
  while (p->running > 0) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += POLL_NS;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&p->changed, &p->lock, &until);
    if (*interrupts >= 1 && !announced) {
      announced = 1;
      p->stop = 1;
      fprintf(stderr,
              "\n[sweep] interrupted: finishing %d run%s in flight (Ctrl-C again drops %s)\n",
              p->inflight, p->inflight == 1 ? "" : "s", p->inflight == 1 ? "it" : "them");
    }
    if (*interrupts >= 2) {
      // holding the lock: no row is being written, and none will be
      char err[512];
      int nfinished = p->already + p->finished;
      tf_results_close(p->results, err, sizeof(err));
      fprintf(stderr,
              "\n[sweep] dropped %d run%s in flight; %s holds %d finished runs; rerun with "
              "--resume to finish\n",
              p->inflight, p->inflight == 1 ? "" : "s", dir, nfinished);
      _exit(EXIT_INTERRUPTED);
    }
    if (p->nstart_failed > 0 && !p->start_err_shown) {
      p->start_err_shown = 1;
      fprintf(stderr, "%stightfit sweep: %s\n", tty ? "\r\033[K" : "", p->start_err);
    }
    double now = tf_clock();
    // a line for each finished run as JSON (at most five a second), or to a terminal
    int redraw = tty || p->progress_json ? p->finished != shown || now - last_log > 1.0
                                         : now - last_log >= LOG_EVERY_S;
    if (redraw) {
      progress(p, t0, tty, 0);
      shown = p->finished;
      last_log = now;
    }
  }
  progress(p, t0, tty, 1);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
  free(threads);
  tf_cli_release_interrupts(&trap);
  return 0;
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

// DIR/shards/K/shard.json: which part of which split the folder holds, for the merge. A
// folder resumed under another split would mix runs of two splits: refused
static int write_shard(const sweep_args* a, int nrun) {
  char path[TF_PATH_MAX + 16];
  snprintf(path, sizeof(path), "%s/%s", a->dir, TF_SHARD_FILE);
  unsigned char* old = NULL;
  size_t size = 0;
  char err[TF_PATH_MAX + 256];
  if (access(path, F_OK) == 0 && tf_file_read(&old, &size, path, 4096, err, sizeof(err)) == 0) {
    cJSON* o = cJSON_ParseWithLength((const char*)old, size);
    free(old);
    const cJSON* of = cJSON_GetObjectItemCaseSensitive(o, "of");
    int same = cJSON_IsNumber(of) && of->valuedouble == a->nshard;
    cJSON_Delete(o);
    if (!same) {
      fprintf(stderr, "tightfit sweep: %s: this folder holds a shard of another split than %d/%d\n",
              path, a->shard, a->nshard);
      return -1;
    }
  }
  char text[128];
  int len = snprintf(text, sizeof(text), "{\"shard\": %d, \"of\": %d, \"runs\": %d}\n", a->shard,
                     a->nshard, nrun);
  return write_atomic(a->dir, TF_SHARD_FILE, text, (size_t)len);
}

// the sweep proper, once the plan is valid and the folder is ours; returns the exit status
static int sweep_locked(const sweep_args* a, const tf_sweep_plan* plan) {
  int status = 0;
  int jobs = a->jobs > 0 ? a->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (jobs < 1) jobs = 1;
  if (write_atomic(a->dir, "config.json", plan->source, plan->source_len) ||
      write_machine(a->dir, jobs)) {
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
  sweep_pool p;
  memset(&p, 0, sizeof(p));
  p.plan = plan;
  p.dir = a->dir;
  p.pending = pending;
  p.npending = npending;
  p.already = nrun - npending;
  p.progress_json = a->progress_json;
  if (tf_results_open(&p.results, a->dir, known, nknown, err, sizeof(err))) {
    fprintf(stderr, "tightfit sweep: %s\n", err);
    free(known);
    free(pending);
    return TF_EXIT_FAIL;
  }
  free(known);
  pthread_mutex_init(&p.lock, NULL);
  pthread_cond_init(&p.changed, NULL);
  if (npending > 0) {
    int threads = jobs < npending ? jobs : npending;
    fprintf(stderr, "[sweep] %d run%s on %d thread%s -> %s\n", npending, npending == 1 ? "" : "s",
            threads, threads == 1 ? "" : "s", a->dir);
    if (run_pool(&p, threads, a->dir)) status = TF_EXIT_FAIL;
  }
  const char* missing = NULL;
  char first_missing[TF_METRIC_NAME] = "";
  int nmissing = tf_results_csv_missing(p.results, &missing);
  if (missing) snprintf(first_missing, sizeof(first_missing), "%s", missing);
  if (tf_results_close(p.results, err, sizeof(err))) {
    fprintf(stderr, "tightfit sweep: %s\n", err);
    status = TF_EXIT_FAIL;
  }
  pthread_cond_destroy(&p.changed);
  pthread_mutex_destroy(&p.lock);
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
  if (p.stop && p.next < p.npending) {
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

// the sweep under DIR/.lock
static int sweep(const sweep_args* a, const tf_sweep_plan* plan) {
  int lock_fd = -1;
  int status = prepare_folder(a, &lock_fd);
  if (status == 0) status = sweep_locked(a, plan);
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
  tf_sweep_plan plan;
  char err[TF_CONFIG_ERRORS_TEXT];
  // every problem in the config is reported before the folder is touched or anything runs,
  // one line each
  if (tf_sweep_plan_load(&plan, a.config, tasks, ntasks, err, sizeof(err))) {
    for (char *line = err, *next; line; line = next) {
      next = strchr(line, '\n');
      if (next) *next++ = 0;
      fprintf(stderr, "tightfit sweep: %s\n", line);
    }
    return TF_EXIT_USAGE;
  }
  // a safety net: the config check above already checked the video settings
  tf_sweep_video video;
  if (tf_sweep_video_parse(&video, plan.video, err, sizeof(err))) {
    fprintf(stderr, "tightfit sweep: %s: %s\n", a.config, err);
    tf_sweep_plan_free(&plan);
    return TF_EXIT_USAGE;
  }
  status = sweep(&a, &plan);
  tf_sweep_plan_free(&plan);
  return status;
}
