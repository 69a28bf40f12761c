#!/bin/bash
# Submits a tightfit sweep to Slurm as a job array of N shards (sweep.sbatch) and a merge
# job that waits for the whole array (tightfit merge OUT): docs/cluster.md.
#
#   examples/slurm/submit.sh CONFIG.json OUT [N]          N shards (default 4)
#
# Environment:
#   TIGHTFIT     the tightfit binary every node runs (default: tightfit on PATH, else this
#                checkout's build/tightfit), made absolute
#   SBATCH_ARGS  extra sbatch options for both jobs (--partition=..., --account=...)
#   SHARD_ARGS   extra sbatch options for the array only (--cpus-per-task=8, --time=...)
#   MERGE_AFTER  the merge's dependency type: afterany (default) or afterok
# Prints the two job ids ("array JOBID" and "merge JOBID") on stdout; logs go to OUT/slurm/.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 CONFIG.json OUT [N]" >&2
  exit 2
fi
config=$(realpath "$1")
out=$(realpath -m "$2")
n=${3:-4}
case $n in
  '' | *[!0-9]* | 0*) echo "submit.sh: N must be a whole number >= 1, got '$n'" >&2; exit 2 ;;
esac
[ -f "$config" ] || { echo "submit.sh: $1: no such file" >&2; exit 2; }

tightfit=${TIGHTFIT:-}
if [ -z "$tightfit" ]; then
  tightfit=$(command -v tightfit || true)
  [ -n "$tightfit" ] || tightfit="$here/../../build/tightfit"
fi
tightfit=$(realpath "$tightfit")
[ -x "$tightfit" ] || { echo "submit.sh: $tightfit is not an executable (set TIGHTFIT)" >&2; exit 2; }
after=${MERGE_AFTER:-afterany}
case $after in
  afterany | afterok) ;;
  *) echo "submit.sh: MERGE_AFTER must be afterany or afterok, got '$after'" >&2; exit 2 ;;
esac

# Slurm opens the logs before a job starts: their folder must exist
mkdir -p "$out/slurm"

read -r -a extra <<< "${SBATCH_ARGS:-}"
read -r -a shard_extra <<< "${SHARD_ARGS:-}"
# through the environment (--export=ALL), not --export=CONFIG=...: a path may hold a comma
export CONFIG=$config OUT=$out TIGHTFIT=$tightfit

array=$(sbatch --parsable --array="1-$n" --export=ALL \
  --output="$out/slurm/shard-%a.log" "${extra[@]}" "${shard_extra[@]}" "$here/sweep.sbatch")
array=${array%%;*}
# the merge runs once every task has ended; with afterany also when one failed, so that its
# log names the unfinished shards and the command that finishes each
merge=$(sbatch --parsable --job-name=tightfit-merge --dependency="$after:$array" \
  --ntasks=1 --cpus-per-task=1 --output="$out/slurm/merge.log" "${extra[@]}" \
  --export=ALL --wrap="exec $(printf '%q' "$tightfit") merge $(printf '%q' "$out")")
merge=${merge%%;*}
echo "array $array"
echo "merge $merge"
