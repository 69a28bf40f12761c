// Recording a run (reports/record.c): the row is the unrecorded run's (timings aside), the
// file loads in numpy (Debian's, for /usr/bin/python3) with the documented shapes, its time
// advances by dt, its last poses are the unrecorded run's to the bit, its per-step overlap,
// depth and gear errors give back the probes' metrics exactly, its contacts index
// consistently; several environments interleave as (steps, envs, ...); an interrupt, a bad
// path or bad options leave no file.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_folder.h"
#include "record.h"
#include "task.h"

// a measurement, not a result: timings differ between any two runs
static int is_timing(const char* name) {
  return strncmp(name, "throughput.", 11) == 0 || strcmp(name, "steps_per_s") == 0 ||
         strcmp(name, "realtime_factor") == 0;
}

// two rows with the same metrics in the same order, the same bits outside the timings
static void assert_same_row(const tf_metrics* a, const tf_metrics* b) {
  assert_int_equal(a->n, b->n);
  for (int i = 0; i < a->n; i++) {
    assert_string_equal(a->item[i].name, b->item[i].name);
    if (is_timing(a->item[i].name)) continue;
    assert_int_equal(a->item[i].kind, b->item[i].kind);
    if (a->item[i].kind == TF_METRIC_TEXT) {
      assert_string_equal(a->item[i].text, b->item[i].text);
    } else {
      assert_memory_equal(&a->item[i].value, &b->item[i].value, sizeof(double));
    }
  }
}

// environment index's last state as the unrecorded run leaves it: body positions and
// quaternions, then qpos and qvel, as raw doubles in file path
static void write_final_state(const tf_run_options* o, int index, const char* path) {
  tf_env env;
  tf_metrics* m = malloc(sizeof(*m));
  char err[512];
  assert_int_equal(tf_task_run_env(o, index, &env, m, err, sizeof(err)), 0);
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  const tf_model* model = env.model;
  fwrite(env.data->xpos, sizeof(double), 3 * (size_t)model->nbody, f);
  fwrite(env.data->xquat, sizeof(double), 4 * (size_t)model->nbody, f);
  fwrite(env.data->qpos, sizeof(double), (size_t)model->nq, f);
  fwrite(env.data->qvel, sizeof(double), (size_t)model->nv, f);
  assert_int_equal(fclose(f), 0);
  tf_env_free(tf_task_for_mode(tf_task_find(o->task), o->mode), &env);
  free(m);
}

