# scripts/gpu-check.sh --dry-run: runs nothing, prints every step the GPU machine would run (sm_90 configure,
# build, the gpu-labelled tests with ECOSIM_REQUIRE_GPU=1, both validate suites and compare on cuda, kernel
# resource usage, the four compute-sanitizer tools on the [gpu] cases but the [large] ones, the benchmarks,
# Nsight Compute) and writes its report (Markdown + JSON, every step planned) without configuring or building
# anything; bad arguments exit 2; bench_sdpa reads its timing plan from timing.hpp.
get_filename_component(repo ${CMAKE_CURRENT_LIST_DIR}/../.. ABSOLUTE)
set(script ${repo}/scripts/gpu-check.sh)
set(build ${WORKDIR}/build-gpu)
file(REMOVE_RECURSE ${build})
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=OUT bash ${script} --dry-run --build-dir ${build}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gpu-check.sh --dry-run exited ${rc}: ${out}${err}")
endif()
foreach(expected "configure .*-DCMAKE_CUDA_ARCHITECTURES=90" "build .*cmake --build"
                 "gpu-tests .*ECOSIM_REQUIRE_GPU=1 ctest" "-L gpu"
                 "validate-attention .*validate --suite attention --device cuda"
                 "validate-compression .*validate --suite compression --device cuda" "memcheck-" "racecheck-"
                 "initcheck-" "synccheck-" "--tool synccheck .*gpu[^ ]*~[^ ]*large"
                 "bench-attention .*scripts/bench_attention" "bench-sdpa .*scripts/bench_sdpa"
                 "bench-compression .*scripts/bench_compression" "bench-memory .*scripts/bench_memory"
                 "ncu-ecoformer .*ncu .*run --variant ecoformer .*--device cuda" "ncu-msa" "ncu-compression"
                 "prerequisite-compute-sanitizer" "prerequisite-ncu"
                 "resource-usage .*cuobjdump --dump-resource-usage" "compare-cuda .*compare --device cuda")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the dry run does not show '${expected}':\n${out}")
  endif()
endforeach()
if(EXISTS ${build}/CMakeCache.txt OR EXISTS ${build}/bin)
  message(FATAL_ERROR "the dry run configured or built something in ${build}")
endif()
if(NOT EXISTS ${build}/gpu-check.md)
  message(FATAL_ERROR "the dry run wrote no gpu-check.md")
endif()
file(READ ${build}/gpu-check.json json)
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

execute_process(COMMAND bash ${script} --budget-s soon RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "^error: ")
  message(FATAL_ERROR "--budget-s soon: exit ${rc}, '${err}'")
endif()

# bench_sdpa reads the timing plan from kernels/include/ecosim/kernels/timing.hpp (no PyTorch needed for that).
execute_process(COMMAND python3 ${repo}/scripts/bench_sdpa --print-plan RESULT_VARIABLE rc OUTPUT_VARIABLE plan
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT plan MATCHES "^warm-up [0-9]+, repetitions [0-9]+")
  message(FATAL_ERROR "bench_sdpa --print-plan: exit ${rc}, '${plan}' ${err}")
endif()
