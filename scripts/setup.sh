#!/usr/bin/env bash
# Sets up ecosim on a fresh Debian 12 machine: installs the Debian packages the project uses (skipping
# those already present), configures with CMake and builds into build/ (binaries in build/bin/, the Python
# package in build/python/: README.md, "From Python").
# Idempotent: a second run installs nothing and rebuilds only what changed.
# Environment: ECOSIM_BUILD_DIR (default build), ECOSIM_CMAKE_ARGS (extra configure arguments).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake ninja-build g++ clang pkg-config libsystemc-dev libeigen3-dev libboost-program-options-dev
          catch2 nlohmann-json3-dev libfmt-dev libbenchmark-dev python3 python3-matplotlib time
          libopenmpi-dev openmpi-bin libonnx-dev libprotobuf-dev python3-onnx python3-torch python3-numpy
          python3-dev python3-pybind11 python3-sklearn python3-venv python3-pip)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#PACKAGES[@]} Debian packages already installed"
fi

build_dir=${ECOSIM_BUILD_DIR:-build}
echo "setup: configuring $build_dir"
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release ${ECOSIM_CMAKE_ARGS:-} >/dev/null
echo "setup: building $build_dir"
cmake --build "$build_dir" --parallel "$(nproc)"
