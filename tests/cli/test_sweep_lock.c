// One sweep per folder: while another process holds DIR/.lock (here the test itself, as a
// running sweep would), `tightfit sweep ... --out DIR` (with --resume or not) is refused with
// one line naming the holder's pid and exit 2, and writes no row; once the lock is free the
// sweep runs. --resume also removes what an interrupted video left in DIR/videos (temporary
// files, a thumbnail without its video).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <sys/file.h>

#include "cli_exec.h"
#include "test_folder.h"

static const char* const config =
    "{\"task\": \"peg\", \"duration\": 0.01, \"grid\": {\"clearance_um\": [100]}}\n";

typedef struct fixture {
  char root[64], config[128], out[128];
} fixture;

static int setup(void** state) {
  fixture* fx = calloc(1, sizeof(*fx));
  if (!fx) return -1;
  snprintf(fx->root, sizeof(fx->root), "/tmp/tightfit_lock_XXXXXX");
  if (!mkdtemp(fx->root)) return -1;
  snprintf(fx->config, sizeof(fx->config), "%s/sweep.json", fx->root);
  snprintf(fx->out, sizeof(fx->out), "%s/out", fx->root);
  FILE* f = fopen(fx->config, "w");
  if (!f) return -1;
  fputs(config, f);
  fclose(f);
  *state = fx;
  return 0;
}

static int teardown(void** state) {
  fixture* fx = *state;
  test_remove_tree(fx->root);
  free(fx);
  return 0;
}

static int exists(const char* dir, const char* name) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

static cli_exec_result sweep(const fixture* fx, const char* extra) {
  const char* args[] = {"sweep", fx->config, "--out", fx->out, "--jobs", "1", extra, NULL};
  return cli_exec(args);
}

static void test_second_sweep_refused(void** state) {
  fixture* fx = *state;
  assert_int_equal(mkdir(fx->out, 0755), 0);
  char lock[256];
  snprintf(lock, sizeof(lock), "%s/.lock", fx->out);
  int fd = open(lock, O_RDWR | O_CREAT, 0644);
  assert_true(fd >= 0);
  assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
  char pid[32];
  int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
  assert_int_equal(write(fd, pid, (size_t)len), len);
  char want[256];
  snprintf(want, sizeof(want), "%s is in use by another sweep (pid %ld)\n", fx->out,
           (long)getpid());
  const char* flags[] = {"--resume", "--force", NULL};
  for (int i = 0; i < 3; i++) {
    cli_exec_result r = sweep(fx, flags[i < 2 ? i : 2]);
    int ok = r.exited && r.code == 2 && strstr(r.err, want) && strchr(r.err, '\n')[1] == 0;
    if (!ok) print_message("exit %d\nstderr:\n%s\n", r.code, r.err);
    cli_exec_free(&r);
    assert_true(ok);
    assert_false(exists(fx->out, "results.jsonl"));
  }
  close(fd);  // the lock is free: the sweep runs
  cli_exec_result r = sweep(fx, NULL);
  if (!r.exited || r.code != 0) print_message("exit %d\nstderr:\n%s\n", r.code, r.err);
  assert_true(r.exited && r.code == 0);
  cli_exec_free(&r);
  assert_true(exists(fx->out, "results.jsonl"));
}

static void test_resume_removes_stale_video_files(void** state) {
  fixture* fx = *state;
  cli_exec_result r = sweep(fx, NULL);
  assert_true(r.exited && r.code == 0);
  cli_exec_free(&r);
  char videos[256], path[512];
  snprintf(videos, sizeof(videos), "%s/videos", fx->out);
  assert_int_equal(mkdir(videos, 0755), 0);
  static const char* const stale[] = {"0123456789abcdef.mp4.tmp.AbC123", "0123456789abcdef.png"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof(path), "%s/%s", videos, stale[i]);
    FILE* f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
  }
  // a thumbnail whose video exists stays
  snprintf(path, sizeof(path), "%s/fedcba9876543210.mp4", videos);
  fclose(fopen(path, "w"));
  snprintf(path, sizeof(path), "%s/fedcba9876543210.png", videos);
  fclose(fopen(path, "w"));
  r = sweep(fx, "--resume");
  if (!r.exited || r.code != 0) print_message("exit %d\nstderr:\n%s\n", r.code, r.err);
  assert_true(r.exited && r.code == 0);
  cli_exec_free(&r);
  assert_false(exists(videos, stale[0]));
  assert_false(exists(videos, stale[1]));
  assert_true(exists(videos, "fedcba9876543210.png"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_second_sweep_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resume_removes_stale_video_files, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
