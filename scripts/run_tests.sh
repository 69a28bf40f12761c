#!/usr/bin/env bash
# Runs every cmocka suite given on the command line, then the CLI's leak check under
# valgrind, and closes with one "N passed, N failed" line counting individual tests.
set -u
passed=0
failed=0
failed_suites=()
for suite in "$@"; do
  echo "== $suite"
  out=$("$suite" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  # cmocka's stdout and stderr interleave, so match the summaries anywhere on a line
  p=$(printf '%s\n' "$out" | grep -o '\[  PASSED  \] [0-9]* test(s)' | grep -o '[0-9]\+' | tail -n 1)
  f=$(printf '%s\n' "$out" | grep -o '\[  FAILED  \] [0-9]* test(s), listed below' | grep -o '[0-9]\+' | tail -n 1)
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ "$rc" -ne 0 ]; then
    # a crash or an abort before the summary still counts as a failure
    [ -z "${f:-}" ] && failed=$((failed + 1))
    failed_suites+=("$suite")
  fi
done

if [ "${VALGRIND:-1}" = "1" ] && command -v valgrind >/dev/null 2>&1 && [ -n "${TIGHTFIT_BIN:-}" ]; then
  echo "== valgrind: tightfit run (leaks and memory errors)"
  if valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible \
      --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=3 \
      "$TIGHTFIT_BIN" run --scene chain7 --duration 0.05 --json >/dev/null; then
    echo "[       OK ] valgrind tightfit run"
    passed=$((passed + 1))
  else
    echo "[  FAILED  ] valgrind tightfit run"
    failed=$((failed + 1))
    failed_suites+=("valgrind")
  fi
fi

echo
if [ ${#failed_suites[@]} -gt 0 ]; then
  echo "failing: ${failed_suites[*]}"
fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ ${#failed_suites[@]} -eq 0 ]
