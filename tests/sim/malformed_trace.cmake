# `ecosim count --trace` on a malformed trace: one clear error line with file and line number, exit ≠ 0.
file(WRITE ${WORKDIR}/bad.jsonl
  "{\"record\":\"header\",\"format\":\"ecosim-trace\",\"version\":1,\"producer\":\"t\",\"convention\":\"exact\"}\n"
  "{\"record\":\"op\",\"name\":\"x\",\"kind\":\"warp\"}\n")
execute_process(COMMAND ${EXE} count --trace bad.jsonl RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
if(rc EQUAL 0 OR NOT err MATCHES "bad.jsonl:2: field 'name'|bad.jsonl:2: field 'kind'|bad.jsonl:2: field")
  message(FATAL_ERROR "expected a line-numbered error; rc=${rc}, stderr: ${err}")
endif()
