#!/usr/bin/env bash
# Runs every cmocka suite given on the command line (and script suites, scripts/test_*.sh,
# which print one cmocka-like OK / FAILED / SKIPPED line per test), the Python package's
# pytest suite and the CLI's leak check under valgrind (all in one pool of jobs, reported in
# that order), then builds a copy of the checkout, and closes with one "N passed, N failed"
# line counting individual tests.
set -u
passed=0
failed=0
skipped=0
failed_suites=()
# suites run TEST_JOBS at a time (default: the cores, at most 4), each into its own log,
# printed and counted in the order given once it is done, so the output reads as a serial
# run's; the physics gates dominate and are independent processes
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -gt 4 ] && jobs=4
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
suites=("$@")
# the gate suites (minutes each) start first, so that the short ones fill in beside them
order=()
for i in "${!suites[@]}"; do
  case "${suites[$i]}" in *gates*) order+=("$i") ;; esac
done
for i in "${!suites[@]}"; do
  case "${suites[$i]}" in *gates*) ;; *) order+=("$i") ;; esac
done
# waits for a free slot, then runs the command in the background: stdout and stderr to
# $logs/NAME.out, the exit status to $logs/NAME.rc
start_job() {
  local name=$1
  shift
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n 2>/dev/null || true; done
  ( "$@" >"$logs/$name.out" 2>&1; echo $? >"$logs/$name.rc" ) &
}
# the pytest suite and the valgrind checks (below) run in the same pool, after the gate
# suites have started, and are reported after the suites as before
valgrind_on=0
if [ "${VALGRIND:-1}" = "1" ] && command -v valgrind >/dev/null 2>&1; then valgrind_on=1; fi
valgrind_names=()  # the valgrind checks, in report order; valgrind_start K runs check K
valgrind_suites=()
if [ "$valgrind_on" = 1 ] && [ -n "${TIGHTFIT_BIN:-}" ]; then
  valgrind_names+=("tightfit run --scene" "tightfit run --task")
fi
# the same run paths in a binary that does not load libavcodec, so that valgrind always runs
# on them somewhere: the connectors suite builds, runs and merges task environments
if [ "$valgrind_on" = 1 ]; then
  for suite in "$@"; do
    case "$suite" in
      */tests/tasks/test_task_connectors | */tests/probes/test_probes)
        valgrind_names+=("$(basename "$suite")")
        valgrind_suites+=("$suite")
        ;;
    esac
  done
fi
valgrind_start() {
  local k=$1 cmd
  local first=$(( ${#valgrind_names[@]} - ${#valgrind_suites[@]} ))
  case "${valgrind_names[$k]}" in
    "tightfit run --scene") cmd=("$TIGHTFIT_BIN" run --scene chain7 --duration 0.05 --json) ;;
    "tightfit run --task") cmd=("$TIGHTFIT_BIN" run --task connectors --duration 0.01 --envs 2 --json) ;;
    *) cmd=("${valgrind_suites[$((k - first))]}") ;;
  esac
  start_job "valgrind$k" valgrind --quiet --leak-check=full \
    --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
    --error-exitcode=3 --log-file="$logs/valgrind$k.log" "${cmd[@]}"
}
start_extras() {
  if [ -n "${PYTEST_LIB:-}" ]; then
    local root bin
    root=$(cd "$(dirname "$0")/.." && pwd)
    bin=${TIGHTFIT_BIN:+$(realpath "$TIGHTFIT_BIN")}
    start_job pytest env TIGHTFIT_LIB="$(realpath "$PYTEST_LIB")" TIGHTFIT_BIN="$bin" \
      PYTHONPATH="$root/python" PYTHONDONTWRITEBYTECODE=1 "${PYTHON:-/usr/bin/python3}" -m pytest \
      -q -p no:cacheprovider "$root/python/tests"
  fi
  local k
  for k in "${!valgrind_names[@]}"; do valgrind_start "$k"; done
}
extras_started=0
for i in "${order[@]}"; do
  case "${suites[$i]}" in
    *gates*) ;;
    *)
      [ "$extras_started" = 0 ] && start_extras
      extras_started=1
      ;;
  esac
  case "${suites[$i]}" in
    *.sh) run=(bash "${suites[$i]}") ;;
    *) run=("${suites[$i]}") ;;
  esac
  start_job "$i" "${run[@]}"
