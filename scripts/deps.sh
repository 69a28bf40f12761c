#!/usr/bin/env bash
# Installs the Debian packages tightfit builds against, and only those that are missing.
# A no-op (and no network) when everything is present; see README.md for what each is for.
set -euo pipefail

packages=(
  gcc make pkg-config        # toolchain
  libopenblas-dev            # BLAS/LAPACK: Cholesky of the mass matrix, SVD in controllers
  liblapacke-dev             # C interface to LAPACK
  libqhull-dev               # convex hulls (qhull_r) for convex collision
  libcjson-dev               # scene, task and sweep configs; JSON output
  libpng-dev                 # PNG frames and thumbnails
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev  # H.264 MP4 rollout videos
  ffmpeg                     # ffprobe: tests check the MP4s' codec, size, fps, frame count
  libcmocka-dev              # unit tests and physics gates
  libzip-dev                 # NPZ (zip) files of per-step recordings (--record)
  libxml2-dev                # MuJoCo MJCF models (run --scene FILE.xml; assets/mjcf_load.c)
  python3-numpy              # tests load the recordings with numpy (for /usr/bin/python3);
                             # the Python package (python/tightfit) is built on it
  python3-pytest             # the Python package's tests (python/tests) in `make test`
  valgrind                   # leak check of the CLI in `make test`
  chromium chromium-driver   # headless check that report.html loads and draws its plots
)
# `scripts/deps.sh fuzz` adds the fuzzing toolchain for `make fuzz`
if [ "${1:-}" = "fuzz" ]; then
  packages+=(clang libclang-rt-14-dev)  # libFuzzer + sanitizer runtimes
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "deps: installing missing Debian packages: ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "deps: missing packages (${missing[*]}) and not root; install them with apt-get" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
# Try without refreshing the lists first; a fresh machine has none, so update then retry.
if ! "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  "${sudo_cmd[@]}" apt-get update -q >/dev/null
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
