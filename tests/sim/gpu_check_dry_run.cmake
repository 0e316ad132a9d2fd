# scripts/gpu-check.sh --dry-run: runs nothing, prints both stages with their budgets and every step the GPU
# machine would run (stage 1: sm_90 configure, the build of the needed targets, the gpu-labelled tests with
# ECOSIM_REQUIRE_GPU=1, both validate suites and compare on cuda; stage 2: kernel resource usage, the four
# compute-sanitizer tools on the [gpu] cases but the [large] ones, the benchmarks, Nsight Compute), writes its
# report without configuring or building anything, and leaves under $OUT only what the device tool brings back
# (at most 8 files, no more than two folders down, names of letters, digits, '.', '_' and '-'); bad arguments
# exit 2; bench_sdpa reads its timing plan from timing.hpp.
get_filename_component(repo ${CMAKE_CURRENT_LIST_DIR}/../.. ABSOLUTE)
set(script ${repo}/scripts/gpu-check.sh)
set(build ${WORKDIR}/build-gpu)
file(REMOVE_RECURSE ${build})
set(out_dir ${WORKDIR}/gpu-check-out)
file(REMOVE_RECURSE ${out_dir})
execute_process(COMMAND ${CMAKE_COMMAND} -E env OUT=${out_dir} bash ${script} --dry-run --build-dir ${build}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gpu-check.sh --dry-run exited ${rc}: ${out}${err}")
endif()
foreach(expected "== stage 1: budget 300s" "== stage 2: budget 270s"
                 "configure .*-G Ninja .*-DCMAKE_CUDA_ARCHITECTURES=90" "build .*cmake --build .*--target ecosim"
                 "gpu-tests .*ECOSIM_REQUIRE_GPU=1 ctest .*--no-tests=error" "-L gpu"
                 "validate-attention .*validate --suite attention --device cuda"
                 "validate-compression .*validate --suite compression --device cuda" "memcheck-" "racecheck-"
                 "initcheck-" "synccheck-" "--tool synccheck .*gpu[^ ]*~[^ ]*large"
                 "bench-attention .*bench_attention --device cuda" "bench-sdpa .*scripts/bench_sdpa"
                 "gpu-model-probe .*scripts/gpu_model_probe --ecosim"
                 "bench-compression .*bench_compression --device cuda"
                 "ncu-ecoformer .*ncu --clock-control none .*run --variant ecoformer .*--device cuda" "ncu-compression"
                 "train-step-hooks .*--batch 16 --warmup 1 --repeats 5"
                 "train-step-hooks .*step_time.py .*--schemes none.*fewbit:2 .*--device cuda"
                 "prerequisite-compute-sanitizer" "prerequisite-ncu"
                 "resource-usage .*cuobjdump --dump-resource-usage .*bin/ecosim" "compare-cuda .*compare --device cuda")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the dry run does not show '${expected}':\n${out}")
  endif()
endforeach()
if(EXISTS ${build}/CMakeCache.txt OR EXISTS ${build}/bin)
  message(FATAL_ERROR "the dry run configured or built something in ${build}")
endif()
# What comes back from $OUT: the three report files, within the device tool's limits.
file(GLOB_RECURSE returned RELATIVE ${out_dir} LIST_DIRECTORIES false ${out_dir}/*)
list(SORT returned)
if(NOT returned STREQUAL "gpu-check-logs.tar.gz;gpu-check.json;gpu-check.md")
  message(FATAL_ERROR "the dry run left under $OUT: '${returned}'")
endif()
list(LENGTH returned n_returned)
foreach(f ${returned})
  if(NOT f MATCHES "^([A-Za-z0-9._-]+/)?([A-Za-z0-9._-]+/)?[A-Za-z0-9._-]+$")
    message(FATAL_ERROR "'${f}' would not come back from $OUT")
  endif()
endforeach()
file(READ ${out_dir}/gpu-check.json json)
string(JSON n_out LENGTH "${json}" out_files)
if(n_returned GREATER 8 OR NOT n_out EQUAL n_returned)
  message(FATAL_ERROR "gpu-check.json names ${n_out} files under $OUT, ${n_returned} were written")
endif()
file(READ ${out_dir}/gpu-check.md md)
# (the seconds each stage took: whole seconds of the clock, 1 or more on a loaded machine although nothing ran)
if(NOT md MATCHES "## Stage 1 \\([0-9]+s of a 300s budget\\)" OR NOT md MATCHES "## Stage 2 \\([0-9]+s of a 270s budget\\)")
  message(FATAL_ERROR "gpu-check.md does not show both stages with their budgets:\n${md}")
endif()
string(JSON dry GET "${json}" dry_run)
string(JSON count LENGTH "${json}" steps)
if(NOT dry STREQUAL "ON" OR count LESS 20)
  message(FATAL_ERROR "gpu-check.json: dry_run ${dry}, ${count} steps:\n${json}")
endif()
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON status GET "${json}" steps ${i} status)
  if(NOT status MATCHES "^(planned|passed|skipped|missing)$")
    message(FATAL_ERROR "step ${i} of a dry run is '${status}':\n${json}")
  endif()
endforeach()

foreach(bad "--budget-s;soon;--stage;1" "--stage;3" "--build-dir;${build}")  # the last: no stage named
  execute_process(COMMAND bash ${script} ${bad} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^error: ")
    message(FATAL_ERROR "gpu-check.sh ${bad}: exit ${rc}, '${err}'")
  endif()
endforeach()

# bench_sdpa reads the timing plan from kernels/include/ecosim/kernels/timing.hpp (no PyTorch needed for that).
execute_process(COMMAND python3 ${repo}/scripts/bench_sdpa --print-plan RESULT_VARIABLE rc OUTPUT_VARIABLE plan
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT plan MATCHES "^warm-up [0-9]+, repetitions [0-9]+")
  message(FATAL_ERROR "bench_sdpa --print-plan: exit ${rc}, '${plan}' ${err}")
endif()
