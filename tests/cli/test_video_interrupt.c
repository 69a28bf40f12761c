// Ctrl-C (SIGINT) or SIGTERM in the middle of `tightfit video` stops the render at the next
// frame, removes the partial MP4 (PATH.tmp.XXXXXX) and writes no thumbnail: exit 130 and an
// empty folder, so a sweep's --resume never finds half a video.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <dirent.h>
#include <signal.h>

#include "cli_exec.h"

// entries of dir (dot files aside); *tmp set when one is a temporary file
static int entries(const char* dir, int* tmp) {
  DIR* d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  *tmp = 0;
  for (struct dirent* e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    n++;
    if (strstr(e->d_name, ".tmp.")) *tmp = 1;
  }
  closedir(d);
  return n;
}

static void interrupt_video(int sig) {
  char dir[] = "/tmp/tightfit_vint_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char out[128], thumb[128];
  snprintf(out, sizeof(out), "%s/v.mp4", dir);
  snprintf(thumb, sizeof(thumb), "%s/v.png", dir);
  char* argv[] = {(char*)cli_exec_path(),
                  "video",
                  "--task",
                  "peg",
                  "--duration",
                  "60",
                  "--fps",
                  "30",
                  "--size",
                  "64x48",
                  "--thumbnail",
                  thumb,
                  "--out",
                  out,
                  NULL};
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0 || dup2(null_fd, STDERR_FILENO) < 0) {
      _exit(126);
    }
    execv(argv[0], argv);
    _exit(127);
  }
  // wait for the partial file, then interrupt
  int tmp = 0, n = 0;
  for (int i = 0; i < 60000 && !tmp; i++) {
    n = entries(dir, &tmp);
    struct timespec ms = {0, 1000000L};
    if (!tmp) nanosleep(&ms, NULL);
  }
  assert_true(tmp);
  assert_int_equal(kill(pid, sig), 0);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  n = entries(dir, &tmp);
  int ok = WIFEXITED(status) && WEXITSTATUS(status) == 130 && n == 0;
  if (!ok) {
    print_message("signal %d: exited %d status %d signalled %d, %d files left\n", sig,
                  WIFEXITED(status), WEXITSTATUS(status), WIFSIGNALED(status), n);
  }
  unlink(out);
  unlink(thumb);
  DIR* d = opendir(dir);
  for (struct dirent* e; d && (e = readdir(d));) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (e->d_name[0] != '.') unlink(path);
  }
  if (d) closedir(d);
  rmdir(dir);
  assert_true(ok);
}

static void test_sigint(void** state) {
  (void)state;
  interrupt_video(SIGINT);
}

static void test_sigterm(void** state) {
  (void)state;
  interrupt_video(SIGTERM);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sigint),
      cmocka_unit_test(test_sigterm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
