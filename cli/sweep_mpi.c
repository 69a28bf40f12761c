// A sweep over MPI ranks (sweep_mpi.h).
//
// Messages, all on MPI_COMM_WORLD, only from each process's main thread (MPI_THREAD_FUNNELED):
//   REQUEST  rank r -> 0   int: how many runs r's idle threads want
//   ASSIGN   0 -> r        ints: count, then (slot, run) pairs; a count of 0 means "no more"
//   RESULT   r -> 0        bytes: result_head, the error text, then the row's metrics
//   ALIVE    r -> 0        a sign of life, each second without other messages
//   BYE      r -> 0        doubles: runs done, seconds spent waiting on the queue
//   FINISH   0 -> r        int: how many ranks died. OpenMPI's MPI_Finalize waits on every
//                          rank, the dead too, and may never return: after a death no
//                          process calls it (mpirun --enable-recovery accepts that)
// Sends that could block on a dead peer (a row is too long to go eagerly) are posted and
// polled against the rank timeout.
#include "sweep_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "file_io.h"
#include "task.h"

// the environment variables by which MPI launchers (OpenMPI's mpirun, PMIx and PMI-2 ones
// such as Slurm's srun) tell a process it is one of several ranks
static int launched_by_mpi(void) {
  static const char* const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
    if (getenv(vars[i])) return 1;
  }
  return 0;
}

#ifndef TF_HAVE_MPI

struct tf_sweep_mpi {
  int unused;
};

int tf_sweep_mpi_start(tf_sweep_mpi** out, int* rank, int* size, double rank_timeout, char* err,
                       size_t errlen) {
  (void)rank_timeout;
  *out = NULL;
  *rank = 0;
  *size = 1;
  const char* n = getenv("OMPI_COMM_WORLD_SIZE");
  if (!n) n = getenv("PMI_SIZE");
  if (launched_by_mpi() && n && atoi(n) > 1) {
    snprintf(err, errlen,
             "this tightfit was built without MPI (no mpicc when it was built): install "
             "libopenmpi-dev and rebuild to sweep over %s ranks",
             n);
    return -1;
  }
  return 0;
}

void tf_sweep_mpi_end(tf_sweep_mpi* m) { (void)m; }

int tf_sweep_mpi_share(tf_sweep_mpi* m, int status, const char* text, size_t len,
                       const char* config_path, char (*hosts)[TF_MPI_HOST_LEN]) {
  (void)m, (void)status, (void)text, (void)len, (void)config_path;
  if (hosts && gethostname(hosts[0], TF_MPI_HOST_LEN - 1) != 0) {
    snprintf(hosts[0], TF_MPI_HOST_LEN, "unknown");
  }
  return 0;
}

int tf_sweep_mpi_worker(tf_sweep_mpi* m, int jobs, const tf_task_info* const* tasks, int ntasks) {
  (void)m, (void)jobs, (void)tasks, (void)ntasks;
  return TF_EXIT_FAIL;
}

double tf_sweep_mpi_serve(void* m, tf_sweep_pool* p) {
  (void)m, (void)p;
  return 1.0;
}

void tf_sweep_mpi_drain(tf_sweep_mpi* m, tf_sweep_pool* p) { (void)m, (void)p; }

#else  // TF_HAVE_MPI

#include <mpi.h>

enum { TAG_REQUEST = 1, TAG_ASSIGN, TAG_RESULT, TAG_ALIVE, TAG_BYE, TAG_FINISH };

#define ALIVE_EVERY_S 1.0
#define SERVE_WAIT_S 0.0003  // rank 0 looks for messages this often while ranks work
#define MAX_WANT 1024        // runs one request may ask for (threads of one rank)
#define ERR_LEN 768          // the error text a row carries (a refused run's reason)

struct tf_sweep_mpi {
  int rank, size;
  double timeout;  // s of silence after which a rank counts as dead
  // rank 0's view of the others (size entries)
  double* last_seen;
  unsigned char* dead;
  unsigned char* bye;
  double* runs_done;  // per rank, from its goodbye
  double* queue_s;    // per rank: seconds its threads waited on the queue
  int local_runs;     // rows rank 0's own threads wrote (the rest came from ranks)
  int draining;       // the pool is over: every request gets "no more"
  int lost;           // ranks that died (rank 0: counted; others: told by FINISH); with
                      // any, MPI_Finalize is not called
  int* owner;         // (npending) the rank running a slot, -1 when none or rank 0
  int nowner;
  unsigned char* buf;  // a received message
  size_t buflen;
};

