// The `tightfit` command as a user meets it: each case runs the built binary (path in
// TIGHTFIT_BIN, default build/tightfit) with fork / execv, no shell, with stdout and stderr in
// temporary files, and checks the exit status (2 for usage errors, never a signal), the one-line
// error message, and the JSON that `list` and `run` print.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 16

// what one run of the binary did
typedef struct cli_result {
  int exited;  // 1 if it exited normally (not killed by a signal)
  int code;    // exit status when exited, else the signal number
  char* out;   // all of stdout, NUL terminated
  char* err;   // all of stderr
} cli_result;

// the binary under test; an environment variable so the asan tree can point at its own
static const char* cli_path(void) {
  const char* bin = getenv("TIGHTFIT_BIN");
  return bin && bin[0] ? bin : "build/tightfit";
}

// reads a whole file from its start into a NUL-terminated heap string
static char* slurp(int fd) {
  off_t size = lseek(fd, 0, SEEK_END);
  assert_true(size >= 0);
  assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
  char* text = malloc((size_t)size + 1);
  assert_non_null(text);
  size_t got = 0;
  while (got < (size_t)size) {
    ssize_t n = read(fd, text + got, (size_t)size - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  text[got] = 0;
  return text;
}

// an unlinked temporary file to catch one of the child's streams
static int temp_file(void) {
  char path[] = "/tmp/tightfit_cli_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  unlink(path);
  return fd;
}

// runs the binary with args (NULL-terminated, without argv[0]) and captures everything
static cli_result run_cli(const char* const* args) {
  char* argv[MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = (char*)cli_path();
  for (int i = 0; args[i]; i++) {
    assert_true(argc < MAX_ARGS + 1);
    argv[argc++] = (char*)args[i];
  }
  argv[argc] = NULL;

  int out_fd = temp_file(), err_fd = temp_file();
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
        dup2(err_fd, STDERR_FILENO) < 0) {
      _exit(126);
    }
    close(null_fd);
    close(out_fd);
    close(err_fd);
    execv(argv[0], argv);
    _exit(127);  // exec failed: the binary is missing
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  cli_result r;
  r.exited = WIFEXITED(status);
  r.code = r.exited ? WEXITSTATUS(status) : (WIFSIGNALED(status) ? WTERMSIG(status) : -1);
  r.out = slurp(out_fd);
  r.err = slurp(err_fd);
  close(out_fd);
  close(err_fd);
  return r;
}

// frees a result's captured text
static void cli_result_free(cli_result* r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}

// counts newline-terminated lines in the first n bytes of text
static int count_lines(const char* text, size_t n) {
  int lines = 0;
  for (size_t i = 0; i < n && text[i]; i++) lines += text[i] == '\n';
  return lines;
}

// the contract of every usage error: a normal exit with status 2, and exactly one line of
// message on stderr, followed by nothing or by the usage text; frees r when it fails
static void check_usage_error(cli_result* r) {
  if (!r->exited) {
    int sig = r->code;
    cli_result_free(r);
    fail_msg("killed by signal %d", sig);
  }
  if (r->code != 2) {
    print_message("stderr: %s\n", r->err);
    int code = r->code;
    cli_result_free(r);
    fail_msg("exit status %d, expected 2", code);
  }
  const char* usage = strstr(r->err, "usage:");
  size_t before = usage ? (size_t)(usage - r->err) : strlen(r->err);
  int lines = count_lines(r->err, before);
  int trailing = usage ? 0 : (int)strlen(r->err) - (int)before;
  if (lines != 1 || trailing != 0 || (before > 0 && r->err[before - 1] != '\n')) {
    print_message("stderr:\n%s", r->err);
    cli_result_free(r);
    fail_msg("expected exactly one line of message before the usage text, got %d", lines);
  }
  if (strncmp(r->err, "tightfit", 8) != 0) {
    print_message("stderr:\n%s", r->err);
    cli_result_free(r);
    fail_msg("the message should start with the program's name");
  }
}

// runs args, expects a usage error whose stderr contains every string in needles
static void expect_usage_error(const char* const* args, const char* const* needles,
                               int with_usage) {
  cli_result r = run_cli(args);
  check_usage_error(&r);
  for (int i = 0; needles && needles[i]; i++) {
    if (!strstr(r.err, needles[i])) {
      print_message("stderr:\n%s", r.err);
      cli_result_free(&r);
      fail_msg("stderr does not contain '%s'", needles[i]);
    }
  }
  if (with_usage && !strstr(r.err, "usage:")) {
    print_message("stderr:\n%s", r.err);
    cli_result_free(&r);
    fail_msg("stderr has no usage text");
  }
  int out_empty = r.out[0] == 0;
  cli_result_free(&r);
  assert_true(out_empty);
}

// parses text as exactly one JSON value followed by nothing but whitespace
static cJSON* parse_one_json(const char* text) {
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithOpts(text, &end, 0);
  if (!root) return NULL;
  while (end && (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t')) end++;
  if (!end || *end) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

// the raw digits of a top-level number field as printed, e.g. "energy_final":-9.81 -> "-9.81"
static int raw_field(const char* json, const char* key, char* out, size_t n) {
  char pattern[64];
  snprintf(pattern, sizeof(pattern), "\"%s\":", key);
  const char* p = strstr(json, pattern);
  if (!p) return -1;
  p += strlen(pattern);
  size_t len = strcspn(p, ",}");
  if (len == 0 || len >= n) return -1;
  memcpy(out, p, len);
  out[len] = 0;
  return 0;
}

// the binary must exist before any case can mean anything
static int group_setup(void** state) {
  (void)state;
  if (access(cli_path(), X_OK) != 0) {
    fprintf(stderr, "test_cli: %s is not an executable (set TIGHTFIT_BIN or build it)\n",
            cli_path());
    return -1;
  }
  return 0;
}

// ---------------------------------------------------------------- basics

// --version prints "tightfit X.Y.Z" and succeeds
static void test_version(void** state) {
  (void)state;
  const char* args[] = {"--version", NULL};
  cli_result r = run_cli(args);
  int ok = r.exited && r.code == 0 && strncmp(r.out, "tightfit ", 9) == 0 &&
           count_lines(r.out, strlen(r.out)) == 1 && r.err[0] == 0;
  if (!ok) print_message("status %d, stdout '%s', stderr '%s'\n", r.code, r.out, r.err);
  cli_result_free(&r);
  assert_true(ok);
}

// --help goes to stdout and succeeds: asked-for help is not an error
static void test_help(void** state) {
  (void)state;
  const char* args[] = {"--help", NULL};
  cli_result r = run_cli(args);
  int ok = r.exited && r.code == 0 && strstr(r.out, "usage:") && r.err[0] == 0;
  cli_result_free(&r);
  assert_true(ok);
}

// no arguments at all: one line pointing at --help on stderr, status 2
static void test_no_arguments(void** state) {
  (void)state;
  const char* args[] = {NULL};
  cli_result r = run_cli(args);
  int ok = r.exited && r.code == 2 && strstr(r.err, "--help") && !strstr(r.err, "usage:") &&
           count_lines(r.err, strlen(r.err)) == 1 && r.out[0] == 0;
  if (!ok) print_message("status %d, stderr '%s'\n", r.code, r.err);
  cli_result_free(&r);
  assert_true(ok);
}

// an unknown subcommand is a usage error that names it
static void test_unknown_subcommand(void** state) {
  (void)state;
  const char* args[] = {"frobnicate", NULL};
  const char* needles[] = {"frobnicate", "--help", NULL};
  expect_usage_error(args, needles, 0);
}

// ---------------------------------------------------------------- run: usage errors

// an unknown option of run
static void test_run_unknown_option(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "pendulum", "--fast", NULL};
  const char* needles[] = {"--fast", NULL};
  expect_usage_error(args, needles, 0);
}

// an unknown scene lists the valid ones
static void test_run_unknown_scene(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "nosuch", NULL};
  const char* needles[] = {"nosuch", "pendulum",      "double_pendulum",
                           "chain7", "spinning_body", NULL};
  expect_usage_error(args, needles, 0);
}

// --dt that is not a number
static void test_run_dt_not_a_number(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "pendulum", "--dt", "abc", NULL};
  const char* needles[] = {"--dt", NULL};
  expect_usage_error(args, needles, 0);
}

// --dt with trailing garbage ("1e-3x") is not a number either
static void test_run_dt_trailing_garbage(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "pendulum", "--dt", "1e-3x", NULL};
  const char* needles[] = {"--dt", NULL};
  expect_usage_error(args, needles, 0);
}

// a negative timestep
static void test_run_dt_negative(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "pendulum", "--dt", "-1", NULL};
  const char* needles[] = {"--dt", NULL};
  expect_usage_error(args, needles, 0);
}

