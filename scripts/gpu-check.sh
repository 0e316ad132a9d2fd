#!/usr/bin/env bash
# The one command for a machine with a GPU: configures for sm_90 in its own build folder, builds, runs every
# GPU test with ECOSIM_REQUIRE_GPU=1 (a skip is a failure), `ecosim validate --suite attention|compression
# --device cuda`, `ecosim compare --device cuda` (every GPU latency measured), each kernel's registers and
# spills (cuobjdump), compute-sanitizer (memcheck, racecheck, initcheck, synccheck) on the [gpu] cases of each
# GPU test binary (but the [large] ones: gigabytes under a sanitizer outlast the budget), the benchmarks with
# their baselines (scripts/bench_attention; bench_sdpa, PyTorch's SDPA back ends; bench_compression;
# bench_memory) and an Nsight Compute summary of the top kernels. Every step has a timeout and the whole run
# a budget (default 570 s); a failed step never stops the run. One report, gpu-check.md and gpu-check.json (step,
# status, seconds, log), is written to $OUT when set, else to the build folder; each step's output is in
# gpu-check-logs/. Exit status: 0 when every step passed.
# With .devdeps/ present (../shared/scripts/offline-deps.sh fetch, on a machine with the package registry),
# the Debian libraries are unpacked from it first (`source .devdeps/offline-deps.sh unpack`).
# usage: scripts/gpu-check.sh [--dry-run] [--build-dir DIR (default build-gpu)] [--budget-s S]
#   --dry-run: checks the prerequisites, prints every step's command and writes the report with each step
#   "planned" (a missing prerequisite: "missing"); runs nothing else (no configure, no build, no GPU); exit 0.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
build="build-gpu"
dry_run=0
budget_s=570
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dry-run) dry_run=1; shift ;;
    --build-dir) build=${2:?--build-dir needs a folder}; shift 2 ;;
    --budget-s) budget_s=${2:?--budget-s needs seconds}; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$budget_s" =~ ^[0-9]+$ ]] || { echo "error: --budget-s must be a whole number of seconds" >&2; exit 2; }