typedef struct result_head {
  int slot, run, refused, errlen, nmetric, overflow;
} result_head;

int tf_sweep_mpi_start(tf_sweep_mpi** out, int* rank, int* size, double rank_timeout, char* err,
                       size_t errlen) {
  *out = NULL;
  *rank = 0;
  *size = 1;
  if (!launched_by_mpi()) return 0;
  int provided = 0;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    snprintf(err, errlen, "MPI could not start");
    return -1;
  }
  // a peer that dies must not end rank 0 from inside a call: errors come back as codes
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  tf_sweep_mpi* m = calloc(1, sizeof(*m));
  if (!m) {
    MPI_Finalize();
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m->size);
  m->timeout = rank_timeout;
  m->last_seen = calloc((size_t)m->size, sizeof(double));
  m->dead = calloc((size_t)m->size, 1);
  m->bye = calloc((size_t)m->size, 1);
  m->runs_done = calloc((size_t)m->size, sizeof(double));
  m->queue_s = calloc((size_t)m->size, sizeof(double));
  if (!m->last_seen || !m->dead || !m->bye || !m->runs_done || !m->queue_s) {
    tf_sweep_mpi_end(m);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  double now = MPI_Wtime();
  for (int r = 0; r < m->size; r++) m->last_seen[r] = now;
  *rank = m->rank;
  *size = m->size;
  *out = m;
  return 0;
}

void tf_sweep_mpi_end(tf_sweep_mpi* m) {
  if (!m) return;
  free(m->last_seen);
  free(m->dead);
  free(m->bye);
  free(m->runs_done);
  free(m->queue_s);
  free(m->owner);
  free(m->buf);
  int lost = m->lost;
  free(m);
  if (!lost) MPI_Finalize();
}

// a send that gives up after the rank timeout (a peer that died mid-message); 0 or -1
static int send_within(const tf_sweep_mpi* m, const void* data, int count, MPI_Datatype type,
                       int dest, int tag) {
  MPI_Request req;
  if (MPI_Isend(data, count, type, dest, tag, MPI_COMM_WORLD, &req) != MPI_SUCCESS) return -1;
  double t0 = MPI_Wtime();
  for (;;) {
    int done = 0;
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
    if (done) return 0;
    if (MPI_Wtime() - t0 > m->timeout) {
      MPI_Cancel(&req);
      return -1;
    }
    usleep(100);
  }
}