// strtod accepts "nan"; the CLI must not
static void test_run_dt_nan(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "pendulum", "--dt", "nan", NULL};
  const char* needles[] = {"--dt", NULL};
  expect_usage_error(args, needles, 0);
}

// a zero timestep never advances
static void test_run_dt_zero(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "pendulum", "--dt", "0", NULL};
  const char* needles[] = {"--dt", NULL};
  expect_usage_error(args, needles, 0);
}

// an infinite duration never ends
static void test_run_duration_inf(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "pendulum", "--duration", "inf", NULL};
  const char* needles[] = {"--duration", NULL};
  expect_usage_error(args, needles, 0);
}

// an unknown integrator lists the valid ones
static void test_run_unknown_integrator(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "pendulum", "--integrator", "foo", NULL};
  const char* needles[] = {"foo", "euler", "rk4", NULL};
  expect_usage_error(args, needles, 0);
}

// an option at the end without its value
// an unknown gate or solver names the valid ones
static void test_validate_unknown_gate(void** state) {
  (void)state;
  const char* args[] = {"validate", "--gate", "nosuch", NULL};
  const char* needles[] = {"nosuch", "oblique_slide", "ghost_edge", NULL};
  expect_usage_error(args, needles, 0);
}

static void test_validate_unknown_solver(void** state) {
  (void)state;
  const char* args[] = {"validate", "--solver", "sor", NULL};
  const char* needles[] = {"sor", "pgs", "newton", "al", "admm", "fbnewton", NULL};
  expect_usage_error(args, needles, 0);
}

