# Long replays say so (issue 18, finding 11). A SystemC replay of an MSA layer at N = 65536 (54.5 M tiles) is
# fast-forwarded in well under a second; walked tile by tile (systemc.fast_forward off, about 25 s), it and compare of
# PVTv2-B0 at batch 1024 print the closed-form hint before they start — checked with a time limit that refuses
# them at once, so no long replay runs here. A walked replay of about a second writes no control characters when
# standard error is a file, and, run under `script` (a pseudo-terminal), draws its progress line and erases it.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
ecosim_run(out rc trace --layer attention --attention msa --batch 16 --seq 65536 --dim 32 --no-proj -o big.jsonl)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "trace of the N = 65536 layer failed: ${out}")
endif()
# Fast-forward passes over nearly all of its tiles: no hint, and the replay takes well under a second.
execute_process(COMMAND ${EXE} replay big.jsonl --format csv WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR err MATCHES "this SystemC replay" OR NOT out MATCHES "\ntotal,,54525952,")
  message(FATAL_ERROR "fast-forwarded replay of the N = 65536 layer: exit ${rc}\n${err}")
endif()
# Walked tile by tile (fast_forward off), the same replay is long: the hint, then the refusal.
file(WRITE ${WORKDIR}/walk.json "{\"systemc\": {\"fast_forward\": false}}")
execute_process(COMMAND ${EXE} replay big.jsonl --accel-config walk.json --max-minutes 0.005 WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "\\[big.jsonl\\] this SystemC replay simulates 54.5 M tiles in 4 ops: about 2[0-9] s"
   OR NOT err MATCHES "--engine closed-form" OR NOT err MATCHES "refused before replaying")
  message(FATAL_ERROR "expected the closed-form hint, then the refusal: exit ${rc}\n${err}")
endif()
# compare says it for each variant: PVTv2-B0 at batch 1024 is 33 M tiles.
execute_process(COMMAND ${EXE} compare --model pvt_v2_b0 --variants msa --batch 1024 --max-minutes 0.001 --out r
                        --accel-config walk.json
                WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "\\[msa\\] this SystemC replay simulates [0-9.]+ M tiles in 126 ops: about"
   OR NOT err MATCHES "--engine closed-form")
  message(FATAL_ERROR "compare: expected the closed-form hint for msa, then the refusal: exit ${rc}\n${err}")
endif()
execute_process(COMMAND ${EXE} replay big.jsonl --engine closed-form --max-minutes 0.005 WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(err MATCHES "this SystemC replay")
  message(FATAL_ERROR "the closed form got the SystemC hint:\n${err}")
endif()

# About 1.9 M tiles: 0.9 s on the 2-core sandbox, past the half second after which the line is drawn.
ecosim_run(out rc trace --layer attention --attention msa --batch 16 --seq 12288 --dim 32 --no-proj -o mid.jsonl)
execute_process(COMMAND ${EXE} replay mid.jsonl --format csv --accel-config walk.json WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(ASCII 13 carriage_return)
string(ASCII 27 escape)
if(NOT rc EQUAL 0 OR err MATCHES "[${carriage_return}${escape}]" OR out MATCHES "[${carriage_return}${escape}]")
  message(FATAL_ERROR "replay to files: exit ${rc}, or control characters in its output:\n${err}")
endif()

find_program(SCRIPT script)
if(NOT SCRIPT)
  message("SKIPPED: no `script` (util-linux) for the terminal check")
  return()
endif()
execute_process(COMMAND ${SCRIPT} -qec "${EXE} replay mid.jsonl --format csv --accel-config walk.json" /dev/null
                WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE terminal ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT terminal MATCHES "${carriage_return}\\[mid.jsonl\\] op [1-4]/4, [0-9.]+ [kM]?/1.9[0-9] M tiles"
   OR NOT terminal MATCHES "elapsed, ~[0-9]+ s left${escape}\\[K"
   OR NOT terminal MATCHES "${carriage_return}${escape}\\[K")
  message(FATAL_ERROR "on a terminal, expected the progress line drawn and erased: exit ${rc}\n${terminal}${err}")
endif()
