# `ecosim replay --accel-config` on hostile configurations: 100,000 levels of nesting, a duplicate key, an
# implausible clock, a file above the 16 MiB limit and an endless device. Each exits 2 with one error line
# naming the file (and line or key); none crashes.
set(trace ${CMAKE_CURRENT_LIST_DIR}/data/small.jsonl)

function(expect_error config pattern)
  execute_process(COMMAND ${EXE} replay ${trace} --accel-config ${config} WORKING_DIRECTORY ${WORKDIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^ecosim replay: error: ${pattern}\n$")
    message(FATAL_ERROR "${config}: expected exit 2 and one line 'ecosim replay: error: ${pattern}'; "
                        "got exit '${rc}', stderr:\n${err}")
  endif()
endfunction()

string(REPEAT "{\"array\":" 100000 deep_objects)
file(WRITE ${WORKDIR}/deep.json "${deep_objects}")
expect_error(deep.json "deep.json:1: JSON nested deeper than 64 levels")

string(REPEAT "[" 100000 deep_arrays)
file(WRITE ${WORKDIR}/deep_arrays.json "${deep_arrays}")
expect_error(deep_arrays.json "deep_arrays.json:1: JSON nested deeper than 64 levels")

file(WRITE ${WORKDIR}/duplicate.json "{\n  \"clock_mhz\": 500,\n  \"clock_mhz\": 600\n}\n")
expect_error(duplicate.json "duplicate.json:3: duplicate key 'clock_mhz'")

file(WRITE ${WORKDIR}/clock.json "{\"clock_mhz\": 1e-300}")
expect_error(clock.json "clock.json: clock_mhz: 1e-300 is out of range \\[1[^]]*\\] MHz")

string(REPEAT " " 16777217 spaces)
file(WRITE ${WORKDIR}/big.json "${spaces}")
expect_error(big.json "cannot read 'big.json': it holds more than the limit of 16777216 bytes")
file(REMOVE ${WORKDIR}/big.json)

expect_error(/dev/zero "cannot read '/dev/zero': it holds more than the limit of 16777216 bytes")
