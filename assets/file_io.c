// Whole-file reads and atomic writes (see file_io.h for the guarantees).
//
// Atomic write protocol: mkstemp("<path>.tmp.XXXXXX") in the destination folder (same file
// system, so the final rename cannot degrade into a copy), write, fflush, fsync the data,
// close, rename onto the destination, then fsync the folder so the new name survives a crash.
// Every step is checked; the first failure unlinks the temporary file.
#include "file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "error_message.h"

int tf_file_read(unsigned char** out, size_t* size, const char* path, size_t max_size, char* err,
                 size_t errlen) {
  *out = NULL;
  *size = 0;
  int fd = open(path, O_RDONLY);
  if (fd < 0) return tf_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return tf_fail(err, errlen, "%s: cannot stat: %s", path, strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return tf_fail(err, errlen, "%s: is a folder, not a file", path);
  }
  // regular files: the size is known; pipes and devices: grow as data arrives
  size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size : 65536;
  if (S_ISREG(st.st_mode) && (st.st_size < 0 || (unsigned long long)st.st_size > max_size)) {
    close(fd);
    return tf_fail(err, errlen, "%s: %lld bytes is over the limit of %zu bytes", path,
                   (long long)st.st_size, max_size);
  }
  unsigned char* buf = malloc(cap + 1);
  if (!buf) {
    close(fd);
    return tf_fail(err, errlen, "%s: out of memory reading %zu bytes", path, cap);
  }
  size_t n = 0;
  for (;;) {
    if (n == cap) {
      if (S_ISREG(st.st_mode)) break;  // read what stat promised; ignore growth while reading
      if (cap >= max_size) {
        free(buf);
        close(fd);
        return tf_fail(err, errlen, "%s: more than the limit of %zu bytes", path, max_size);
      }
      size_t grown = cap > max_size / 2 ? max_size : 2 * cap;
      unsigned char* bigger = realloc(buf, grown + 1);
      if (!bigger) {
        free(buf);
        close(fd);
        return tf_fail(err, errlen, "%s: out of memory reading %zu bytes", path, grown);
      }
      buf = bigger;
      cap = grown;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int e = errno;
      free(buf);
      close(fd);
      return tf_fail(err, errlen, "%s: read error: %s", path, strerror(e));
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  close(fd);
  buf[n] = 0;
  *out = buf;
  *size = n;
  return 0;
}

int tf_atomic_open(tf_atomic_file* out, const char* path, char* err, size_t errlen) {
  memset(out, 0, sizeof(*out));
  size_t len = strlen(path);
  if (len == 0) return tf_fail(err, errlen, "(empty path): cannot write a file without a name");
  if (len >= sizeof(out->path)) return tf_fail(err, errlen, "%.64s...: path too long", path);
  memcpy(out->path, path, len + 1);
  snprintf(out->tmp, sizeof(out->tmp), "%s.tmp.XXXXXX", path);
  int fd = mkstemp(out->tmp);
  if (fd < 0) {
    return tf_fail(err, errlen, "%s: cannot create a temporary file in its folder: %s", path,
                   strerror(errno));
  }
  // mkstemp makes the file 0600; exported meshes and cache entries are ordinary files
  if (fchmod(fd, 0644) != 0) {
    // not fatal: the file stays private to the user
  }
  out->f = fdopen(fd, "wb");
  if (!out->f) {
    int e = errno;
    close(fd);
    unlink(out->tmp);
    return tf_fail(err, errlen, "%s: cannot open a temporary file for writing: %s", path,
                   strerror(e));
  }
  return 0;
}

void tf_atomic_abort(tf_atomic_file* file) {
  if (file->f) fclose(file->f);
  file->f = NULL;
  if (file->tmp[0]) unlink(file->tmp);
  file->tmp[0] = 0;
}

void tf_sync_folder(const char* path) {
  char folder[TF_PATH_MAX];
  snprintf(folder, sizeof(folder), "%s", path);
  char* slash = strrchr(folder, '/');
  if (slash == folder) {
    folder[1] = 0;
  } else if (slash) {
    *slash = 0;
  } else {
    snprintf(folder, sizeof(folder), ".");
  }
  int fd = open(folder, O_RDONLY);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

int tf_atomic_commit(tf_atomic_file* file, char* err, size_t errlen) {
  const char* what = NULL;
  int e = 0;
  if (ferror(file->f)) {
    what = "write error", e = errno ? errno : EIO;
  } else if (fflush(file->f) != 0) {
    what = "write error", e = errno;
  } else if (fsync(fileno(file->f)) != 0) {
    what = "fsync failed", e = errno;
  }
  int closed = fclose(file->f);
  file->f = NULL;
  if (!what && closed != 0) what = "close failed", e = errno;
  if (!what && rename(file->tmp, file->path) != 0) what = "cannot rename into place", e = errno;
  if (what) {
    unlink(file->tmp);
    file->tmp[0] = 0;
    return tf_fail(err, errlen, "%s: %s: %s", file->path, what, strerror(e));
  }
  file->tmp[0] = 0;
  tf_sync_folder(file->path);
  return 0;
}

int tf_mkdir_p(const char* path, char* err, size_t errlen) {
  char buf[TF_PATH_MAX];
  size_t len = strlen(path);
  if (len == 0) return tf_fail(err, errlen, "(empty path): no folder to create");
  if (len >= sizeof(buf)) return tf_fail(err, errlen, "%.64s...: path too long", path);
  memcpy(buf, path, len + 1);
  // create each prefix ending at a '/', then the whole path
  for (size_t i = 1; i <= len; i++) {
    if (buf[i] != '/' && buf[i] != 0) continue;
    char saved = buf[i];
    buf[i] = 0;
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
      return tf_fail(err, errlen, "%s: cannot create folder %s: %s", path, buf, strerror(errno));
    }
    buf[i] = saved;
  }
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    return tf_fail(err, errlen, "%s: exists but is not a folder", path);
  }
  return 0;
}

int tf_write_atomic(const char* dir, const char* name, const void* data, size_t len, char* err,
                    size_t errlen) {
  char path[TF_PATH_MAX];
  if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
    snprintf(err, errlen, "%.200s/%.200s: path too long", dir, name);
    return -1;
  }
  tf_atomic_file file;
  if (tf_atomic_open(&file, path, err, errlen)) return -1;
  fwrite(data, 1, len, file.f);
  return tf_atomic_commit(&file, err, errlen);
}
