// Task rig benchmark: environment-steps per second for each task and solver at the task's
// default dt, one run on one thread and two runs side by side on two threads (what a sweep
// with --jobs 2 does), with the per-stage split (collision, constraint rows, solve, ...) of
// the single-thread run. Prints one JSON object. Throughput is what the runner measured
// around tf_step, so building the task is not counted.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "task.h"

#define DURATION 0.25  // s of simulated time per run: enough steps to average, short on CI

static const tf_solver_type solvers[] = {TF_SOLVER_PGS, TF_SOLVER_NEWTON, TF_SOLVER_AL};

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

int main(void) {
  tf_engine_init();
  job* jobs = calloc(2, sizeof(job));
  if (!jobs) return 1;
  printf("{\n  \"bench\": \"tasks\", \"duration_s\": %g,\n  \"runs\": [\n", DURATION);
  int first = 1;
  for (int t = 0; t < tf_task_count(); t++) {
    const tf_task_info* task = tf_task_at(t);
    for (size_t s = 0; s < sizeof(solvers) / sizeof(solvers[0]); s++) {
      for (int k = 0; k < 2; k++) {
        tf_run_options_default(&jobs[k].options);
        jobs[k].options.task = task->name;
        jobs[k].options.physics.solver = solvers[s];
        jobs[k].options.duration = DURATION;
        jobs[k].options.seed = (uint64_t)k;
      }
      // one thread
      run_job(&jobs[0]);
      if (jobs[0].rc) {
        fprintf(stderr, "bench_tasks: %s\n", jobs[0].err);
        free(jobs);
        return 1;
      }
      // two runs on two threads: the aggregate rate
      pthread_t th[2];
      double t0 = now();
      for (int k = 0; k < 2; k++) pthread_create(&th[k], NULL, run_job, &jobs[k]);
      for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
      double wall2 = now() - t0;
      (void)wall2;
      double single = tf_metrics_get(&jobs[0].row, "throughput.env_steps_per_s");
      // each thread's own stepping rate, summed: the pair's aggregate environment-steps/s
      double pair = 0;
      for (int k = 0; k < 2; k++)
        pair += tf_metrics_get(&jobs[k].row, "throughput.env_steps_per_s");
      printf(
          "%s    {\"task\": \"%s\", \"solver\": \"%s\", \"dt\": %g, \"status\": \"%s\", ",
          first ? "" : ",\n", task->name, tf_solver_name(solvers[s]), task->default_dt,
          tf_metrics_text(&jobs[1].row, "status") ? tf_metrics_text(&jobs[1].row, "status") : "?");
      first = 0;
      print_number("env_steps_per_s_1thread", single, 1);
      print_number("env_steps_per_s_2threads", pair, 1);
      print_number("realtime_factor_1thread",
                   tf_metrics_get(&jobs[0].row, "throughput.realtime_factor"), 1);
      printf("\"stage_us\": {");
      int firststage = 1;
      for (int k = 0; k < TF_TIMER_N; k++) {
        char name[64];
        snprintf(name, sizeof(name), "throughput.%s_us", tf_timer_name((tf_timer)k));
        printf("%s", firststage ? "" : ", ");
        firststage = 0;
        print_number(tf_timer_name((tf_timer)k), tf_metrics_get(&jobs[0].row, name), 0);
      }
      printf("}}");
      fflush(stdout);
    }
  }
  printf("\n  ]\n}\n");
  free(jobs);
  return 0;
}
