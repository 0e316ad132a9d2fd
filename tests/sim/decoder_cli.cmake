# Decoder LLMs on the command line: `count --hf-config` of Llama-3-8B's config.json reports its published
# parameters (8.03 B), a 1 GiB fp16 KV cache at 8,192 tokens and the same counts as `--model llama3_8b`; a decode
# step's counts are a prefill's difference; under --scope attention its figures are marked the whole model's; `trace --hf-config` writes a trace that counts the same; hostile
# phase options and configs are one-line errors naming the option or field.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
set(HF ${CMAKE_CURRENT_LIST_DIR}/../ops_counter/data/hf)

ecosim_count_json(hf --hf-config ${HF}/llama3_8b.json --phase prefill --seq 8192)
ecosim_count_json(zoo --model llama3_8b --phase prefill --seq 8192)
string(JSON params GET "${hf}" params)
string(JSON kv GET "${hf}" kv_cache_bytes)
string(JSON macs GET "${hf}" macs_per_token)
string(JSON hf_muls GET "${hf}" muls)
string(JSON zoo_muls GET "${zoo}" muls)
string(JSON hf_path GET "${hf}" workload hf_config)
math(EXPR params_off_permille "(${params} - 8030000000) * 1000 / 8030000000")
if(NOT params_off_permille EQUAL 0 OR NOT kv EQUAL 1073741824 OR NOT hf_muls EQUAL zoo_muls OR macs LESS 8000000000)
  message(FATAL_ERROR "llama3_8b config: params ${params}, kv ${kv}, muls ${hf_muls} vs ${zoo_muls}, macs ${macs}")
endif()
if(NOT hf_path STREQUAL "${HF}/llama3_8b.json")
  message(FATAL_ERROR "workload.hf_config: ${hf_path}")
endif()

# under --scope attention the counts are the attention layers' while the decoder's figures stay the whole model's,
# marked so
ecosim_count_json(attention_only --model llama3_8b --phase prefill --seq 8192 --scope attention)
string(JSON scoped_params GET "${attention_only}" params)
string(JSON scoped_muls GET "${attention_only}" muls)
string(JSON scope GET "${attention_only}" decoder_figures_scope)
string(JSON zoo_scope ERROR_VARIABLE unscoped GET "${zoo}" decoder_figures_scope)
if(NOT scoped_params EQUAL params OR NOT scope STREQUAL "model" OR NOT unscoped OR NOT scoped_muls LESS zoo_muls)
  message(FATAL_ERROR "--scope attention: params ${scoped_params}, scope '${scope}', muls ${scoped_muls}")
endif()

# prefill of 33 = prefill of 32 + one decode step over 32 (exact convention, all operations)
ecosim_count_json(p33 --model llama2_7b --phase prefill --seq 33 --convention exact)
ecosim_count_json(p32 --model llama2_7b --phase prefill --seq 32 --convention exact)
ecosim_count_json(d1 --model llama2_7b --phase decode --context 32 --convention exact)
foreach(kind muls adds)
  string(JSON a GET "${p33}" ${kind})
  string(JSON b GET "${p32}" ${kind})
  string(JSON c GET "${d1}" ${kind})
  math(EXPR sum "${b} + ${c}")
  if(NOT sum EQUAL a)
    message(FATAL_ERROR "${kind}: prefill 32 (${b}) + decode 1 (${c}) != prefill 33 (${a})")
  endif()
endforeach()

ecosim_run(out rc trace --hf-config ${HF}/pythia_1_4b.json --phase decode --context 100 --tokens 4 -o p.jsonl)
ecosim_count_json(traced --trace p.jsonl)
ecosim_count_json(direct --hf-config ${HF}/pythia_1_4b.json --phase decode --context 100 --tokens 4 --convention exact)
string(JSON traced_muls GET "${traced}" muls)
string(JSON direct_muls GET "${direct}" muls)
if(NOT rc EQUAL 0 OR NOT traced_muls EQUAL direct_muls)
  message(FATAL_ERROR "trace --hf-config: rc ${rc}, ${traced_muls} muls against ${direct_muls}: ${out}")