static void test_validate_unknown_option(void** state) {
  (void)state;
  const char* args[] = {"validate", "--fast", NULL};
  const char* needles[] = {"--fast", NULL};
  expect_usage_error(args, needles, 0);
}

// a persistence tolerance out of range, or without the task gates, is refused naming it
static void test_validate_persist_tol(void** state) {
  (void)state;
  const char* bad[] = {"validate", "--tasks", "--persist-tol", "-1", NULL};
  const char* bad_needles[] = {"--persist-tol", NULL};
  expect_usage_error(bad, bad_needles, 0);
  const char* alone[] = {"validate", "--persist-tol", "0", NULL};
  const char* alone_needles[] = {"--persist-tol", "--tasks", NULL};
  expect_usage_error(alone, alone_needles, 0);
}

// one gate under one solver: a JSON array with one object carrying the promised fields
static void test_validate_json(void** state) {
  (void)state;
  const char* args[] = {"validate", "--gate", "ghost_edge", "--solver", "al", "--json", NULL};
  cli_result r = run_cli(args);
  cJSON* root = cJSON_Parse(r.out);
  assert_non_null(root);
  assert_true(cJSON_IsArray(root));
  assert_int_equal(cJSON_GetArraySize(root), 1);
  cJSON* o = cJSON_GetArrayItem(root, 0);
  const char* keys[] = {"gate", "solver", "metric", "value", "limit", "pass"};
  for (int i = 0; i < 6; i++) assert_non_null(cJSON_GetObjectItem(o, keys[i]));
  assert_string_equal(cJSON_GetObjectItem(o, "gate")->valuestring, "ghost_edge");
  assert_string_equal(cJSON_GetObjectItem(o, "solver")->valuestring, "al");
  assert_true(cJSON_IsBool(cJSON_GetObjectItem(o, "pass")));
  cJSON_Delete(root);
  cli_result_free(&r);
}

