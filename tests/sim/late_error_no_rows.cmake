# `ecosim replay` and `ecosim count --trace --per-layer` stream their rows, but hold a small report back until
# the trace has been read to its end: a malformed record late in the trace leaves nothing on standard output
# (in every format), only the error.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
ecosim_late_error_trace(${CMAKE_CURRENT_LIST_DIR}/../accel_model/data/small.jsonl ${WORKDIR}/late_error.jsonl count)
foreach(format table csv json)
  foreach(command "replay;late_error.jsonl" "count;--trace;late_error.jsonl;--per-layer")
    execute_process(COMMAND ${EXE} ${command} --format ${format} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                    ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
    if(rc EQUAL 0 OR NOT err MATCHES "late_error.jsonl:${count}: field" OR NOT out STREQUAL "")
      message(FATAL_ERROR "ecosim ${command} --format ${format}: rc ${rc}, stderr '${err}', stdout:\n${out}")
    endif()
  endforeach()
endforeach()
