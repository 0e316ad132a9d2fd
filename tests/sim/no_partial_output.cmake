# Failing runs leave no output file: an invalid workload (anchors > tokens in stage 3 at 64×64), an
# output folder that does not exist, a run whose --output cannot be written; colliding destinations and bare words
# are refused.
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

# run checks every destination before the work: an --output in a missing folder leaves no --trace behind, and
# destinations that would overwrite one another are refused
file(REMOVE ${WORKDIR}/run_trace.jsonl)
execute_process(COMMAND ${EXE} run --variant msa --seq 16 --trace run_trace.jsonl --output missing-dir/o.npy
                RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
if(rc EQUAL 0 OR EXISTS ${WORKDIR}/run_trace.jsonl)
  message(FATAL_ERROR "run with a bad --output: expected failure and no trace; rc=${rc}, stderr: ${err}")
endif()
foreach(case "--trace;same.npy;--output;same.npy|--trace and --output name the same file"
             "--save-inputs;saved;--output;saved/q.npy|--output lies in --save-inputs' folder")
  string(REPLACE "|" ";" case "${case}")
  list(POP_BACK case expected)
  execute_process(COMMAND ${EXE} run --variant msa --seq 16 ${case} RESULT_VARIABLE rc ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${expected}")
    message(FATAL_ERROR "run ${case}: expected exit 2 and '${expected}'; rc=${rc}, stderr: ${err}")
  endif()
endforeach()
# a bare word is refused, not dropped (`--causal false` would run causal attention)
execute_process(COMMAND ${EXE} run --variant msa --seq 16 --causal false RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 2 OR NOT err MATCHES "unexpected argument 'false'")
  message(FATAL_ERROR "run --causal false: expected exit 2 and 'unexpected argument'; rc=${rc}, stderr: ${err}")
endif()