// a part exports as a mesh file; a second read of it gives the counts the export reported
static void test_asset_export(void** state) {
  (void)state;
  char path[] = "/tmp/tightfit_test_gear_XXXXXX.obj";
  int fd = mkstemps(path, 4);
  assert_true(fd >= 0);
  close(fd);
  unlink(path);
  const char* args[] = {"asset", "export", "gear",   "--set", "teeth=17",
                        "--out", path,     "--json", NULL};
  cli_result r = run_cli(args);
  assert_true(r.exited);
  assert_int_equal(r.code, 0);
  cJSON* root = cJSON_Parse(r.out);
  assert_non_null(root);
  assert_true(cJSON_GetObjectItem(root, "triangles")->valueint > 100);
  cJSON_Delete(root);
  cli_result_free(&r);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_true(st.st_size > 1000);
  unlink(path);
}

// bad part, bad parameter, bad extension and an unwritable folder: exit 2, no file
static void test_asset_export_errors(void** state) {
  (void)state;
  const char* unknown[] = {"asset", "export", "sprocket", "--out", "/tmp/x.obj", NULL};
  const char* n1[] = {"sprocket", "gear", "nut", NULL};
  expect_usage_error(unknown, n1, 0);
  const char* bad_size[] = {"asset",   "export", "bolt",       "--set",
                            "size=M7", "--out",  "/tmp/x.obj", NULL};
  const char* n2[] = {"size", "M16", NULL};
  expect_usage_error(bad_size, n2, 0);
  const char* bad_key[] = {"asset",   "export", "nut",        "--set",
                           "pitch=1", "--out",  "/tmp/x.obj", NULL};
  const char* n3[] = {"pitch", "size", NULL};
  expect_usage_error(bad_key, n3, 0);
  const char* bad_ext[] = {"asset", "export", "nut", "--out", "/tmp/x.ply", NULL};
  const char* n4[] = {".obj", NULL};
  expect_usage_error(bad_ext, n4, 0);
  const char* bad_dir[] = {"asset", "export", "nut", "--out", "/nonexistent_dir/x.stl", NULL};
  const char* n5[] = {"/nonexistent_dir/x.stl", NULL};
  expect_usage_error(bad_dir, n5, 0);
  // lengths are in mm, named so, like the tasks' (issue 19): the old metre key is refused
  const char* old_key[] = {"asset",          "export", "peg",        "--set",
                           "diameter=0.008", "--out",  "/tmp/x.obj", NULL};
  const char* n6[] = {"'diameter'", "diameter_mm", NULL};
  expect_usage_error(old_key, n6, 0);
  struct stat st;
  assert_true(stat("/nonexistent_dir/x.stl", &st) != 0);
}

static void test_run_dt_missing_value(void** state) {
  (void)state;
  const char* args[] = {"run", "--scene", "pendulum", "--dt", NULL};
  const char* needles[] = {"--dt", NULL};
  expect_usage_error(args, needles, 0);
}

// --controller belongs to robot mode and names one of its controllers
static void test_run_controller_option(void** state) {
  (void)state;
  const char* rig[] = {"run", "--task", "peg", "--controller", "osc", NULL};
  const char* n1[] = {"--controller", "--mode robot", NULL};
  expect_usage_error(rig, n1, 0);
  const char* bad[] = {"run", "--task", "peg", "--mode", "robot", "--controller", "nosuch", NULL};
  const char* n2[] = {"controller", "nosuch", "osc|impedance|ik|pd", NULL};
  expect_usage_error(bad, n2, 0);
}

