#!/usr/bin/env bash
# The built-in demo: a small sweep over all four assembly tasks, three solvers and three
# timesteps (each task at its default duration), written to OUT (default out/demo):
# results.csv, results.jsonl, report.html, config.json, machine.json, and a close-up video
# (with a thumbnail) of each task's worst run in videos/, embedded in the report. The config is built
# in below, so the demo needs no files; `tightfit sweep` writes every file atomically, so an
# interrupted demo never leaves a half-written one.
set -euo pipefail
bin=${1:-build/tightfit}
out=${2:-out/demo}
jobs=${DEMO_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$(dirname "$out")"
config=$(mktemp "${TMPDIR:-/tmp}/tightfit-demo.XXXXXX.json")
trap 'rm -f "$config"' EXIT
cat >"$config" <<'JSON'
{
  "description": "tightfit demo: every task rig under pgs, newton and al at three timesteps",
  "task": ["peg", "boltnut", "gears", "connectors"],
  "envs": 1,
  "seeds": [0],
  "grid": {
    "solver": ["pgs", "newton", "al"],
    "dt": [0.002, 0.005, 0.01]
  },
  "video": {"select": "worst", "camera": "closeup", "fps": 24, "size": "480x360", "max": 4}
}
JSON

"$bin" --version
start=$(date +%s)
"$bin" sweep "$config" --out "$out" --force --jobs "$jobs"
end=$(date +%s)
echo "demo sweep: $((end - start)) s wall on $jobs jobs"

# a short table from the JSONL (one flat object per line; fields pulled out by name)
field() { printf '%s' "$1" | sed -n "s/.*\"$2\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p" | tr -d '"'; }
printf '%-11s %-7s %-6s %-9s %-8s %10s\n' task solver dt status success steps/s
while IFS= read -r line; do
  printf '%-11s %-7s %-6s %-9s %-8s %10.0f\n' "$(field "$line" task)" "$(field "$line" solver)" \
    "$(field "$line" dt)" "$(field "$line" status)" "$(field "$line" success)" \
    "$(field "$line" steps_per_s)"
done <"$out/results.jsonl" | sort
echo "wrote $out/results.csv, $out/results.jsonl, $out/report.html and $(ls "$out"/videos/*.mp4 2>/dev/null | wc -l) videos in $out/videos"
