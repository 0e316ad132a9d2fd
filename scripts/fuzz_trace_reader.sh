#!/usr/bin/env bash
# Builds the libFuzzer target of the trace reader with clang (address + undefined sanitizers) into
# build-fuzz/ and runs it for SECONDS (default 60) on a seed corpus of real traces written by the main
# build's ecosim (build/bin/ecosim, from scripts/setup.sh); fails on any crash.
# Usage: scripts/fuzz_trace_reader.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=build-fuzz
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DECOSIM_CUDA=OFF \
  -DECOSIM_TESTS=OFF -DECOSIM_FUZZ=ON "-DCMAKE_CXX_FLAGS=$flags" >/dev/null
cmake --build "$build" --target trace_reader_fuzz --parallel "$(nproc)"

corpus="$build/corpus"
rm -rf "$corpus" && mkdir -p "$corpus"
build/bin/ecosim trace --layer attention --attention ecoformer --seq 64 --convention exact -o "$corpus/eco.jsonl"
build/bin/ecosim trace --layer attention --attention reformer --seq 100 -o "$corpus/reformer.jsonl"
build/bin/ecosim trace --model lra_text --attention performer --seq-len 256 -o "$corpus/lra.jsonl"
echo "fuzz: running the trace reader for ${seconds}s"
"$build/bin/trace_reader_fuzz" -max_total_time="$seconds" -max_len=8192 -print_final_stats=1 \
  -artifact_prefix="$build/" "$corpus" 2>&1 | tail -n 12
