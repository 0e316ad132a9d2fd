# `--onnx` on the command line: count (the exported PVTv2-B0 as the zoo's with native attention, a swap naming the
# found block in the per-layer report, unknown ops warned, reported in the JSON and refused under --strict,
# hostile files one error line; a swap a block cannot take, or a model without a block, refused with the reason), trace (a trace counting as the model does) and
# compare (kernels at the found shapes count as the export's own attention; a decode step and a causal block
# counted, not run, and said so).
set(onnx ${CMAKE_CURRENT_LIST_DIR}/../ops_counter/data/onnx)
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
function(require_equal what a b)
  if(NOT "${a}" STREQUAL "${b}")
    message(FATAL_ERROR "${what}: ${a} against ${b}")
  endif()
endfunction()

foreach(convention paper exact)
  ecosim_count_json(imported --onnx ${onnx}/models/pvt_v2_b0.onnx --convention ${convention})
  ecosim_count_json(zoo --model pvt_v2_b0 --attention native --convention ${convention})
  foreach(kind muls adds)
    string(JSON a GET "${imported}" ${kind})
    string(JSON b GET "${zoo}" ${kind})
    require_equal("count --onnx pvt_v2_b0.onnx ${kind} (${convention}) against the zoo" ${a} ${b})
  endforeach()
endforeach()

ecosim_run(out rc count --onnx ${onnx}/ops/attention_mask.onnx --attention performer --features 8 --per-layer)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"attention\":\"performer\"" OR NOT out MATCHES "\nscores\\.\\.context\\[performer\\] ")
  message(FATAL_ERROR "count --onnx --attention performer: rc ${rc}, no row for the swapped block: ${out}")
endif()

ecosim_run(out rc count --onnx ${onnx}/ops/unknown_op.onnx)
if(NOT rc EQUAL 0 OR NOT out MATCHES "warning: [^\n]*Foo ×2")
  message(FATAL_ERROR "count --onnx with an unknown op: expected a warning naming Foo ×2, got ${rc}: ${out}")
endif()
# the report itself says what was left uncounted (a script reading the JSON sees no stderr)
ecosim_count_json(report --onnx ${onnx}/ops/unknown_op.onnx)
string(JSON foo GET "${report}" workload unknown_ops Foo)
require_equal("count --onnx unknown_op.onnx: the JSON's workload.unknown_ops.Foo" ${foo} 2)
ecosim_count_json(report --onnx ${onnx}/ops/attention_einsum.onnx)
string(JSON unmatched GET "${report}" workload unmatched_attention 0)
require_equal("count --onnx attention_einsum.onnx: the JSON's workload.unmatched_attention" ${unmatched} softmax)
foreach(case "ops/unknown_op.onnx;--strict|Foo ×2" "ops/hostile/cycle.onnx|cycle" "ops/hostile/negative_dim.onnx|negative"
             "ops/hostile/deep_nesting.onnx|nested deeper" "models/deit_tiny.onnx;--onnx-max-bytes;1000|--onnx-max-bytes"
             "models/bert_tiny.onnx;--attention;ecoformer|support"
             "ops/decode_step.onnx;--attention;ecoformer|1 queries over 32768 keys[^\n]*one token set"
             "ops/causal_where.onnx;--attention;linformer|causal[^\n]*linformer has no causal form"
             "models/tiny_vit.onnx;--rules;fvcore;--convention;exact|--rules fvcore[^\n]*--convention paper"
             "models/tiny_vit.onnx;--rules;fvcore;--attention;msa|no fvcore count"
             "models/tiny_vit.onnx;--rules;flops|--rules must be 'mmcv' or 'fvcore'"
             "models/small_cnn.onnx;--attention;performer|no attention block to swap for performer"
             "ops/absent.onnx|cannot open[^\n]*No such file or directory")
  string(REPLACE "|" ";" case "${case}")
  list(POP_BACK case expected)
  list(POP_FRONT case file)
  ecosim_run(out rc count --onnx ${onnx}/${file} ${case})
  string(STRIP "${out}" out)
  if(NOT rc EQUAL 2 OR NOT out MATCHES "^ecosim count: error: [^\n]*${expected}[^\n]*$")
    message(FATAL_ERROR "count --onnx ${file} ${case}: expected exit 2 and one line with '${expected}', got ${rc}: ${out}")
  endif()
endforeach()

ecosim_run(out rc count --onnx ${onnx}/ops/absent.onnx)
if(out MATCHES "onnx-max-bytes")
  message(FATAL_ERROR "count --onnx of a missing file points at the size limit: ${out}")
endif()

# issue 19: an attention the importer does not recognise is warned about, counted, and refuses a swap; the Llama
# block's causal attention refuses Linformer (no causal form) and becomes causal MSA or causal EcoFormer
ecosim_run(out rc count --onnx ${onnx}/ops/attention_unrecognised.onnx)
if(NOT rc EQUAL 0 OR NOT out MATCHES "warning: [^\n]*attention softmax[^\n]*'softmax'")
  message(FATAL_ERROR "count --onnx attention_unrecognised.onnx: expected a warning naming 'softmax', got ${rc}: ${out}")
