// Task rig benchmark: each task's rig at its default dt, default solver (al) and default
// settings, environment 0 of seed 0: physics steps per second and the real-time factor on one
// thread, the per-stage split (us per step, every timer the engine has: tf_timer_name up to
// TF_TIMER_N), and two runs side by side on two threads (what a sweep with --jobs 2 does).
// Prints one JSON object. The rates are the runner's: steps over the wall time inside tf_step,
// so building the task is not counted (scripts/bench_compare.sh adds the whole process's).
//
// `bench_tasks --cases` prints each run as `tightfit run` arguments instead, one a line, so
// that scripts/bench_compare.sh times the same runs with the CLI of any two commits.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_json.h"
#include "task.h"

#define MIN_DURATION 0.25  // s of simulated time per run: enough to reach contact, short on CI
#define MIN_STEPS 100      // and at least this many steps to average (boltnut's dt is 10 ms)

// a run's settings other than the defaults: the gears on shafts (the README's and the gates'
// mount; pinned here so that a change of the default does not change what the bench measures)
typedef struct task_set {
  const char* task;
  const char* key;
  const char* value;
} task_set;

static const task_set task_sets[] = {{"gears", "mount", "shaft"}};

typedef struct job {
  tf_run_options options;
  tf_metrics row;
  int rc;
  char err[256];
} job;

static void* run_job(void* arg) {
  job* j = arg;
  j->rc = tf_task_run(&j->options, &j->row, j->err, sizeof(j->err));
  return NULL;
}

// simulated seconds of a task's bench run: MIN_DURATION and MIN_STEPS, within its default
static double bench_duration(const tf_task_info* task) {
  double d = MIN_DURATION;
  if (d < MIN_STEPS * task->default_dt) d = MIN_STEPS * task->default_dt;
  if (d > task->default_duration) d = task->default_duration;
  return d;
}

// the bench's run of a task (seed 0, one environment, the defaults but bench_duration and
// task_sets)
static void bench_options(tf_run_options* o, const tf_task_info* task) {
  tf_run_options_default(o);
  o->task = task->name;
  o->duration = bench_duration(task);
  for (size_t i = 0; i < sizeof(task_sets) / sizeof(task_sets[0]); i++) {
    if (strcmp(task_sets[i].task, task->name) != 0 || o->nset >= TF_TASK_MAX_SET) continue;
    o->set[o->nset].key = task_sets[i].key;
    o->set[o->nset].value = task_sets[i].value;
    o->nset++;
  }
}

// one line per run: its `tightfit run` arguments
static void print_cases(void) {
  for (int t = 0; t < tf_task_builtin_count(); t++) {
    tf_run_options o;
    bench_options(&o, tf_task_at(t));
    printf("--task %s --duration %g", o.task, o.duration);
    for (int i = 0; i < o.nset; i++) printf(" --set %s=%s", o.set[i].key, o.set[i].value);
    printf("\n");
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--cases") == 0) {
    print_cases();
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr, "usage: bench_tasks [--cases]\n");
    return 2;
  }
  // jobs[0] runs alone, jobs[1] and jobs[2] side by side
  job* jobs = calloc(3, sizeof(job));
  if (!jobs) return 1;
  printf("{\n  \"bench\": \"tasks\", \"mode\": \"rig\", \"threads\": 1,\n  \"runs\": [\n");
  for (int t = 0; t < tf_task_builtin_count(); t++) {
    const tf_task_info* task = tf_task_at(t);
    for (int k = 0; k < 3; k++) {
      bench_options(&jobs[k].options, task);
      jobs[k].options.seed = (uint64_t)(k == 2);
    }
    // one thread
    run_job(&jobs[0]);
    if (jobs[0].rc) {
      fprintf(stderr, "bench_tasks: %s\n", jobs[0].err);
      free(jobs);
      return 1;
    }
    // two runs on two threads: each thread's own stepping rate, summed, is the pair's
    // aggregate rate (a run is one core's work; the pair shows what sharing costs)
    pthread_t th[2];
    for (int k = 0; k < 2; k++) pthread_create(&th[k], NULL, run_job, &jobs[1 + k]);
    for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
    double pair = 0;
    for (int k = 1; k < 3; k++) pair += tf_metrics_get(&jobs[k].row, "throughput.steps_per_s");
    const tf_metrics* row = &jobs[0].row;
    const char* status = tf_metrics_text(row, "status");
    printf("%s    {\"task\": \"%s\", \"mode\": \"rig\", \"solver\": \"%s\", ", t ? ",\n" : "",
           task->name, tf_metrics_text(row, "solver") ? tf_metrics_text(row, "solver") : "?");
    for (int i = 0; i < jobs[0].options.nset; i++) {
      printf("\"%s\": \"%s\", ", jobs[0].options.set[i].key, jobs[0].options.set[i].value);
    }
    bench_print_number("dt", tf_metrics_get(row, "dt"), 1);
    bench_print_number("sim_s", tf_metrics_get(row, "duration"), 1);
    printf("\"status\": \"%s\", ", status ? status : "?");
    bench_print_number("steps_per_s", tf_metrics_get(row, "throughput.steps_per_s"), 1);
    bench_print_number("realtime_factor", tf_metrics_get(row, "throughput.realtime_factor"), 1);
    bench_print_number("us_per_step", tf_metrics_get(row, "throughput.us_per_step"), 1);
    bench_print_stages(row);
    printf(", ");
    bench_print_number("steps_per_s_2threads", pair, 0);
    printf("}");
    fflush(stdout);
  }
  printf("\n  ]\n}\n");
  free(jobs);
  return 0;
}