// --threads takes a whole number in [1, 256]: anything else is one line naming it
static void test_run_threads_option(void** state) {
  (void)state;
  const char* bad[] = {"0", "abc", "1.5", "257", "-2", "2x"};
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    const char* args[] = {"run", "--task", "peg", "--envs", "2", "--threads", bad[k], NULL};
    const char* needles[] = {"--threads", "[1, 256]", bad[k], NULL};
    expect_usage_error(args, needles, 0);
  }
  const char* missing[] = {"run", "--task", "peg", "--threads", NULL};
  const char* n1[] = {"--threads", NULL};
  expect_usage_error(missing, n1, 0);
}

// run needs a scene
static void test_run_without_scene(void** state) {
  (void)state;
  const char* args[] = {"run", "--json", NULL};
  const char* needles[] = {"--scene", NULL};
  expect_usage_error(args, needles, 0);
}

// list takes --json only
static void test_list_unknown_option(void** state) {
  (void)state;
  const char* args[] = {"list", "--yaml", NULL};
  const char* needles[] = {"--yaml", NULL};
  expect_usage_error(args, needles, 0);
}

// ---------------------------------------------------------------- list and run output

// list --json: one JSON object with the scenes and integrators from the registries
static void test_list_json(void** state) {
  (void)state;
  const char* args[] = {"list", "--json", NULL};
  cli_result r = run_cli(args);
  int exited_ok = r.exited && r.code == 0;
  int has_names = strstr(r.out, "double_pendulum") && strstr(r.out, "rk4");
  cJSON* root = parse_one_json(r.out);
  if (!exited_ok || !root) print_message("status %d, stdout '%s'\n", r.code, r.out);
  cli_result_free(&r);
  assert_true(exited_ok);
  assert_true(has_names);
  assert_non_null(root);
  const cJSON* scenes = cJSON_GetObjectItemCaseSensitive(root, "scenes");
  const cJSON* integrators = cJSON_GetObjectItemCaseSensitive(root, "integrators");
  int scenes_ok = cJSON_IsArray(scenes) && cJSON_GetArraySize(scenes) >= 4;
  int found_double = 0, found_rk4 = 0, found_euler = 0;
  const cJSON* item = NULL;
  cJSON_ArrayForEach(item, scenes) {
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(item, "name");
    if (cJSON_IsString(name) && strcmp(name->valuestring, "double_pendulum") == 0) {
      found_double = 1;
    }
  }
  cJSON_ArrayForEach(item, integrators) {
    if (cJSON_IsString(item) && strcmp(item->valuestring, "rk4") == 0) found_rk4 = 1;
    if (cJSON_IsString(item) && strcmp(item->valuestring, "euler") == 0) found_euler = 1;
  }
  cJSON_Delete(root);
  assert_true(scenes_ok);
  assert_true(found_double);
  assert_true(found_rk4);
  assert_true(found_euler);
}

// plain list succeeds and mentions every scene
static void test_list_text(void** state) {
  (void)state;
  const char* args[] = {"list", NULL};
  cli_result r = run_cli(args);
  int ok = r.exited && r.code == 0 && strstr(r.out, "spinning_body") && strstr(r.out, "rk4");
  cli_result_free(&r);
  assert_true(ok);
}

// runs the 0.1 s pendulum with --json under one integrator and returns its single JSON
// object, and the raw text of energy_final when raw_energy is given
static cJSON* run_pendulum_json(const char* integrator, char* raw_energy, size_t n) {
  const char* args[] = {"run",          "--scene",  "pendulum", "--duration", "0.1",
                        "--integrator", integrator, "--json",   NULL};
  cli_result r = run_cli(args);
  int exited_ok = r.exited && r.code == 0;
  int quiet = r.err[0] == 0;
  int one_line = count_lines(r.out, strlen(r.out)) == 1;
  cJSON* root = parse_one_json(r.out);
  int raw_ok = raw_energy ? raw_field(r.out, "energy_final", raw_energy, n) == 0 : 1;
  if (!exited_ok || !root || !quiet) {
    print_message("status %d, stdout '%s', stderr '%s'\n", r.code, r.out, r.err);
  }
  cli_result_free(&r);
  if (!exited_ok || !quiet || !one_line || !raw_ok || !root) {
    cJSON_Delete(root);
    fail_msg("run --json: exit ok %d, stderr empty %d, one line %d, energy_final %d, json %d",
             exited_ok, quiet, one_line, raw_ok, root != NULL);
  }
  return root;
}