endif()

# --attention native with a config: the model's own attention (Mistral's window), as the zoo entry's
ecosim_count_json(own_config --hf-config ${HF}/mistral_7b.json --attention native --phase decode --context 10000)
ecosim_count_json(own_zoo --model mistral_7b --attention native --phase decode --context 10000)
string(JSON config_muls GET "${own_config}" muls)
string(JSON zoo_muls GET "${own_zoo}" muls)
if(NOT config_muls EQUAL zoo_muls)
  message(FATAL_ERROR "--hf-config --attention native: ${config_muls} muls against the zoo's ${zoo_muls}")
endif()

file(WRITE ${WORKDIR}/gqa.json
     [[{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 7,
        "intermediate_size": 14336, "num_hidden_layers": 32, "vocab_size": 128256,
        "max_position_embeddings": 8192, "hidden_act": "silu"}]])
file(WRITE ${WORKDIR}/moe.json [[{"model_type": "mixtral", "hidden_size": 4096}]])
foreach(case
    "count --model llama3_8b --phase sideways|--phase must be 'prefill' or 'decode'"
    "count --model llama3_8b --phase decode|--phase decode needs --context N"
    "count --model llama3_8b --phase prefill --context 5|--context does not apply here"
    "count --model llama3_8b --phase decode --context 5 --seq 9|--seq does not apply here"
    "count --model llama3_8b --seq 9|--seq does not apply here"
    "count --model llama3_8b --phase prefill --seq 1000000000000|exceeds 'max_position_embeddings' (8192)"
    "count --model llama3_8b --phase decode --context 8192|a context of 8193 tokens exceeds"
    "count --model llama3_8b --kv-dtype fp12|--kv-dtype: unknown data type 'fp12'"
    "count --model bert_base --phase prefill|model 'bert_base' is not a decoder"
    "count --model pvt_v2_b0 --kv-dtype int8|--kv-dtype does not apply here"
    # (a recurrent variant keeps no KV cache: its fp32 state would be reported beside an int8 label)
    "count --model llama3_8b --attention performer --phase decode --context 8 --kv-dtype int8|its recurrent state is fp32"
    "count --model llama3_8b --hf-config gqa.json|give one of --model, --hf-config"
    "count --hf-config gqa.json|'num_key_value_heads' (7) must divide 'num_attention_heads' (32)"
    "count --hf-config moe.json|field 'model_type': 'mixtral' is not modelled"
    "count --hf-config missing.json|missing.json"
    "count --layer attention --seq 8 --phase decode|--phase does not apply here"
    "compare --model llama3_8b --phase decode --context 8 --weight-dtype int4|--weight-dtype does not apply here"
    "compare --model llama3_8b --phase decode --context 8 --kv-dtype int8|--kv-dtype does not apply here"
    # (a trace's records carry their operands as computed: the header would claim a precision nothing used)
    "trace --model llama3_8b --phase decode --context 8 --kv-dtype int8 -o t.jsonl|--kv-dtype does not apply here"
    "trace --model llama3_8b --phase decode --context 8 --weight-dtype int4 -o t.jsonl|--weight-dtype does not apply"
    "crossover --model llama3_8b --contexts 8,16 --weight-dtype int4|unrecognised option '--weight-dtype'"
    # (a zoo model's windows and reduction ratios are its own: given, they would be ignored)
    "count --model swin_tiny --attention lsa --window 12|--window does not apply here"
    "count --model twins_svt_s --attention lsa --grid-height 8|--grid-height does not apply here"
    "compare --model pvt_v2_b0 --variants sra --sr-ratio 2|--sr-ratio does not apply here"
    # (a model without attention: every variant would count the same model)
    "count --model resnet50 --attention performer|model 'resnet50' has no attention to swap"
    "compare --model resnet18 --variants msa,performer|model 'resnet18' has no attention")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 command)
  list(GET parts 1 expected)
  separate_arguments(args UNIX_COMMAND "${command}")
  ecosim_run(out rc ${args})
  string(FIND "${out}" "${expected}" at)
  if(rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "ecosim ${command}: rc ${rc}, expected '${expected}' in: ${out}")
  endif()
