#!/usr/bin/env bash
# Opens a tightfit report.html in headless Chromium and checks it the way a browser sees it:
# the page loads, its script runs to the end (<body data-js="ok">) and sorts the runs table by
# every column without losing a row (#selftest, <body data-selftest="ok">), each of the four
# plots is either drawn (an <svg>, or one per task as <id>-<task> panels, whose series count
# matches its data-nseries) or replaced by its "no data" note, and the console shows no uncaught exception or error.
#
# usage: scripts/check_report_chromium.sh REPORT.html [PLOT_ID=NSERIES ...] [--screenshot FILE.png]
#   PLOT_ID=NSERIES   require that plot drawn with exactly that many series (plot-slip=3)
#   --screenshot F    also save a full-page screenshot (for a person to look at)
# exit: 0 all checks passed, 1 a check failed or Chromium is missing, 2 bad usage
set -uo pipefail

plots=(plot-slip plot-tunnel plot-overlap plot-throughput)
report=""
shot=""
expect=()
while [ $# -gt 0 ]; do
  case "$1" in
    --screenshot)
      [ $# -ge 2 ] || { echo "check_report: --screenshot needs a file" >&2; exit 2; }
      shot="$2"; shift 2 ;;
    -*) echo "check_report: unknown option '$1'" >&2; exit 2 ;;
    *=*) expect+=("$1"); shift ;;
    *) report="$1"; shift ;;
  esac
done
if [ -z "$report" ]; then
  echo "usage: $0 REPORT.html [PLOT_ID=NSERIES ...] [--screenshot FILE.png]" >&2
  exit 2
fi
if [ ! -f "$report" ]; then
  echo "check_report: $report: no such file" >&2
  exit 2
fi

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser="$b"; break; fi
done
if [ -z "$browser" ]; then
  echo "check_report: chromium is not installed (bash scripts/deps.sh installs it)" >&2
  exit 1
fi

work=$(mktemp -d /tmp/tightfit_chromium_XXXXXX)
trap 'rm -rf "$work"' EXIT
abs="$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
# a file URL: characters that end or change a URL path are percent-encoded
path_url=$(printf '%s' "$abs" | sed -e 's/%/%25/g' -e 's/ /%20/g' -e 's/#/%23/g' -e 's/?/%3F/g')
url="file://$path_url#selftest"
# a fresh profile per run: no state from earlier runs, no clash with a parallel check
flags=(--headless --disable-gpu --no-sandbox --no-first-run --no-default-browser-check
  --user-data-dir="$work/profile" --enable-logging=stderr --v=0)

fail=0
failed() { echo "check_report: FAIL: $*" >&2; fail=1; }

if ! timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" >"$work/dom.html" 2>"$work/console.log"; then
  tail -n 20 "$work/console.log" >&2
  echo "check_report: FAIL: $browser did not load $report" >&2
  exit 1
fi
if [ ! -s "$work/dom.html" ]; then
  echo "check_report: FAIL: $browser returned an empty DOM for $report" >&2
  exit 1
fi

# console: our page logs nothing, so an uncaught exception or an error line is a failure
if grep -E 'CONSOLE.*(Uncaught|Error|error)' "$work/console.log" >"$work/errors.txt"; then
  cat "$work/errors.txt" >&2
  failed "JavaScript errors in the console"
fi
grep -q '<body[^>]*data-js="ok"' "$work/dom.html" || failed "the page script did not run to its end"
grep -q '<body[^>]*data-selftest="ok"' "$work/dom.html" || failed "the table sort self-test did not pass"
nrows=$(grep -o '<tr class="run ' "$work/dom.html" | wc -l)
[ "$nrows" -gt 0 ] || failed "the runs table has no rows"

# one line per </svg>, so each plot's element can be cut out with a single grep
tr '\n' ' ' <"$work/dom.html" | sed 's#</svg>#</svg>\n#g' >"$work/svgs.txt"
summary="runs: $nrows"
for id in "${plots[@]}"; do
  # the plot, or its panels (one per task when a sweep has several: <id>-<task>)
  blocks=$(grep -o "<svg id=\"$id\(-[a-z0-9_]*\)\?\".*" "$work/svgs.txt" || true)
  if [ -z "$blocks" ]; then
    if grep -q "data-plot=\"$id\"" "$work/dom.html"; then
      summary+=", $id: no data"
    else
      failed "$id: neither a plot nor its no-data note"
    fi
    continue
  fi
  while IFS= read -r block; do
    pid=$(printf '%s' "$block" | grep -o '^<svg id="[^"]*"' | sed 's/^<svg id="//; s/"$//')
    nseries=$(printf '%s' "$block" | grep -o '<g class="series"' | wc -l)
    npoints=$(printf '%s' "$block" | grep -o 'class="point' | wc -l)
    declared=$(printf '%s' "$block" | grep -o 'data-nseries="[0-9]*"' | head -n 1 | grep -o '[0-9]*')
    summary+=", $pid: $nseries series $npoints points"
    [ "$nseries" = "${declared:-x}" ] || failed "$pid: $nseries series drawn, data-nseries says ${declared:-nothing}"
    if [ "$nseries" -eq 0 ] || [ "$npoints" -eq 0 ]; then
      failed "$pid: drawn without series or points"
    fi
  done <<<"$blocks"
done
for e in "${expect[@]}"; do
  id="${e%%=*}"
  want="${e#*=}"
  block=$(grep -o "<svg id=\"$id\".*" "$work/svgs.txt" | head -n 1)
  got=$(printf '%s' "$block" | grep -o '<g class="series"' | wc -l)
  if [ -z "$block" ] || [ "$got" != "$want" ]; then
    failed "$id: expected $want series, found $got"
  fi
done

if [ -n "$shot" ]; then
  shot_abs="$(cd "$(dirname "$shot")" && pwd)/$(basename "$shot")"
  timeout 120 "$browser" "${flags[@]}" --hide-scrollbars --window-size=1400,3000 \
    --screenshot="$shot_abs" "file://$path_url" >/dev/null 2>&1 || failed "screenshot to $shot failed"
fi

echo "check_report: $summary"
if [ "$fail" -ne 0 ]; then
  exit 1
fi
echo "check_report: $report loads in $browser: OK"
