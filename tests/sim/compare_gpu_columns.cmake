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
