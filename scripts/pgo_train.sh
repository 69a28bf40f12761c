#!/usr/bin/env bash
# Trains the profile-guided build (Makefile, PGO): short runs of every task with the
# instrumented CLI, whose counts land in the data directory, one file per instrumented
# source. Usage: pgo_train.sh CLI DATA NFILES
set -eu
cli=$1
data=$2
nfiles=$3
rm -rf "$data"
mkdir -p "$data"
# the rig's threads at both timesteps (the seated nut's mesh x SDF pair dominates) and with
# the SDF collider (SDF x SDF), the gears' teeth (and at 50 Hz with re-linearisation's
# passes), the peg in its bore under each solver, the connectors, and the arm (robot mode)
runs=(
  "--task boltnut --dt 0.01 --duration 0.3"
  "--task boltnut --dt 0.001 --duration 0.05 --set drive=gravity --set mu=0.06"
  "--task boltnut --dt 0.01 --duration 0.1 --set collider=sdf"
  "--task gears --dt 0.002 --duration 0.1"
  "--task gears --dt 0.02 --duration 0.1 --relinearize 12 --set mount=shaft"
  "--task peg --dt 0.002 --duration 0.1"
  "--task peg --dt 0.002 --duration 0.05 --solver pgs"
  "--task peg --dt 0.002 --duration 0.05 --solver newton"
  "--task peg --dt 0.002 --duration 0.05 --solver admm"
  "--task peg --mode robot --dt 0.002 --duration 0.2"
  "--task connectors --dt 0.002 --duration 0.1"
)
for r in "${runs[@]}"; do
  # shellcheck disable=SC2086 # the options split on purpose
  if ! "$cli" run $r --envs 1 >/dev/null 2>"$data/last.err"; then
    echo "pgo_train.sh: tightfit run $r failed: $(head -n 1 "$data/last.err")" >&2
    exit 1
  fi
done
rm -f "$data/last.err"
# every instrumented file's counts written (else the final compile would go without them)
found=$(find "$data" -name '*.gcda' | wc -l)
if [ "$found" -ne "$nfiles" ]; then
  echo "pgo_train.sh: $found of $nfiles profiles written under $data" >&2
  exit 1
fi
echo "pgo: trained on ${#runs[@]} task runs"
