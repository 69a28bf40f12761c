// Sharding a sweep for job arrays (`tightfit sweep CONFIG --out DIR --shard K/N`, Slurm and
// the like): the runs of a plan split into N fixed parts by run id, each part run into its
// own folder DIR/shards/K/, and `tightfit merge DIR` joining the finished parts.
//
// A run's shard depends on its id alone (the id's 64-bit value modulo N), not on its place in
// the plan, so an extended grid keeps every existing run in its shard, as --resume keeps its
// row. A shard folder is an ordinary sweep folder (config.json, machine.json, results.jsonl,
// results.csv, record/) plus DIR/shards/K/shard.json, {"shard": K, "of": N, "runs": M,
// "config": PATH} with M the plan's runs in that shard and PATH the config file the sweep read
// (absolute; relative paths in the config resolve from its folder, for the merge too); it has
// no report and no videos: the merge makes those.
#ifndef TF_SWEEP_SHARD_H
#define TF_SWEEP_SHARD_H

#include <stddef.h>

#define TF_SHARD_MAX 10000  // N: far more array tasks than any sweep has runs per task
#define TF_SHARD_FILE "shard.json"

// which shard (1..nshard) the run with this id belongs to
int tf_sweep_shard_of(const char* run_id, int nshard);

// parses "K/N" (1 <= K <= N <= TF_SHARD_MAX); returns 0, or -1 with a one-line message
int tf_sweep_shard_parse(const char* text, int* k, int* n, char* err, size_t errlen);

// DIR/shards/K into out; returns the length it needs (like snprintf)
size_t tf_sweep_shard_dir(const char* dir, int k, char* out, size_t n);

#endif  // TF_SWEEP_SHARD_H