endif()
foreach(case "ops/attention_unrecognised.onnx;msa;2|cannot swap attention for msa[^\n]*'softmax'"
             "ops/attention_einsum.onnx;msa;2|cannot swap attention for msa[^\n]*'softmax'"
             "models/llama_block.onnx;linformer;2|linformer has no causal form"
             "models/llama_block.onnx;ecoformer;0|\"attention_blocks\":1"
             "models/llama_block.onnx;msa;0|\"attention_blocks\":1")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 file)
  list(GET case 1 variant)
  list(GET case 2 expected_rc)
  list(GET case 3 expected)
  ecosim_run(out rc count --onnx ${onnx}/${file} --attention ${variant})
  if(NOT rc EQUAL ${expected_rc} OR NOT out MATCHES "${expected}")
    message(FATAL_ERROR "count --onnx ${file} --attention ${variant}: expected exit ${expected_rc} and '${expected}', "
                        "got ${rc}: ${out}")
  endif()
endforeach()

ecosim_run(out rc trace --onnx ${onnx}/models/deit_tiny.onnx --convention paper -o deit.jsonl)
ecosim_count_json(traced --trace deit.jsonl)
ecosim_count_json(counted --onnx ${onnx}/models/deit_tiny.onnx)
string(JSON a GET "${traced}" muls)
string(JSON b GET "${counted}" muls)
require_equal("trace --onnx then count --trace against count --onnx (muls)" ${a} ${b})

file(REMOVE_RECURSE ${WORKDIR}/reports)
ecosim_run(out rc compare --onnx ${onnx}/models/tiny_vit.onnx --variants native,msa,ecoformer --support 8
           --engine closed-form --device cpu --out reports)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORKDIR}/reports/ecoformer.jsonl)
  message(FATAL_ERROR "compare --onnx failed: ${out}")
endif()
file(READ ${WORKDIR}/reports/compare.json report)
string(JSON native_muls GET "${report}" variants 0 muls)
string(JSON msa_muls GET "${report}" variants 1 muls)
string(JSON msa_source GET "${report}" variants 1 source)
require_equal("compare --onnx: the MSA kernel at the found shapes against the export's attention (muls)"
              ${msa_muls} ${native_muls})
if(NOT msa_source MATCHES "^kernel")
  message(FATAL_ERROR "compare --onnx: msa did not run its kernel (source '${msa_source}')")
endif()

# A decode step (1 query over 32,768 keys, issue 18): MSA at the block's shapes is the export's own attention,
# counted (the kernels need as many keys as queries: compare says so instead of running them at wrong sizes);
# Linformer projects all 32,768 keys. A causal block swapped to MSA is counted, not run, for its causality.
file(REMOVE_RECURSE ${WORKDIR}/decode)
ecosim_run(out rc compare --onnx ${onnx}/ops/decode_step.onnx --variants native,msa,linformer --engine closed-form
           --device cpu --out decode)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare --onnx decode_step.onnx failed: ${out}")
endif()
file(READ ${WORKDIR}/decode/compare.json report)
string(JSON native_muls GET "${report}" variants 0 muls)
string(JSON msa_muls GET "${report}" variants 1 muls)
string(JSON msa_source GET "${report}" variants 1 source)
string(JSON linformer_muls GET "${report}" variants 2 muls)
require_equal("compare --onnx decode_step.onnx: msa against the export's attention (muls)" ${msa_muls} ${native_muls})
if(NOT msa_source MATCHES "^analytic; 1 block not run: the kernels need as many keys as queries \\(here 32768 keys for 1")
  message(FATAL_ERROR "compare --onnx decode_step.onnx: msa's source does not say why no kernel ran: '${msa_source}'")
endif()
math(EXPR projections "2 * 12 * 64 * 256 * 32768")  # E·K and E·V over the 32,768 keys, 12 heads of 64, k = 256
if(linformer_muls LESS projections)
  message(FATAL_ERROR "compare --onnx decode_step.onnx: linformer ${linformer_muls} muls, its projections alone are ${projections}")
endif()
file(REMOVE_RECURSE ${WORKDIR}/causal)
ecosim_run(out rc compare --onnx ${onnx}/ops/causal_add.onnx --variants native,msa --engine closed-form --device cpu
           --out causal)
file(READ ${WORKDIR}/causal/compare.json report)
string(JSON msa_source GET "${report}" variants 1 source)
string(JSON msa_muls GET "${report}" variants 1 muls)
if(NOT rc EQUAL 0 OR NOT msa_source STREQUAL "kernel x1+analytic")
  message(FATAL_ERROR "compare --onnx causal_add.onnx: rc ${rc}, msa source '${msa_source}' (its causal CPU kernel should run): ${out}")
