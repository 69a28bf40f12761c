#!/usr/bin/env bash
# Installs the Debian packages tightfit builds against, and only those that are missing.
# A no-op (and no network) when everything is present; see README.md for what each is for.
set -euo pipefail

packages=(
  gcc make pkg-config        # toolchain
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
  libopenmpi-dev openmpi-bin # MPI sweeps (mpirun -np N tightfit sweep; docs/cluster.md)
  valgrind                   # leak check of the CLI in `make test`
  chromium chromium-driver   # headless check that report.html loads and draws its plots
)
# `scripts/deps.sh fuzz` adds the fuzzing toolchain for `make fuzz`
if [ "${1:-}" = "fuzz" ]; then
  packages+=(clang libclang-rt-14-dev)  # libFuzzer + sanitizer runtimes
fi

# Slurm for the test of the job-array example (scripts/test_slurm.sh): installed when it can
# be, but a machine where it cannot (a sandbox whose package scripts fail) still builds and
# tests everything else, and that test then says why it was skipped
optional=(slurm-wlm munge)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
    missing+=("$p")
  fi
done

optional_missing=()
for p in "${optional[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
    optional_missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ] && [ ${#optional_missing[@]} -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  elif [ ${#missing[@]} -gt 0 ]; then
    echo "deps: missing packages (${missing[*]}) and not root; install them with apt-get" >&2
    exit 1
  else
    echo "deps: optional packages missing (${optional_missing[*]}); the Slurm test will be skipped" >&2
    exit 0
  fi
fi

export DEBIAN_FRONTEND=noninteractive
# Try without refreshing the lists first; a fresh machine has none, so update then retry.
install() {
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1 || {
    "${sudo_cmd[@]}" apt-get update -q >/dev/null &&
      "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null
  }
}
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing missing Debian packages: ${missing[*]}" >&2
  install "${missing[@]}"
fi
if [ ${#optional_missing[@]} -gt 0 ]; then
  echo "deps: installing ${optional_missing[*]} for the Slurm test" >&2
  install "${optional_missing[@]}" ||
    echo "deps: could not install ${optional_missing[*]}; the Slurm test will say it skipped" >&2
fi
