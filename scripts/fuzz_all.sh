#!/usr/bin/env bash
# Builds every libFuzzer target once with clang (address + undefined sanitizers) into build-fuzz/, runs each
# for SECONDS on its seed corpus, and prints per target the executions and crashes; fails on any crash.
# Targets and seeds: the trace reader (traces written by the main build's ecosim, ${ECOSIM_BUILD_DIR:-build}/bin,
# from scripts/setup.sh, and traces/fuzz/seeds), the accelerator config (the shipped and test configs), the .npy reader
# (ecoformer/fuzz/seeds), the model zoo (ops_counter/fuzz/seeds) and the ONNX importer (the op fixtures, hostile
# ones and the shape evaluator's included, the small CNN and the transformers whose exports compute their shapes
# in the graph — a run-time attention scale, a Llama block's rotary embedding and grouped-query K/V — of
# tests/ops_counter/data/onnx; the shifted-window block is left out: it imports in ~30 ms under the sanitizers,
# cutting the executions per second fourfold). Crash inputs go to build-fuzz/artifacts/, logs to
# build-fuzz/<target>.log.
# Usage: scripts/fuzz_all.sh SECONDS
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz_all.sh SECONDS}
build=build-fuzz
ecosim=${ECOSIM_BUILD_DIR:-build}/bin/ecosim
targets=(trace_reader_fuzz accel_config_fuzz npy_fuzz model_zoo_fuzz onnx_import_fuzz)
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DECOSIM_CUDA=OFF \
  -DECOSIM_TESTS=OFF -DECOSIM_FUZZ=ON "-DCMAKE_CXX_FLAGS=$flags" >/dev/null
cmake --build "$build" --target "${targets[@]}" --parallel "$(nproc)"

# Seeds: a fresh corpus folder per target.
seed() {
  local dir="$build/corpus/$1"
  shift
  rm -rf "$dir" && mkdir -p "$dir" && cp "$@" "$dir/"
}
# Trace seeds: one small trace (header, one op, end) per op record of a few real traces, so that each
# execution parses a few hundred bytes rather than kilobytes.
traces="$build/traces"
rm -rf "$traces" && mkdir -p "$traces"
"$ecosim" trace --layer attention --attention ecoformer --seq 64 --convention exact -o "$traces/eco.jsonl" >/dev/null
"$ecosim" trace --layer attention --attention reformer --seq 100 --convention paper -o "$traces/reformer.jsonl" >/dev/null
"$ecosim" trace --model lra_text --attention performer --seq-len 256 --convention paper -o "$traces/lra.jsonl" >/dev/null
corpus="$build/corpus/trace_reader_fuzz"
rm -rf "$corpus" && mkdir -p "$corpus"
for trace in "$traces"/*.jsonl; do
  n=0
  while IFS= read -r op; do
    n=$((n + 1))
    printf '%s\n%s\n{"record":"end","ops":1}\n' "$(head -n 1 "$trace")" "$op" >"$corpus/$(basename "$trace" .jsonl).$n.jsonl"
  done < <(grep '"record":"op"' "$trace")
done
cp traces/fuzz/seeds/*.jsonl "$corpus/"  # stored: version-1 records (a hash, an attention group) and v2 groups
seed accel_config_fuzz accel_model/data/*.json tests/accel_model/data/*.json
seed npy_fuzz ecoformer/fuzz/seeds/*.npy
seed model_zoo_fuzz ops_counter/fuzz/seeds/*.json
seed onnx_import_fuzz tests/ops_counter/data/onnx/ops/*.onnx tests/ops_counter/data/onnx/ops/hostile/*.onnx \
  tests/ops_counter/data/onnx/models/{small_cnn,vit_mha,transformer_encoder,gpt_tiny,llama_block}.onnx \
  tests/ops_counter/data/onnx/models/runtime_scale.onnx

# The longest input each target mutates to: a few records for the trace reader, the ONNX seeds (up to 40 kB: the
# exported transformers); the other seeds are < 1 kB.
# An input running over 10 s (-timeout) or above 2 GB (libFuzzer's default -rss_limit_mb) is a crash too.
declare -A max_len=([trace_reader_fuzz]=2048 [accel_config_fuzz]=4096 [npy_fuzz]=1024 [model_zoo_fuzz]=4096
                    [onnx_import_fuzz]=40960)
mkdir -p "$build/artifacts"
failed=0
for target in "${targets[@]}"; do
  log="$build/$target.log"
  rm -f "$build/artifacts/$target-"*
  rc=0
  "$build/bin/$target" -max_total_time="$seconds" -max_len="${max_len[$target]}" -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" "$build/corpus/$target" >"$log" 2>&1 || rc=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  crashes=$(find "$build/artifacts" -name "$target-*" | wc -l)
  echo "fuzz: $target: ${executions:-?} executions in ${seconds} s, $crashes crashes"
  if [[ $rc -ne 0 || $crashes -ne 0 ]]; then
    failed=1
    tail -n 30 "$log"
  fi
done
exit "$failed"
