#!/usr/bin/env bash
# Compares the speed of two commits on the benchmark's runs: REF, built in a temporary git
# worktree, against this working tree (uncommitted changes included). The runs are the ones
# `make bench` times, listed by the current tree's benches (`bench_tasks --cases`,
# `bench_robot_tasks --cases`: every rig, every robot mode under its default controller, the
# peg's under each other controller), each run through `tightfit run ... --json`, which any
# commit's CLI has. The two binaries alternate, REF then current for each run, ROUNDS times,
# so that a load on the machine that comes and goes falls on both. Per run it prints the
# median steps/s of each (the runner's steps_per_s: the wall time inside tf_step) and of each
# end to end (physics steps over the wall time of the whole process: building the model, the
# controller, the script and the probes included), and the ratio current / REF as the median
# of the rounds' ratios; an aligned table, then one JSON line (with each round's steps/s). It
# measures; it asserts no time. The current tree is what it holds when the script starts: on
# a tree others edit, their edits of the moment are in it (the label says -dirty).
#
# Usage: scripts/bench_compare.sh REF (make bench-compare REF=<commit>)
# Environment: ROUNDS (5), CASES (an extended regex: only the runs whose label matches, such as
# 'rig' or 'peg robot'), JOBS (make's -j for the builds, 2), BUILD (this tree's build
# directory, build). The current tree builds into $BUILD/bench-compare/current, a build of
# its own (what others build into $BUILD, with whatever settings, does not enter; kept from
# one comparison to the next); build logs go to $BUILD/bench-compare/.
set -euo pipefail

prog=bench_compare.sh
die() {
  echo "$prog: $*" >&2
  exit 1
}

ref=${1:-}
if [ -z "$ref" ]; then
  echo "$prog: no REF given. usage: make bench-compare REF=<commit> [ROUNDS=5] [CASES=regex]" >&2
  exit 2
fi
rounds=${ROUNDS:-5}
jobs=${JOBS:-2}
build=${BUILD:-build}
cases_filter=${CASES:-}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$rounds'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "JOBS must be a positive integer, not '$jobs'"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
sha=$(git rev-parse --verify --quiet "$ref^{commit}") ||
  die "REF '$ref' does not resolve to a commit"
short=$(git rev-parse --short "$sha")
current=$(git describe --always --dirty)

