# Failing runs leave no output file: an invalid workload (anchors > tokens in stage 3 at 64×64) and an
# output folder that does not exist.
file(REMOVE ${WORKDIR}/partial.jsonl)
execute_process(COMMAND ${EXE} trace --model pvt_v2_b0 --attention ecoformer --resolution 64 -o partial.jsonl
                RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
if(rc EQUAL 0 OR EXISTS ${WORKDIR}/partial.jsonl)
  message(FATAL_ERROR "expected failure and no file; rc=${rc}, stderr: ${err}")
endif()
execute_process(COMMAND ${EXE} trace --model pvt_v2_b0 -o missing-dir/x.jsonl RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
if(rc EQUAL 0 OR NOT err MATCHES "cannot write")
  message(FATAL_ERROR "expected 'cannot write' error; rc=${rc}, stderr: ${err}")
endif()
file(GLOB leftovers ${WORKDIR}/.*.tmp)  # temporaries: .<name>.<random>.tmp
if(leftovers)
  message(FATAL_ERROR "temporary files left behind: ${leftovers}")
endif()
