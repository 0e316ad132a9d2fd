# Runs `EXE ARGS...` in WORKDIR and fails unless its exit code is EXPECT ("nonzero" accepts any failure).
# On failure with a non-zero code it also requires one "error:" line on stderr (clear message, no crash).
execute_process(COMMAND ${EXE} ${ARGS} WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(EXPECT STREQUAL "nonzero")
  if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "expected a clean non-zero exit, got '${rc}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  if(NOT err MATCHES "error:")
    message(FATAL_ERROR "expected an 'error:' message on stderr\nstderr:\n${err}")
  endif()
elseif(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "expected exit ${EXPECT}, got '${rc}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
message("${out}")
