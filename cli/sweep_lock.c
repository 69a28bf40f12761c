// The output folder's lock (see sweep_lock.h). flock, not a pid file: the kernel releases it
// when the process ends however it ends (Ctrl-C, SIGKILL, a crash), so a stale lock cannot
// keep a folder busy. The pid in the file is only for the message.
#include "sweep_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cli.h"
#include "file_io.h"

int tf_sweep_lock(const char* dir, int* fd) {
  char path[TF_PATH_MAX];
  *fd = -1;
  if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, TF_SWEEP_LOCK_NAME) >= sizeof(path)) {
    fprintf(stderr, "tightfit sweep: --out '%s': path too long\n", dir);
    return TF_EXIT_USAGE;
  }
  int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (f < 0) {
    fprintf(stderr, "tightfit sweep: %s: %s\n", path, strerror(errno));
    return TF_EXIT_FAIL;
  }
  if (flock(f, LOCK_EX | LOCK_NB) != 0) {
    int busy = errno == EWOULDBLOCK;
    int why = errno;
    char text[32] = "";
    ssize_t n = pread(f, text, sizeof(text) - 1, 0);
    close(f);
    if (!busy) {
      fprintf(stderr, "tightfit sweep: %s: cannot lock: %s\n", path, strerror(why));
      return TF_EXIT_FAIL;
    }
    // the holder may not have written its pid yet
    long pid = n > 0 ? strtol(text, NULL, 10) : 0;
    if (pid > 0) {
      fprintf(stderr, "tightfit sweep: %s is in use by another sweep (pid %ld)\n", dir, pid);
    } else {
      fprintf(stderr, "tightfit sweep: %s is in use by another sweep (pid unknown)\n", dir);
    }
    return TF_EXIT_USAGE;
  }
  char text[32];
  int len = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
  if (ftruncate(f, 0) != 0 || pwrite(f, text, (size_t)len, 0) != len) {
    // the lock holds all the same; only the message of a second sweep loses the pid
  }
  *fd = f;
  return 0;
}
