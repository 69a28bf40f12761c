// Robot-mode benchmark: each task's robot mode under its default controller, and the peg's
// under every other controller too, al at the mode's default dt, environment 0 of seed 0, one
// thread, long enough for the part to meet its seat (durations below). Two rates: "physics"
// is the runner's own (physics steps over the wall time inside tf_step, as bench_tasks
// reports for the rigs, with the same per-stage split); "end to end" divides the physics
// steps by the wall time of the whole stepping loop (tf_env_run_step), so the controller, the
// script and the probes count too; building the model and the probes (tf_env_run_begin) does
// not. Prints one JSON object.
//
// Arguments: task names run those tasks alone (`bench_robot_tasks boltnut`); --all runs
// every controller of every task at the mode's default duration (the whole script and the
// holding, minutes for boltnut); --cases prints each run as `tightfit run` arguments instead,
// one a line, for scripts/bench_compare.sh.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_json.h"
#include "task.h"

#define ALL_CONTROLLERS_TASK "peg"  // the task run under every controller, not just its default
#define MAX_CONTROLLERS 16
#define NAME_LEN 32

// Simulated seconds per run, shorter than the modes' defaults (sized for ik's and pd's
// slower scripts and the holding after them) but past the part's meeting its seat, which is
// where the contact cost is. Seat times measured at 4cd2695 (the rows print them): peg 3.5 s
// under osc, 5.5 s impedance, 7.7 s ik and pd; connectors 3.9 s; gears 4.0 s, the drive from
// 4.45 s; boltnut screws from 3.55 s to 10.1 s, and 7 s covers the nut's engagement and
// 3.5 s of turning on ~130 contacts (resting seated afterwards costs less a step). A run not
// listed runs the mode's default duration.
typedef struct run_length {
  const char* task;
  const char* controller;
  double duration;  // s
} run_length;

static const run_length run_lengths[] = {
    {"peg", "osc", 5.0},   {"peg", "impedance", 7.0}, {"connectors", "osc", 5.5},
    {"gears", "osc", 5.5}, {"boltnut", "osc", 7.0},
};

// the robot mode's controllers, from its schema's `controller` parameter (choices "a|b|c"),
// and the default's index; 0 when the schema has none
static int controllers_of(const tf_task_info* task, char names[][NAME_LEN], int* dflt) {
  for (int p = 0; p < task->nparam; p++) {
    const tf_param_spec* spec = &task->params[p];
    if (strcmp(spec->key, "controller") != 0 || !spec->choices) continue;
    int n = 0;
    for (const char* s = spec->choices; *s && n < MAX_CONTROLLERS; n++) {
      size_t len = strcspn(s, "|");
      snprintf(names[n], NAME_LEN, "%.*s", (int)len, s);
      s += len + (s[len] == '|');
    }
    *dflt = (int)spec->value;
    return n;
  }
  return 0;
}

static double run_duration(const tf_task_info* task, const char* controller, int all) {
  for (size_t i = 0; i < sizeof(run_lengths) / sizeof(run_lengths[0]) && !all; i++) {
    if (strcmp(run_lengths[i].task, task->name) == 0 &&
        strcmp(run_lengths[i].controller, controller) == 0)
      return run_lengths[i].duration;
  }
  return task->default_duration;
}

// the first metric named "<...>.seat_time_s" (when the part seated; each task names its own)
static double seat_time(const tf_metrics* row) {
  const char* suffix = ".seat_time_s";
  size_t ls = strlen(suffix);
  for (int i = 0; i < row->n; i++) {
    size_t ln = strlen(row->item[i].name);
    if (ln > ls && strcmp(row->item[i].name + ln - ls, suffix) == 0) return row->item[i].value;
  }
  return NAN;
}