endforeach()

# compare --hf-config: a tiny GQA config's whole-model comparison runs; a variant without a causal form is refused,
# the recurrent ones run
file(WRITE ${WORKDIR}/tiny.json
     [[{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 100, "max_position_embeddings": 64,
        "hidden_act": "silu"}]])
ecosim_run(out rc compare --hf-config tiny.json --variants msa --out rep)
file(READ ${WORKDIR}/rep/compare.json report)
string(JSON hf_path GET "${report}" workload hf_config)
if(NOT rc EQUAL 0 OR NOT hf_path STREQUAL "tiny.json")
  message(FATAL_ERROR "compare --hf-config: rc ${rc}, workload.hf_config '${hf_path}': ${out}")
endif()
ecosim_run(out rc compare --hf-config tiny.json --variants linformer --out rep2)
string(FIND "${out}" "has no causal form" at)
if(rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "compare --hf-config --variants linformer: rc ${rc}: ${out}")
endif()
# Performer and EcoFormer serve it in their causal (prefix-sum) forms
ecosim_run(out rc compare --hf-config tiny.json --variants performer,ecoformer --out rep3)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare --hf-config --variants performer,ecoformer: rc ${rc}: ${out}")
endif()

# compare --phase: a decode step over a cache of N — MSA's accelerator energy grows with N, Performer's state keeps
# its own flat; the workload names the phase; phase options without a decoder model are refused
foreach(ctx 8 60)
  ecosim_run(out rc compare --hf-config tiny.json --phase decode --context ${ctx} --variants msa,performer
             --engine closed-form --out dec${ctx})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "compare --phase decode --context ${ctx}: rc ${rc}: ${out}")
  endif()
  file(READ ${WORKDIR}/dec${ctx}/compare.json report)
  string(JSON phase GET "${report}" workload phase)
  string(JSON context GET "${report}" workload context)
  string(JSON msa_${ctx} GET "${report}" variants 0 accel_energy_pj)
  string(JSON performer_${ctx} GET "${report}" variants 1 accel_energy_pj)
  if(NOT phase STREQUAL "decode" OR NOT context EQUAL ${ctx} OR NOT out MATCHES "decode: 1 token.s. over a cache of ${ctx},")
    message(FATAL_ERROR "compare --phase decode: workload ${phase} ${context}: ${out}")
  endif()
endforeach()
if(NOT msa_60 GREATER msa_8 OR NOT performer_60 STREQUAL performer_8)
  message(FATAL_ERROR "decode energy: MSA ${msa_8} -> ${msa_60} (must grow), Performer ${performer_8} -> ${performer_60} (flat)")
endif()
# a decoder phase compares one sequence unless --batch is given (not the published layer's batch of 16)
string(JSON batch_default GET "${report}" workload batch)
ecosim_run(out rc compare --hf-config tiny.json --phase decode --context 8 --variants msa --batch 3
           --engine closed-form --out dec8b3)
file(READ ${WORKDIR}/dec8b3/compare.json report)
string(JSON batch_given GET "${report}" workload batch)
string(JSON msa_8b3 GET "${report}" variants 0 accel_energy_pj)
if(NOT rc EQUAL 0 OR NOT batch_default EQUAL 1 OR NOT batch_given EQUAL 3 OR NOT msa_8b3 GREATER msa_8)
  message(FATAL_ERROR "compare --phase batch: default ${batch_default} (want 1), --batch 3 gave ${batch_given}, "
                      "MSA energy ${msa_8} -> ${msa_8b3} (must grow): rc ${rc}: ${out}")
