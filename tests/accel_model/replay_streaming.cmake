# `ecosim replay` streams its trace: a second trace is refused; a malformed record late in the trace stops the
# replay with its line number and leaves no timeline file; the JSON rows (streamed) parse and add up to the
# total.
include(${CMAKE_CURRENT_LIST_DIR}/../json_rows.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
set(small ${CMAKE_CURRENT_LIST_DIR}/data/small.jsonl)
execute_process(COMMAND ${EXE} replay ${small} ${small} RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 2 OR NOT err MATCHES "ecosim replay: error: unexpected argument '[^']*'")
  message(FATAL_ERROR "two traces: expected exit 2 and 'unexpected argument'; rc=${rc}, stderr: ${err}")
endif()

ecosim_late_error_trace(${small} ${WORKDIR}/late_error.jsonl count)
file(REMOVE ${WORKDIR}/timeline.json)
execute_process(COMMAND ${EXE} replay late_error.jsonl --timeline timeline.json RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 2 OR NOT err MATCHES "late_error.jsonl:${count}: field")
  message(FATAL_ERROR "late malformed record: expected exit 2 and line ${count}; rc=${rc}, stderr: ${err}")
endif()
file(GLOB leftovers ${WORKDIR}/timeline.json*)
if(leftovers)
  message(FATAL_ERROR "a failed replay left timeline files: ${leftovers}")
endif()

execute_process(COMMAND ${EXE} replay ${small} --format json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "replay --format json failed: ${err}")
endif()
math(EXPR records "${count} - 2")
string(JSON total GET "${out}" cycles)
ecosim_check_rows("${out}" ops cycles ${records} ${total})
message("replay: ${records} streamed rows, ${total} cycles")
