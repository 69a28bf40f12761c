// Tests of `tightfit run --scene FILE.xml` (cli/cmd_run.c): a model runs and prints its row
// with contacts and penetration, what the engine cannot represent is listed once on one
// stderr line, and a bad file or option is one stderr line with exit 2.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli_exec.h"
#include "test_folder.h"

// lines in s (a trailing newline ends the last one)
static int count_lines(const char* s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static void write_model(char path[256], const char* dir, const char* name, const char* xml) {
  snprintf(path, 256, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(xml, f);
  assert_int_equal(fclose(f), 0);
}

static void test_model_runs(void** state) {
  (void)state;
  char dir[64], path[256];
  test_make_folder(dir, "tf_run_mjcf");
  write_model(path, dir, "box.xml",
              "<mujoco><option timestep='0.001'/><worldbody>"
              "<geom type='plane' size='1 1 0.1'/>"
              "<body pos='0 0 0.2'><freejoint/><geom type='box' size='0.1 0.1 0.1'/>"
              "<geom type='ellipsoid' size='0.1 0.1 0.1'/></body>"
              "</worldbody><sensor/><sensor/><tendon/></mujoco>");
  const char* args[] = {"run", "--scene", path, "--duration", "0.5", "--solver", "pgs", NULL};
  cli_exec_result r = cli_exec(args);
  assert_true(r.exited);
  assert_int_equal(r.code, 0);
  assert_non_null(strstr(r.out, "pgs, dt 0.001 s, 0.5 s): ok, 500 steps"));
  assert_non_null(strstr(r.out, "contacts max"));
  assert_string_equal(r.err,
                      "mjcf: unsupported, ignored: geom type 'ellipsoid', <sensor>, "
                      "<tendon>\n");
  cli_exec_free(&r);

  const char* json[] = {"run",  "--scene", path,     "--duration", "0.2",
                        "--dt", "0.002",   "--json", NULL};
  r = cli_exec(json);
  assert_int_equal(r.code, 0);
  assert_non_null(strstr(r.out, "\"dt\":0.002"));
  assert_non_null(strstr(r.out, "\"steps\":100"));
  assert_non_null(strstr(r.out, "\"penetration_max\":"));
  assert_non_null(strstr(r.out, "\"contacts_max\":"));
  cli_exec_free(&r);
  test_remove_tree(dir);
}

static void test_bad_input_is_one_line(void** state) {
  (void)state;
  char dir[64], path[256];
  test_make_folder(dir, "tf_run_mjcf");
  write_model(path, dir, "bad.xml",
              "<mujoco><worldbody>\n<body><joint axis='0 0 0'/><geom size='0.1'/></body>\n"
              "</worldbody></mujoco>");
  const char* args[] = {"run", "--scene", path, NULL};
  cli_exec_result r = cli_exec(args);
  assert_int_equal(r.code, 2);
  assert_int_equal(count_lines(r.err), 1);
  assert_non_null(strstr(r.err, ":2: <joint>"));
  assert_non_null(strstr(r.err, path));
  assert_string_equal(r.out, "");
  cli_exec_free(&r);

  write_model(path, dir, "malformed.xml", "<mujoco><worldbody></mujoco>");
  r = cli_exec(args);
  assert_int_equal(r.code, 2);
  assert_int_equal(count_lines(r.err), 1);
  assert_non_null(strstr(r.err, "malformed XML"));
  cli_exec_free(&r);

  const char* missing[] = {"run", "--scene", "/nonexistent/m.xml", NULL};
  r = cli_exec(missing);
  assert_int_equal(r.code, 2);
  assert_int_equal(count_lines(r.err), 1);
  cli_exec_free(&r);

  const char* solver[] = {"run", "--scene", path, "--solver", "magic", NULL};
  r = cli_exec(solver);
  assert_int_equal(r.code, 2);
  assert_non_null(strstr(r.err, "unknown solver 'magic'"));
  cli_exec_free(&r);

  // a built-in scene takes no --solver
  const char* builtin[] = {"run", "--scene", "pendulum", "--solver", "pgs", NULL};
  r = cli_exec(builtin);
  assert_int_equal(r.code, 2);
  assert_int_equal(count_lines(r.err), 1);
  cli_exec_free(&r);
  test_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_model_runs),
      cmocka_unit_test(test_bad_input_is_one_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
