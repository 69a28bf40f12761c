#!/usr/bin/env bash
# A built checkout copied elsewhere (cp -r) still builds: its profile-guided build keys the
# training profile by the tree's absolute path, so the copy, once a source there changes,
# trains its own instead of asking for a profile recorded under the old path (which failed
# with -Werror=missing-profile). Copies ROOT with its build tree, touches an engine source in
# the copy, rebuilds the CLI there and runs a short task with it. Exit 0 when all of that
# worked; the copy is removed either way.
set -euo pipefail
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root" "$tmp/copy"
touch "$tmp/copy/engine/step.c"
# the outer make's flags (jobs, BUILD, goals) are not the copy's
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -j "$(nproc)" -C "$tmp/copy" build/tightfit
"$tmp/copy/build/tightfit" run --task peg --duration 0.02 --json >/dev/null
