// The golden state hash (state_hash.h). Byte-exact on purpose: the hash guards against any
// change of results, so no tolerance, no rounding and no folding of -0.0 into +0.0; a
// refactor that flips one bit of one contact's impulse must show. Every value goes in as the
// little-endian bytes of its bit pattern, so the same state hashes the same on any machine.
#include "state_hash.h"

#include <string.h>

#define FNV_OFFSET 0xcbf29ce484222325ull  // FNV-1a 64-bit offset basis
#define FNV_PRIME 0x100000001b3ull        // FNV 64-bit prime

// folds the low nbyte bytes of bits into h, lowest byte first
static uint64_t fnv_bits(uint64_t h, uint64_t bits, int nbyte) {
  for (int i = 0; i < nbyte; i++) {
    h ^= (bits >> (8 * i)) & 0xff;
    h *= FNV_PRIME;
  }
  return h;
}

// a double by its bit pattern, as is
static uint64_t fnv_double(uint64_t h, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof(bits));
  return fnv_bits(h, bits, 8);
}

static uint64_t fnv_doubles(uint64_t h, const double* x, int n) {
  for (int i = 0; i < n; i++) h = fnv_double(h, x[i]);
  return h;
}

// an int as its 32-bit two's complement pattern
static uint64_t fnv_int(uint64_t h, int x) { return fnv_bits(h, (uint32_t)x, 4); }

uint64_t tf_state_hash(const tf_model* m, const tf_data* d) {
  uint64_t h = FNV_OFFSET;
  h = fnv_double(h, d->time);
  h = fnv_doubles(h, d->qpos, m->nq);
  h = fnv_doubles(h, d->qvel, m->nv);
  h = fnv_int(h, d->ncon);
  for (int i = 0; i < d->ncon; i++) {
    const tf_contact* c = &d->contact[i];
    h = fnv_int(h, c->geom[0]);
    h = fnv_int(h, c->geom[1]);
    h = fnv_doubles(h, c->pos, 3);
    h = fnv_doubles(h, c->frame, 9);
    h = fnv_double(h, c->dist);
    h = fnv_doubles(h, c->lambda, 4);
  }
  return h;
}