// asserts a string field's value, freeing root on failure
static void expect_string_field(cJSON* root, const char* key, const char* value) {
  const cJSON* item = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!cJSON_IsString(item) || strcmp(item->valuestring, value) != 0) {
    cJSON_Delete(root);
    fail_msg("field '%s' is not \"%s\"", key, value);
  }
}

// a number field's value, NAN when absent or not a number
static double number_field(const cJSON* root, const char* key) {
  const cJSON* item = cJSON_GetObjectItemCaseSensitive(root, key);
  return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

// run --json: one object with the scene, the integrator, dt, "ok", 100 steps at 1 ms
static void test_run_json(void** state) {
  (void)state;
  for (int k = 0; k < 2; k++) {
    const char* integrator = k ? "rk4" : "euler";
    cJSON* root = run_pendulum_json(integrator, NULL, 0);
    expect_string_field(root, "scene", "pendulum");
    expect_string_field(root, "integrator", integrator);
    expect_string_field(root, "status", "ok");
    double dt = number_field(root, "dt");
    double steps = number_field(root, "steps");
    double rate = number_field(root, "steps_per_s");
    double duration = number_field(root, "duration");
    double energy = number_field(root, "energy_final");
    cJSON_Delete(root);
    assert_true(dt == 1e-3);  // the pendulum's default
    assert_true(steps == 100);
    assert_true(rate > 0);
    assert_true(duration == 0.1);
    assert_true(isfinite(energy));
  }
}

// the same run twice prints the same energy_final, digit for digit
static void test_run_deterministic(void** state) {
  (void)state;
  char first[64], second[64];
  cJSON* a = run_pendulum_json("euler", first, sizeof(first));
  cJSON* b = run_pendulum_json("euler", second, sizeof(second));
  double ea = number_field(a, "energy_final"), eb = number_field(b, "energy_final");
  cJSON_Delete(a);
  cJSON_Delete(b);
  print_message("energy_final %s / %s\n", first, second);
  assert_string_equal(first, second);
  assert_memory_equal(&ea, &eb, sizeof(double));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_help),
      cmocka_unit_test(test_no_arguments),
      cmocka_unit_test(test_unknown_subcommand),
      cmocka_unit_test(test_run_unknown_option),
      cmocka_unit_test(test_run_unknown_scene),
      cmocka_unit_test(test_run_dt_not_a_number),
      cmocka_unit_test(test_run_dt_trailing_garbage),
      cmocka_unit_test(test_run_dt_negative),
      cmocka_unit_test(test_run_dt_nan),
      cmocka_unit_test(test_run_dt_zero),
      cmocka_unit_test(test_run_duration_inf),
      cmocka_unit_test(test_run_unknown_integrator),
      cmocka_unit_test(test_run_dt_missing_value),
      cmocka_unit_test(test_run_without_scene),
      cmocka_unit_test(test_run_controller_option),
      cmocka_unit_test(test_run_threads_option),
      cmocka_unit_test(test_list_unknown_option),
      cmocka_unit_test(test_validate_unknown_gate),
      cmocka_unit_test(test_validate_unknown_solver),
      cmocka_unit_test(test_validate_unknown_option),
      cmocka_unit_test(test_validate_persist_tol),
      cmocka_unit_test(test_validate_json),
      cmocka_unit_test(test_asset_export),
      cmocka_unit_test(test_asset_export_errors),
      cmocka_unit_test(test_list_json),
      cmocka_unit_test(test_list_text),
      cmocka_unit_test(test_run_json),
      cmocka_unit_test(test_run_deterministic),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
