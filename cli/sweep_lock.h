// One sweep per output folder: `tightfit sweep` holds an exclusive flock on DIR/.lock for as
// long as it runs, so that two sweeps (two --resume, or a --force under a running sweep) never
// write the same results files at once and duplicate or delete rows.
#ifndef TF_SWEEP_LOCK_H
#define TF_SWEEP_LOCK_H

#define TF_SWEEP_LOCK_NAME ".lock"

// takes the lock of folder dir without waiting and writes this process's id into the file.
// Returns 0 with *fd open (close it to release the lock), or the exit status after printing
// one line: "tightfit sweep: DIR is in use by another sweep (pid N)" (2), or the reason the
// file could not be opened or locked (1); *fd is -1 then
int tf_sweep_lock(const char* dir, int* fd);

#endif  // TF_SWEEP_LOCK_H
