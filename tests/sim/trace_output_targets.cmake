# `ecosim trace -o` on standard output and through a symbolic link: `-o -` writes the same trace as `-o FILE`
# (and it reads back), a link stays a link while its target is replaced, and no temporary is left.
set(workload --layer attention --attention ecoformer --seq 64 --convention exact)
file(REMOVE ${WORKDIR}/file.jsonl ${WORKDIR}/stdout.jsonl ${WORKDIR}/target.jsonl ${WORKDIR}/link.jsonl)
execute_process(COMMAND ${EXE} trace ${workload} -o file.jsonl RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${EXE} trace ${workload} -o - RESULT_VARIABLE rc_stdout ERROR_VARIABLE err_stdout
                OUTPUT_FILE ${WORKDIR}/stdout.jsonl WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0 OR NOT rc_stdout EQUAL 0)
  message(FATAL_ERROR "trace failed: ${err} ${err_stdout}")
endif()
file(READ ${WORKDIR}/file.jsonl to_file)
file(READ ${WORKDIR}/stdout.jsonl to_stdout)
if(NOT to_file STREQUAL to_stdout OR to_file STREQUAL "")
  message(FATAL_ERROR "-o - and -o FILE wrote different traces")
endif()
if(EXISTS ${WORKDIR}/-)
  message(FATAL_ERROR "-o - created a file named '-'")
endif()
execute_process(COMMAND ${EXE} count --trace stdout.jsonl RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the trace written to standard output does not read back: ${err}")
endif()

file(WRITE ${WORKDIR}/target.jsonl "old")
file(CREATE_LINK target.jsonl ${WORKDIR}/link.jsonl SYMBOLIC)
execute_process(COMMAND ${EXE} trace ${workload} -o link.jsonl RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
file(READ ${WORKDIR}/target.jsonl through_link)
if(NOT rc EQUAL 0 OR NOT IS_SYMLINK ${WORKDIR}/link.jsonl OR NOT through_link STREQUAL to_file)
  message(FATAL_ERROR "writing through a link: rc=${rc}, link kept: expected, target replaced: expected; ${err}")
endif()
file(GLOB leftovers ${WORKDIR}/.*.tmp)
if(leftovers)
  message(FATAL_ERROR "temporary files left behind: ${leftovers}")
endif()
