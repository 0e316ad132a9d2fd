#!/usr/bin/env bash
# Runs every test: sets up and builds (scripts/setup.sh, warnings as errors), fuzzes the trace reader for
# 60 s (scripts/fuzz_trace_reader.sh), then runs the whole CTest suite, whose summary closes the output.
set -euo pipefail
cd "$(dirname "$0")/.."
ECOSIM_CMAKE_ARGS="-DECOSIM_WERROR=ON ${ECOSIM_CMAKE_ARGS:-}" scripts/setup.sh
scripts/fuzz_trace_reader.sh "${ECOSIM_FUZZ_SECONDS:-60}"
cd "${ECOSIM_BUILD_DIR:-build}"
ctest --output-on-failure --parallel "$(nproc)" --timeout 600
