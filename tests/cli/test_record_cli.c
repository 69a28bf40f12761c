// `tightfit run --record FILE.npz` and a sweep's "record" through the built binary
// (TIGHTFIT_BIN): the row printed is the unrecorded run's (timings aside) and the file is in
// place; a bad path is one line and exit 2 before anything runs; Ctrl-C or SIGTERM mid-run
// exits 130 leaving an empty folder; a full disk is one line naming the file, exit 1, and an
// empty folder; a sweep records the runs its config names into DIR/record/<run_id>.npz and
// refuses a folder it cannot record into before any run.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include "test_folder.h"
#include "cli_exec.h"

static int lines_of(const char* text) {
  int n = 0;
  for (const char* c = text; c && *c; c++) n += *c == '\n';
  return n;
}

// exit code, one line on stderr containing needle, nothing on stdout
static void expect_one_line(const char* const* args, int code, const char* needle) {
  cli_exec_result r = cli_exec(args);
  int ok = r.exited && r.code == code && lines_of(r.err) == 1 && strstr(r.err, needle) && r.out &&
           r.out[0] == 0;
  if (!ok) print_message("exit %d\nstdout:\n%s\nstderr:\n%s\n", r.code, r.out, r.err);
  cli_exec_free(&r);
  assert_true(ok);
}

static void test_bad_paths(void** state) {
  (void)state;
  const char* zip[] = {"run", "--task", "peg", "--record", "/tmp/x.zip", NULL};
  expect_one_line(zip, 2, "tightfit run: --record: '/tmp/x.zip' is not an NPZ file name");
  const char* none[] = {"run", "--task", "peg", "--record", NULL};
  expect_one_line(none, 2, "--record needs a value");
  const char* missing[] = {"run", "--task", "peg", "--record", "/tmp/tightfit_no_such_folder/x.npz",
                           NULL};
  expect_one_line(missing, 2, "/tmp/tightfit_no_such_folder/x.npz: cannot create a file");
  // options are checked as without --record, before anything is written
  char dir[64], path[128];
  test_make_folder(dir, "tightfit_reccli");
  snprintf(path, sizeof(path), "%s/a.npz", dir);
  const char* task[] = {"run", "--task", "nosuch", "--record", path, NULL};
  expect_one_line(task, 2, "unknown task 'nosuch'");
  assert_int_equal(test_folder_entries(dir), 0);
  test_remove_tree(dir);
}

// the row's members outside the timings, printed exactly
static char* untimed(const char* line) {
  cJSON* o = cJSON_Parse(line);
  assert_non_null(o);
  for (cJSON* item = o->child; item;) {
    cJSON* next = item->next;
    const char* k = item->string;
    if (strncmp(k, "throughput.", 11) == 0 || strcmp(k, "steps_per_s") == 0 ||
        strcmp(k, "realtime_factor") == 0) {
      cJSON_Delete(cJSON_DetachItemViaPointer(o, item));
    }
    item = next;
  }
  char* text = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return text;
}

static void test_same_row(void** state) {
  (void)state;
  char dir[64], path[128];
  test_make_folder(dir, "tightfit_reccli");
  snprintf(path, sizeof(path), "%s/peg.npz", dir);
  const char* plain[] = {"run",    "--task", "peg",    "--duration", "0.1",
                         "--envs", "2",      "--json", NULL};
  const char* rec[] = {"run", "--task", "peg",      "--duration", "0.1", "--envs",
                       "2",   "--json", "--record", path,         NULL};
  cli_exec_result a = cli_exec(plain), b = cli_exec(rec);
  assert_int_equal(a.code, 0);
  assert_int_equal(b.code, 0);
  assert_string_equal(b.err, "");
  char *ta = untimed(a.out), *tb = untimed(b.out);
  assert_string_equal(ta, tb);
  free(ta);
  free(tb);
  cli_exec_free(&a);
  cli_exec_free(&b);
  assert_int_equal(test_folder_entries(dir), 1);
  test_remove_tree(dir);
}

// 1 once process pid holds an unlinked temporary file of a recording (its rows streaming)
static int recording(pid_t pid) {
  char fds[64];
  snprintf(fds, sizeof(fds), "/proc/%d/fd", (int)pid);
  DIR* d = opendir(fds);
  if (!d) return 0;
  int found = 0;
  for (struct dirent* e; !found && (e = readdir(d));) {
    char link[512], target[512];
    snprintf(link, sizeof(link), "%s/%s", fds, e->d_name);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n <= 0) continue;
    target[n] = 0;
    found = strstr(target, ".npz.tmp.") && strstr(target, "(deleted)");
  }
  closedir(d);
  return found;
}

// a long recorded run, signalled once it records: exit 130, nothing left in the folder
static void interrupt_run(int sig) {
  char dir[64], path[128];
  test_make_folder(dir, "tightfit_reccli");
  snprintf(path, sizeof(path), "%s/long.npz", dir);
  char* argv[] = {
      (char*)cli_exec_path(), "run", "--task", "peg", "--duration", "600", "--record", path, NULL};
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
  int seen = 0;
  for (int i = 0; i < 20000 && !seen; i++) {
    seen = recording(pid);
    struct timespec ms = {0, 1000000L};
    if (!seen) nanosleep(&ms, NULL);
  }
  assert_true(seen);
  assert_int_equal(kill(pid, sig), 0);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  int ok = WIFEXITED(status) && WEXITSTATUS(status) == 130 && test_folder_entries(dir) == 0;
  if (!ok) {
    print_message("signal %d: status %d, %d entries left\n", sig, status, test_folder_entries(dir));
  }
  test_remove_tree(dir);
  assert_true(ok);
}