endif()
ecosim_run(out rc compare --hf-config tiny.json --variants msa --engine closed-form --out decdefault)
file(READ ${WORKDIR}/decdefault/compare.json report)
string(JSON batch_prefill GET "${report}" workload batch)
string(JSON phase_prefill GET "${report}" workload phase)
string(JSON seq_prefill GET "${report}" workload seq)
# the default prefill's length is recorded: tiny.json's max_position_embeddings (64)
if(NOT rc EQUAL 0 OR NOT batch_prefill EQUAL 1 OR NOT phase_prefill STREQUAL "prefill" OR NOT seq_prefill EQUAL 64
   OR NOT out MATCHES "prefill of 64 tokens")
  message(FATAL_ERROR "compare of a decoder's default prefill: batch ${batch_prefill} (want 1), ${phase_prefill} of "
                      "${seq_prefill} (want prefill of 64): rc ${rc}: ${out}")
endif()
# a windowed model past its window (Mistral's sliding_window): its own attention and 'sliding' compare, one sequence
# (the model's phase checked with its own attention, not with MSA swapped in); MSA named is refused for the window
file(WRITE ${WORKDIR}/windowed.json
     [[{"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 100, "max_position_embeddings": 64,
        "hidden_act": "silu", "sliding_window": 16}]])
ecosim_run(out rc compare --hf-config windowed.json --phase decode --context 40 --variants sliding,native
           --engine closed-form --out windowed)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare past the window with sliding,native: rc ${rc}: ${out}")
endif()
file(READ ${WORKDIR}/windowed/compare.json report)
string(JSON windowed_batch GET "${report}" workload batch)
string(JSON sliding_energy GET "${report}" variants 0 accel_energy_pj)
string(JSON native_energy GET "${report}" variants 1 accel_energy_pj)
if(NOT windowed_batch EQUAL 1 OR NOT sliding_energy STREQUAL native_energy)
  message(FATAL_ERROR "windowed decode: batch ${windowed_batch} (want 1), sliding ${sliding_energy} pJ against "
                      "the model's own ${native_energy} pJ (the same attention)")
endif()
# --phase prefill without --seq: the model's context, or its sliding window where shorter (16 of 64), recorded
ecosim_run(out rc compare --hf-config windowed.json --phase prefill --variants native --engine closed-form
           --out windowed_prefill)
file(READ ${WORKDIR}/windowed_prefill/compare.json report)
string(JSON windowed_seq GET "${report}" workload seq)
if(NOT rc EQUAL 0 OR NOT windowed_seq EQUAL 16)
  message(FATAL_ERROR "windowed default prefill: seq ${windowed_seq} (want the window, 16): rc ${rc}: ${out}")
endif()
ecosim_run(out rc compare --hf-config windowed.json --phase decode --context 40 --variants msa --out windowed_msa)
if(rc EQUAL 0 OR NOT out MATCHES "exceeds 'sliding_window' \\(16\\)")
  message(FATAL_ERROR "compare --variants msa past the window: rc ${rc}: ${out}")
endif()
# crossover compares with MSA: a windowed model past its window is refused naming the window, within it runs
ecosim_run(out rc crossover --hf-config windowed.json --contexts 8,32 --variants sliding)
if(rc EQUAL 0 OR NOT out MATCHES "attends a sliding window of 16 tokens.*--contexts up to 16")
  message(FATAL_ERROR "crossover past the window: rc ${rc}: ${out}")
