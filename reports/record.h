// Per-step recording of a run (`tightfit run --record FILE.npz`, a sweep's "record"): every
// environment's state after each control step, its contacts with their forces, the probes'
// per-step values, the solver's statistics and the engine's stage times, written as an NPZ
// file that numpy.load reads with nothing of tightfit's (npz_write.h). The arrays, their
// shapes and units: docs/record.md.
//
// The recorder only reads: it watches the run through tf_task_run_observed, which runs the
// environments one after another in index order (the file's per-step arrays are then
// (steps, envs, ...) with each environment's rows streamed to disk as they come, and their
// contacts in one flat list ordered by environment and step), so a recorded run's row and
// states are the same bits as an unrecorded run's, timings aside.
#ifndef TF_RECORD_H
#define TF_RECORD_H

#include <signal.h>
#include <stddef.h>

#include "metrics.h"
#include "task.h"

// what tf_record_run did
enum {
  TF_RECORD_OK = 0,        // the run happened: its row is in out
  TF_RECORD_REFUSED = -1,  // nothing ran: options the runner refuses, or a path that cannot
                           // be written (a missing folder, a folder, no permission)
  TF_RECORD_FAILED = -2,   // the recording failed (a full disk, an interrupt) and stopped
                           // the run: no row, no file
};

// runs o with every environment recorded into path and writes its row into out (the row
// tf_task_run gives). *written: 1 when the file is in place, 0 when it is not, which for
// TF_RECORD_OK means the run's status is "failed" (nothing was built to record). cancel (or
// NULL): when it reads non-zero the run stops at the next control step and the recording
// fails with "PATH: interrupted". Any failure leaves nothing at path and no temporary file.
// Returns TF_RECORD_*, with a one-line message in err unless TF_RECORD_OK
int tf_record_run(const tf_run_options* o, const char* path, const volatile sig_atomic_t* cancel,
                  tf_metrics* out, int* written, char* err, size_t errlen);

// 0 when path names an NPZ file (it ends in ".npz" after a name), else -1 with a message
int tf_record_path_check(const char* path, char* err, size_t errlen);

#endif  // TF_RECORD_H