done
[ "$extras_started" = 0 ] && start_extras
wait
i=0
for suite in "$@"; do
  echo "== $suite"
  out=$(cat "$logs/$i.out")
  rc=$(cat "$logs/$i.rc" 2>/dev/null || echo 1)
  i=$((i + 1))
  printf '%s\n' "$out"
  # cmocka's stdout and stderr interleave, so match the summaries anywhere on a line
  p=$(printf '%s\n' "$out" | grep -o '\[  PASSED  \] [0-9]* test(s)' | grep -o '[0-9]\+' | tail -n 1)
  f=$(printf '%s\n' "$out" | grep -o '\[  FAILED  \] [0-9]* test(s), listed below' | grep -o '[0-9]\+' | tail -n 1)
  # a script suite (scripts/test_*.sh) prints one cmocka-like line per test instead
  case "$suite" in
    *.sh)
      p=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
      f=$(printf '%s\n' "$out" | grep -c '^\[  FAILED  \]')
      s=$(printf '%s\n' "$out" | grep -c '^\[  SKIPPED \]')
      skipped=$((skipped + s))
      ;;
  esac
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ "$rc" -ne 0 ]; then
    # a crash or an abort before the summary still counts as a failure
    [ -z "${f:-}" ] && failed=$((failed + 1))
    failed_suites+=("$suite")
  fi
done


# the Python package's pytest suite (python/tests), when the Makefile names the shared library
# (PYTEST_LIB; not under the sanitizers), with the interpreter Debian's numpy and pytest are
# installed for (PYTHON, /usr/bin/python3: another python3 on PATH may not see them). Its
# passed / failed / skipped counts join the totals; a run that ends without a summary (no
# pytest, an import error, a crash) counts as one failure
if [ -n "${PYTEST_LIB:-}" ]; then
  echo "== pytest python/tests"
  log="$logs/pytest.out"
  rc=$(cat "$logs/pytest.rc" 2>/dev/null || echo 1)
  cat "$log"
  summary=$(grep -E '^=* *[0-9]+ (passed|failed|skipped|errors?)\b.* in [0-9.]+s' "$log" | tail -n 1)
  count() { printf '%s\n' "$summary" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' | head -n 1; }
  p=$(count passed)
  f=$(count failed)
  e=$(count 'errors?')
  s=$(count skipped)
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0} + ${e:-0}))
  skipped=$((skipped + ${s:-0}))
  if [ "$rc" -ne 0 ]; then
    [ -z "$summary" ] && failed=$((failed + 1))
    failed_suites+=("pytest python/tests")
  fi
fi
# valgrind over the CLI's run paths (leaks and memory errors). valgrind 3.19 cannot execute
# an instruction (rdtscp) that a library libavcodec loads runs on some CPUs: then the check
# cannot run here at all, which is reported as skipped, never as passed
valgrind_report() {
  local name=$1 log=$2 rc=$3
  if [ "$rc" -eq 0 ]; then
    echo "[       OK ] valgrind $name"
    passed=$((passed + 1))
  elif grep -q "unhandled instruction bytes\|Illegal opcode" "$log" &&
      grep -A1 "Illegal opcode\|unhandled instruction bytes" "$log" | grep -q "(in /usr/lib"; then
    echo "[  SKIPPED ] valgrind $name: valgrind cannot execute an instruction of a system library on this CPU"
    grep -m2 -A1 "Illegal opcode" "$log" | tail -n 2
    skipped=$((skipped + 1))
  else
    cat "$log"
    echo "[  FAILED  ] valgrind $name"
    failed=$((failed + 1))
    failed_suites+=("valgrind $name")
  fi
}

for k in "${!valgrind_names[@]}"; do
  [ "$k" = 0 ] && echo "== valgrind: tightfit run (leaks and memory errors)"
  rc=$(cat "$logs/valgrind$k.rc" 2>/dev/null || echo 1)
  # valgrind's own messages, or what it printed when it could not start at all
  [ -f "$logs/valgrind$k.log" ] || cp "$logs/valgrind$k.out" "$logs/valgrind$k.log"
  valgrind_report "${valgrind_names[$k]}" "$logs/valgrind$k.log" "$rc"
done

# a copied checkout builds (the profile-guided build used to need its original path); the
# Makefile asks for it where it built with PGO in the default tree (MOVED_TREE=root)
if [ -n "${MOVED_TREE:-}" ]; then
  echo "== a copied checkout builds and runs"
  log=$(mktemp)
  if bash "$(dirname "$0")/test_moved_tree.sh" "$MOVED_TREE" >"$log" 2>&1; then
    echo "[       OK ] copied checkout"
    passed=$((passed + 1))
  else
    cat "$log"
    echo "[  FAILED  ] copied checkout"
    failed=$((failed + 1))
    failed_suites+=("copied checkout")
  fi
  rm -f "$log"
fi

echo
if [ ${#failed_suites[@]} -gt 0 ]; then
  echo "failing: ${failed_suites[*]}"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ ${#failed_suites[@]} -eq 0 ]
