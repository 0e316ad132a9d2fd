#!/usr/bin/env bash
# The check for a lent GPU machine, in two stages, each one `device run` call (a session has 15 minutes of
# device time in all, machine start included, so each stage has a budget and the two together leave room to
# rerun one):
#   stage 1 (budget 300 s): configure for sm_90 in its own build folder and build only the targets the checks
#     need (ninja, one job per core); then, side by side, the gpu-labelled tests with ECOSIM_REQUIRE_GPU=1 (a
#     skip is a failure; the > 65,535-group and >= 2^31-element cases included) and `ecosim validate --suite
#     attention|compression --device cuda`; then, alone on the GPU, `ecosim compare --device cuda`, whose
#     compare.json must hold only measured GPU latencies.
#   stage 2 (budget 270 s; the build folder of stage 1 is reused, so it must follow while the machine is
#     still warm, i.e. within 30 s): each kernel's registers, stack and local memory (cuobjdump; any spill or
#     local array fails the step); compute-sanitizer memcheck, racecheck, initcheck and synccheck on the [gpu]
#     cases of each GPU test binary but the [large] ones (side by side); then, alone on the GPU, the
#     benchmarks (compression kernels against a device copy, attention against cuBLAS and PyTorch SDPA's back
#     ends, decode steps against a K/V cache or a recurrent state, a training step in PyTorch beside ecosim
#     train) and an Nsight Compute summary of the top kernels.
# Every step has a timeout capped by what is left of the stage's budget; a failed step never stops the run.
# What comes back from $OUT (8 files at most, two folders deep) is, by construction, three files:
#   gpu-check.md    the steps of every stage run so far in this build folder, with the benchmark tables
#   gpu-check.json  the same steps (stage, step, status, seconds, detail), the GPU and the date
#   gpu-check-logs.tar.gz  each step's output (a log over 4 MiB keeps its last 4 MiB)
# $OUT unset: the three files go into the build folder. Exit status: 0 when every step of this stage passed.
# With .devdeps/ present (../shared/scripts/offline-deps.sh fetch, on a machine with the package registry),
# the Debian libraries are unpacked from it first unless the environment already points at them.
# ECOSIM_COMMIT names the commit in the report where the tree has no .git (the device tool's copy).
# usage: scripts/gpu-check.sh --stage 1|2 [--build-dir DIR (default build-gpu)] [--budget-s S] [--skip STEP,...]
#   --skip: steps not to run this time (recorded "omitted", not failed): a rerun spends its budget on the steps
#   an earlier run left failed or unfinished, e.g. --skip bench-attention,bench-sdpa,attention-table.
#        scripts/gpu-check.sh --dry-run [--stage 1|2]   (no stage: both)
#   --dry-run: checks the prerequisites, prints every step's command with its timeout and each stage's
#   budget, writes the report with each step "planned" (a missing prerequisite: "missing"); configures,
#   builds and runs nothing; exit 0.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
build="build-gpu"
dry_run=0
stages=()
budget_override=""
skip=","
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dry-run) dry_run=1; shift ;;
    --stage) stages=("${2:?--stage needs 1 or 2}"); shift 2 ;;
    --build-dir) build=${2:?--build-dir needs a folder}; shift 2 ;;
    --budget-s) budget_override=${2:?--budget-s needs seconds}; shift 2 ;;
    --skip) skip=",${2:?--skip needs step names},"; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -z "$budget_override" || "$budget_override" =~ ^[0-9]+$ ]] ||
  { echo "error: --budget-s must be a whole number of seconds" >&2; exit 2; }
