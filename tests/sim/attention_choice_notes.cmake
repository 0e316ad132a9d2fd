# Linformer with --proj-k above a layer's keys projects them up and costs more than softmax attention: counted so,
# with a note on stderr naming the layer, its keys and --proj-k (DeiT-Ti's 197 tokens at the default k = 256); none
# where k is at most the keys. The sliding window, a causal band, over a block that is not causal says it leaves
# each query's later keys out (DeiT-Ti with --attention sliding counted the lower triangle without a word); a
# decoder's causal blocks take it without a note.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
ecosim_run(out rc count --model deit_tiny --attention linformer)
if(NOT rc EQUAL 0 OR NOT out MATCHES "note: linformer projects the 197 keys of '[^']+' up to k = 256 rows \\(--proj-k\\)")
  message(FATAL_ERROR "expected a note on Linformer's projection up (exit ${rc}):\n${out}")
endif()
ecosim_run(out rc count --model deit_tiny --attention linformer --proj-k 64)
if(NOT rc EQUAL 0 OR out MATCHES "note: linformer")
  message(FATAL_ERROR "a note where k = 64 projects 197 keys down (exit ${rc}):\n${out}")
endif()
# compare says so too, for a zoo model and for one layer (it was silent)
ecosim_run(out rc compare --model deit_tiny --variants msa,linformer --engine closed-form --out compare_deit)
if(NOT rc EQUAL 0 OR NOT out MATCHES "note: linformer projects the 197 keys of '[^']+' up to k = 256 rows")
  message(FATAL_ERROR "compare --model deit_tiny: expected the note (exit ${rc}):\n${out}")
endif()
ecosim_run(out rc compare --variants msa,linformer --seq 64 --batch 1 --device cpu --engine closed-form
           --out compare_layer)
if(NOT rc EQUAL 0 OR NOT out MATCHES "note: linformer projects the 64 keys of 'attention' up to k = 256 rows")
  message(FATAL_ERROR "compare of one 64-token layer: expected the note (exit ${rc}):\n${out}")
endif()
ecosim_run(out rc count --model deit_tiny --attention sliding)
if(NOT rc EQUAL 0 OR NOT out MATCHES "note: sliding attends each query to the 4096 keys ending at it, a causal band: '[^']+' is not causal")
  message(FATAL_ERROR "sliding over DeiT-Ti: expected the causal-band note (exit ${rc}):\n${out}")
endif()
ecosim_run(out rc count --model mistral_7b --attention sliding)
if(NOT rc EQUAL 0 OR out MATCHES "note: sliding")
  message(FATAL_ERROR "sliding over a causal decoder: no note expected (exit ${rc}):\n${out}")
endif()
# LSA on a 151-token layer (a 1 x 151 grid, prime) pads it to 22 windows of 7 x 7: 1,078 tokens, said; Twins-SVT-S's
# own 56 x 56 grid fills its windows: no note
ecosim_run(out rc count --layer attention --seq 151 --attention lsa)
if(NOT rc EQUAL 0 OR NOT out MATCHES "note: lsa pads the 1 x 151 token grid of 'attention' to whole 7 x 7 windows: 1078 tokens where it has 151")
  message(FATAL_ERROR "lsa over 151 tokens: expected the padding note (exit ${rc}):\n${out}")
endif()
ecosim_run(out rc count --model twins_svt_s --attention native)
if(NOT rc EQUAL 0 OR out MATCHES "note: lsa pads")
  message(FATAL_ERROR "twins_svt_s: no padding note expected (exit ${rc}):\n${out}")
endif()