static void test_interrupt(void** state) {
  (void)state;
  interrupt_run(SIGINT);
  interrupt_run(SIGTERM);
}

// a disk that fills up: a file size limit in the child (writes past it fail with EFBIG)
static void test_full_disk(void** state) {
  (void)state;
  char dir[64], path[128];
  test_make_folder(dir, "tightfit_reccli");
  snprintf(path, sizeof(path), "%s/full.npz", dir);
  char* argv[] = {
      (char*)cli_exec_path(), "run", "--task", "peg", "--duration", "1", "--record", path, NULL};
  int err_fd = cli_exec_temp();
  assert_true(err_fd >= 0);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {20000, 20000};
    int null_fd = open("/dev/null", O_RDWR);
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0 || null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0 ||
        dup2(err_fd, STDERR_FILENO) < 0) {
      _exit(126);
    }
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  char* err = cli_exec_slurp(err_fd);
  close(err_fd);
  int ok = WIFEXITED(status) && WEXITSTATUS(status) == 1 && lines_of(err) == 1 &&
           strstr(err, path) && strstr(err, "File too large") && test_folder_entries(dir) == 0;
  if (!ok)
    print_message("status %d, stderr: %s, %d entries\n", status, err, test_folder_entries(dir));
  free(err);
  test_remove_tree(dir);
  assert_true(ok);
}

// the run id of the row whose solver is solver, from DIR/results.jsonl
static void run_id_of(const char* dir, const char* solver, char id[32]) {
  char path[128], line[8192];
  snprintf(path, sizeof(path), "%s/results.jsonl", dir);
  FILE* f = fopen(path, "r");
  assert_non_null(f);
  id[0] = 0;
  while (fgets(line, sizeof(line), f)) {
    cJSON* o = cJSON_Parse(line);
    const cJSON* s = cJSON_GetObjectItemCaseSensitive(o, "solver");
    if (cJSON_IsString(s) && strcmp(s->valuestring, solver) == 0) {
      snprintf(id, 32, "%s", cJSON_GetObjectItemCaseSensitive(o, "run_id")->valuestring);
    }
    cJSON_Delete(o);
  }
  fclose(f);
}

static void write_text(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

static void test_sweep(void** state) {
  (void)state;
  char dir[64], config[128], out[128], path[256], id[32];
  test_make_folder(dir, "tightfit_reccli");
  snprintf(config, sizeof(config), "%s/c.json", dir);
  snprintf(out, sizeof(out), "%s/out", dir);
  write_text(config,
             "{\"task\": \"peg\", \"duration\": 0.05, \"grid\": {\"solver\": [\"al\", \"pgs\"]}, "
             "\"record\": {\"runs\": [1]}}");
  const char* args[] = {"sweep", config, "--out", out, "--jobs", "2", NULL};
  cli_exec_result r = cli_exec(args);
  if (r.code != 0) print_message("%s", r.err);
  assert_int_equal(r.code, 0);
  cli_exec_free(&r);
  // run 1 is the second solver of the grid: its file alone
  run_id_of(out, "pgs", id);
  snprintf(path, sizeof(path), "%s/record", out);
  assert_int_equal(test_folder_entries(path), 1);
  snprintf(path, sizeof(path), "%s/record/%s.npz", out, id);
  assert_int_equal(access(path, R_OK), 0);

  // a config whose record section is wrong: one line per problem, nothing run or made
  write_text(config, "{\"task\": \"peg\", \"record\": {\"runs\": 3}}");
  snprintf(out, sizeof(out), "%s/out2", dir);
  const char* bad[] = {"sweep", config, "--out", out, NULL};
  r = cli_exec(bad);
  assert_int_equal(r.code, 2);
  assert_int_equal(lines_of(r.err), 1);
  assert_non_null(strstr(r.err, "record.runs: must be \"all\" or a list of run numbers"));
  cli_exec_free(&r);
  assert_int_equal(access(out, F_OK), -1);

  // DIR/record cannot be a folder: refused before any run
  write_text(config, "{\"task\": \"peg\", \"duration\": 0.05, \"record\": {\"runs\": \"all\"}}");
  assert_int_equal(mkdir(out, 0755), 0);
  snprintf(path, sizeof(path), "%s/record", out);
  write_text(path, "");
  const char* force[] = {"sweep", config, "--out", out, "--force", NULL};
  r = cli_exec(force);
  assert_int_equal(r.code, 1);
  assert_int_equal(lines_of(r.err), 1);
  assert_non_null(strstr(r.err, "tightfit sweep: record: "));
  cli_exec_free(&r);
  snprintf(path, sizeof(path), "%s/results.jsonl", out);
  assert_int_equal(access(path, F_OK), -1);
  test_remove_tree(out);
  test_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_paths), cmocka_unit_test(test_same_row),
      cmocka_unit_test(test_interrupt), cmocka_unit_test(test_full_disk),
      cmocka_unit_test(test_sweep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
