# `ecosim count` and `ecosim replay` record their provenance in every format they write, as compare does: JSON
# a "provenance" object (ecosim_version as `ecosim --version` prints it, the command line, the technology table;
# replay also the engine), CSV "# key: value" lines heading the column titles, a table the same lines as its
# footer, except that count's names its technology table rather than printing its 1,000-character entries.
# The table's derived energies print as the values their inputs define (sqrt.fp32 27.7).
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
set(trace ${CMAKE_CURRENT_LIST_DIR}/../accel_model/data/small.jsonl)
ecosim_run(version rc --version)
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" version "${version}")

# JSON: provenance.ecosim_version, .command_line (naming the command) and .tech_table.pj_per_op parse
foreach(case "count;--trace;${trace}" "count;--trace;${trace};--per-layer" "count;--layer;attention;--seq;8"
             "replay;${trace}")
  list(GET case 0 command)
  execute_process(COMMAND ${EXE} ${case} --format json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ecosim ${case} --format json failed (${rc}): ${err}")
  endif()
  string(JSON got_version GET "${out}" provenance ecosim_version)
  string(JSON command_line GET "${out}" provenance command_line)
  string(JSON mul_pj GET "${out}" provenance tech_table pj_per_op mul.fp32)
  if(NOT got_version STREQUAL version OR NOT command_line MATCHES "^ecosim ${command} .*--format json$"
     OR NOT mul_pj GREATER 0)
    message(FATAL_ERROR "ecosim ${case}: provenance version '${got_version}' (want '${version}'), command line "
                        "'${command_line}', mul.fp32 ${mul_pj} pJ\n${out}")
  endif()
endforeach()
execute_process(COMMAND ${EXE} replay ${trace} --engine closed-form --format json OUTPUT_VARIABLE out
                WORKING_DIRECTORY ${WORKDIR})
string(JSON engine GET "${out}" provenance engine)
if(NOT engine STREQUAL "closed-form")
  message(FATAL_ERROR "replay's provenance names engine '${engine}'")
endif()

# CSV: the provenance's lines head the column titles; table: they close it
execute_process(COMMAND ${EXE} count --trace ${trace} --format json OUTPUT_VARIABLE out WORKING_DIRECTORY ${WORKDIR})
string(JSON tech_name GET "${out}" provenance tech_table name)
set(head "# ecosim_version: ${version}\n# command_line: ecosim ")
foreach(case "count;--trace;${trace}" "count;--layer;attention;--seq;8;--per-layer" "replay;${trace}")
  list(GET case 0 command)
  execute_process(COMMAND ${EXE} ${case} --format csv RESULT_VARIABLE rc OUTPUT_VARIABLE csv ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 0 OR NOT csv MATCHES "^${head}${command} [^\n]*\n(# [a-z_]+: [^\n]*\n)*# tech_table: {[^\n]*\n(# [^\n]*\n)*[a-z]+,")
    message(FATAL_ERROR "ecosim ${case} --format csv: no provenance head (${rc}): ${err}\n${csv}")
  endif()
  # a derived energy prints as the value its inputs define (7 × 3.7 + 2 × 0.9 pJ), not the sum's rounding noise
  if(NOT csv MATCHES "\"sqrt\\.fp32\":27\\.7,")
    message(FATAL_ERROR "ecosim ${case}: sqrt.fp32 is not printed as 27.7 in the tech table\n${csv}")
  endif()
  execute_process(COMMAND ${EXE} ${case} RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 0 OR NOT table MATCHES "\n${head}${command} [^\n]*\n(# [a-z_]+: [^\n]*\n)*$")
    message(FATAL_ERROR "ecosim ${case}: no provenance footer (${rc}): ${err}\n${table}")
  endif()
  # count's table names its technology table (the per-op energies are in its JSON and CSV, above)
  set(short_tech "\n# tech_table: ${tech_name} \\(in full: --format json or csv\\)\n")
  if(command STREQUAL "count" AND (NOT table MATCHES "${short_tech}" OR table MATCHES "pj_per_op"))
    message(FATAL_ERROR "ecosim ${case}: the table's footer does not name the technology table alone\n${table}")
  endif()
endforeach()
