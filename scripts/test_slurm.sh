#!/bin/bash
# A real Slurm run of examples/slurm/submit.sh on this machine: a one-node cluster on
# localhost (munged with its own key, slurmctld and slurmd in the foreground, every file in a
# temporary folder, ports of its own), the 12-run examples/slurm/sweep12.json submitted as a
# 3-task array plus its merge job, then: both jobs COMPLETED, DIR/results.jsonl with 12 rows,
# DIR/report.html. The daemons are stopped and the folder removed however the test ends.
#
# Prints cmocka-like lines: "[       OK ] slurm: ...", "[  FAILED  ] slurm: ..." (exit 1), or
# "[  SKIPPED ] slurm: <why>" (exit 0) when Slurm cannot run here (not installed, a daemon
# that does not start, a node that never comes up); a skip is never a pass.
#
#   scripts/test_slurm.sh            TIGHTFIT_BIN: the binary (default build/tightfit)
#   TF_SLURM_KEEP=1 scripts/...      keeps the temporary folder (logs) for a look
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${TIGHTFIT_BIN:-build/tightfit}
case $bin in /*) ;; *) bin="$root/$bin" ;; esac
NAME="slurm: 12-run sweep as a 3-task job array + merge job"

skip() {
  echo "[  SKIPPED ] slurm: $*"
  exit 0
}
fail() {
  echo "[  FAILED  ] $NAME: $*"
  exit 1
}

[ -x "$bin" ] || fail "$bin is not an executable (set TIGHTFIT_BIN or build it)"
for tool in munged munge slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$tool" > /dev/null || skip "$tool not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || skip "needs root (SlurmUser=root, slurmd runs jobs as their user)"

started=$(date +%s.%N)
tmp=$(mktemp -d /tmp/tightfit_slurm_XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  # stops only the daemons this script started, by their pids
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null
  done
  if [ "${TF_SLURM_KEEP:-0}" = 1 ]; then
    echo "(kept $tmp)" >&2
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT

# the last meaningful line of a daemon's log, for a skip's one line
last_error() {
  grep -hiE "error|fatal|fail" "$@" 2> /dev/null | tail -1 | cut -c1-200
}

# ---- munge, with a key of its own
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge.key"
munged --foreground --force --socket="$tmp/munge.socket" --key-file="$tmp/munge.key" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" \
  > "$tmp/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/munge.socket" ] && break; sleep 0.1; done
munge -S "$tmp/munge.socket" -n 2> /dev/null | unmunge -S "$tmp/munge.socket" > /dev/null 2>&1 ||
  skip "munged does not start: $(last_error "$tmp/munged.out" "$tmp/munged.log")"

# ---- slurm.conf: one node, this host, no cgroups, no accounting
host=$(hostname -s)
cpus=$(nproc)
# two free ports of our own, so that another cluster (or test) on the default ports is left alone
port_free() { ! (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }
for _ in $(seq 20); do
  ctld_port=$((20000 + RANDOM % 20000))
  slurmd_port=$((ctld_port + 1))
  port_free "$ctld_port" && port_free "$slurmd_port" && break
done
mkdir -p "$tmp/state" "$tmp/spool/$host"
cat > "$tmp/slurm.conf" << EOF
ClusterName=tightfit-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
MailProg=/bin/true
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" > "$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$tmp/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 60); do
  kill -0 "${pids[1]}" 2> /dev/null ||
    skip "slurmctld exits at start: $(last_error "$tmp/slurmctld.out" "$tmp/slurmctld.log")"
  kill -0 "${pids[2]}" 2> /dev/null ||
    skip "slurmd exits at start: $(last_error "$tmp/slurmd.out" "$tmp/slurmd.log")"
  state=$(sinfo -h -n "$host" -o %t 2> /dev/null | head -1)
  case $state in idle*) up=1; break ;; esac
  sleep 0.5
done
[ $up = 1 ] || skip "the node never came up (state '${state:-none}'): $(last_error "$tmp"/slurm*.log "$tmp"/slurm*.out)"
daemons_up=$(date +%s.%N)

# ---- the sweep: 3 shards of 1 CPU each, then the merge
out="$tmp/out"
ids=$(cd "$tmp" && TIGHTFIT="$bin" SHARD_ARGS="--cpus-per-task=1" \
  "$root/examples/slurm/submit.sh" "$root/examples/slurm/sweep12.json" "$out" 3 2> "$tmp/submit.err") ||
  fail "submit.sh: $(tail -1 "$tmp/submit.err")"
array=$(echo "$ids" | awk '$1 == "array" {print $2}')
merge=$(echo "$ids" | awk '$1 == "merge" {print $2}')
if [ -z "$array" ] || [ -z "$merge" ]; then fail "submit.sh printed no job ids: $ids"; fi

# every job of the array and the merge has left the queue (5 minutes at most)
for _ in $(seq 600); do
  left=$(squeue -h -j "$array,$merge" 2> /dev/null | wc -l)
  [ "$left" = 0 ] && break
  sleep 0.5
done
[ "$left" = 0 ] || fail "jobs still queued after 5 minutes: $(squeue -h -j "$array,$merge" -o '%i %T %r' | tr '\n' ';')"
finished=$(date +%s.%N)

# both jobs COMPLETED with exit 0 (scontrol keeps ended jobs for MinJobAge; one job id per
# call: the array's shows each of its tasks)
jobs=$({ scontrol -o show job "$array"; scontrol -o show job "$merge"; } 2> /dev/null)
[ -n "$jobs" ] || fail "scontrol knows neither job $array nor $merge"
states=$(echo "$jobs" | sed -n 's/^JobId=\([0-9]*\) .*JobState=\([A-Z_]*\) .*ExitCode=\([0-9:]*\).*/\1 \2 \3/p' | tr '\n' ';')
bad=$(echo "$jobs" | grep -v 'JobState=COMPLETED' | sed -n 's/^JobId=\([0-9]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')
[ -z "$bad" ] || fail "jobs $bad not COMPLETED (${states}); merge log: $(tail -3 "$out/slurm/merge.log" 2> /dev/null | tr '\n' ' ')"
ntask=$(echo "$jobs" | grep -c 'ArrayTaskId=')
[ "$ntask" = 3 ] || fail "expected 3 array tasks, scontrol shows $ntask"

rows=0
[ -f "$out/results.jsonl" ] && rows=$(wc -l < "$out/results.jsonl")
[ "$rows" = 12 ] || fail "$out/results.jsonl has $rows rows, not 12; merge log: $(tail -3 "$out/slurm/merge.log" 2> /dev/null | tr '\n' ' ')"
[ -s "$out/report.html" ] || fail "no $out/report.html"
for k in 1 2 3; do
  [ -f "$out/shards/$k/shard.json" ] || fail "no $out/shards/$k/shard.json"
  grep -q '"final": true' "$out/slurm/shard-$k.log" || fail "shard-$k.log has no final --progress json line"
done

times=$(awk -v a="$started" -v b="$daemons_up" -v c="$finished" \
  'BEGIN { printf "daemons up in %.1f s, jobs done in %.1f s", b - a, c - b }')
echo "[       OK ] $NAME ($times)"
