#!/usr/bin/env bash
# Runs every test: sets up and builds (scripts/setup.sh, warnings as errors), runs each fuzz target for
# ECOSIM_FUZZ_SECONDS (default 30; scripts/fuzz_all.sh), then runs the whole CTest suite, whose summary closes
# the output.
set -euo pipefail
cd "$(dirname "$0")/.."
ECOSIM_CMAKE_ARGS="-DECOSIM_WERROR=ON ${ECOSIM_CMAKE_ARGS:-}" scripts/setup.sh
scripts/fuzz_all.sh "${ECOSIM_FUZZ_SECONDS:-30}"
cd "${ECOSIM_BUILD_DIR:-build}"
ctest --output-on-failure --parallel "$(nproc)" --timeout 600
