#!/usr/bin/env bash
# The built-in demo, until the sweep exists: every reference scene under both integrators,
# one JSON line per run in OUT/scenes.jsonl (written to a temporary file, then renamed, so
# an interrupted demo never leaves a half-written file), and a short table on stdout.
set -euo pipefail
bin=${1:-build/tightfit}
out=${2:-out/demo}
mkdir -p "$out"
tmp=$(mktemp "$out/.scenes.jsonl.XXXXXX")
trap 'rm -f "$tmp"' EXIT

"$bin" --version
printf '%-16s %-6s %10s %14s %16s\n' scene integ status steps/s "energy drift/KE"
for scene in pendulum double_pendulum chain7 spinning_body; do
  for integrator in euler rk4; do
    line=$("$bin" run --scene "$scene" --integrator "$integrator" --json)
    printf '%s\n' "$line" >>"$tmp"
    # the fields of interest, pulled out without extra tools
    status=$(printf '%s' "$line" | sed -n 's/.*"status":"\([a-z]*\)".*/\1/p')
    sps=$(printf '%s' "$line" | sed -n 's/.*"steps_per_s":\([0-9.e+-]*\).*/\1/p')
    drift=$(printf '%s' "$line" | sed -n 's/.*"energy_drift_rel":\([0-9.e+-]*\|null\).*/\1/p')
    printf '%-16s %-6s %10s %14.0f %16s\n' "$scene" "$integrator" "$status" "$sps" "$drift"
  done
done
mv "$tmp" "$out/scenes.jsonl"
echo "wrote $out/scenes.jsonl"

# the contact gates under every solver; a failing gate is a result, not a demo failure
tmp=$(mktemp "$out/.gates.json.XXXXXX")
"$bin" validate --json >"$tmp" || true
mv "$tmp" "$out/gates.json"
trap - EXIT
tr '{' '\n' <"$out/gates.json" | sed -n 's/^"gate":"\([a-z0-9_]*\)","solver":"\([a-z]*\)".*"pass":\(true\|false\).*/\1 \2 \3/p' |
  awk '{ key = $2; total[key]++; if ($3 == "true") ok[key]++ }
       END { for (k in total) printf "gates passed under %-7s %d / %d\n", k, ok[k], total[k] }' | sort
echo "wrote $out/gates.json"
