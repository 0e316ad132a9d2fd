# What a command prints must reach its standard output: `count` into a full device exits 2 saying so (it exited 0
# with the report lost). A layer or op name holding a comma or a quote is one CSV field, quoted (RFC 4180): it
# shifted every column after it.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
if(EXISTS /dev/full)
  execute_process(COMMAND ${EXE} count --model pvt_v2_b0 --per-layer --format json OUTPUT_FILE /dev/full
                  RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 2 OR NOT err MATCHES "ecosim count: error: cannot write the standard output")
    message(FATAL_ERROR "count into /dev/full: expected exit 2 and the error, got ${rc}: ${err}")
  endif()
endif()
ecosim_run(out rc trace --layer attention --seq 8 -o named.jsonl)
file(READ ${WORKDIR}/named.jsonl trace)
string(REPLACE [["name":"attention.qkv"]] [["name":"attention,qkv \"fused\""]] renamed "${trace}")
if(renamed STREQUAL trace)
  message(FATAL_ERROR "the trace's attention.qkv record was not found to rename")
endif()
file(WRITE ${WORKDIR}/renamed.jsonl "${renamed}")
ecosim_run(out rc count --trace renamed.jsonl --per-layer --format csv)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n\"attention,qkv \"\"fused\"\"\",24576,")
  message(FATAL_ERROR "count --per-layer --format csv: the name is not one quoted field (${rc}):\n${out}")
endif()