// receives the probed message into m->buf; its size in bytes, or -1
static int receive(tf_sweep_mpi* m, const MPI_Status* st) {
  int bytes = 0;
  MPI_Get_count(st, MPI_BYTE, &bytes);
  if (bytes < 0) return -1;
  if ((size_t)bytes + 1 > m->buflen) {
    unsigned char* grown = realloc(m->buf, (size_t)bytes + 1);
    if (!grown) return -1;
    m->buf = grown;
    m->buflen = (size_t)bytes + 1;
  }
  if (MPI_Recv(m->buf, bytes, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    return -1;
  }
  return bytes;
}

int tf_sweep_mpi_share(tf_sweep_mpi* m, int status, const char* text, size_t len,
                       const char* config_path, char (*hosts)[TF_MPI_HOST_LEN]) {
  if (!m) {
    if (hosts && gethostname(hosts[0], TF_MPI_HOST_LEN - 1) != 0) {
      snprintf(hosts[0], TF_MPI_HOST_LEN, "unknown");
    }
    return 0;
  }
  size_t plen = config_path ? strlen(config_path) : 0;
  long head[3] = {status, (long)len, (long)plen};
  if (MPI_Bcast(head, 3, MPI_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
  if (status) return 0;
  if (MPI_Bcast((void*)text, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
      MPI_Bcast((void*)config_path, (int)plen, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
    return -1;
  }
  char mine[TF_MPI_HOST_LEN] = "";
  if (gethostname(mine, sizeof(mine) - 1) != 0) snprintf(mine, sizeof(mine), "unknown");
  if (MPI_Gather(mine, TF_MPI_HOST_LEN, MPI_CHAR, hosts, TF_MPI_HOST_LEN, MPI_CHAR, 0,
                 MPI_COMM_WORLD) != MPI_SUCCESS) {
    return -1;
  }
  double now = MPI_Wtime();
  for (int r = 0; r < m->size; r++) m->last_seen[r] = now;
  return 0;
}

// ---- rank 0

static int ensure_owner(tf_sweep_mpi* m, const tf_sweep_pool* p) {
  if (m->owner && m->nowner == p->npending) return 0;
  free(m->owner);
  m->owner = malloc(((size_t)p->npending + 1) * sizeof(int));
  if (!m->owner) return -1;
  for (int s = 0; s < p->npending; s++) m->owner[s] = -1;
  m->nowner = p->npending;
  return 0;
}

static void answer_request(tf_sweep_mpi* m, tf_sweep_pool* p, int r, int want) {
  if (want < 1) want = 1;
  if (want > MAX_WANT) want = MAX_WANT;
  int reply[1 + 2 * MAX_WANT];
  int count = 0;
  pthread_mutex_lock(&p->lock);
  while (!p->stop && !m->draining && count < want) {
    int slot = tf_sweep_pool_take(p, 1);
    if (slot < 0) break;
    m->owner[slot] = r;
    reply[1 + 2 * count] = slot;
    reply[2 + 2 * count] = p->pending[slot];
    count++;
  }
  pthread_mutex_unlock(&p->lock);
  reply[0] = count;
  if (send_within(m, reply, 1 + 2 * count, MPI_INT, r, TAG_ASSIGN) != 0 && count > 0) {
    // the rank is gone: its new runs go back at once
    pthread_mutex_lock(&p->lock);
    for (int k = 0; k < count; k++) {
      m->owner[reply[1 + 2 * k]] = -1;
      tf_sweep_pool_requeue(p, reply[1 + 2 * k]);
    }
    pthread_mutex_unlock(&p->lock);
  }
}

static void take_result(tf_sweep_mpi* m, tf_sweep_pool* p, int r, int bytes, tf_metrics* row) {
  result_head h;
  if ((size_t)bytes < sizeof(h)) return;
  memcpy(&h, m->buf, sizeof(h));
  size_t need = sizeof(h) + (size_t)h.errlen + (size_t)h.nmetric * sizeof(tf_metric);
  if (h.slot < 0 || h.slot >= p->npending || h.errlen < 0 || h.errlen >= ERR_LEN || h.nmetric < 0 ||
      h.nmetric > TF_METRICS_MAX || need != (size_t)bytes || p->pending[h.slot] != h.run) {
    return;  // not a row this sweep handed out (cannot happen between ranks of one build)
  }
  char err[ERR_LEN];
  memcpy(err, m->buf + sizeof(h), (size_t)h.errlen);
  err[h.errlen] = 0;
  row->n = h.nmetric;
  row->overflow = h.overflow;
  memcpy(row->item, m->buf + sizeof(h) + h.errlen, (size_t)h.nmetric * sizeof(tf_metric));
  pthread_mutex_lock(&p->lock);
  if (m->owner[h.slot] == r && p->state[h.slot] == TF_POOL_TAKEN) {
    m->owner[h.slot] = -1;
    p->remote_inflight--;
    tf_sweep_pool_finish(p, h.slot, row, h.refused, 0, err);
  }
  pthread_mutex_unlock(&p->lock);
}

// puts back the runs of ranks silent for longer than the timeout
static void bury_silent(tf_sweep_mpi* m, tf_sweep_pool* p) {
  double now = MPI_Wtime();
  for (int r = 1; r < m->size; r++) {
    if (m->dead[r] || m->bye[r] || now - m->last_seen[r] <= m->timeout) continue;
    m->dead[r] = 1;
    int back = 0;
    pthread_mutex_lock(&p->lock);
    for (int s = 0; s < p->npending; s++) {
      if (m->owner[s] != r) continue;
      m->owner[s] = -1;
      tf_sweep_pool_requeue(p, s);
      back++;
    }
    pthread_mutex_unlock(&p->lock);
    fprintf(stderr,
            "\n[sweep] rank %d silent for %.0f s: taken as dead; %d run%s back in the queue\n", r,
            now - m->last_seen[r], back, back == 1 ? "" : "s");
  }
}

double tf_sweep_mpi_serve(void* ctx, tf_sweep_pool* p) {
  tf_sweep_mpi* m = ctx;
  if (!m || m->size < 2) return 1.0;
  if (ensure_owner(m, p)) return 1.0;
  tf_metrics* row = NULL;
  for (int handled = 0; handled < 256; handled++) {
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS ||
        !flag) {
      break;
    }
    int r = st.MPI_SOURCE;
    int bytes = receive(m, &st);
    if (bytes < 0 || r <= 0 || r >= m->size || m->dead[r]) continue;
    m->last_seen[r] = MPI_Wtime();
    if (st.MPI_TAG == TAG_REQUEST && bytes == (int)sizeof(int)) {
      int want;
      memcpy(&want, m->buf, sizeof(want));
      answer_request(m, p, r, want);
    } else if (st.MPI_TAG == TAG_RESULT) {
      if (!row) row = malloc(sizeof(*row));
      if (row) take_result(m, p, r, bytes, row);
    } else if (st.MPI_TAG == TAG_BYE && bytes == 2 * (int)sizeof(double)) {
      double stats[2];
      memcpy(stats, m->buf, sizeof(stats));
      m->bye[r] = 1;
      m->runs_done[r] = stats[0];
      m->queue_s[r] = stats[1];
    }
  }
  free(row);
  bury_silent(m, p);
  return SERVE_WAIT_S;
}

void tf_sweep_mpi_drain(tf_sweep_mpi* m, tf_sweep_pool* p) {
  if (!m || m->size < 2) return;
  m->draining = 1;
  pthread_mutex_lock(&p->lock);
  m->local_runs = p->finished;
  pthread_mutex_unlock(&p->lock);
  for (;;) {
    int open = 0;
    for (int r = 1; r < m->size; r++) open += !m->dead[r] && !m->bye[r];
    if (!open) break;
    tf_sweep_mpi_serve(m, p);
    usleep(300);
  }
  double remote = 0, wait = 0;
  int ndead = 0;
  for (int r = 1; r < m->size; r++) {
    remote += m->runs_done[r];
    wait += m->queue_s[r];
    ndead += m->dead[r];
  }
  m->lost = ndead;
  for (int r = 1; r < m->size; r++) {
    if (!m->dead[r]) send_within(m, &ndead, 1, MPI_INT, r, TAG_FINISH);
  }
  fprintf(stderr, "[sweep] %d ranks: %d runs on rank 0, %.0f on the others", m->size,
          m->local_runs - (int)remote > 0 ? m->local_runs - (int)remote : 0, remote);
  if (remote > 0) fprintf(stderr, "; queue wait %.3f ms per run", 1e3 * wait / remote);
  if (ndead) fprintf(stderr, "; %d rank%s lost", ndead, ndead == 1 ? "" : "s");
  fprintf(stderr, "\n");
}

// ---- the other ranks

// A worker rank keeps PREFETCH runs queued beyond its threads, so that a thread that finishes
// starts the next run at once and the round trip to rank 0 overlaps the computing; threads
// post their rows to an outbox and go on, and the main thread sends them.
#define PREFETCH 1

typedef struct outgoing {
  struct outgoing* next;
  int bytes;
  unsigned char data[];  // result_head, error text, metrics
} outgoing;

typedef struct worker_rank {
  const tf_sweep_plan* plan;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int* queue;  // (2 x capacity) slot, run pairs handed out by rank 0, first in first out
  int capacity, head, count;
  int running;  // runs being computed
  outgoing *outbox, **outbox_tail;
  int done;       // rows posted
  double wait_s;  // threads' time waiting for a run that came
  int quit;       // no more runs will come: threads leave when the queue is empty
  int failed;     // a thread could not post its row (out of memory)
} worker_rank;

// a finished run as the message rank 0 takes (NULL when out of memory)
static outgoing* pack_row(int slot, int run, int refused, const char* err, const tf_metrics* row) {
  result_head h = {slot, run, refused, (int)strnlen(err, ERR_LEN - 1), row->n, row->overflow};
  if (h.nmetric < 0 || h.nmetric > TF_METRICS_MAX) h.nmetric = 0;
  size_t bytes = sizeof(h) + (size_t)h.errlen + (size_t)h.nmetric * sizeof(tf_metric);
  outgoing* o = malloc(sizeof(*o) + bytes);
  if (!o) return NULL;
  o->next = NULL;
  o->bytes = (int)bytes;
  memcpy(o->data, &h, sizeof(h));
  memcpy(o->data + sizeof(h), err, (size_t)h.errlen);
  memcpy(o->data + sizeof(h) + h.errlen, row->item, (size_t)h.nmetric * sizeof(tf_metric));
  return o;
}

static void* worker_thread_main(void* arg) {
  worker_rank* w = arg;
  tf_metrics* row = malloc(sizeof(*row));
  char* err = malloc(ERR_LEN);
  pthread_mutex_lock(&w->lock);
  for (;;) {
    double t0 = MPI_Wtime();
    while (!w->quit && w->count == 0) pthread_cond_wait(&w->changed, &w->lock);
    if (w->count == 0 || !row || !err) break;
    w->wait_s += MPI_Wtime() - t0;
    int slot = w->queue[2 * w->head], run = w->queue[2 * w->head + 1];
    w->head = (w->head + 1) % w->capacity;
    w->count--;
    w->running++;
    pthread_cond_broadcast(&w->changed);  // the main thread may ask for the next one
    pthread_mutex_unlock(&w->lock);
    int refused = 0, record_failed = 0;
    // never a recorded run (rank 0 keeps those), so no folder is needed
    tf_sweep_run_one(w->plan, ".", run, row, &refused, &record_failed, err, ERR_LEN);
    outgoing* o = pack_row(slot, run, refused, err, row);
    pthread_mutex_lock(&w->lock);
    w->running--;
    if (o) {
      *w->outbox_tail = o;
      w->outbox_tail = &o->next;
      w->done++;
    } else {
      w->failed = 1;  // the run goes back to the queue when rank 0 sees this rank leave
    }
    pthread_cond_broadcast(&w->changed);
  }
  if (!row || !err) w->failed = 1;
  pthread_cond_broadcast(&w->changed);
  pthread_mutex_unlock(&w->lock);
  free(row);
  free(err);
  return NULL;
}

// the main thread of a worker rank: keeps the queue filled from rank 0, sends the rows back,
// and signs life; returns the exit status
static int serve_threads(tf_sweep_mpi* m, worker_rank* w, int jobs) {
  double last_sent = MPI_Wtime(), asked_at = 0;
  int asked = 0, no_more = 0, status = 0;
  for (;;) {
    pthread_mutex_lock(&w->lock);
    outgoing* out = w->outbox;
    w->outbox = NULL;
    w->outbox_tail = &w->outbox;
    int want = jobs + PREFETCH - w->count - w->running;
    int idle = no_more && w->count == 0 && w->running == 0;
    int failed = w->failed;
    pthread_mutex_unlock(&w->lock);
    for (outgoing* o = out; o;) {
      outgoing* next = o->next;
      if (status == 0 && send_within(m, o->data, o->bytes, MPI_BYTE, 0, TAG_RESULT)) {
        fprintf(stderr, "tightfit sweep: rank %d: rank 0 does not take rows: stopping\n", m->rank);
        status = TF_EXIT_FAIL;
      }
      free(o);
      o = next;
    }
    if (out) last_sent = MPI_Wtime();
    if (status || failed) return status ? status : TF_EXIT_FAIL;
    if (idle) break;
    if (!asked && !no_more && want > 0) {
      if (send_within(m, &want, 1, MPI_INT, 0, TAG_REQUEST)) return TF_EXIT_FAIL;
      asked = 1;
      asked_at = last_sent = MPI_Wtime();
    }
    if (asked) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(0, TAG_ASSIGN, MPI_COMM_WORLD, &flag, &st);
      if (flag) {
        int bytes = receive(m, &st);
        int count = 0;
        if (bytes >= (int)sizeof(int)) memcpy(&count, m->buf, sizeof(int));
        asked = 0;
        if (count <= 0 || count > want || bytes != (int)((1 + 2 * (size_t)count) * sizeof(int))) {
          no_more = 1;
          pthread_mutex_lock(&w->lock);
          w->quit = 1;
          pthread_cond_broadcast(&w->changed);
          pthread_mutex_unlock(&w->lock);
          continue;
        }
        const int* pairs = (const int*)m->buf + 1;
        pthread_mutex_lock(&w->lock);
        for (int c = 0; c < count; c++) {
          int at = (w->head + w->count) % w->capacity;
          w->queue[2 * at] = pairs[2 * c];
          w->queue[2 * at + 1] = pairs[2 * c + 1];
          w->count++;
        }
        pthread_cond_broadcast(&w->changed);
        pthread_mutex_unlock(&w->lock);
        continue;
      }
      if (MPI_Wtime() - asked_at > m->timeout) {
        fprintf(stderr, "tightfit sweep: rank %d: no answer from rank 0 in %.0f s: stopping\n",
                m->rank, m->timeout);
        return TF_EXIT_FAIL;
      }
    }
    if (MPI_Wtime() - last_sent > ALIVE_EVERY_S) {
      int zero = 0;
      if (send_within(m, &zero, 1, MPI_INT, 0, TAG_ALIVE)) return TF_EXIT_FAIL;
      last_sent = MPI_Wtime();
    }
    // short waits while an answer is due, longer ones while every thread computes; a thread
    // that posts a row or takes a run wakes the main thread at once
    pthread_mutex_lock(&w->lock);
    if (!w->outbox && !(w->count + w->running < jobs + PREFETCH && !asked && !no_more)) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      long ns = until.tv_nsec + (asked ? 100000L : 100000000L);
      until.tv_sec += ns / 1000000000L;
      until.tv_nsec = ns % 1000000000L;
      pthread_cond_timedwait(&w->changed, &w->lock, &until);
    }
    pthread_mutex_unlock(&w->lock);
  }
  double stats[2] = {w->done, w->wait_s};
  send_within(m, stats, 2, MPI_DOUBLE, 0, TAG_BYE);
  return 0;
}

int tf_sweep_mpi_worker(tf_sweep_mpi* m, int jobs, const tf_task_info* const* tasks, int ntasks) {
  long head[3] = {0, 0, 0};
  if (MPI_Bcast(head, 3, MPI_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return TF_EXIT_FAIL;
  if (head[0]) return (int)head[0];  // rank 0 said why
  char* text = malloc((size_t)head[1] + 1);
  char* config_path = malloc((size_t)head[2] + 1);
  if (!text || !config_path ||
      MPI_Bcast(text, (int)head[1], MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
      MPI_Bcast(config_path, (int)head[2], MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
    free(text);
    free(config_path);
    return TF_EXIT_FAIL;
  }
  text[head[1]] = 0;
  config_path[head[2]] = 0;
  char mine[TF_MPI_HOST_LEN] = "";
  if (gethostname(mine, sizeof(mine) - 1) != 0) snprintf(mine, sizeof(mine), "unknown");
  MPI_Gather(mine, TF_MPI_HOST_LEN, MPI_CHAR, NULL, 0, MPI_CHAR, 0, MPI_COMM_WORLD);

  tf_sweep_plan plan;
  char* err = malloc(TF_CONFIG_ERRORS_TEXT);
  // the config as rank 0 read it from its file: paths in it (an assembly file) resolve alike
  int rc = err ? tf_sweep_plan_parse_at(&plan, text, config_path, tasks, ntasks, err,
                                        TF_CONFIG_ERRORS_TEXT)
               : -1;
  free(text);
  free(config_path);
  if (rc) {
    // rank 0 parsed the same text: only another build can disagree
    fprintf(stderr, "tightfit sweep: rank %d cannot read the config rank 0 sent: %s\n", m->rank,
            err ? err : "out of memory");
    free(err);
    return TF_EXIT_FAIL;
  }
  free(err);

  worker_rank w;
  memset(&w, 0, sizeof(w));
  w.plan = &plan;
  w.capacity = jobs + PREFETCH;
  w.queue = malloc(2 * (size_t)w.capacity * sizeof(int));
  w.outbox_tail = &w.outbox;
  pthread_t* threads = calloc((size_t)jobs, sizeof(pthread_t));
  int status = TF_EXIT_FAIL, started = 0;
  pthread_mutex_init(&w.lock, NULL);
  pthread_cond_init(&w.changed, NULL);
  if (w.queue && threads) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)16 << 20);  // the runner keeps arrays on its stack
    for (; started < jobs; started++) {
      if (pthread_create(&threads[started], &attr, worker_thread_main, &w) != 0) break;
    }
    pthread_attr_destroy(&attr);
    if (started > 0) status = serve_threads(m, &w, started);
  }
  pthread_mutex_lock(&w.lock);
  w.quit = 1;
  pthread_cond_broadcast(&w.changed);
  pthread_mutex_unlock(&w.lock);
  for (int k = 0; k < started; k++) pthread_join(threads[k], NULL);
  while (w.outbox) {
    outgoing* next = w.outbox->next;
    free(w.outbox);
    w.outbox = next;
  }
  pthread_cond_destroy(&w.changed);
  pthread_mutex_destroy(&w.lock);
  free(w.queue);
  free(threads);
  tf_sweep_plan_free(&plan);

  // rank 0 says whether a rank died (then nobody finalizes); no word from it counts as yes
  m->lost = 1;
  double t0 = MPI_Wtime();
  while (status == 0 && MPI_Wtime() - t0 < m->timeout) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(0, TAG_FINISH, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      if (receive(m, &st) == (int)sizeof(int)) memcpy(&m->lost, m->buf, sizeof(int));
      break;
    }
    usleep(1000);
  }
  return status;
}

#endif  // TF_HAVE_MPI
