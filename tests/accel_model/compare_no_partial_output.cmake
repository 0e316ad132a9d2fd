# `ecosim compare` checks every variant before running any: a parameter only the last variant rejects
# (EcoFormer's 25 support samples with N = 4) fails at once, leaving no trace, report or output folder.
file(REMOVE_RECURSE ${WORKDIR}/out)
execute_process(COMMAND ${EXE} compare --batch 1 --seq 4 --dim 8 --out out RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
if(rc EQUAL 0 OR NOT err MATCHES "support samples")
  message(FATAL_ERROR "expected a support-samples error; rc=${rc}, stderr: ${err}")
endif()
if(err MATCHES "running kernel")
  message(FATAL_ERROR "a kernel ran before the parameters were checked: ${err}")
endif()
if(EXISTS ${WORKDIR}/out)
  message(FATAL_ERROR "output folder created by a failing run")
endif()
