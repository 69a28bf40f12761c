#!/bin/bash
# MPI sweeps (docs/cluster.md) on this machine, with OpenMPI's mpirun and 3 ranks on its
# cores (--oversubscribe):
#   1. a 24-run sweep gives the rows of `--jobs 2` on one machine, timings aside, each once,
#      and its --progress json counts every rank's runs;
#   2. a worker rank killed mid-sweep: its runs go back to the queue and the sweep finishes
#      with every row once (mpirun --enable-recovery keeps the other ranks alive);
#   3. rank 0 killed mid-sweep: the files it leaves are completed by `--resume` without MPI,
#      to the same rows.
# Prints cmocka-like lines, "[       OK ] mpi: ..." or "[  FAILED  ] mpi: ... : why"; exit 1
# when one failed. TIGHTFIT_BIN: the binary (default build/tightfit), built with MPI.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${TIGHTFIT_BIN:-build/tightfit}
case $bin in /*) ;; *) bin="$root/$bin" ;; esac
python=${PYTHON:-/usr/bin/python3}
# CI runs as root, which mpirun refuses unless told; containers often forbid the cross-memory
# attach the shared-memory transport tries first
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

status=0
ok() { echo "[       OK ] mpi: $1"; }
failed() {
  echo "[  FAILED  ] mpi: $1: $2"
  status=1
}

if ! command -v mpirun > /dev/null; then
  failed "setup" "mpirun not found (scripts/deps.sh installs openmpi-bin)"
  exit 1
fi
# grep reads all of ldd's output (no -q): under pipefail, grep -q leaving at the first match
# could end ldd by SIGPIPE, and the check then failed on an MPI build
if ! ldd "$bin" 2> /dev/null | grep libmpi > /dev/null; then
  failed "setup" "$bin was built without MPI (no mpicc at build time, or MPI=0)"
  exit 1
fi

tmp=$(mktemp -d /tmp/tightfit_mpi_XXXXXX)
trap 'pkill -9 -f "$tmp/" 2> /dev/null; rm -rf "$tmp"' EXIT

# 24 runs each: a short one, and one whose runs last about half a second, long enough to kill
# a rank in the middle
echo '{"task": "connectors", "duration": 0.1, "seeds": 4,
  "grid": {"solver": ["al", "pgs"], "dt": [0.001, 0.002, 0.005]}}' > "$tmp/short.json"
echo '{"task": "connectors", "duration": 1.0, "seeds": 4,
  "grid": {"solver": ["al", "pgs"], "dt": [0.001, 0.002, 0.005]}}' > "$tmp/long.json"

# the pid of rank R of the sweep writing into DIR
rank_pid() {
  for pid in $(pgrep -f "sweep .* --out $2 "); do
    if tr '\0' '\n' < "/proc/$pid/environ" 2> /dev/null | grep -x "OMPI_COMM_WORLD_RANK=$1" > /dev/null; then
      echo "$pid"
      return
    fi
  done
}

# waits until DIR/results.jsonl has N rows (30 s at most)
wait_rows() {
  for _ in $(seq 300); do
    [ -f "$1/results.jsonl" ] && [ "$(wc -l < "$1/results.jsonl")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

for cfg in short long; do
  "$bin" sweep "$tmp/$cfg.json" --out "$tmp/ref_$cfg" --jobs 2 > /dev/null 2> "$tmp/ref_$cfg.err" ||
    failed "setup" "the single-machine sweep failed: $(tail -1 "$tmp/ref_$cfg.err")"
done

# ---- 1. three ranks, the rows of one machine
name="24 runs on 3 ranks equal --jobs 2 on one machine"
if mpirun -np 3 --oversubscribe "$bin" sweep "$tmp/short.json" --out "$tmp/three/" --jobs 2 \
  --progress json > "$tmp/three.out" 2> "$tmp/three.err"; then
  if ! why=$("$python" "$root/scripts/rows_equal.py" "$tmp/three/results.jsonl" \
    "$tmp/ref_short/results.jsonl" 2>&1); then
    failed "$name" "$why"
  elif ! tail -1 "$tmp/three.out" | grep -q '"done": 24, "total": 24.*"final": true'; then
    failed "$name" "the last --progress json line is not 24 of 24: $(tail -1 "$tmp/three.out")"
  elif ! grep -q '"ranks":	3' "$tmp/three/machine.json"; then
    failed "$name" "machine.json does not list 3 ranks"
  else
    ok "$name ($(grep -o 'queue wait [0-9.]* ms per run' "$tmp/three.err"))"
  fi
else
  failed "$name" "mpirun failed: $(grep -v PMIX "$tmp/three.err" | tail -1)"
fi

# ---- 2. a worker rank dies
name="a killed worker rank's runs are run again, every row once"
mpirun -np 3 --oversubscribe --enable-recovery "$bin" sweep "$tmp/long.json" \
  --out "$tmp/worker/" --jobs 2 --rank-timeout 2 > /dev/null 2> "$tmp/worker.err" &
launcher=$!
if wait_rows "$tmp/worker" 2 && pid=$(rank_pid 1 "$tmp/worker/") && [ -n "$pid" ]; then
  kill -9 "$pid"
  if ! wait "$launcher"; then
    failed "$name" "the sweep failed: $(grep -v PMIX "$tmp/worker.err" | tail -1)"
  elif ! grep -q "rank 1 silent" "$tmp/worker.err"; then
    failed "$name" "rank 0 did not notice rank 1's death"
  elif ! why=$("$python" "$root/scripts/rows_equal.py" "$tmp/worker/results.jsonl" \
    "$tmp/ref_long/results.jsonl" 2>&1); then
    failed "$name" "$why"
  else
    ok "$name ($(grep -o '[0-9]* runs\? back in the queue' "$tmp/worker.err"))"
  fi
else
  kill -9 "$launcher" 2> /dev/null
  failed "$name" "no rows, or no rank 1, within 30 s: $(tail -1 "$tmp/worker.err")"
fi

# ---- 3. rank 0 dies; --resume finishes without MPI
name="rank 0 killed, then --resume without MPI completes the same rows"
mpirun -np 3 --oversubscribe "$bin" sweep "$tmp/long.json" --out "$tmp/root/" --jobs 2 \
  > /dev/null 2> "$tmp/root.err" &
launcher=$!
if wait_rows "$tmp/root" 4 && pid=$(rank_pid 0 "$tmp/root/") && [ -n "$pid" ]; then
  kill -9 "$pid"
  wait "$launcher"
  before=$(wc -l < "$tmp/root/results.jsonl")
  if ! "$bin" sweep "$tmp/long.json" --out "$tmp/root/" --jobs 2 --resume > /dev/null \
    2> "$tmp/resume.err"; then
    failed "$name" "--resume failed: $(tail -1 "$tmp/resume.err")"
  elif ! why=$("$python" "$root/scripts/rows_equal.py" "$tmp/root/results.jsonl" \
    "$tmp/ref_long/results.jsonl" 2>&1); then
    failed "$name" "$why"
  elif [ "$before" -ge 24 ]; then
    failed "$name" "the sweep had finished before rank 0 was killed"
  else
    ok "$name ($before rows before the kill)"
  fi
else
  kill -9 "$launcher" 2> /dev/null
  failed "$name" "no rows, or no rank 0, within 30 s: $(tail -1 "$tmp/root.err")"
fi
exit $status
