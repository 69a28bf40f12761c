// Batch API benchmark (issue 20's acceptance): environment steps per second of tf_vec_env on
// one and on two threads for every robot-mode task, and the ratio (target: 1.9 on two cores).
// Each case is a batch of --envs environments (8) of the task's robot mode at its defaults
// (osc, al, dt 2 ms, decimation 8), reset to the runner's environments of seed 0 and stepped
// by the scripted policy (tf_vec_env_scripted_actions, which the timing includes, as a
// trainer's policy would be) from the start to SIM_S of simulated time, past where the part
// meets its seat, where the contact costs. Building the environments (the reset) is not
// timed. "env_steps_per_s" counts every environment's control steps over the wall time of
// the loop; "policy_steps_per_s" the same in policy steps. Prints one JSON object; never
// asserts (a machine whose second core is busy shows a ratio under 2).
//
// Arguments: task names run those tasks alone (`bench_vec_env peg`); --envs N.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_json.h"
#include "vec_env.h"

#define DEFAULT_ENVS 8
#define MAX_ENVS 256

typedef struct vec_case {
  const char* task;
  double sim_s;  // s of simulated time per environment
} vec_case;

// the part meets its seat at 3.5 s (peg), 3.9 s (connectors), 4.0 s (gears) and the nut's turn
// starts at 3.55 s (boltnut, docs/robot.md)
static const vec_case cases[] = {
    {"peg", 4.0},
    {"connectors", 4.5},
    {"gears", 4.5},
    {"boltnut", 4.5},
};
#define NCASE ((int)(sizeof(cases) / sizeof(cases[0])))

// one batch on `threads` threads: its rates into rate[2] (env steps, policy steps per s); 0 or
// -1 with a message on stderr
static int bench_batch(const vec_case* c, int envs, int threads, double rate[2]) {
  char th[16], duration[32], err[256];
  snprintf(th, sizeof(th), "%d", threads);
  snprintf(duration, sizeof(duration), "%g", c->sim_s);
  const char* keys[] = {"mode", "threads", "duration", "autoreset", "terminate_on_success"};
  const char* values[] = {"robot", th, duration, "0", "0"};
  tf_vec_env* v = tf_vec_env_create(c->task, envs, keys, values, 5, err, sizeof(err));
  if (!v || tf_vec_env_reset(v, 0, err, sizeof(err))) {
    fprintf(stderr, "bench_vec_env: %s: %s\n", c->task, err);
    tf_vec_env_destroy(v);
    return -1;
  }
  int na = tf_vec_env_action_dim(v), dec = tf_vec_env_decimation(v);
  double* actions = calloc((size_t)(envs * na), sizeof(double));
  if (!actions) {
    tf_vec_env_destroy(v);
    return -1;
  }
  // the episode: duration / dt control steps (the runner's rounding), in policy steps the
  // last of which may take fewer than the decimation
  long nstep = tf_vec_env_max_steps(v), control = lround(c->sim_s * dec / tf_vec_env_policy_dt(v));
  int rc = 0;
  double t0 = tf_clock();
  for (long t = 0; t < nstep && !rc; t++) {
    rc = tf_vec_env_scripted_actions(v, actions, err, sizeof(err)) ||
         tf_vec_env_step(v, actions, err, sizeof(err));
  }
  double wall = tf_clock() - t0;
  if (rc) fprintf(stderr, "bench_vec_env: %s: %s\n", c->task, err);
  rate[0] = (double)envs * (double)control / wall;
  rate[1] = (double)envs * (double)nstep / wall;
  free(actions);
  tf_vec_env_destroy(v);
  return rc ? -1 : 0;
}

// the task is one the command line asks for (all when it names none)
static int wanted(const char* name, int ntask, char** tasks) {
  for (int i = 0; i < ntask; i++) {
    if (strcmp(tasks[i], name) == 0) return 1;
  }
  return ntask == 0;
}

int main(int argc, char** argv) {
  int envs = DEFAULT_ENVS, ntask = 0;
  char** tasks = calloc((size_t)argc, sizeof(char*));
  if (!tasks) return 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--envs") == 0 && i + 1 < argc) {
      envs = atoi(argv[++i]);
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: bench_vec_env [--envs N] [TASK ...]\n");
      free(tasks);
      return 2;
    } else {
      tasks[ntask++] = argv[i];
    }
  }
  if (envs < 1 || envs > MAX_ENVS) {
    fprintf(stderr, "bench_vec_env: --envs must be in [1, %d]\n", MAX_ENVS);
    free(tasks);
    return 2;
  }
  printf("{\n  \"bench\": \"vec_env\", \"envs\": %d, \"cores\": %ld,\n  \"runs\": [\n", envs,
         sysconf(_SC_NPROCESSORS_ONLN));
  int first = 1, rc = 0;
  for (int k = 0; k < NCASE && !rc; k++) {
    if (!wanted(cases[k].task, ntask, tasks)) continue;
    double one[2], two[2];
    rc = bench_batch(&cases[k], envs, 1, one) || bench_batch(&cases[k], envs, 2, two);
    if (rc) break;
    printf("%s    {\"task\": \"%s\", \"mode\": \"robot\", ", first ? "" : ",\n", cases[k].task);
    bench_print_number("sim_s", cases[k].sim_s, 1);
    bench_print_number("env_steps_per_s_1", one[0], 1);
    bench_print_number("env_steps_per_s_2", two[0], 1);
    bench_print_number("policy_steps_per_s_1", one[1], 1);
    bench_print_number("policy_steps_per_s_2", two[1], 1);
    bench_print_number("ratio", two[0] / one[0], 0);
    printf("}");
    fflush(stdout);
    first = 0;
  }
  if (!rc) printf("\n  ]\n}\n");
  free(tasks);
  return rc;
}
