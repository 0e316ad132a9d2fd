# `ecosim compare` shows two GPU columns for the named GPU: ecosim's kernels (modelled without a GPU; the roofline
# with --gpu-model roofline) and the best library (modelled); the terminal table labels them, the reports carry
# both, and an unknown --gpu-model or --gpu fails before any work.
foreach(mode model roofline)
  file(REMOVE_RECURSE ${WORKDIR}/${mode})
  execute_process(COMMAND ${EXE} compare --device cpu --variants msa,ecoformer --batch 1 --seq 64 --dim 16 --gpu a100-sxm
                          --gpu-model ${mode} --out ${mode} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                          WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "compare --gpu-model ${mode} failed (${rc}): ${err}")
  endif()
  if(NOT out MATCHES "GPU ms +lib ms" OR NOT out MATCHES "lib ms: ~ modelled, A100 SXM, best library")
    message(FATAL_ERROR "--gpu-model ${mode}: the table lacks the two labelled GPU columns:\n${out}")
  endif()
  file(READ ${WORKDIR}/${mode}/compare.json json)
  string(JSON kind GET "${json}" variants 0 gpu_latency_kind)
  string(JSON library GET "${json}" variants 0 gpu_library_latency_ms)
  set(expected modelled)
  if(mode STREQUAL "roofline")
    set(expected estimated)
  endif()
  if(NOT kind STREQUAL expected OR NOT library GREATER 0)
    message(FATAL_ERROR "--gpu-model ${mode}: gpu_latency_kind ${kind} (expected ${expected}), library ${library}")
  endif()
endforeach()
execute_process(COMMAND ${EXE} compare --gpu-model guess --out bad RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
if(rc EQUAL 0 OR NOT err MATCHES "unknown --gpu-model 'guess'" OR EXISTS ${WORKDIR}/bad)
  message(FATAL_ERROR "an unknown --gpu-model must fail before any work (${rc}): ${err}")
endif()
# A head width ecosim's fused attention kernel does not take (over 128): its GPU column prices the attention op by
# op, and the legend and the report say so and why (the library's, which takes 136, does not).
file(REMOVE_RECURSE ${WORKDIR}/wide)
execute_process(COMMAND ${EXE} compare --device cpu --variants msa --batch 1 --seq 64 --dim 136 --out wide
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0 OR NOT out MATCHES "GPU ms of msa: attention priced op by op, not fused \\(ecosim's attention kernel")
  message(FATAL_ERROR "head width 136: the legend does not say msa's GPU column is op by op (${rc}):\n${out}${err}")
endif()
file(READ ${WORKDIR}/wide/compare.json json)
string(JSON reasons LENGTH "${json}" variants 0 gpu_op_by_op)
string(JSON library_reasons LENGTH "${json}" variants 0 gpu_library_op_by_op)
if(NOT reasons EQUAL 1 OR NOT library_reasons EQUAL 0)
  message(FATAL_ERROR "head width 136: gpu_op_by_op lists ${reasons} reasons, the library's ${library_reasons}")
endif()