// one run: begin (not timed), the stepping loop (timed), the row; 0 or -1 with a message
static int bench_run(const tf_task_info* task, const char* controller, double duration,
                     tf_metrics* row, int first) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = task->name;
  o.mode = TF_MODE_ROBOT;
  o.duration = duration;
  o.set[0].key = "controller";
  o.set[0].value = controller;
  o.nset = 1;
  char err[256];
  tf_env_run* r = tf_env_run_begin(&o, 0, err, sizeof(err));
  if (!r) {
    fprintf(stderr, "bench_robot_tasks: %s\n", err);
    return -1;
  }
  const tf_physics* physics = tf_env_run_physics(r);
  // each call steps once: the run's last step is the call that returns 0
  long control = 0;
  double t0 = tf_clock();
  do {
    control++;
  } while (tf_env_run_step(r));
  double wall = tf_clock() - t0;
  double sim = control * physics->dt;
  double steps = (double)control * physics->substeps;
  tf_env_run_finish(r, row);
  tf_env_run_end(r);
  const char* status = tf_metrics_text(row, "status");
  printf(
      "%s    {\"task\": \"%s\", \"mode\": \"robot\", \"controller\": \"%s\", \"solver\": \"%s\", ",
      first ? "" : ",\n", task->name, controller, tf_solver_name(physics->solver));
  bench_print_number("dt", physics->dt, 1);
  bench_print_number("sim_s", sim, 1);
  printf("\"status\": \"%s\", ", status ? status : "?");
  bench_print_number("success", tf_metrics_get(row, "success"), 1);
  bench_print_number("seat_time_s", seat_time(row), 1);
  bench_print_number("steps_per_s", tf_metrics_get(row, "throughput.steps_per_s"), 1);
  bench_print_number("realtime_factor", tf_metrics_get(row, "throughput.realtime_factor"), 1);
  bench_print_number("us_per_step", tf_metrics_get(row, "throughput.us_per_step"), 1);
  bench_print_stages(row);
  printf(", ");
  bench_print_number("steps_per_s_end_to_end", steps / wall, 1);
  bench_print_number("realtime_factor_end_to_end", sim / wall, 0);
  printf("}");
  fflush(stdout);
  return 0;
}

// the task is one the command line asks for (all when it names none)
static int wanted(const char* name, int ntask, char** tasks) {
  for (int i = 0; i < ntask; i++) {
    if (strcmp(tasks[i], name) == 0) return 1;
  }
  return ntask == 0;
}

int main(int argc, char** argv) {
  int all = 0, cases = 0, ntask = 0;
  char** tasks = calloc((size_t)argc, sizeof(char*));
  tf_metrics* row = malloc(sizeof(tf_metrics));
  if (!tasks || !row) return 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--all") == 0) {
      all = 1;
    } else if (strcmp(argv[i], "--cases") == 0) {
      cases = 1;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: bench_robot_tasks [--all] [--cases] [TASK ...]\n");
      return 2;
    } else {
      tasks[ntask++] = argv[i];
    }
  }
  if (!cases) printf("{\n  \"bench\": \"robot_tasks\", \"threads\": 1,\n  \"runs\": [\n");
  int first = 1, rc = 0;
  for (int t = 0; t < tf_task_builtin_count() && !rc; t++) {
    const tf_task_info* task = tf_task_for_mode(tf_task_at(t), TF_MODE_ROBOT);
    if (!task || !wanted(task->name, ntask, tasks)) continue;
    char names[MAX_CONTROLLERS][NAME_LEN];
    int dflt = 0;
    int n = controllers_of(task, names, &dflt);
    if (n == 0) {
      fprintf(stderr, "bench_robot_tasks: task '%s': no controller parameter\n", task->name);
      rc = 1;
      break;
    }
    int every = all || strcmp(task->name, ALL_CONTROLLERS_TASK) == 0;
    // the default controller first, then the others in schema order
    for (int k = -1; k < n && !rc; k++) {
      int c = k < 0 ? dflt : k;
      if (k == dflt || (k >= 0 && !every)) continue;
      double duration = run_duration(task, names[c], all);
      if (cases) {
        printf("--task %s --mode robot --duration %g --set controller=%s\n", task->name, duration,
               names[c]);
        continue;
      }
      rc = bench_run(task, names[c], duration, row, first) ? 1 : 0;
      first = 0;
    }
  }
  if (!cases && !rc) printf("\n  ]\n}\n");
  free(row);
  free(tasks);
  return rc;
}
