// A streaming NPZ writer: named arrays whose leading dimension grows as rows are appended, and
// at the end one `.npz` file that numpy.load reads with nothing of tightfit's (a zip archive
// of `NAME.npy` members, each a format 1.0 header followed by the raw little-endian C-order
// data).
//
// Memory stays bounded however long the run: each array's rows go to a temporary file of its
// own in the destination's folder, unlinked as soon as it is created (a crash or a kill, even
// SIGKILL, leaves nothing of it behind), and only tf_npz_close assembles the archive, with
// libzip reading each member through a callback that yields the npy header and then the
// array's file. The archive is written under a temporary name beside the destination
// (PATH.tmp.XXXXXX, libzip's own PATH.tmp.XXXXXX.YYYYYY while it writes), fsync'ed and then
// renamed onto PATH: a reader sees the old file or the complete new one, and any failure (a
// full disk, a write error, an interrupt) removes the temporary files and leaves nothing at
// PATH.
//
// Members are stored, not deflated: the data are mostly float64 physics states, which deflate
// barely shrinks (their low mantissa bits are noise) at a large cost in time for a recording
// of millions of steps; a stored member is also at a plain offset in the file, where other
// tools can read it without inflating. numpy.savez_compressed recompresses one if wanted.
//
// Arrays of per-environment rows ("slots") have shape (rows, nslot, ...): each slot's rows are
// appended separately, one slot after another (slot 0's all, then slot 1's, ...), which is
// how a run's environments are recorded, and the archive interleaves them at the end; a slot
// with fewer rows than the longest is padded with the array's fill value.
#ifndef TF_NPZ_WRITE_H
#define TF_NPZ_WRITE_H

#include <signal.h>
#include <stddef.h>

#define TF_NPZ_MAX_DIM 6    // dimensions of one array, the growing ones included
#define TF_NPZ_MAX_NAME 64  // bytes of a member's name, NUL included

typedef enum tf_npz_dtype {
  TF_NPZ_F64 = 0,  // numpy "<f8"
  TF_NPZ_I32,      // "<i4"
  TF_NPZ_I64,      // "<i8"
  TF_NPZ_U8,       // "|u1"
  TF_NPZ_BYTES,    // "|S<itemsize>": fixed-width byte strings (names), NUL padded
} tf_npz_dtype;

typedef enum tf_npz_kind {
  TF_NPZ_ROWS = 0,  // shape (rows, *shape): rows appended with tf_npz_append
  TF_NPZ_SLOTS,     // shape (rows, nslot, *shape): rows appended per slot, tf_npz_append_slot
  TF_NPZ_WHOLE,     // shape `shape` exactly: written by one tf_npz_append of one "row"
} tf_npz_kind;

typedef struct tf_npz_def {
  const char* name;  // the member is NAME.npy; letters, digits and '_', 1 to 59 of them
  tf_npz_dtype dtype;
  int itemsize;  // TF_NPZ_BYTES: bytes per string, >= 1; ignored for the other dtypes
  tf_npz_kind kind;
  int ndim;                    // dimensions in shape (ROWS: at most MAX - 1, SLOTS: MAX - 2)
  long shape[TF_NPZ_MAX_DIM];  // the trailing shape (WHOLE: the whole shape); entries >= 0
  int nslot;                   // TF_NPZ_SLOTS: slots, >= 1
  double fill;                 // TF_NPZ_SLOTS: value of a shorter slot's missing rows (NaN,
                               // -1, ...), converted to the dtype
} tf_npz_def;

typedef struct tf_npz_writer tf_npz_writer;

// starts a file at path (nothing appears there before tf_npz_close succeeds). Checks that
// a file can be created in path's folder and that path is not a folder. cancel (or NULL):
// when it reads non-zero (a Ctrl-C handler set it), tf_npz_close gives up with "interrupted".
// Returns the writer, or NULL with "PATH: problem"
tf_npz_writer* tf_npz_open(const char* path, const volatile sig_atomic_t* cancel, char* err,
                           size_t errlen);

// declares an array; returns its id (0, 1, ... in order), or -1 (bad name or shape, a name
// given twice, or its temporary file could not be made); the writer then keeps the message
// (tf_npz_error) and every later call fails too
int tf_npz_declare(tf_npz_writer* w, const tf_npz_def* def);

// appends nrow rows (each the product of the trailing shape elements, C order, native =
// little-endian) to array id; 0, or -1 with the message kept (a write error: a full disk)
int tf_npz_append(tf_npz_writer* w, int id, const void* rows, long nrow);

// the same for one slot of a TF_NPZ_SLOTS array. A slot's rows come in one stretch: once rows
// of another slot were appended after them, the slot takes no more (-1)
int tf_npz_append_slot(tf_npz_writer* w, int id, int slot, const void* rows, long nrow);

// declares a TF_NPZ_WHOLE array and writes data into it (ndim 0: a scalar)
int tf_npz_put(tf_npz_writer* w, const char* name, tf_npz_dtype dtype, int itemsize, int ndim,
               const long* shape, const void* data);

// the first error, "" while there is none
const char* tf_npz_error(const tf_npz_writer* w);

// writes every array into the archive at the path given to tf_npz_open (temporary name,
// fsync, rename) and frees w; 0, or -1 with "PATH: problem" and nothing left behind. A
// writer with an error, or without arrays, is not written
int tf_npz_close(tf_npz_writer* w, char* err, size_t errlen);

// gives up: frees w and its temporary files, writes nothing (NULL: nothing to do)
void tf_npz_abort(tf_npz_writer* w);

#endif  // TF_NPZ_WRITE_H
