// The pool of threads that runs a sweep's pending runs (sweep_pool.h).
#include "sweep_pool.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "file_io.h"
#include "interrupts.h"
#include "record.h"
#include "sweep_record.h"
#include "task.h"

#define EXIT_INTERRUPTED 130  // the shell's code for a command ended by Ctrl-C (128 + SIGINT)
#define POLL_S 0.2            // the main thread checks for Ctrl-C and redraws 5 times a second
#define LOG_EVERY_S 10.0      // progress lines when stderr is not a terminal

int tf_sweep_pool_init(tf_sweep_pool* p, const tf_sweep_plan* plan, const char* dir,
                       const int* pending, int npending, int already, tf_results_file* results) {
  memset(p, 0, sizeof(*p));
  p->state = calloc((size_t)npending + 1, 1);
  if (!p->state) return -1;
  p->plan = plan;
  p->dir = dir;
  p->pending = pending;
  p->npending = npending;
  p->already = already;
  p->results = results;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->changed, NULL);
  return 0;
}

void tf_sweep_pool_destroy(tf_sweep_pool* p) {
  pthread_cond_destroy(&p->changed);
  pthread_mutex_destroy(&p->lock);
  free(p->state);
  p->state = NULL;
}

int tf_sweep_pool_take(tf_sweep_pool* p, int remote) {
  while (p->first_waiting < p->npending && p->state[p->first_waiting] != TF_POOL_WAITING) {
    p->first_waiting++;
  }
  for (int s = p->first_waiting; s < p->npending; s++) {
    if (p->state[s] != TF_POOL_WAITING) continue;
    if (remote && p->plan->recorded && p->plan->recorded[p->pending[s]]) continue;
    p->state[s] = TF_POOL_TAKEN;
    p->inflight++;
    if (remote) p->remote_inflight++;
    return s;
  }
  return -1;
}

void tf_sweep_pool_requeue(tf_sweep_pool* p, int slot) {
  if (p->state[slot] != TF_POOL_TAKEN) return;
  p->state[slot] = TF_POOL_WAITING;
  if (slot < p->first_waiting) p->first_waiting = slot;
  p->inflight--;
  p->remote_inflight--;
  pthread_cond_broadcast(&p->changed);
}

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

void tf_sweep_run_one(const tf_sweep_plan* plan, const char* dir, int i, tf_metrics* m,
                      int* refused, int* record_failed, char* err, size_t errlen) {
  tf_run_options o;
  tf_sweep_run_options(plan, i, &o);
  const tf_task_info* task = plan->task[plan->run[i].task];
  err[0] = 0;
  tf_metrics_clear(m);
  *refused = *record_failed = 0;
  if (plan->recorded && plan->recorded[i]) {
    // the same run, watched step by step into DIR/record/<run_id>.npz
    char path[TF_PATH_MAX];
    int written = 0;
    tf_sweep_record_path(dir, plan->run[i].id, path, sizeof(path));
    int rc = tf_record_run(&o, path, NULL, m, &written, err, errlen);
    *refused = rc == TF_RECORD_REFUSED;
    *record_failed = rc == TF_RECORD_FAILED;
  } else {
    *refused = tf_task_run(&o, m, err, errlen) != 0;
  }
  if (*refused) refused_row(m, &o, task);
}

int tf_sweep_pool_finish(tf_sweep_pool* p, int slot, tf_metrics* m, int refused, int record_failed,
                         const char* err) {
  if (p->state[slot] != TF_POOL_TAKEN) return 1;  // a row that came back twice
  const tf_sweep_run* run = &p->plan->run[p->pending[slot]];
  p->state[slot] = TF_POOL_DONE;
  p->inflight--;
  pthread_cond_broadcast(&p->changed);
  if (p->write_failed) return 0;
  if (record_failed) {
    // a recording that cannot be written (a full disk) stops the sweep like a row that
    // cannot be: the run has no row, so --resume runs it again
    // err may hold a long path: cut to what write_err holds, as every other message here
    snprintf(p->write_err, sizeof(p->write_err), "run %s: record: %.400s", run->id, err);
    p->write_failed = p->stop = 1;
    return 0;
  }
  char* command = tf_sweep_run_command(p->plan, p->pending[slot]);
  const char* status = tf_metrics_text(m, "status");
  tf_results_row row = {run->id, command, refused ? err : NULL, m};
  if (tf_results_append(p->results, &row, p->write_err, sizeof(p->write_err))) {
    p->write_failed = p->stop = 1;
  } else {
    p->finished++;
    if (refused || (status && strcmp(status, "failed") == 0)) p->failed++;
    if (status && strcmp(status, "diverged") == 0) p->diverged++;
    if (refused && p->nstart_failed++ == 0) {
      snprintf(p->start_err, sizeof(p->start_err), "run %s: %.560s", run->id, err);
    }
  }
  free(command);
  return 0;
}

// one thread of the pool: runs waiting slots until none is left; while runs handed to other
// processes may still come back to the queue, it waits for them
static void* worker(void* arg) {
  tf_sweep_pool* p = arg;
  tf_metrics* m = malloc(sizeof(*m));
  char err[TF_PATH_MAX + 512];
  pthread_mutex_lock(&p->lock);
  for (;;) {
    if (!m && !p->write_failed) {
      // a run without room for its row cannot be recorded: stop rather than skip it silently
      snprintf(p->write_err, sizeof(p->write_err), "out of memory");
      p->write_failed = p->stop = 1;
    }
    if (!m || p->stop) break;
    int slot = tf_sweep_pool_take(p, 0);
    if (slot < 0) {
      if (p->remote_inflight == 0) break;
      pthread_cond_wait(&p->changed, &p->lock);
      continue;
    }
    int i = p->pending[slot];
    pthread_mutex_unlock(&p->lock);

    int refused = 0, record_failed = 0;
    tf_sweep_run_one(p->plan, p->dir, i, m, &refused, &record_failed, err, sizeof(err));

    pthread_mutex_lock(&p->lock);
    tf_sweep_pool_finish(p, slot, m, refused, record_failed, err);
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
static void progress_json(const tf_sweep_pool* p, double elapsed, double eta, int final) {
  char eta_text[32] = "null";
  if (isfinite(eta)) snprintf(eta_text, sizeof(eta_text), "%.1f", eta);
  printf(
      "{\"done\": %d, \"total\": %d, \"failed\": %d, \"diverged\": %d, \"running\": %d, "
      "\"elapsed_s\": %.1f, \"eta_s\": %s, \"final\": %s}\n",
      p->already + p->finished, p->already + p->npending, p->failed, p->diverged, p->inflight,
      elapsed, eta_text, final ? "true" : "false");
  fflush(stdout);
}

// "[sweep] 12/48 done, 1 failed, ETA 1m23s"; called with the lock held
static void progress(const tf_sweep_pool* p, double started, int tty, int final) {
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

int tf_sweep_pool_run(tf_sweep_pool* p, int jobs, tf_sweep_serve serve, void* ctx) {
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
  while (p->running > 0 || p->remote_inflight > 0) {
    double wait = POLL_S;
    if (serve) {
      pthread_mutex_unlock(&p->lock);
      double asked = serve(ctx, p);
      pthread_mutex_lock(&p->lock);
      if (asked < wait) wait = asked;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long ns = until.tv_nsec + (long)(wait * 1e9);
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
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
              p->inflight, p->inflight == 1 ? "" : "s", p->dir, nfinished);
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
