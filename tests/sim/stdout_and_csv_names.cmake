# What a command prints must reach its standard output: `count` into a full device exits 2 saying so (it exited 0
# with the report lost), and so do the usage and the version (they exited 0). A layer or op name holding a comma or a quote is one CSV field, quoted (RFC 4180): it
# shifted every column after it.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
if(EXISTS /dev/full)
  execute_process(COMMAND ${EXE} count --model pvt_v2_b0 --per-layer --format json OUTPUT_FILE /dev/full
                  RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 2 OR NOT err MATCHES "ecosim count: error: cannot write the standard output")
    message(FATAL_ERROR "count into /dev/full: expected exit 2 and the error, got ${rc}: ${err}")
  endif()
  foreach(text --help --version)
    execute_process(COMMAND ${EXE} ${text} OUTPUT_FILE /dev/full RESULT_VARIABLE rc ERROR_VARIABLE err
                    WORKING_DIRECTORY ${WORKDIR})
    if(NOT rc EQUAL 2 OR NOT err MATCHES "ecosim: error: cannot write the standard output")
      message(FATAL_ERROR "ecosim ${text} into /dev/full: expected exit 2 and the error, got ${rc}: ${err}")
    endif()
  endforeach()
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
# train's memory_curve.csv too: an ONNX node named `fc,"one"` (written by Debian's python3-onnx; skipped without it)
set(make_onnx [=[
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
weights = numpy_helper.from_array(np.ones((8, 8), np.float32), "W")
nodes = [helper.make_node("MatMul", ["x", "W"], ["h"], name='fc,"one"'), helper.make_node("Relu", ["h"], ["y"])]
graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])], [weights])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "comma.onnx")
]=])
execute_process(COMMAND /usr/bin/python3 -c "${make_onnx}" RESULT_VARIABLE no_onnx WORKING_DIRECTORY ${WORKDIR}
                OUTPUT_QUIET ERROR_QUIET)
if(NOT no_onnx)
  file(REMOVE_RECURSE ${WORKDIR}/curve)
  ecosim_run(out rc train --onnx comma.onnx --out curve)
  file(READ ${WORKDIR}/curve/memory_curve.csv curve)
  if(NOT rc EQUAL 0 OR NOT curve MATCHES "\nnone,0,forward,\"fc,\"\"one\"\"\",")
    message(FATAL_ERROR "train's memory_curve.csv: the name is not one quoted field (${rc}):\n${curve}\n${out}")
  endif()
endif()
