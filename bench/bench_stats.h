// A benchmark's timings: the clock they read, and the order statistics of repeated ones (the
// sort they share and the median).
#ifndef TF_BENCH_STATS_H
#define TF_BENCH_STATS_H

#include <stdlib.h>
#include <time.h>

// seconds on the monotonic clock (differences only: its origin is arbitrary)
static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// x[0..n) in ascending order
static inline void bench_sort_doubles(double* x, int n) {
  qsort(x, (size_t)n, sizeof(double), bench_compare_doubles);
}

// the median of x[0..n), n > 0 (sorts x)
static inline double bench_median(double* x, int n) {
  bench_sort_doubles(x, n);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

#endif  // TF_BENCH_STATS_H
