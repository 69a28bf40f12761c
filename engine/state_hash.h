// A golden state hash: 64 bits that change whenever any bit of the simulated state changes.
// The determinism guard of the task suites (tests/tasks/test_golden_hash.c): a change meant
// not to alter results (an optimisation, a refactor, a build flag) proves it by leaving every
// task's hash as checked in.
#ifndef TF_STATE_HASH_H
#define TF_STATE_HASH_H

#include <stdint.h>

#include "tightfit.h"

// FNV-1a (64 bit) over the exact bytes of d's state and contacts: time, qpos (nq), qvel (nv),
// ncon, and each contact's geom ids, pos, frame, dist and lambda. Doubles enter by their bit
// patterns (-0.0 and +0.0 differ, as does every NaN payload), in a byte order fixed by the
// hash rather than by the machine.
uint64_t tf_state_hash(const tf_model* m, const tf_data* d);

#endif  // TF_STATE_HASH_H
