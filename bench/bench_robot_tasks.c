// Robot-mode benchmark: environment-steps per second for each task that has a robot mode, with
// each of the four controllers, al at the mode's default dt and duration (the whole script:
// pick, insert, release, then holding), environment 0 of seed 0, one thread. Two rates:
// "physics" is the runner's own (control steps over the wall time inside tf_step, as
// bench_tasks reports for the rigs); "end_to_end" divides the control steps by the wall time of
// the whole stepping loop, so the controller, the script and the probes count too. Prints one
// JSON object. Arguments, when given, name the tasks to run (`bench_robot_tasks boltnut`: the
// screwing alone, whose runs take minutes); none: every task with a robot mode.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "task.h"

static const char* const controllers[] = {"osc", "impedance", "ik", "pd"};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_number(const char* key, double x, int comma) {
  if (x == x) {
    printf("\"%s\": %.4g%s", key, x, comma ? ", " : "");
  } else {
    printf("\"%s\": null%s", key, comma ? ", " : "");
  }
}

// the task is one the command line asks for (all when it names none)
static int wanted(const char* name, int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], name) == 0) return 1;
  }
  return argc <= 1;
}

int main(int argc, char** argv) {
  tf_engine_init();
  tf_metrics* row = malloc(sizeof(tf_metrics));
  if (!row) return 1;
  printf("{\n  \"bench\": \"robot_tasks\",\n  \"runs\": [\n");
  int first = 1;
  for (int t = 0; t < tf_task_count(); t++) {
    const tf_task_info* task = tf_task_for_mode(tf_task_at(t), TF_MODE_ROBOT);
    if (!task || !wanted(task->name, argc, argv)) continue;
    for (size_t c = 0; c < sizeof(controllers) / sizeof(controllers[0]); c++) {
      tf_run_options o;
      tf_run_options_default(&o);
      o.task = task->name;
      o.mode = TF_MODE_ROBOT;
      o.physics.solver = TF_SOLVER_AL;
      o.set[0].key = "controller";
      o.set[0].value = controllers[c];
      o.nset = 1;
      char err[256];
      tf_env_run* r = tf_env_run_begin(&o, 0, err, sizeof(err));
      if (!r) {
        fprintf(stderr, "bench_robot_tasks: %s\n", err);
        free(row);
        return 1;
      }
      long steps = 1;  // the step that ends the run counts too
      double t0 = now();
      while (tf_env_run_step(r)) steps++;
      double wall = now() - t0;
      tf_env_run_finish(r, row);
      tf_env_run_end(r);
      double sim = steps * task->default_dt;
      printf("%s    {\"task\": \"%s\", \"mode\": \"robot\", \"controller\": \"%s\", \"dt\": %g, ",
             first ? "" : ",\n", task->name, controllers[c], task->default_dt);
      first = 0;
      printf("\"status\": \"%s\", ",
             tf_metrics_text(row, "status") ? tf_metrics_text(row, "status") : "?");
      print_number("success", tf_metrics_get(row, "success"), 1);
      print_number("sim_s", sim, 1);
      print_number("env_steps_per_s_physics", tf_metrics_get(row, "throughput.env_steps_per_s"), 1);
      print_number("env_steps_per_s_end_to_end", steps / wall, 1);
      print_number("realtime_factor_end_to_end", sim / wall, 0);
      printf("}");
      fflush(stdout);
    }
  }
  printf("\n  ]\n}\n");
  free(row);
  return 0;
}
