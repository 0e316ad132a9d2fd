# `ecosim replay --engine systemc|closed-form`: equal cycles on a small trace with SystemC's dynamic effects
# (overlap, prefetch) switched off in the configuration (the engines agree by design then), the closed form a
# lower bound with them on (the default); the engine named in the JSON totals, the CSV head (a provenance line) and the table head;
# and `ecosim compare --engine closed-form` records the engine in its provenance.
set(trace ${CMAKE_CURRENT_LIST_DIR}/data/small.jsonl)
file(WRITE ${WORKDIR}/static.json "{\"systemc\": {\"overlap\": false, \"prefetch\": false}}")
foreach(engine systemc closed-form)
  execute_process(COMMAND ${EXE} replay ${trace} --engine ${engine} --format json --accel-config static.json
                  WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "replay --engine ${engine} failed (${rc}): ${err}")
  endif()
  string(JSON named GET "${out}" engine)
  string(JSON cycles_${engine} GET "${out}" cycles)
  if(NOT named STREQUAL engine)
    message(FATAL_ERROR "replay --engine ${engine} reports engine '${named}'")
  endif()
  execute_process(COMMAND ${EXE} replay ${trace} --engine ${engine} --format csv WORKING_DIRECTORY ${WORKDIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE csv ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT csv MATCHES "^(# [^\n]*\n)*# engine: ${engine}\n(# [^\n]*\n)*op,kind,")
    message(FATAL_ERROR "replay --engine ${engine} CSV must start with '# engine: ${engine}' (${rc}): ${err}")
  endif()
  execute_process(COMMAND ${EXE} replay ${trace} --engine ${engine} WORKING_DIRECTORY ${WORKDIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT table MATCHES "\\(${engine} model\\)")
    message(FATAL_ERROR "replay --engine ${engine} table must name the engine (${rc}): ${table}${err}")
  endif()
endforeach()
if(NOT cycles_systemc EQUAL cycles_closed-form)
  message(FATAL_ERROR "systemc ${cycles_systemc} cycles, closed form ${cycles_closed-form}")
endif()
foreach(engine systemc closed-form)
  execute_process(COMMAND ${EXE} replay ${trace} --engine ${engine} --format json WORKING_DIRECTORY ${WORKDIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "replay --engine ${engine} failed (${rc}): ${err}")
  endif()
  string(JSON dynamic_${engine} GET "${out}" cycles)
endforeach()
if(dynamic_closed-form GREATER dynamic_systemc OR dynamic_systemc GREATER cycles_systemc)
  message(FATAL_ERROR "with overlap and prefetch: closed form ${dynamic_closed-form} ≤ systemc ${dynamic_systemc} "
                      "≤ systemc without them ${cycles_systemc} does not hold")
endif()
execute_process(COMMAND ${EXE} compare --batch 1 --seq 64 --dim 16 --device cpu --variants msa --engine closed-form
                        --out reports WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare --engine closed-form failed (${rc}): ${err}")
endif()
file(READ ${WORKDIR}/reports/compare.json report)
string(JSON named GET "${report}" provenance engine)
if(NOT named STREQUAL "closed-form" OR NOT out MATCHES "closed-form engine")
  message(FATAL_ERROR "compare must name its engine in the report's provenance and its table's legend: '${named}'\n${out}")
endif()
