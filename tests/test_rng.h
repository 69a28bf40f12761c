// Deterministic random numbers for the test suites: splitmix64, so every run and every
// machine sees the same numbers (no rand(), no global state).
#ifndef TF_TEST_RNG_H
#define TF_TEST_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct test_rng {
  uint64_t state;
} test_rng;

// next 64 random bits
static inline uint64_t rng_bits(test_rng* rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// uniform in [lo, hi)
static inline double rng_uniform(test_rng* rng, double lo, double hi) {
  double unit = (double)(rng_bits(rng) >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * unit;
}

// uniformly distributed unit vector (rejection from the cube)
static inline void random_unit_vec(test_rng* rng, double v[3]) {
  double n;
  do {
    for (int k = 0; k < 3; k++) v[k] = rng_uniform(rng, -1, 1);
    n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  } while (n < 0.1 || n > 1);
  for (int k = 0; k < 3; k++) v[k] /= n;
}

// uniformly distributed unit quaternion (rejection from the 4-cube)
static inline void random_quat(test_rng* rng, double q[4]) {
  double n;
  do {
    for (int k = 0; k < 4; k++) q[k] = rng_uniform(rng, -1, 1);
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1 || n > 1);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

#endif  // TF_TEST_RNG_H