// runs a Python program with Debian's numpy (the machine's default python3 may not see it)
// on args; its exit status
static int run_python(const char* program, const char* const* args) {
  const char* argv[16] = {"python3", "-c", program};
  int n = 3;
  for (int i = 0; args[i] && n < 15; i++) argv[n++] = args[i];
  argv[n] = NULL;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    execv("/usr/bin/python3", (char* const*)argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void number(char out[32], double x) { snprintf(out, 32, "%.17g", x); }

// the file of a recorded peg run against its row and the unrecorded run's last state
static const char peg_program[] =
    "import sys, numpy as np\n"
    "z = np.load(sys.argv[1])\n"
    "final = np.fromfile(sys.argv[2])\n"
    "dt, peak, mean, nsteps, depth = (float(x) for x in sys.argv[3:8])\n"
    "T = int(round(0.2 / dt)) + 1\n"
    "nb = z['body_names'].shape[0]\n"
    "nq, nv = z['qpos'].shape[2], z['qvel'].shape[2]\n"
    "assert z['time'].shape == (T, 1), z['time'].shape\n"
    "assert z['body_pos'].shape == (T, 1, nb, 3) and z['body_quat'].shape == (T, 1, nb, 4)\n"
    "assert z['body_vel'].shape == (T, 1, nb, 6) and z['stage_time'].shape[:2] == (T, 1)\n"
    "assert z['dt'] == dt and list(z['steps']) == [T] and list(z['diverged']) == [0]\n"
    "assert z['task'] == b'peg'\n"
    "t = z['time'][:, 0]\n"
    "assert t[0] == 0 and np.allclose(np.diff(t), dt, rtol=0, atol=1e-12)\n"
    // the last state, bit for bit
    "got = np.concatenate([z['body_pos'][-1, 0].ravel(), z['body_quat'][-1, 0].ravel(),\n"
    "                      z['qpos'][-1, 0], z['qvel'][-1, 0]])\n"
    "assert got.shape == final.shape and (got.view(np.uint64) == final.view(np.uint64)).all()\n"
    // the overlap probe's metrics from the per-step values, in the probe's own order
    "o, c = z['overlap_m'][:, 0], z['overlap_in_contact'][:, 0]\n"
    "assert o.max() == peak and c.sum() == nsteps, (o.max(), peak, c.sum(), nsteps)\n"
    "s = 0.0\n"
    "for x, k in zip(o, c):\n"
    "    s = s + x if k else s\n"
    "assert s / c.sum() == mean, (s / c.sum(), mean)\n"
    "assert z['tunnel_depth'][-1, 0] == depth\n"
    // the contacts: each step's rows at its address, in step order
    "n, adr = z['ncon'][:, 0], z['contact_adr'][:, 0]\n"
    "assert z['contact_env'].shape == (n.sum(),) and (z['contact_env'] == 0).all()\n"
    "for k in range(T):\n"
    "    assert (z['contact_step'][adr[k]:adr[k] + n[k]] == k).all()\n"
    "assert z['contact_force'].shape == (n.sum(), 4) and (z['contact_force'][:, 0] >= 0).all()\n"
    "assert n.sum() > 0 and z['contact_tangent'].shape == (n.sum(), 2, 3)\n"
    "f = z['contact_force'][:, :3]\n"
    "w = np.einsum('ck,ckj->cj', f[:, 1:], z['contact_tangent']) + f[:, :1] * z['contact_normal']\n"
    "assert np.allclose(w, z['contact_force_world'], rtol=0, atol=1e-12)\n"
    // a free body's frame origin moves at its joint's linear velocity
    "assert np.allclose(z['body_vel'][:, 0, 1, :3], z['qvel'][:, 0, :3], rtol=0, atol=1e-12)\n";

static void test_peg(void** state) {
  (void)state;
  char dir[64], path[128], final[128], err[1024];
  test_make_folder(dir, "tightfit_record");
  snprintf(path, sizeof(path), "%s/peg.npz", dir);
  snprintf(final, sizeof(final), "%s/final.bin", dir);
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = "peg";
  o.duration = 0.2;
  tf_metrics* row = malloc(sizeof(*row));
  tf_metrics* plain = malloc(sizeof(*plain));
  int written = 0;
  assert_int_equal(tf_record_run(&o, path, NULL, row, &written, err, sizeof(err)), TF_RECORD_OK);
  assert_int_equal(written, 1);
  assert_int_equal(test_folder_entries(dir), 1);  // the file alone
  assert_int_equal(tf_task_run(&o, plain, err, sizeof(err)), 0);
  assert_same_row(row, plain);
  write_final_state(&o, 0, final);
  char dt[32], peak[32], mean[32], steps[32], depth[32];
  number(dt, tf_metrics_get(row, "dt"));
  number(peak, tf_metrics_get(row, "overlap.peak_m"));
  number(mean, tf_metrics_get(row, "overlap.mean_m"));
  number(steps, tf_metrics_get(row, "overlap.contact_steps"));
  number(depth, tf_metrics_get(row, "tunnel.depth_final_m"));
  const char* args[] = {path, final, dt, peak, mean, steps, depth, NULL};
  assert_int_equal(run_python(peg_program, args), 0);
  free(row);
  free(plain);
  test_remove_tree(dir);
}

// two environments on two threads: recorded one after another, laid out side by side
static void test_envs(void** state) {
  (void)state;
  char dir[64], path[128], final[128], err[1024];
  test_make_folder(dir, "tightfit_record");
  snprintf(path, sizeof(path), "%s/two.npz", dir);
  snprintf(final, sizeof(final), "%s/final.bin", dir);
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = "peg";
  o.duration = 0.1;
  o.envs = 2;
  o.threads = 2;
  tf_metrics* row = malloc(sizeof(*row));
  tf_metrics* plain = malloc(sizeof(*plain));
  int written = 0;
  assert_int_equal(tf_record_run(&o, path, NULL, row, &written, err, sizeof(err)), TF_RECORD_OK);
  assert_int_equal(written, 1);
  assert_int_equal(tf_task_run(&o, plain, err, sizeof(err)), 0);
  assert_same_row(row, plain);
  write_final_state(&o, 1, final);
  static const char program[] =
      "import sys, numpy as np\n"
      "z = np.load(sys.argv[1])\n"
      "final = np.fromfile(sys.argv[2])\n"
      "T = 51\n"
      "assert z['time'].shape == (T, 2) and list(z['steps']) == [T, T] and z['envs'] == 2\n"
      "assert (z['time'][:, 0] == z['time'][:, 1]).all()\n"
      "got = np.concatenate([z['body_pos'][-1, 1].ravel(), z['body_quat'][-1, 1].ravel(),\n"
      "                      z['qpos'][-1, 1], z['qvel'][-1, 1]])\n"
      "assert (got.view(np.uint64) == final.view(np.uint64)).all()\n"
      // environment 1 is perturbed: a different trajectory from 0's
      "assert (z['qpos'][-1, 0] != z['qpos'][-1, 1]).any()\n"
      "e, n = z['contact_env'], z['ncon']\n"
      "assert (np.diff(e) >= 0).all() and (e == 0).sum() == n[:, 0].sum()\n"
      "assert (e == 1).sum() == n[:, 1].sum() and z['contact_adr'][0, 1] == n[:, 0].sum()\n";
  const char* args[] = {path, final, NULL};
  assert_int_equal(run_python(program, args), 0);
  free(row);
  free(plain);
  test_remove_tree(dir);
}

// gears: the recorded angle errors give the probe's skipped teeth exactly (a turning input:
// 10 rad/s, 5 ms steps, so the run is short)
static void test_gears(void** state) {
  (void)state;
  char dir[64], path[128], err[1024];
  test_make_folder(dir, "tightfit_record");
  snprintf(path, sizeof(path), "%s/gears.npz", dir);
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = "gears";
  o.duration = 0.3;
  o.physics.dt = 0.005;
  o.nset = 1;
  o.set[0].key = "input_speed";
  o.set[0].value = "10";
  tf_metrics* row = malloc(sizeof(*row));
  int written = 0;
  assert_int_equal(tf_record_run(&o, path, NULL, row, &written, err, sizeof(err)), TF_RECORD_OK);
  assert_int_equal(written, 1);
  double skipped = tf_metrics_get(row, "gear_slip.skipped_teeth");
  assert_true(skipped > 0);
  char text[32];
  number(text, skipped);
  static const char program[] =
      "import sys, numpy as np\n"
      "z = np.load(sys.argv[1])\n"
      "e, teeth, two_pi = z['gear_error'][:, 0], z['gear_teeth'], 6.283185307179586\n"
      "assert e.shape[1] == len(teeth) == 3 and np.isnan(e[:, 0]).all()\n"
      "worst = max(np.nanmax(np.abs(e[:, f])) * teeth[f] / two_pi for f in range(1, 3))\n"
      "assert worst == float(sys.argv[2]), (worst, sys.argv[2])\n"
      "assert z['gear_angle'][:, 0].shape == e.shape and z['gear_angle'][-1, 0, 0] > 0.9\n";
  const char* args[] = {path, text, NULL};
  assert_int_equal(run_python(program, args), 0);
  free(row);
  test_remove_tree(dir);
}

// nothing at the path, nor a temporary file, after any failure
static void test_failures(void** state) {
  (void)state;
  char dir[64], path[128], err[1024];
  test_make_folder(dir, "tightfit_record");
  snprintf(path, sizeof(path), "%s/x.npz", dir);
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = "peg";
  o.duration = 0.05;
  tf_metrics* row = malloc(sizeof(*row));
  int written = 1;
  // interrupted (the flag already up): stops at the first control step
  volatile sig_atomic_t cancel = 1;
  assert_int_equal(tf_record_run(&o, path, &cancel, row, &written, err, sizeof(err)),
                   TF_RECORD_FAILED);
  assert_int_equal(written, 0);
  assert_non_null(strstr(err, "x.npz: interrupted"));
  assert_int_equal(test_folder_entries(dir), 0);
  // options the runner refuses
  o.task = "nosuch";
  assert_int_equal(tf_record_run(&o, path, NULL, row, &written, err, sizeof(err)),
                   TF_RECORD_REFUSED);
  assert_non_null(strstr(err, "unknown task 'nosuch'"));
  o.task = "peg";
  o.envs = 0;
  assert_int_equal(tf_record_run(&o, path, NULL, row, &written, err, sizeof(err)),
                   TF_RECORD_REFUSED);
  assert_int_equal(test_folder_entries(dir), 0);
  o.envs = 1;
  // paths: not an NPZ name, a missing folder
  assert_int_equal(tf_record_run(&o, dir, NULL, row, &written, err, sizeof(err)),
                   TF_RECORD_REFUSED);
  assert_non_null(strstr(err, "not an NPZ file name"));
  assert_int_equal(tf_record_run(&o, "/tmp/tightfit_no_such_folder/x.npz", NULL, row, &written, err,
                                 sizeof(err)),
                   TF_RECORD_REFUSED);
  assert_non_null(strstr(err, "cannot create a file in its folder"));
  assert_null(strchr(err, '\n'));
  assert_int_equal(tf_record_path_check("a/b.npz", err, sizeof(err)), 0);
  assert_int_equal(tf_record_path_check("a/.npz", err, sizeof(err)), -1);
  assert_int_equal(tf_record_path_check("b.npy", err, sizeof(err)), -1);
  assert_int_equal(test_folder_entries(dir), 0);
  free(row);
  test_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_peg),
      cmocka_unit_test(test_envs),
      cmocka_unit_test(test_gears),
      cmocka_unit_test(test_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
