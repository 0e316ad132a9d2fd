# `--model-file`: a user's zoo file extends a built-in model (count and trace agree, and one more PVTv2-B0
# stage-3 block costs its hand-computed MACs); a malformed file, an unknown family or a key the model's family
# does not have is a one-line error.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)

function(paper_muls out_var)
  ecosim_count_json(out ${ARGN})
  string(JSON muls GET "${out}" muls)
  set(${out_var} ${muls} PARENT_SCOPE)
endfunction()

file(WRITE ${WORKDIR}/zoo.json [[{"b0_deep": {"extends": "pvt_v2_b0", "depths": [2, 2, 3, 2]}}]])
paper_muls(deep --model b0_deep --model-file zoo.json)
paper_muls(stock --model pvt_v2_b0)
# One MSA block of 14² tokens × 160, 5 heads, MLP 640 with a depthwise 3×3 conv (+ bias): norms, qkv, proj,
# scores + context + scaling, fc1, fc2, dwconv.
math(EXPR block "4*196*160 + 196*160*480 + 196*160*160 + 2*196*196*160 + 5*196*196 + 2*196*160*640 + 10*640*196")
math(EXPR difference "${deep} - ${stock}")
if(NOT difference EQUAL block)
  message(FATAL_ERROR "b0_deep costs ${difference} muls more than pvt_v2_b0, expected ${block}")
endif()

ecosim_run(out rc trace --model b0_deep --model-file zoo.json --convention paper -o deep.jsonl)
paper_muls(traced --trace deep.jsonl)
if(NOT rc EQUAL 0 OR NOT traced EQUAL deep)
  message(FATAL_ERROR "trace --model-file: rc ${rc}, ${traced} muls against ${deep}: ${out}")
endif()

file(WRITE ${WORKDIR}/bad.json [[{"m": {"family": "resnet"}, "t": {"extends": "pvt_v2_b0",]])
file(WRITE ${WORKDIR}/family.json [[{"m": {"family": "mobilenet"}}]])
# Issue 18: keys the encoder family does not have (another architecture's, or misspelled) counted as stock
# GPT-2 small; each is refused, naming the file, the model and the first unknown key.
file(WRITE ${WORKDIR}/llama.json
     [[{"m": {"extends": "gpt2_small", "num_kv_heads": 8, "norm": "rmsnorm", "activation": "swiglu"}}]])
file(WRITE ${WORKDIR}/long.json [[{"m": {"extends": "gpt2_small", "seqlen": 32768, "num_layers": 48}}]])
file(WRITE ${WORKDIR}/seqlen.json [[{"m": {"extends": "gpt2_small", "seqlen": 32768}}]])
foreach(case "bad.json|not valid JSON" "family.json|'family' must be" "missing.json|cannot open"
        "llama.json|llama.json: m.activation: unknown key for family 'encoder'"
        "long.json|long.json: m.num_layers: unknown key for family 'encoder'"
        "seqlen.json|seqlen.json: m.seqlen: unknown key for family 'encoder' .did you mean 'seq_len'.")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 file)
  list(GET case 1 expected)
  ecosim_run(out rc count --model m --model-file ${file})
  string(STRIP "${out}" out)
  if(NOT rc EQUAL 2 OR NOT out MATCHES "^ecosim count: error: [^\n]*${expected}[^\n]*$")
    message(FATAL_ERROR "--model-file ${file}: expected exit 2 and one line with '${expected}', got ${rc}: ${out}")
  endif()
endforeach()
# A file redefining a built-in model changes the built-ins extending it (PVTv2-B1 extends B0): said on stderr when
# one of them is counted (it was silent, under the built-in's name), not when the redefined model itself is.
file(WRITE ${WORKDIR}/redefined.json [[{"pvt_v2_b0": {"family": "hierarchical_vit", "image_size": 224, "in_chans": 3,
  "num_classes": 1000, "embed_dims": [32, 64, 160, 256], "num_heads": [1, 2, 5, 8], "mlp_ratios": [4, 4, 4, 4],
  "sr_ratios": [8, 4, 2, 1], "depths": [2, 2, 2, 2], "patch_kernels": [7, 3, 3, 3], "patch_strides": [4, 2, 2, 2],
  "patch_pads": [3, 1, 1, 1], "mlp_dwconv": true, "mlp_relu": false, "peg": false, "stage_norm": true,
  "final_norm": false, "msa_stages": [], "native_attention": ["sra"]}}]])
ecosim_run(out rc count --model-file redefined.json --model pvt_v2_b1)
if(NOT rc EQUAL 0 OR NOT out MATCHES "note: built-in model 'pvt_v2_b1' extends 'pvt_v2_b0', which redefined.json redefines")
  message(FATAL_ERROR "pvt_v2_b1 over a redefined pvt_v2_b0: expected the note (${rc}):\n${out}")
endif()
ecosim_run(out rc count --model-file redefined.json --model pvt_v2_b0)
if(out MATCHES "note: built-in model")
  message(FATAL_ERROR "the redefined model itself: no note expected (${rc}):\n${out}")
endif()
