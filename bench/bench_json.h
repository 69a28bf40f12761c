// JSON fields the task benchmarks print (bench_tasks, bench_robot_tasks): a number or null,
// and a row's per-stage split.
#ifndef TF_BENCH_JSON_H
#define TF_BENCH_JSON_H

#include <stdio.h>

#include "metrics.h"
#include "tightfit.h"

// "key": x (null when x is NaN), followed by ", " when comma
static inline void bench_print_number(const char* key, double x, int comma) {
  if (x == x) {
    printf("\"%s\": %.4g%s", key, x, comma ? ", " : "");
  } else {
    printf("\"%s\": null%s", key, comma ? ", " : "");
  }
}

// "stage_us": the us per step of every engine stage the row has (throughput.<stage>_us);
// they nest as the engine's tf_timer says (step holds them all, collision its parts), so
// they do not add up
static inline void bench_print_stages(const tf_metrics* row) {
  printf("\"stage_us\": {");
  for (int k = 0; k < TF_TIMER_N; k++) {
    char name[64];
    snprintf(name, sizeof(name), "throughput.%s_us", tf_timer_name((tf_timer)k));
    bench_print_number(tf_timer_name((tf_timer)k), tf_metrics_get(row, name), k + 1 < TF_TIMER_N);
  }
  printf("}");
}

#endif  // TF_BENCH_JSON_H
