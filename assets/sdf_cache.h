// Load-or-bake of grid SDFs with an on-disk cache. An entry is keyed by a 64-bit FNV-1a hash
// of the format version, the mesh (vertex and index bytes) and the bake resolution; it holds
// a checksummed header and payload, so a truncated, corrupt or stale entry is detected and
// rebuilt, never trusted. Entries are written atomically (file_io.h), so processes baking the
// same mesh at once never read half a file.
//
// Environment: TIGHTFIT_CACHE_DIR names the folder (default $XDG_CACHE_HOME/tightfit, else
// $HOME/.cache/tightfit, else ./.tightfit-cache); TIGHTFIT_CACHE=0 turns the cache off (every
// call bakes; nothing is read or written).
#ifndef TF_SDF_CACHE_H
#define TF_SDF_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "file_io.h"
#include "sdf_bake.h"

// bumped whenever the file layout or the baked values change
#define TF_SDF_CACHE_VERSION 1

typedef enum tf_sdf_cache_source {
  TF_SDF_CACHE_HIT = 0,  // loaded from a valid entry
  TF_SDF_CACHE_MISS,     // there was no entry: baked and stored
  TF_SDF_CACHE_REBUILT,  // the entry was truncated, corrupt or stale: baked and stored again
  TF_SDF_CACHE_OFF,      // TIGHTFIT_CACHE=0: baked; nothing read or written
} tf_sdf_cache_source;

// what a load did
typedef struct tf_sdf_cache_info {
  int source;                    // tf_sdf_cache_source
  int stored;                    // 1 if a new entry was written
  char path[TF_PATH_MAX];        // the entry's file ("" when the cache is off)
  char note[TF_PATH_MAX + 512];  // why the entry was rebuilt or could not be stored ("": none)
  double seconds;                // wall time of the call
  tf_sdf_bake_stats bake;        // the bake's statistics (zero on a hit)
} tf_sdf_cache_info;

// the cache folder into out; returns 1 when the cache is on, 0 when TIGHTFIT_CACHE=0
int tf_sdf_cache_dir(char* out, size_t outlen);

// the entry key of a mesh at a resolution (threads do not enter: the output does not depend
// on them)
uint64_t tf_sdf_cache_key(const double* vert, int nvert, const int* face, int nface,
                          const tf_sdf_bake_options* opt);

// the grid from the cache, or baked (and stored) when the entry is missing or bad; failing to
// store is not an error (info->note says why). Returns 0, or -1 with the bake's message.
// info may be NULL.
int tf_sdf_cache_load(tf_sdf_grid* out, tf_sdf_cache_info* info, const double* vert, int nvert,
                      const int* face, int nface, const tf_sdf_bake_options* opt, char* err,
                      size_t errlen);

#endif  // TF_SDF_CACHE_H