endif()
# 2 heads, 21 of the 6 × 6 pairs each, head width 4: scores and context 4 muls per pair, scale 1, softmax 1
require_equal("compare --onnx causal_add.onnx: causal msa muls (exact)" ${msa_muls} 420)

# sweep: an {"onnx": FILE} workload, its attention blocks swapped for each variant; a hostile file fails the spec.
file(WRITE ${WORKDIR}/sweep.json "{\"workloads\": [{\"onnx\": \"${onnx}/models/tiny_vit.onnx\"}],
  \"variants\": [{\"name\": \"msa\"}, {\"name\": \"performer\", \"features\": [16]}]}")
file(REMOVE_RECURSE ${WORKDIR}/swept)
ecosim_run(out rc sweep sweep.json --out swept)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORKDIR}/swept/sweep.csv)
  message(FATAL_ERROR "sweep with an ONNX workload failed: ${out}")
endif()
file(STRINGS ${WORKDIR}/swept/sweep.csv rows REGEX "^[0-9]+,onnx [^,]*/tiny_vit.onnx,(msa|performer),[^\n]*,$")
list(LENGTH rows n)
require_equal("sweep rows of the ONNX workload without an error" ${n} 2)
# --resume keeps rows only for the same inputs: the labels name an ONNX workload by its path, so a
# different model under the same path must be refused (the rows left as they were), not kept.
file(COPY_FILE ${onnx}/models/tiny_vit.onnx ${WORKDIR}/model.onnx)
file(WRITE ${WORKDIR}/resume_sweep.json "{\"workloads\": [{\"onnx\": \"model.onnx\"}], \"variants\": [{\"name\": \"msa\"}]}")
file(REMOVE_RECURSE ${WORKDIR}/resumed)
ecosim_run(out rc sweep resume_sweep.json --out resumed)
ecosim_run(same_out same_rc sweep resume_sweep.json --out resumed --resume)
if(NOT rc EQUAL 0 OR NOT same_rc EQUAL 0 OR NOT same_out MATCHES "1 kept")
  message(FATAL_ERROR "sweep --resume of an unchanged ONNX workload should keep its row: ${rc} ${out} / ${same_rc} ${same_out}")
endif()
file(READ ${WORKDIR}/resumed/sweep.csv rows_before)
file(COPY_FILE ${onnx}/models/deit_tiny.onnx ${WORKDIR}/model.onnx)
ecosim_run(out rc sweep resume_sweep.json --out resumed --resume)
file(READ ${WORKDIR}/resumed/sweep.csv rows_after)
if(rc EQUAL 0 OR NOT out MATCHES "model.onnx changed" OR NOT rows_after STREQUAL rows_before)
  message(FATAL_ERROR "sweep --resume after model.onnx was replaced: expected a refusal naming it, got ${rc}: ${out}")
endif()
file(WRITE ${WORKDIR}/hostile_sweep.json "{\"workloads\": [{\"onnx\": \"${onnx}/ops/hostile/cycle.onnx\"}],
  \"variants\": [{\"name\": \"msa\"}]}")
ecosim_run(out rc sweep hostile_sweep.json --out hostile_swept)
if(rc EQUAL 0 OR NOT out MATCHES "cycle" OR EXISTS ${WORKDIR}/hostile_swept)
  message(FATAL_ERROR "sweep with a cyclic ONNX workload: expected an error and no folder, got ${rc}: ${out}")
endif()

# compare --onnx of a causal decoder with the default variants: Linformer (no causal form) is left out with the
# reason, on stderr and in the report's provenance, and the others compare; named with --variants it is required.
file(REMOVE_RECURSE ${WORKDIR}/decoder)
ecosim_run(out rc compare --onnx ${onnx}/ops/causal_add.onnx --engine closed-form --device cpu --out decoder)
if(NOT rc EQUAL 0 OR NOT out MATCHES "note: linformer left out of the comparison[^\n]*no causal form")
  message(FATAL_ERROR "compare --onnx causal_add.onnx (default variants): expected a note leaving linformer out, got ${rc}: ${out}")
endif()
file(READ ${WORKDIR}/decoder/compare.json report)
string(JSON reason GET "${report}" provenance variants_left_out linformer)
string(JSON count LENGTH "${report}" variants)
if(NOT reason MATCHES "no causal form" OR count LESS 2)
  message(FATAL_ERROR "compare --onnx causal_add.onnx: left out '${reason}', ${count} variants compared")
endif()
ecosim_run(out rc compare --onnx ${onnx}/ops/causal_add.onnx --variants msa,linformer --engine closed-form --device cpu
           --out decoder_named)
if(NOT rc EQUAL 2 OR NOT out MATCHES "linformer has no causal form")
  message(FATAL_ERROR "compare --onnx causal_add.onnx --variants msa,linformer: expected the error, got ${rc}: ${out}")
endif()
