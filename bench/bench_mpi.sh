#!/bin/bash
# MPI sweep scaling on this machine: one sweep of 48 short runs (connectors, 0.1 s simulated
# each) on 1, 2 and 3 ranks of one thread each, with OpenMPI's mpirun (--oversubscribe: 3
# ranks on 2 cores). Prints JSON: each rank count's wall time, its speed-up over one rank, and
# the queue's cost per run handed to another rank (the time a worker rank's thread waited for
# its next run, as rank 0 reports it). Measures and prints; asserts nothing about time.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${TIGHTFIT_BIN:-$root/build/tightfit}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '{"task": "connectors", "duration": 0.1, "seeds": 8,
  "grid": {"solver": ["al", "pgs"], "dt": [0.001, 0.002, 0.005]}}' > "$tmp/sweep48.json"

rows=()
base=
for ranks in 1 2 3; do
  t0=$(date +%s.%N)
  mpirun -np "$ranks" --oversubscribe "$bin" sweep "$tmp/sweep48.json" --out "$tmp/r$ranks" \
    --jobs 1 > /dev/null 2> "$tmp/r$ranks.err"
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  [ -n "$base" ] || base=$wall
  queue=$(grep -o 'queue wait [0-9.]*' "$tmp/r$ranks.err" | grep -o '[0-9.]*$' || true)
  rows+=("{\"ranks\": $ranks, \"runs\": $(wc -l < "$tmp/r$ranks/results.jsonl"), \"wall_s\": $wall, \"speedup\": $(awk -v a="$base" -v b="$wall" 'BEGIN { printf "%.3f", a / b }'), \"queue_ms_per_run\": ${queue:-null}}")
done
printf '{"bench": "mpi", "cores": %d, "threads_per_rank": 1, "results": [\n  %s\n]}\n' \
  "$(nproc)" "$(IFS=,; echo "${rows[*]}" | sed 's/},{/},\n  {/g')"