if (( ${#stages[@]} == 0 )); then
  (( dry_run )) || { echo "error: name the stage: --stage 1 or --stage 2 (see --help)" >&2; exit 2; }
  stages=(1 2)
fi
[[ "${stages[0]}" =~ ^[12]$ ]] || { echo "error: --stage must be 1 or 2" >&2; exit 2; }
declare -A stage_budget_s=([1]=300 [2]=270)
[[ "$build" = /* ]] || build="$root/$build"
report_dir=${OUT:-$build}
logs="$build/gpu-check-logs"
mkdir -p "$logs" "$report_dir" || { echo "error: cannot create $logs" >&2; exit 2; }
sanitizer_tools=(memcheck racecheck initcheck synccheck)
# Metrics of the Nsight Compute summary: time, and DRAM / SM throughput as a fraction of peak.
ncu_metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
ncu_metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread
jobs=$(nproc 2>/dev/null || echo 4)
python_import='import numpy; import ecosim._ecosim as m; print("imported", m.__file__)'
ecosim="$build/bin/ecosim"
stage=0 budget_s=0 stage_start=0 steps_file=""

# record NAME STATUS SECONDS DETAIL: one line of the stage's steps file (appends are atomic for lines this
# short, so steps running side by side may record at once).
record() {
  local detail=${4//$'\t'/ }
  printf '%s\t%s\t%s\t%s\t%s\n' "$stage" "$1" "$2" "$3" "${detail//$'\n'/ }" >>"$steps_file"
  printf '%-34s %-8s %5ss  %s\n' "$1" "$2" "$3" "$4"
}

# step NAME TIMEOUT_S COMMAND...: runs the command (argv, no shell) under a timeout capped by what is left of
# the stage's budget, its output in $logs/NAME.log; records passed, failed (exit status), timeout, skipped (budget spent) or omitted (--skip).
step() {
  local name=$1 limit=$2
  shift 2
  if [[ $skip == *",$name,"* ]]; then
    record "$name" omitted 0 "--skip"
    last_status=omitted
    return 1
  fi
  if (( dry_run )); then
    record "$name" planned 0 "$(printf '%q ' "$@")(timeout ${limit}s)"
    return 0
  fi
  local left=$(( budget_s - (SECONDS - stage_start) ))
  if (( left <= 5 )); then
    record "$name" skipped 0 "stage $stage's budget of ${budget_s}s is spent"
    last_status=skipped
    return 1
  fi
  (( limit > left )) && limit=$left
  local start=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  local took=$(( SECONDS - start ))
  case $rc in
    0) last_status=passed; record "$name" passed "$took" "log: $name.log" ;;
    124|137) last_status=timeout; record "$name" timeout "$took" "killed after ${limit}s; log: $name.log" ;;
    *) last_status=failed; record "$name" failed "$took" "exit $rc; log: $name.log" ;;
  esac
  return "$rc"
}

# prerequisite TOOL: passed when TOOL is on PATH (or in /usr/local/cuda/bin, then added to PATH); missing in a
# dry run, failed otherwise.
prerequisite() {
  local tool=$1 found
  found=$(command -v "$tool" || true)
  if [[ -z "$found" && -x "/usr/local/cuda/bin/$tool" ]]; then
    export PATH="/usr/local/cuda/bin:$PATH"
    found=/usr/local/cuda/bin/$tool
  fi
  if [[ -n "$found" ]]; then
    record "prerequisite-$tool" passed 0 "$found"
  else
    record "prerequisite-$tool" "$( (( dry_run )) && echo missing || echo failed)" 0 "not found on PATH"
  fi
}

# The executables holding [gpu] cases, one path a line (the configured build's gpu_test_targets.txt).
gpu_test_binaries() {
  local target
  [[ -f "$build/gpu_test_targets.txt" ]] || return 0
  while read -r target; do [[ -n "$target" ]] && echo "$build/bin/$target"; done <"$build/gpu_test_targets.txt"
}

# unpack_deps: the Debian bundle of .devdeps/, unless the environment already points at it.
unpack_deps() {
  if [[ ! -d .devdeps ]]; then
    record offline-deps skipped 0 "no .devdeps/ (fine where the Debian packages are installed)"
  elif [[ ":${CMAKE_PREFIX_PATH:-}:" == *":/opt/ecosim-deps/usr:"* ]]; then
    record offline-deps passed 0 "already unpacked (CMAKE_PREFIX_PATH names /opt/ecosim-deps)"
  elif (( dry_run )); then
    record offline-deps planned 0 "source .devdeps/offline-deps.sh unpack"
  elif source .devdeps/offline-deps.sh unpack >"$logs/offline-deps.log" 2>&1; then  # shellcheck source=/dev/null
    record offline-deps passed 0 "Debian bundle unpacked (log: offline-deps.log)"
  else
    record offline-deps failed 0 "log: offline-deps.log"
  fi
}

# python_package_args: sets python_args, the configure arguments for the Python package: AUTO with this machine's
# python3 when it imports numpy and finds pybind11 (its own module, or the pybind11-dev of .devdeps/ where that
# was fetched), else OFF with the reason recorded (then python.cuda_kernels does not run).
python_package_args() {
  local dir=""
  if (( dry_run )); then  # nothing runs in a dry run, python3 included
    python_args=(-DECOSIM_PYTHON=OFF)
    record python-package planned 0 "with numpy and pybind11 in python3: the Python package and python.cuda_kernels"
    return
  fi
  if python3 -c 'import numpy' 2>/dev/null; then
    dir=$(python3 -c 'import pybind11; print(pybind11.get_cmake_dir())' 2>/dev/null) ||
      dir=$(ls -d /opt/ecosim-deps/usr/lib/cmake/pybind11 2>/dev/null) || dir=""
  fi
  if [[ -n "$dir" ]]; then
    python_args=(-DECOSIM_PYTHON=AUTO "-DPython3_EXECUTABLE=$(command -v python3)" "-Dpybind11_DIR=$dir")
    record python-package passed 0 "pybind11 from $dir"
  else
    python_args=(-DECOSIM_PYTHON=OFF)
    record python-package skipped 0 \
      "python3 here lacks numpy or pybind11 (nor has .devdeps/ pybind11-dev): python.cuda_kernels not run"
  fi
}

# python_checks: the module's import as its users make it (after numpy), the dynamic loader tracing each library it
# loads and initialises, then python.cuda_kernels. Where the import fails (sessions 8 and 13 on a lent GPU: a
# segfault inside create_module once numpy was loaded, not without it), gpu_import_probe.py loads the module's
# libraries one at a time after numpy and names the one whose initialiser crashes (gdb's backtrace too, where the
# machine has gdb; without it, python-import-segv-report: the import again with scripts/segv_report.c preloaded,
# which names the faulting function and its callers as library + offset); the module is then built again in a
# folder of its own without that library's feature (MPI for Open MPI and what it pulls in, ONNX import for protobuf
# and onnx, else both), and the CUDA check uses that module if it imports.
python_checks() {
  local python_build=$build module fallback culprit last_status=""
  if (( dry_run )); then
    record python-fallback planned 0 "if the import fails: gpu_import_probe.py names the crashing library and \
python-import-segv-report (segv_report.c, LD_PRELOAD) the faulting function; the module is built again without MPI \
or ONNX import (as the culprit says) in $build/python-fallback"
  fi
  step python-import 30 env LD_DEBUG=files PYTHONFAULTHANDLER=1 PYTHONPATH="$build/python" python3 -c "$python_import"
  if [[ $last_status == failed || $last_status == timeout ]]; then  # not when omitted (--skip) or planned
    module=$(ls "$build"/python/ecosim/_ecosim*.so 2>/dev/null | head -n 1)
    rm -f "$logs/python-import-probe.log"  # an earlier run's must not name the culprit
    step python-import-probe 30 env PYTHONFAULTHANDLER=1 python3 "$root/scripts/gpu_import_probe.py" "$module"
    # informational: gdb's exit status is its last command's, so the backtrace is read from the log
    command -v gdb >/dev/null && step python-import-backtrace 40 gdb -q -batch -ex run -ex bt --args python3 -c \
      "import sys; sys.path.insert(0, '$build/python'); $python_import"
    # informational, no gdb needed: the import again under scripts/segv_report.c (LD_PRELOAD; Python's faulthandler
    # off, as it would take the signal first), which prints the faulting pc and the backtrace as LIB+0xOFFSET for
    # addr2line or gdb on a copy of LIB. A crash is what it expects: recorded failed, so the report shows the log.
    # shellcheck disable=SC2016  # $1 to $5 are the inner bash's arguments
    step python-import-segv-report 30 bash -c '"$1" -std=c11 -O1 -shared -fPIC -o "$3" "$2" -ldl &&
      exec env -u PYTHONFAULTHANDLER -u PYTHONDEVMODE LD_PRELOAD="$3${LD_PRELOAD:+:$LD_PRELOAD}" \
        PYTHONPATH="$4" python3 -c "$5"' \
      segv-report "$(command -v cc || command -v gcc || echo cc)" "$root/scripts/segv_report.c" \
      "$build/segv_report.so" "$build/python" "$python_import"
    culprit=$(grep '^loading ' "$logs/python-import-probe.log" | tail -n 1)
    case $culprit in
      *mpi*|*open-pal*|*open-rte*|*hwloc*|*libevent*|*libudev*) fallback=(-DECOSIM_MPI=OFF) ;;
      *protobuf*|*onnx*) fallback=(-DECOSIM_ONNX=OFF) ;;
      *) fallback=(-DECOSIM_MPI=OFF -DECOSIM_ONNX=OFF) ;;
    esac
    record python-fallback passed 0 "last library loaded: ${culprit#loading }; rebuilding with ${fallback[*]}"
    step configure-python-fallback 60 cmake -S "$root" -B "$build/python-fallback" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DECOSIM_CUDA=ON "${fallback[@]}" "${python_args[@]}" \
      -DCMAKE_CUDA_ARCHITECTURES=90 &&
      step build-python-fallback 150 cmake --build "$build/python-fallback" -j "$jobs" --target ecosim_python &&
      step python-import-fallback 30 env PYTHONFAULTHANDLER=1 PYTHONPATH="$build/python-fallback/python" \
        python3 -c "$python_import" || return 1
    python_build="$build/python-fallback"
  fi
  step python-cuda-kernels 60 env ECOSIM_REQUIRE_GPU=1 PYTHONFAULTHANDLER=1 ctest --test-dir "$python_build" \
    -R '^python[.]cuda_kernels$' --no-tests=error --output-on-failure
}

stage1() {
  for tool in cmake ninja nvcc nvidia-smi python3; do prerequisite "$tool"; done
  step gpu-info 10 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv
  local python_args
  python_package_args
  step configure 60 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DECOSIM_CUDA=ON \
    "${python_args[@]}" -DCMAKE_CUDA_ARCHITECTURES=90
  local targets=(ecosim bench_attention bench_compression bench_decode) exe
  while read -r exe; do [[ -n "$exe" ]] && targets+=("$(basename "$exe")"); done < <(gpu_test_binaries)
  (( dry_run && ${#targets[@]} == 4 )) && targets+=("<each gpu-labelled test's executable>")
  step build 180 cmake --build "$build" -j "$jobs" --target "${targets[@]}"
  # The Python package on its own (a failure there leaves the other checks their binaries).
  local python_built=0
  if grep -q "ecosim Python package: ON" "$logs/configure.log" 2>/dev/null || (( dry_run )); then
    step build-python 90 cmake --build "$build" -j "$jobs" --target ecosim_python && python_built=1
  elif [[ "${python_args[0]}" == -DECOSIM_PYTHON=AUTO ]]; then
    record build-python skipped 0 "configure left the Python package out (no Python.h for $(command -v python3)?)"
  fi
  # Correctness checks side by side (none of them times anything); the Python checks build a module of their own
  # where the import fails, so they start first.
  (( python_built || dry_run )) && python_checks &
  step gpu-tests 150 env ECOSIM_REQUIRE_GPU=1 ctest --test-dir "$build" -L gpu --no-tests=error \
    --output-on-failure -j 6 --timeout 140 &
  step validate-attention 120 "$ecosim" validate --suite attention --device cuda &
  step validate-compression 120 "$ecosim" validate --suite compression --device cuda &
  wait
  # The default comparison with every kernel on the GPU, alone: every GPU latency must be measured.
  if step compare-cuda 60 "$ecosim" compare --device cuda --out "$logs/compare-cuda" && (( ! dry_run )); then
    if python3 -c 'import json, sys
sys.exit(any(v["gpu_latency_kind"] != "measured" or v["gpu_library_latency_kind"] != "measured"
            for v in json.load(open(sys.argv[1]))["variants"]))' \
      "$logs/compare-cuda/compare.json"; then
      record compare-cuda-measured passed 0 "every GPU and library latency measured (compare-cuda/compare.json)"
    else
      record compare-cuda-measured failed 0 "an estimated GPU latency (or no report) in compare-cuda/compare.json"
    fi
  fi
}

stage2() {
  for tool in compute-sanitizer ncu cuobjdump python3; do prerequisite "$tool"; done
  if (( ! dry_run )) && [[ ! -x "$ecosim" ]]; then
    record stage-1-build failed 0 "no $ecosim: stage 2 needs stage 1's build folder (a warm machine)"
  fi
  # Registers, stack frame and local memory of every kernel (all of them are linked into ecosim; cuobjdump
  # reads one file): none may spill.
  if step resource-usage 20 cuobjdump --dump-resource-usage "$ecosim" && (( ! dry_run )); then
    if python3 "$root/scripts/gpu_resource_table.py" "$logs/resource-usage.log" >"$logs/resource-usage.md"; then
      record no-local-memory passed 0 "no kernel uses a stack frame or local memory (resource-usage.md)"
    else
      record no-local-memory failed 0 "a kernel spills or keeps an array in local memory (resource-usage.md)"
    fi
  fi
  # compute-sanitizer, side by side, on the [gpu] cases but the [large] ones (gigabytes under a sanitizer
  # outlast the budget).
  local binaries=() tool exe
  mapfile -t binaries < <(gpu_test_binaries)
  if (( ${#binaries[@]} == 0 )); then
    binaries=("$build/bin/each-gpu-test-binary")
    (( dry_run )) || record sanitizers failed 0 "no GPU test binary found (ctest -L gpu lists none)"
  fi
  for tool in "${sanitizer_tools[@]}"; do
    for exe in "${binaries[@]}"; do
      step "$tool-$(basename "$exe")" 110 env ECOSIM_REQUIRE_GPU=1 compute-sanitizer --tool "$tool" \
        --error-exitcode 1 --print-limit 20 "$exe" "[gpu]~[large]" &
    done
  done
  wait
  # The benchmarks, one at a time (each against its baseline measured in the same run).
  step bench-compression 40 "$build/bin/bench_compression" --device cuda --elements $((64 << 20)) \
    --repetitions 10
  local seqs=1024,3136,4096,16384,65536
  step bench-attention 70 "$build/bin/bench_attention" --device cuda --seqs "$seqs" --dims 32,64 \
    --max-seconds-per-case 5 --max-seconds 55 --json "$logs/bench-attention.json"
  step bench-sdpa 40 python3 "$root/scripts/bench_sdpa" --seqs "$seqs" --dims 32,64 --max-seconds-per-case 5 \
    --max-seconds 30 --json "$logs/bench-sdpa.json"
  step attention-table 10 python3 "$root/scripts/attention_table" "$logs/bench-attention.json" \
    "$logs/bench-sdpa.json"
  # Shapes no published point covers, beside the GPU model: grouped-query prefill, a short query's backward.
  step gpu-model-probe 30 python3 "$root/scripts/gpu_model_probe" --ecosim "$ecosim"
  step bench-decode 60 "$build/bin/bench_decode" --device cuda
  # A training step measured in PyTorch (time, peak memory, what autograd saves) beside ecosim train's model of
  # it (issue 20): a CNN with SGD and a ViT with AdamW, fp32 and AMP.
  step train-step-resnet50 45 python3 "$root/python/ecosim/torch/step_time.py" --model resnet50 --batch 32 \
    --schemes none,amp --optimizer sgd --device cuda --ecosim "$ecosim"
  step train-step-deit-small 45 python3 "$root/python/ecosim/torch/step_time.py" --model deit_small --batch 64 \
    --schemes none,amp --optimizer adamw --device cuda --ecosim "$ecosim"
  # The same measurement as users ask for it, through ecosim train: gpu_ms must be measured for both schemes.
  if step train-measure-gpu 45 "$ecosim" train --model resnet18 --batch 32 --scheme none,amp \
    --measure-gpu "$(command -v python3)" --out "$logs/train-measure-gpu" && (( ! dry_run )); then
    if python3 -c 'import json, sys
sys.exit(any(not s["gpu_ms_kind"].startswith("measured") for s in json.load(open(sys.argv[1]))["schemes"]))' \
      "$logs/train-measure-gpu/train.json"; then
      record train-measured passed 0 "gpu_ms measured for every scheme (train-measure-gpu/train.json)"
    else
      record train-measured failed 0 "a gpu_ms not measured in train-measure-gpu/train.json"
    fi
  fi
  # The saved-tensor hooks on the GPU (issues 20 and 23): a step under each hook scheme beside the uncompressed
  # one, through the Python package stage 1 built (its fallback where the import needed one).
  local package="$build/python"
  [[ -d "$build/python-fallback/python/ecosim" ]] && package="$build/python-fallback/python"
  # (batch 16, 5 steps after 1: the hooks take every saved tensor through host memory, 0.9-2.8 s a step at batch
  # 32 on the lent H200 in session 26, which ran past 45 s at 10 steps after 3)
  step train-step-hooks 45 env PYTHONPATH="$package" python3 "$root/python/ecosim/torch/step_time.py" \
    --model resnet18 --batch 16 --warmup 1 --repeats 5 --schemes none,gact:4,mesa,fewbit:2 --optimizer sgd \
    --device cuda --ecosim "$ecosim"
  # Nsight Compute: hashed attention's launches at the comparison's shape (B·H = 16, N = 3136, D = 32), the
  # baselines' at the same shape, and the first launches of the compression benchmark.
  ncu_step ecoformer "$ecosim" run --variant ecoformer --batch 1 --heads 16 --seq 3136 --dim 32 --device cuda
  # The baselines' kernels one by one at the same shape (issue 22: the GPU model prices ecosim's 16x16-tile batched
  # GEMM and one-thread-a-row helper kernels as library kernels; their own times ground classes of their own).
  local variant
  for variant in performer linformer reformer; do
    ncu_step "$variant" "$ecosim" run --variant "$variant" --batch 1 --heads 16 --seq 3136 --dim 32 --device cuda
  done
  ncu_step compression "$build/bin/bench_compression" --device cuda --elements $((16 << 20)) --repetitions 1
}

# ncu_step NAME COMMAND...: the command under Nsight Compute (throughputs, pipe utilisation, warp stalls), its
# top kernels summarised in ncu-NAME.md.
ncu_step() {
  local name=$1
  shift
  # --clock-control none: the clocks the CUDA-event benchmarks run at (ncu locks them to base by default, which
  # made session 26's per-kernel times incomparable with the events' totals)
  if step "ncu-$name" 40 ncu --clock-control none --launch-count 24 --csv --page raw --metrics "$ncu_metrics" \
    --section ComputeWorkloadAnalysis --section WarpStateStats --log-file "$logs/ncu-$name.csv" "$@" &&
    (( ! dry_run )); then
    python3 "$root/scripts/gpu_ncu_table.py" "$logs/ncu-$name.csv" >"$logs/ncu-$name.md" 2>>"$logs/ncu-$name.log" ||
      record "ncu-$name-summary" failed 0 "could not summarise ncu-$name.csv"
  fi
}

# pack_logs: every step's output in one archive under the report folder (a log over 4 MiB keeps its tail).
pack_logs() {
  local f
  while IFS= read -r -d '' f; do
    tail -c $((4 << 20)) "$f" >"$f.tail" && mv "$f.tail" "$f"
  done < <(find "$logs" -type f -size +4M -print0)
  tar -czf "$report_dir/gpu-check-logs.tar.gz.tmp" -C "$build" gpu-check-logs &&
    mv "$report_dir/gpu-check-logs.tar.gz.tmp" "$report_dir/gpu-check-logs.tar.gz"
}

# --- the run ---------------------------------------------------------------------------------------------
exit_status=0
for stage in "${stages[@]}"; do
  budget_s=${budget_override:-${stage_budget_s[$stage]}}
  stage_start=$SECONDS
  steps_file="$build/gpu-check-steps-$stage.tsv"
  : >"$steps_file"
  # A new stage 1 starts a new report: stage 2's steps of an earlier run no longer describe this build.
  [[ $stage == 1 ]] && rm -f "$build/gpu-check-steps-2.tsv" "$build/gpu-check-time-2"
  echo "== stage $stage: budget ${budget_s}s$( (( dry_run )) && echo ' (dry run: nothing runs)')"
  unpack_deps
  "stage$stage"
  failed=$(awk -F'\t' '$3 !~ /^(passed|planned|skipped|missing|omitted)$/ || ($3 == "skipped" && $2 != "offline-deps")' \
    "$steps_file" | wc -l)
  (( failed > 0 )) && exit_status=1
  echo "$(( SECONDS - stage_start )) $budget_s" >"$build/gpu-check-time-$stage"
  echo "== stage $stage: $(( SECONDS - stage_start ))s of ${budget_s}s; $failed step(s) not passed"
done
# a --skip name that matched no step of the stages run is said (a misspelt one would otherwise run the step)
IFS=, read -ra skip_names <<<"${skip#,}"
for name in "${skip_names[@]}"; do
  for stage in "${stages[@]}"; do
    awk -F'\t' -v n="$name" '$2 == n && $3 == "omitted" {found = 1} END {exit !found}' \
      "$build/gpu-check-steps-$stage.tsv" && continue 2
  done
  [[ -z "$name" ]] || echo "warning: --skip $name: no step of that name in stage(s) ${stages[*]}"
done
python3 "$root/scripts/gpu_check_report.py" --build "$build" --out "$report_dir" --logs "$logs" \
  --dry-run "$dry_run" || exit_status=1
pack_logs || exit_status=1
echo "report: $report_dir/gpu-check.md, gpu-check.json, gpu-check-logs.tar.gz"
(( dry_run )) && exit 0
exit "$exit_status"