[[ "$build" = /* ]] || build="$root/$build"
report_dir=${OUT:-$build}
logs="$report_dir/gpu-check-logs"
mkdir -p "$logs" || { echo "error: cannot create $logs" >&2; exit 2; }
sanitizer_tools=(memcheck racecheck initcheck synccheck)
# Metrics of the Nsight Compute summary: time, and DRAM / SM throughput as a fraction of peak.
ncu_metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
ncu_metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread
names=() statuses=() times=() details=()

# record NAME STATUS SECONDS DETAIL
record() {
  names+=("$1"); statuses+=("$2"); times+=("$3"); details+=("$4")
  printf '%-34s %-8s %5ss  %s\n' "$1" "$2" "$3" "$4"
}

# step NAME TIMEOUT_S COMMAND...: runs the command (argv, no shell) under a timeout capped by what is left of
# the budget, its output in $logs/NAME.log; records passed, failed (exit status), timeout or skipped.
step() {
  local name=$1 limit=$2
  shift 2
  if (( dry_run )); then
    record "$name" planned 0 "$(printf '%q ' "$@")(timeout ${limit}s)"
    return 0
  fi
  local left=$(( budget_s - SECONDS ))
  if (( left <= 5 )); then
    record "$name" skipped 0 "the run's budget of ${budget_s}s is spent"
    return 1
  fi
  (( limit > left )) && limit=$left
  local start=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  local took=$(( SECONDS - start ))
  case $rc in
    0) record "$name" passed "$took" "log: gpu-check-logs/$name.log" ;;
    124|137) record "$name" timeout "$took" "killed after ${limit}s; log: gpu-check-logs/$name.log" ;;
    *) record "$name" failed "$took" "exit $rc; log: gpu-check-logs/$name.log" ;;
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

# The GPU test binaries: the executables of the tests labelled gpu (ctest's JSON listing of the build).
gpu_test_binaries() {
  [[ -f "$build/CTestTestfile.cmake" ]] || return 0
  ctest --test-dir "$build" -L gpu --show-only=json-v1 2>/dev/null | python3 -c '
import json, sys
seen = []
for test in json.load(sys.stdin).get("tests", []):
    exe = (test.get("command") or [""])[0]
    if exe and exe not in seen:
        seen.append(exe)
print("\n".join(seen))'
}

# ncu_summary CSV MD: the top ten kernels by summed time from an `ncu --csv --page raw` listing.
ncu_summary() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], errors="replace")) if len(r) > 3]
head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
if head is None:
    sys.exit("no 'Kernel Name' column in " + sys.argv[1])
cols = rows[head]
name, dur = cols.index("Kernel Name"), cols.index("gpu__time_duration.sum")
unit = rows[head + 1][dur] if head + 1 < len(rows) else ""
def num(row, col):
    try:
        return float(row[col].replace(",", ""))
    except (ValueError, IndexError):
        return None
kernels = {}
for row in rows[head + 2:]:
    t = num(row, dur)
    if t is None:
        continue
    k = kernels.setdefault(row[name][:80], {"t": 0.0, "n": 0, "row": row})
    k["t"] += t
    k["n"] += 1
extra = [c for c in cols if c.endswith("pct_of_peak_sustained_elapsed") or c == "launch__registers_per_thread"]
with open(sys.argv[2], "w") as out:
    out.write("| kernel | launches | total time (%s) | %s (first launch) |\n" % (unit, " | ".join(extra)))
    out.write("|---|---|---|%s\n" % ("---|" * len(extra)))
    for kname, k in sorted(kernels.items(), key=lambda kv: -kv[1]["t"])[:10]:
        vals = [k["row"][cols.index(c)] for c in extra]
        out.write("| `%s` | %d | %.1f | %s |\n" % (kname, k["n"], k["t"], " | ".join(vals)))
PY
}

# json_string TEXT: TEXT as a JSON string (quotes, backslashes and control characters escaped).
json_string() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\n'/\\n}
  printf '"%s"' "$s"
}

write_report() {
  local md="$report_dir/gpu-check.md" json="$report_dir/gpu-check.json" i failed=0 gpu_name
  gpu_name=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
  for i in "${!names[@]}"; do [[ "${statuses[$i]}" =~ ^(passed|planned)$ ]] || failed=$((failed + 1)); done
  {
    echo "# ecosim gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo
    echo "GPU: ${gpu_name:-none found}; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown);" \
      "$( (( dry_run )) && echo "dry run (nothing ran)" || echo "${SECONDS}s of a ${budget_s}s budget")"
    echo
    echo "| step | status | seconds | detail |"
    echo "|---|---|---|---|"
    for i in "${!names[@]}"; do
      echo "| ${names[$i]} | ${statuses[$i]} | ${times[$i]} | ${details[$i]//|/\\|} |"
    done
    for f in "$logs"/ncu-*.md; do
      [[ -f "$f" ]] || continue
      echo
      echo "## Nsight Compute: $(basename "$f" .md)"
      echo
      cat "$f"
    done
  } >"$md.tmp" && mv "$md.tmp" "$md"
  {
    printf '{"date": %s, "gpu": %s, "dry_run": %s, "budget_s": %s, "seconds": %s, "failed": %s, "steps": [' \
      "$(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" "$(json_string "${gpu_name:-}")" \
      "$( (( dry_run )) && echo true || echo false)" "$budget_s" "$SECONDS" "$failed"
    for i in "${!names[@]}"; do
      (( i > 0 )) && printf ', '
      printf '{"step": %s, "status": %s, "seconds": %s, "detail": %s}' "$(json_string "${names[$i]}")" \
        "$(json_string "${statuses[$i]}")" "${times[$i]}" "$(json_string "${details[$i]}")"
    done
    printf ']}\n'
  } >"$json.tmp" && mv "$json.tmp" "$json"
  echo "report: $md, $json ($failed step(s) not passed)"
  (( dry_run || failed == 0 ))
}

# --- the run ---------------------------------------------------------------------------------------------
if [[ -d .devdeps ]]; then
  # shellcheck source=/dev/null
  if (( dry_run )); then
    record offline-deps planned 0 "source .devdeps/offline-deps.sh unpack"
  elif source .devdeps/offline-deps.sh unpack >"$logs/offline-deps.log" 2>&1; then
    record offline-deps passed 0 "Debian bundle unpacked (log: gpu-check-logs/offline-deps.log)"
  else
    record offline-deps failed 0 "log: gpu-check-logs/offline-deps.log"
  fi
else
  record offline-deps skipped 0 "no .devdeps/ (fine where the Debian packages are installed)"
fi
for tool in cmake nvcc nvidia-smi compute-sanitizer ncu cuobjdump python3; do prerequisite "$tool"; done
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
jobs=$(nproc 2>/dev/null || echo 4)
ecosim="$build/bin/ecosim"

step configure 120 cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DECOSIM_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90
step build 330 cmake --build "$build" -j "$jobs"
# Registers, shared memory and spill stores of every kernel of the two CUDA libraries (the targets ask for no
# spills).
step resource-usage 30 cuobjdump --dump-resource-usage "$build/kernels/libecosim_kernels.a" \
  "$build/ecoformer/libecosim_ecoformer.a"
step gpu-tests 150 env ECOSIM_REQUIRE_GPU=1 ctest --test-dir "$build" -L gpu --output-on-failure -j 4 --timeout 120
step validate-attention 90 "$ecosim" validate --suite attention --device cuda
step validate-compression 90 "$ecosim" validate --suite compression --device cuda

# The default comparison with every kernel on the GPU: every GPU latency in compare.json must be measured.
if step compare-cuda 120 "$ecosim" compare --device cuda --out "$report_dir/compare-cuda" && (( ! dry_run )); then
  if ! python3 -c 'import json, sys
sys.exit(any(v["gpu_latency_kind"] != "measured" for v in json.load(open(sys.argv[1]))["variants"]))' \
    "$report_dir/compare-cuda/compare.json"; then
    record compare-cuda-measured failed 0 "an estimated GPU latency (or no report) in compare-cuda/compare.json"
  else
    record compare-cuda-measured passed 0 "every GPU latency measured (report: compare-cuda/compare.json)"
  fi
fi

mapfile -t binaries < <(gpu_test_binaries)
if (( ${#binaries[@]} == 0 )); then
  binaries=("$build/bin/each-gpu-test-binary")
  (( dry_run )) || record sanitizers failed 0 "no GPU test binary found (ctest -L gpu lists none)"
fi
for tool in "${sanitizer_tools[@]}"; do
  for exe in "${binaries[@]}"; do
    step "$tool-$(basename "$exe")" 90 env ECOSIM_REQUIRE_GPU=1 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      --print-limit 20 "$exe" "[gpu]~[large]"
  done
done

step bench-attention 120 scripts/bench_attention --build-dir "$build" --device cuda --quick --repeats 10
step bench-sdpa 120 python3 scripts/bench_sdpa --quick
step bench-compression 90 scripts/bench_compression --build-dir "$build" --gpu-elements $((64 << 20)) \
  --cpu-elements $((4 << 20)) --repetitions 10
step bench-memory 90 env ECOSIM_BENCH_SEQS="8192 16384" ECOSIM_BENCH_COUNT_RECORDS=1000000 \
  ECOSIM_BENCH_REPLAY_RECORDS=100000 python3 scripts/bench_memory "$build"

# Nsight Compute, each kernel of one run summarised: hashed attention and MSA at the comparison's shape
# (B·H = 16, N = 3136, D = 32), and the first 60 launches of the compression benchmark.
ncu_step() {
  local name=$1
  shift
  if step "ncu-$name" 120 ncu --launch-count 60 --csv --page raw --metrics "$ncu_metrics" \
    --log-file "$logs/ncu-$name.csv" "$@" && (( ! dry_run )); then
    ncu_summary "$logs/ncu-$name.csv" "$logs/ncu-$name.md" 2>>"$logs/ncu-$name.log" ||
      record "ncu-$name-summary" failed 0 "could not summarise gpu-check-logs/ncu-$name.csv"
  fi
}
for variant in ecoformer msa; do
  ncu_step "$variant" "$ecosim" run --variant "$variant" --batch 1 --heads 16 --seq 3136 --dim 32 --device cuda
done
ncu_step compression "$build/bin/bench_compression" --device cuda --elements $((16 << 20)) --repetitions 1

write_report
