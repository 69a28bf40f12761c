// Deterministic random numbers for environments: splitmix64 over (seed, stream), so
// environment i of a run draws the same perturbations on every machine and thread count.
#include "task.h"

void tf_rng_seed(tf_rng* rng, uint64_t seed, uint64_t stream) {
  // distinct streams start far apart: mix the stream through one splitmix round first
  tf_rng mix = {stream * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull};
  rng->state = seed ^ tf_rng_bits(&mix);
}

uint64_t tf_rng_bits(tf_rng* rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double tf_rng_uniform(tf_rng* rng, double lo, double hi) {
  double unit = (double)(tf_rng_bits(rng) >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * unit;
}
