// The runs of a sweep that are still to do, and the threads that do them: each thread takes
// the next waiting run, runs it, and appends its row to the results files under the pool's
// lock (so rows are whole and the counts exact). The main thread waits, draws the progress
// line, and takes Ctrl-C: the first stops handing out runs and lets the runs in flight
// finish and write their rows; the second drops them, taking the lock first so that no row
// is cut in half. Either way the files stay valid for --resume.
//
// Other processes may take runs from the same queue (an MPI sweep, sweep_mpi.h): a serve hook
// the main thread calls between its waits hands them runs and appends their rows; a run given
// to a process that died goes back to the queue, and a row that comes back twice is written
// once. Such runs never include recorded ones: a recording is written where the files are.
#ifndef TF_SWEEP_POOL_H
#define TF_SWEEP_POOL_H

#include <pthread.h>
#include <stddef.h>

#include "metrics.h"
#include "results_file.h"
#include "sweep_config.h"

typedef enum tf_pool_slot_state {
  TF_POOL_WAITING = 0,  // not handed out (or given back)
  TF_POOL_TAKEN,        // being run, here or elsewhere
  TF_POOL_DONE,         // its row is written
} tf_pool_slot_state;

// the state the threads share; every field below `lock` is guarded by it
typedef struct tf_sweep_pool {
  const tf_sweep_plan* plan;
  const char* dir;     // the output folder (recordings go to DIR/record)
  const int* pending;  // (npending) plan run indices still to run
  int npending;
  int already;        // runs finished by an earlier sweep into the same folder
  int progress_json;  // progress as JSON lines on stdout (--progress json)
  pthread_mutex_t lock;
  pthread_cond_t changed;
  tf_results_file* results;
  unsigned char* state;  // (npending) tf_pool_slot_state
  int first_waiting;     // no slot before it is waiting
  int running;           // threads still working
  int inflight;          // runs being computed, here and elsewhere
  int remote_inflight;   // of them, those handed to other processes
  int finished, failed, diverged;
  int stop;          // hand out no more runs (Ctrl-C or a write error)
  int write_failed;  // the results files could not take a row: the sweep stops
  char write_err[512];
  int nstart_failed;    // runs tf_task_run refused (bad options it alone could see)
  char start_err[640];  // "run ID: " and the runner's message (512)
  int start_err_shown;
} tf_sweep_pool;

// serves other processes from the main thread between its waits (lock not held); returns
// the seconds the main thread may wait before calling it again
typedef double (*tf_sweep_serve)(void* ctx, tf_sweep_pool* p);

// sets up a pool over the pending runs (borrowed: they must outlive it); returns 0, or -1
// when out of memory
int tf_sweep_pool_init(tf_sweep_pool* p, const tf_sweep_plan* plan, const char* dir,
                       const int* pending, int npending, int already, tf_results_file* results);

void tf_sweep_pool_destroy(tf_sweep_pool* p);

// with the lock held: the next waiting slot, now taken, or -1 when none waits; remote
// skips recorded runs
int tf_sweep_pool_take(tf_sweep_pool* p, int remote);

// with the lock held: a taken slot back to the queue (the process running it died)
void tf_sweep_pool_requeue(tf_sweep_pool* p, int slot);

// with the lock held: the finished run of a taken slot (m: its row; refused: tf_task_run
// refused it, err says why; record_failed: its recording could not be written, err says why)
// is appended to the results files; a slot already done is left alone (returns 1), else 0
int tf_sweep_pool_finish(tf_sweep_pool* p, int slot, tf_metrics* m, int refused, int record_failed,
                         const char* err);

// runs plan run i (recorded into dir/record when the plan says so) into m; never takes the
// lock. *refused / *record_failed as tf_sweep_pool_finish takes them, err says why
void tf_sweep_run_one(const tf_sweep_plan* plan, const char* dir, int i, tf_metrics* m,
                      int* refused, int* record_failed, char* err, size_t errlen);

// runs the pool to its end (or to Ctrl-C) on jobs threads, calling serve (when not NULL)
// between waits; returns 0, or -1 when no thread could start
int tf_sweep_pool_run(tf_sweep_pool* p, int jobs, tf_sweep_serve serve, void* ctx);

#endif  // TF_SWEEP_POOL_H
