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
