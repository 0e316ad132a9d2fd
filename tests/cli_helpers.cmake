# For command-line test scripts (given EXE and WORKDIR): ecosim_run(<out_var> <rc_var> <args...>) runs
# `ecosim <args>` in WORKDIR, its standard output and error together in <out_var>, its exit code in <rc_var>;
# ecosim_count_json(<out_var> <args...>) is the JSON of `ecosim count <args> --format json`, failing the test
# when the command fails; ecosim_late_error_trace(<trace> <file> <line_var>) writes <file> as <trace> with its end
# record replaced by a malformed op record, at line <line_var>.
function(ecosim_run out_var rc_var)
  execute_process(COMMAND ${EXE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORKDIR})
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(${rc_var} ${rc} PARENT_SCOPE)
endfunction()

function(ecosim_count_json out_var)
  execute_process(COMMAND ${EXE} count ${ARGN} --format json RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ecosim count ${ARGN} failed: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(ecosim_late_error_trace trace file line_var)
  file(STRINGS ${trace} lines)
  list(LENGTH lines count)
  math(EXPR last "${count} - 1")
  list(SUBLIST lines 0 ${last} body)  # header and op records, end record dropped
  list(JOIN body "\n" text)
  file(WRITE ${file} "${text}\n{\"record\":\"op\",\"name\":\"x\",\"kind\":\"warp\"}\n")
  set(${line_var} ${count} PARENT_SCOPE)
endfunction()