endif()
ecosim_run(out rc crossover --hf-config windowed.json --contexts 8,16 --variants performer)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "crossover within the window: rc ${rc}: ${out}")
endif()
# crossover's GPU time at a head width FlashAttention and cuDNN do not take (12) prices MSA's attention op by op,
# and says so on stderr (it was silent)
file(READ ${WORKDIR}/tiny.json tiny_config)
string(REPLACE [["hidden_size": 64]] [["hidden_size": 48]] narrow_config "${tiny_config}")
file(WRITE ${WORKDIR}/narrow_heads.json "${narrow_config}")
ecosim_run(out rc crossover --hf-config narrow_heads.json --contexts 16,32 --variants performer)
string(CONCAT op_by_op "warning: msa at a context of 16: its GPU time prices attention op by op, not fused \\(flash2 "
                     "supports head widths that are multiples of 8 up to 256, not 12\\)")
if(NOT rc EQUAL 0 OR NOT out MATCHES "${op_by_op}")
  message(FATAL_ERROR "crossover at head width 12: no op-by-op warning: rc ${rc}: ${out}")
endif()
# crossover --tech-table prices the op energy column; the accelerator's columns price its own units as every replay
# does (a table decomposing exp into 10× the operations moved its energy, not its cycles, before)
file(READ ${CMAKE_CURRENT_LIST_DIR}/../../ops_counter/data/tech_45nm.json builtin_table)
string(REPLACE [["exp":  {"ops": {"mul": 6, "add": 6}]] [["exp":  {"ops": {"mul": 60, "add": 60}]] costly_exp
       "${builtin_table}")
if(costly_exp STREQUAL builtin_table)
  message(FATAL_ERROR "the built-in tech table's exp decomposition was not found to change")
endif()
file(WRITE ${WORKDIR}/costly_exp.json "${costly_exp}")
foreach(table builtin costly)
  set(table_option)
  if(table STREQUAL "costly")
    set(table_option --tech-table costly_exp.json)
  endif()
  ecosim_run(json rc crossover --hf-config tiny.json --phase prefill --contexts 16,32 --variants performer
             --format json ${table_option})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "crossover ${table_option}: rc ${rc}: ${json}")
  endif()
  string(JSON ${table}_op GET "${json}" variants 0 points 0 op_energy_pj_per_token)
  string(JSON ${table}_accel GET "${json}" variants 0 points 0 accel_energy_pj_per_token)
  string(JSON ${table}_latency GET "${json}" variants 0 points 0 accel_latency_ms_per_token)
endforeach()
if(NOT costly_op GREATER builtin_op OR NOT costly_accel STREQUAL builtin_accel OR
   NOT costly_latency STREQUAL builtin_latency)
  message(FATAL_ERROR "crossover --tech-table: op energy ${builtin_op} -> ${costly_op} (must grow), accelerator "
                      "${builtin_accel} -> ${costly_accel} pJ and ${builtin_latency} -> ${costly_latency} ms (unchanged)")
endif()
ecosim_run(out rc compare --phase decode --context 64 --variants msa)
if(rc EQUAL 0 OR NOT out MATCHES "--phase does not apply here")
  message(FATAL_ERROR "compare --phase without a decoder model: rc ${rc}: ${out}")
endif()

# sweep: a {"hf_config": FILE} workload is replayed as the config's decoder (its rows name the file)
file(WRITE ${WORKDIR}/spec.json [=[{
  "axes": {"array.rows": [8, 16]},
  "workloads": [{"hf_config": "tiny.json", "batch": [1, 2]}],
  "variants": [{"name": "msa"}]
}]=])
ecosim_run(out rc sweep spec.json --out sweep --jobs 1)
file(READ ${WORKDIR}/sweep/sweep.csv csv)
string(REGEX MATCHALL "tiny.json b[12]" rows "${csv}")
list(LENGTH rows n)
if(NOT rc EQUAL 0 OR NOT n EQUAL 4)
  message(FATAL_ERROR "sweep of an hf_config workload: rc ${rc}, ${n} rows: ${out}\n${csv}")
endif()

# a GPU time over a KV cache the GPU cannot hold is said: Qwen2-7B at batch 64 over 64k tokens needs 240 GB of cache
# beside 15 GB of weights, against the H100 SXM's 86 GB; at 1k it fits
ecosim_run(out rc crossover --model qwen2_7b --batch 64 --variants performer --contexts 1k,64k --format json)
if(NOT rc EQUAL 0 OR NOT out MATCHES "warning: msa at a context of 65536: [^\n]*exceed the H100 SXM")
  message(FATAL_ERROR "crossover beyond the GPU's memory: expected the warning, got ${rc}: ${out}")
endif()
string(FIND "${out}" "{" json_start)
string(SUBSTRING "${out}" ${json_start} -1 json)
string(JSON fits_1k GET "${json}" variants 0 points 0 gpu_fits)
string(JSON fits_64k GET "${json}" variants 0 points 1 gpu_fits)
if(NOT fits_1k STREQUAL "ON" OR NOT fits_64k STREQUAL "OFF")
  message(FATAL_ERROR "crossover gpu_fits: 1k ${fits_1k}, 64k ${fits_64k} (expected ON, OFF)")
endif()
# each variant's first context that does not fit is said: on the L4 (25.8 GB) Reformer's cache (keys per query
# head) overflows at 32k where MSA's fits, MSA's at 128k (only MSA's was said, at 128k)
ecosim_run(out rc crossover --model qwen2_7b --batch 2 --variants performer,reformer --contexts 1k,32k,128k --gpu l4)
if(NOT rc EQUAL 0 OR NOT out MATCHES "warning: msa at a context of 131072: [^\n]*exceed the L4"
   OR NOT out MATCHES "warning: reformer at a context of 32768: [^\n]*exceed the L4" OR out MATCHES "warning: performer")
  message(FATAL_ERROR "crossover beyond the L4's memory: expected msa's and reformer's warnings, got ${rc}: ${out}")
endif()
# and by compare: at batch 64 over 64k tokens MSA's KV cache does not fit the H100 SXM (weights and cache as count
# reports them, against its memory), Performer's state does; one sequence of 1k fits, over 8 decode steps too (the
# weights are held once, however often a step reads them)
ecosim_count_json(big --model qwen2_7b --phase decode --context 65536 --batch 64)
string(JSON big_kv GET "${big}" kv_cache_bytes)
string(JSON big_weights GET "${big}" weight_read_bytes)
math(EXPR big_gb "(${big_kv} + ${big_weights}) / 1000000000")
ecosim_run(out rc compare --model qwen2_7b --phase decode --context 65536 --batch 64 --variants msa,performer
           --engine closed-form --out fits64k)
file(READ ${WORKDIR}/fits64k/compare.json report)
string(JSON msa_fits GET "${report}" variants 0 gpu_fits)
string(JSON performer_fits GET "${report}" variants 1 gpu_fits)
if(NOT rc EQUAL 0 OR NOT big_gb GREATER 86 OR NOT msa_fits STREQUAL "OFF" OR NOT performer_fits STREQUAL "ON"
   OR NOT out MATCHES "warning: msa: [^\n]*exceed the H100 SXM" OR out MATCHES "warning: performer")
  message(FATAL_ERROR "compare beyond the GPU's memory (${big_gb} GB for MSA): msa ${msa_fits}, performer "
                      "${performer_fits}, rc ${rc}: ${out}")
endif()
ecosim_run(out rc compare --model qwen2_7b --phase decode --context 1024 --tokens 8 --variants msa
           --engine closed-form --out fits1k)
file(READ ${WORKDIR}/fits1k/compare.json report)
string(JSON msa_fits GET "${report}" variants 0 gpu_fits)
if(NOT rc EQUAL 0 OR NOT msa_fits STREQUAL "ON" OR out MATCHES "warning")
  message(FATAL_ERROR "compare of one sequence at 1k, 8 steps (the weights held once): gpu_fits ${msa_fits}, rc ${rc}: "
                      "${out}")
endif()
