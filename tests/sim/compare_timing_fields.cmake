# `ecosim compare --device cpu` records how each kernel was timed in compare.json: kernel_timing with the
# device, the method (steady clock), warm-up, repetitions and the median inside [min, max]; null for a
# count-only variant (no kernel ran); without a GPU run the GPU column is modelled (the GPU model), and the library
# column is modelled beside it.
file(REMOVE_RECURSE ${WORKDIR}/out)
execute_process(COMMAND ${EXE} compare --device cpu --variants msa,ecoformer,sra --batch 1 --heads 2 --seq 64 --dim 16
                        --out out RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare failed (${rc}): ${err}")
endif()
file(READ ${WORKDIR}/out/compare.json json)
foreach(i 0 1)
  string(JSON name GET "${json}" variants ${i} name)
  string(JSON device GET "${json}" variants ${i} kernel_timing device)
  string(JSON method GET "${json}" variants ${i} kernel_timing method)
  string(JSON warmup GET "${json}" variants ${i} kernel_timing warmup)
  string(JSON repetitions GET "${json}" variants ${i} kernel_timing repetitions)
  string(JSON kind GET "${json}" variants ${i} gpu_latency_kind)
  if(NOT device STREQUAL "cpu" OR NOT method STREQUAL "steady clock" OR NOT warmup EQUAL 0 OR NOT repetitions EQUAL 1
     OR NOT kind STREQUAL "modelled")
    message(FATAL_ERROR "${name}: kernel_timing ${device} / ${method} / ${warmup} / ${repetitions}, GPU ${kind}")
  endif()
  foreach(field min_ms q1_ms median_ms q3_ms max_ms)
    string(JSON ${field} GET "${json}" variants ${i} kernel_timing ${field})
  endforeach()
  # one sample: every statistic is that sample, a non-negative number
  if(NOT min_ms MATCHES "^[0-9]" OR NOT min_ms STREQUAL median_ms OR NOT max_ms STREQUAL median_ms
     OR NOT q1_ms STREQUAL median_ms OR NOT q3_ms STREQUAL median_ms)
    message(FATAL_ERROR "${name}: min ${min_ms}, q1 ${q1_ms}, median ${median_ms}, q3 ${q3_ms}, max ${max_ms}")
  endif()
endforeach()
string(JSON sra_name GET "${json}" variants 2 name)
string(JSON sra_timing TYPE "${json}" variants 2 kernel_timing)
if(NOT sra_name STREQUAL "sra" OR NOT sra_timing STREQUAL "NULL")
  message(FATAL_ERROR "the count-only ${sra_name} has kernel_timing of type ${sra_timing}, expected null")
endif()