# builds with this script's own make settings: none of the caller's (make bench-compare's
# MAKEFLAGS would carry its jobserver and its variables, BUILD too, into REF's build)
unset MAKEFLAGS MFLAGS MAKELEVEL
logs="$build/bench-compare"
mkdir -p "$logs"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tightfit-bench-compare.XXXXXX")
wt="$tmp/ref"
cleanup() {
  if [ -d "$wt" ]; then git worktree remove --force "$wt" >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
  git worktree prune >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the first line of a log that names an error or a failure, else make's first complaint,
# else its last line
first_error() {
  grep -m 1 -E 'error:|fatal|failed|No rule|^[a-z_]+\.sh: ' "$1" ||
    grep -m 1 -F '***' "$1" || tail -n 1 "$1"
}

echo "$prog: REF $short ($ref) against the working tree ($current), $rounds rounds" >&2
if ! git worktree add --detach "$wt" "$sha" >"$logs/worktree.log" 2>&1; then
  die "git worktree add of $short failed: $(first_error "$logs/worktree.log")"
fi
echo "$prog: building REF's CLI in $wt (log $logs/ref-build.log)" >&2
# REF builds in its own default tree: the caller's BUILD (make bench-compare BUILD=...) is in
# the environment and would point REF's make elsewhere
if ! make --no-print-directory -C "$wt" -j"$jobs" BUILD=build build/tightfit \
  >"$logs/ref-build.log" 2>&1; then
  die "building REF $short failed ($logs/ref-build.log): $(first_error "$logs/ref-build.log")"
fi
cur="$logs/current"
echo "$prog: building the current CLI and benches in $cur (log $logs/current-build.log)" >&2
if ! make --no-print-directory -j"$jobs" BUILD="$cur" "$cur/tightfit" "$cur/bench/bench_tasks" \
  "$cur/bench/bench_robot_tasks" >"$logs/current-build.log" 2>&1; then
  log="$logs/current-build.log"
  die "building the current tree failed ($log): $(first_error "$log")"
fi
# copies: a rebuild of either tree while the rounds run leaves these as they were
mkdir -p "$tmp/bin"
cp "$wt/build/tightfit" "$tmp/bin/ref"
cp "$cur/tightfit" "$tmp/bin/cur"

# the runs: `tightfit run` arguments, one a line, and a label each ("peg rig", "peg robot ik")
list=$("$cur/bench/bench_tasks" --cases) || die "$cur/bench/bench_tasks --cases failed"
list+=$'\n'$("$cur/bench/bench_robot_tasks" --cases) ||
  die "$cur/bench/bench_robot_tasks --cases failed"
mapfile -t all_args <<<"$list"
args=()
labels=()
for a in "${all_args[@]}"; do
  read -ra w <<<"$a"
  task="" mode=rig controller=""
  for ((i = 0; i + 1 < ${#w[@]}; i++)); do
    case "${w[i]}" in
      --task) task=${w[i + 1]} ;;
      --mode) mode=${w[i + 1]} ;;
      --set) [[ "${w[i + 1]}" == controller=* ]] && controller=${w[i + 1]#controller=} ;;
    esac
  done
  label="$task $mode${controller:+ $controller}"
  if [ -n "$cases_filter" ] && ! [[ "$label" =~ $cases_filter ]]; then continue; fi
  args+=("$a")
  labels+=("$label")
done
ncase=${#args[@]}
[ "$ncase" -gt 0 ] || die "no run matches CASES='$cases_filter'"

# a number or a string of the CLI's JSON by its top-level key (empty when absent or null);
# one line (as `tightfit run --json` prints it) or one key a line
sp='[[:space:]]*'
json_number() {
  sed -n -E "s/(^|.*[{,])$sp\"$1\"$sp:$sp([-0-9.eE+]+)$sp([,}].*)?$/\2/p" "$2"
}
json_text() {
  sed -n -E "s/(^|.*[{,])$sp\"$1\"$sp:$sp\"([^\"]*)\".*/\2/p" "$2"
}

# one run of binary $1 (ref / cur) with the arguments $2: sets run_sps, run_e2e and
# run_status, or returns 1 with the CLI's first line of error in run_error
run_once() {
  local bin="$tmp/bin/$1" out="$tmp/out.json" err="$tmp/err.txt" t0 t1
  local -a a
  read -ra a <<<"$2"
  t0=$(date +%s%N)
  if ! "$bin" run "${a[@]}" --json >"$out" 2>"$err"; then
    run_error=$(head -n 1 "$err")
    return 1
  fi
  t1=$(date +%s%N)
  run_sps=$(json_number steps_per_s "$out")
  run_status=$(json_text status "$out")
  local duration dt substeps
  duration=$(json_number duration "$out")
  dt=$(json_number dt "$out")
  substeps=$(json_number substeps "$out")
  if [ -z "$run_sps" ] || [ -z "$duration" ] || [ -z "$dt" ]; then
    run_error="no steps_per_s, duration or dt in its JSON"
    return 1
  fi
  run_sps=$(awk -v x="$run_sps" 'BEGIN { printf "%.6g", x }')
  run_e2e=$(awk -v d="$duration" -v h="$dt" -v s="${substeps:-1}" -v ns=$((t1 - t0)) \
    'BEGIN { printf "%.6g", int(d / h + 0.5) * s / (ns * 1e-9) }')
}

# per run and binary: the rounds' values, space separated; failed[i]: why run i dropped out
declare -A sps e2e status
declare -a failed
for ((i = 0; i < ncase; i++)); do failed[i]=""; done

# a first, short run of each: any SDF bake lands in the cache before the timed rounds, and a
# run that REF or the current tree cannot do drops out here
for ((i = 0; i < ncase; i++)); do
  short_args=$(sed -E 's/--duration [^ ]+/--duration 0.01/' <<<"${args[i]}")
  for b in ref cur; do
    if [ -z "${failed[i]}" ] && ! run_once "$b" "$short_args"; then
      failed[i]="$b: $run_error"
      echo "$prog: ${labels[i]}: the $b binary failed: $run_error" >&2
    fi
  done
done

for ((r = 1; r <= rounds; r++)); do
  echo "$prog: round $r of $rounds" >&2
  for ((i = 0; i < ncase; i++)); do
    [ -z "${failed[i]}" ] || continue
    for b in ref cur; do
      if ! run_once "$b" "${args[i]}"; then
        failed[i]="$b: $run_error"
        echo "$prog: ${labels[i]}: the $b binary failed: $run_error" >&2
        break
      fi
      sps[$i,$b]+="$run_sps "
      e2e[$i,$b]+="$run_e2e "
      [ "$run_status" = ok ] || status[$i,$b]=$run_status
    done
  done
done

# the median of numbers (one argument, space separated)
median() {
  tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) print ""
    else if (NR % 2) printf "%.6g\n", v[(NR + 1) / 2]
    else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# the rounds' ratios b / a of two lists of the same length
ratios() {
  paste -d ' ' <(tr ' ' '\n' <<<"$1" | awk 'NF') <(tr ' ' '\n' <<<"$2" | awk 'NF') |
    awk '$1 > 0 { printf "%.6g ", $2 / $1 }'
}
# s as a JSON string's contents
json_escape() {
  local s=${1//\\/\\\\}
  printf '%s' "${s//\"/\\\"}"
}
# a space-separated list as JSON numbers: "1 2 " -> 1,2
json_list() {
  local l=${1% }
  printf '%s' "${l// /,}"
}
num_or_null() { if [ -n "$1" ]; then echo "$1"; else echo null; fi; }

printf '\nREF %s (%s) against the working tree (%s), median of %d rounds; ratio: current / REF\n' \
  "$short" "$ref" "$current" "$rounds"
printf '%-22s %11s %11s %7s  %11s %11s %7s  %s\n' run "REF steps/s" "cur steps/s" ratio \
  "REF e2e/s" "cur e2e/s" ratio note
json_cases=""
for ((i = 0; i < ncase; i++)); do
  if [ -n "${failed[i]}" ]; then
    printf '%-22s %11s %11s %7s  %11s %11s %7s  %s\n' "${labels[i]}" - - - - - - \
      "failed (${failed[i]})"
    case_json=$(printf '{"run":"%s","args":"%s","failed":"%s"}' "${labels[i]}" "${args[i]}" \
      "$(json_escape "${failed[i]}")")
  else
    rs=$(median "${sps[$i,ref]}")
    cs=$(median "${sps[$i,cur]}")
    rr=$(median "$(ratios "${sps[$i,ref]}" "${sps[$i,cur]}")")
    re=$(median "${e2e[$i,ref]}")
    ce=$(median "${e2e[$i,cur]}")
    er=$(median "$(ratios "${e2e[$i,ref]}" "${e2e[$i,cur]}")")
    note=""
    [ -z "${status[$i,ref]:-}" ] || note+="REF ${status[$i,ref]} "
    [ -z "${status[$i,cur]:-}" ] || note+="current ${status[$i,cur]}"
    printf '%-22s %11.1f %11.1f %7.3f  %11.1f %11.1f %7.3f  %s\n' "${labels[i]}" "$rs" "$cs" \
      "$rr" "$re" "$ce" "$er" "$note"
    fmt='{"run":"%s","args":"%s","ref_steps_per_s":%s,"current_steps_per_s":%s,"ratio":%s,'
    fmt+='"ref_end_to_end_steps_per_s":%s,"current_end_to_end_steps_per_s":%s,'
    fmt+='"end_to_end_ratio":%s,"ref_status":"%s","current_status":"%s",'
    fmt+='"ref_rounds":[%s],"current_rounds":[%s]}'
    # shellcheck disable=SC2059 # the format is built above
    case_json=$(printf "$fmt" "${labels[i]}" "${args[i]}" "$(num_or_null "$rs")" \
      "$(num_or_null "$cs")" "$(num_or_null "$rr")" "$(num_or_null "$re")" \
      "$(num_or_null "$ce")" "$(num_or_null "$er")" "${status[$i,ref]:-ok}" \
      "${status[$i,cur]:-ok}" "$(json_list "${sps[$i,ref]}")" "$(json_list "${sps[$i,cur]}")")
  fi
  json_cases+="${json_cases:+,}$case_json"
done
printf '{"bench":"compare","ref":"%s","ref_commit":"%s","current":"%s","rounds":%d,"runs":[%s]}\n' \
  "$(json_escape "$ref")" "$sha" "$current" "$rounds" "$json_cases"

nfailed=0
for ((i = 0; i < ncase; i++)); do [ -z "${failed[i]}" ] || nfailed=$((nfailed + 1)); done
[ "$nfailed" -eq 0 ] || die "$nfailed of $ncase runs failed (see the table)"
