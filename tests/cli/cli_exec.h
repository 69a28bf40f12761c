// Running the built `tightfit` binary from a cmocka suite: fork / execv (no shell) with stdout
// and stderr captured in unlinked temporary files. The binary's path comes from TIGHTFIT_BIN
// (make check sets it; the asan tree points at its own), default build/tightfit.
#ifndef TF_TEST_CLI_EXEC_H
#define TF_TEST_CLI_EXEC_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define CLI_EXEC_MAX_ARGS 24

// what one run of the binary did
typedef struct cli_exec_result {
  int exited;  // 1 if it exited normally (not killed by a signal)
  int code;    // exit status when exited, else the signal number
  char* out;   // all of stdout, NUL terminated
  char* err;   // all of stderr
} cli_exec_result;

static inline const char* cli_exec_path(void) {
  const char* bin = getenv("TIGHTFIT_BIN");
  return bin && bin[0] ? bin : "build/tightfit";
}

// a whole descriptor from its start as a NUL-terminated heap string (NULL when unreadable)
static inline char* cli_exec_slurp(int fd) {
  off_t size = lseek(fd, 0, SEEK_END);
  if (size < 0 || lseek(fd, 0, SEEK_SET) != 0) return NULL;
  char* text = malloc((size_t)size + 1);
  if (!text) return NULL;
  size_t got = 0;
  while (got < (size_t)size) {
    ssize_t n = read(fd, text + got, (size_t)size - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  text[got] = 0;
  return text;
}

static inline int cli_exec_temp(void) {
  char path[] = "/tmp/tightfit_cli_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) unlink(path);
  return fd;
}

// runs the binary with args (NULL-terminated, without argv[0]); r->exited = 0 and code = -1
// when it could not even start
static inline cli_exec_result cli_exec(const char* const* args) {
  cli_exec_result r = {0, -1, NULL, NULL};
  char* argv[CLI_EXEC_MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = (char*)cli_exec_path();
  for (int i = 0; args[i] && argc <= CLI_EXEC_MAX_ARGS; i++) argv[argc++] = (char*)args[i];
  argv[argc] = NULL;
  int out_fd = cli_exec_temp(), err_fd = cli_exec_temp();
  if (out_fd < 0 || err_fd < 0) return r;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
        dup2(err_fd, STDERR_FILENO) < 0) {
      _exit(126);
    }
    execv(argv[0], argv);
    _exit(127);  // exec failed: the binary is missing
  }
  if (pid > 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    r.exited = WIFEXITED(status);
    r.code = r.exited ? WEXITSTATUS(status) : (WIFSIGNALED(status) ? WTERMSIG(status) : -1);
  }
  r.out = cli_exec_slurp(out_fd);
  r.err = cli_exec_slurp(err_fd);
  close(out_fd);
  close(err_fd);
  return r;
}

static inline void cli_exec_free(cli_exec_result* r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}

#endif  // TF_TEST_CLI_EXEC_H
