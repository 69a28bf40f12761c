// A sweep over MPI ranks (`mpirun -np N tightfit sweep CONFIG --out DIR`): rank 0 owns DIR and
// its files and runs the sweep as on one machine; the other ranks ask it for runs, one at a
// time per idle thread (a dynamic queue: runs differ in length by 100x), run them on --jobs
// threads each, and send their rows back. Rank 0 appends them as its own threads' rows, so
// the files and their guarantees are the single-machine ones.
//
// A rank that dies: ranks send a sign of life every second, and one silent for the rank
// timeout has its runs put back in the queue (a late row from it is dropped, so every row is
// written once). OpenMPI's mpirun ends the whole job when a rank dies unless it runs with
// --enable-recovery. Rank 0 dying leaves valid files that --resume completes, with or
// without MPI. Recorded runs stay on rank 0: their files are written where DIR is.
//
// Rows cross between ranks as the same binary's tf_metrics bytes: ranks must be one build on
// one architecture (a cluster's usual case); the engine's arithmetic is its own, so hosts
// with different processors of that architecture give the same bits (see docs/cluster.md).
//
// Built with MPI when the Makefile finds mpicc (TF_HAVE_MPI); without it, a launch of more
// than one rank is refused with a message, and one process runs as usual.
#ifndef TF_SWEEP_MPI_H
#define TF_SWEEP_MPI_H

#include <stddef.h>

#include "sweep_config.h"
#include "sweep_pool.h"

#define TF_MPI_HOST_LEN 256

typedef struct tf_sweep_mpi tf_sweep_mpi;

// starts MPI when an MPI launcher started this process (else *out = NULL, size 1, rank 0:
// the same binary runs without mpirun); rank_timeout: seconds of silence after which a rank
// counts as dead. Returns 0, or -1 with a one-line message
int tf_sweep_mpi_start(tf_sweep_mpi** out, int* rank, int* size, double rank_timeout, char* err,
                       size_t errlen);

// ends MPI (every rank calls it last); m may be NULL
void tf_sweep_mpi_end(tf_sweep_mpi* m);

// rank 0: tells the other ranks whether the sweep goes ahead (status 0) and, if so, sends
// them the config text and its file's path (relative paths in it resolve from there) and
// gathers their host names into hosts (size x TF_MPI_HOST_LEN, rank order). Returns 0, or -1
// when MPI failed
int tf_sweep_mpi_share(tf_sweep_mpi* m, int status, const char* text, size_t len,
                       const char* config_path, char (*hosts)[TF_MPI_HOST_LEN]);

// ranks > 0: the whole of their sweep: the config from rank 0, then runs on jobs threads
// until rank 0 has no more; returns the exit status
int tf_sweep_mpi_worker(tf_sweep_mpi* m, int jobs, const tf_task_info* const* tasks, int ntasks);

// rank 0: the pool's serve hook (sweep_pool.h): hands runs to the ranks that ask, appends
// the rows they send, and puts back the runs of ranks gone silent
double tf_sweep_mpi_serve(void* m, tf_sweep_pool* p);

// rank 0, after the pool: answers the ranks until each has said goodbye (or went silent),
// then prints how the runs were spread and the queue's cost per run
void tf_sweep_mpi_drain(tf_sweep_mpi* m, tf_sweep_pool* p);

#endif  // TF_SWEEP_MPI_H
