// Whole-file reads with a size cap, and atomic writes: the data goes to a temporary file in the
// destination's folder, is flushed and fsync'ed, then renamed over the destination. rename(2)
// within one file system is atomic, so a reader (another process loading a cache entry, a
// viewer opening an exported mesh) sees either the old file or the complete new one, never a
// half-written file; on any failure the temporary file is removed and nothing is left behind.
#ifndef TF_FILE_IO_H
#define TF_FILE_IO_H

#include <stddef.h>
#include <stdio.h>

// longest path the helpers accept (the temporary name adds a suffix)
#define TF_PATH_MAX 4096

// reads the whole file into a malloc'd buffer with one extra NUL byte after the data (free it
// with free); refuses folders and files over max_size; returns 0, or -1 with "PATH: problem"
int tf_file_read(unsigned char** out, size_t* size, const char* path, size_t max_size, char* err,
                 size_t errlen);

// a file being written atomically: write to f, then commit or abort
typedef struct tf_atomic_file {
  FILE* f;                     // open for writing (binary)
  char path[TF_PATH_MAX];      // the destination
  char tmp[TF_PATH_MAX + 16];  // the temporary file beside it
} tf_atomic_file;

// creates the temporary file beside path; returns 0, or -1 with "PATH: problem"
int tf_atomic_open(tf_atomic_file* out, const char* path, char* err, size_t errlen);

// checks every write went through, flushes, fsyncs and renames onto the destination; on any
// failure removes the temporary file and returns -1 with "PATH: problem"
int tf_atomic_commit(tf_atomic_file* file, char* err, size_t errlen);

// gives up: closes and removes the temporary file
void tf_atomic_abort(tf_atomic_file* file);

// the whole of data written to DIR/name through tf_atomic_open / commit; returns 0, or -1 with
// "PATH: problem"
int tf_write_atomic(const char* dir, const char* name, const void* data, size_t len, char* err,
                    size_t errlen);

// fsync of the folder holding path, so that a completed rename survives a crash (best effort)
void tf_sync_folder(const char* path);

// creates a folder and its missing parents (mode 0755); returns 0, or -1 with "PATH: problem"
int tf_mkdir_p(const char* path, char* err, size_t errlen);

#endif  // TF_FILE_IO_H
