# `ecosim run` end to end: its instrumented muls/adds equal `ecosim count --convention exact --no-proj` for
# every variant, its --trace counts the same, .npy input works, and bad .npy input fails with an error line.
function(ecosim_json out_var)
  execute_process(COMMAND ${EXE} ${ARGN} --format json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ecosim ${ARGN} failed (${rc}): ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(muls_adds out_var json)
  string(JSON muls GET "${json}" muls)
  string(JSON adds GET "${json}" adds)
  set(${out_var} "${muls}/${adds}" PARENT_SCOPE)
endfunction()

function(expect_failure what)
  execute_process(COMMAND ${EXE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORKDIR})
  if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$" OR NOT err MATCHES "error:")
    message(FATAL_ERROR "${what}: expected a clean failure with an error line, got '${rc}'\n${err}")
  endif()
  message("${what}: ${err}")
endfunction()

# A float32 .npy of `count` values 0.747 (bytes '????'): version byte 1, minor 1 and a 257-byte header, so
# no byte is zero (CMake strings cannot hold NUL).
function(write_npy path shape count)
  string(ASCII 147 magic)
  string(ASCII 1 one)
  set(dict "{'descr': '<f4', 'fortran_order': False, 'shape': (${shape}), }")
  string(LENGTH "${dict}" length)
  math(EXPR pad "256 - ${length}")
  string(REPEAT " " ${pad} spaces)
  string(REPEAT "????" ${count} data)
  file(WRITE ${WORKDIR}/${path} "${magic}NUMPY${one}${one}${one}${one}${dict}${spaces}\n${data}")
endfunction()

# Each variant takes only its own parameters (another variant's is an error).
set(params_msa "")
set(params_performer --features 32)
set(params_linformer --proj-k 16)
set(params_reformer --hashes 3 --chunk 16)
set(params_ecoformer --bits 8 --support 10)
set(params_klsh-ecoformer --bits 8 --support 10)
set(params_fp-ecoformer --bits 8 --support 10)
set(params_lsh-ecoformer --bits 8)  # random hyperplanes: no anchors
set(params_bi-ecoformer "")         # codes are the signs of the features: neither bits nor anchors
foreach(variant msa performer linformer reformer ecoformer lsh-ecoformer klsh-ecoformer bi-ecoformer fp-ecoformer)
  set(shape --batch 2 --heads 3 --seq 45 --dim 16 ${params_${variant}})
  ecosim_json(run_out run --variant ${variant} ${shape} --device cpu --trace run_${variant}.jsonl)
  ecosim_json(count_out count --layer attention --attention ${variant} --convention exact --no-proj ${shape})
  ecosim_json(trace_out count --trace run_${variant}.jsonl)
  muls_adds(ran "${run_out}")
  muls_adds(counted "${count_out}")
  muls_adds(traced "${trace_out}")
  if(NOT ran STREQUAL counted OR NOT traced STREQUAL counted)
    message(FATAL_ERROR "${variant}: run ${ran}, count ${counted}, run's trace ${traced} (muls/adds)")
  endif()
  string(JSON error GET "${run_out}" error_vs_msa)
  message("${variant}: ${ran} muls/adds from run, count and trace; error_vs_msa ${error}")
endforeach()

write_npy(q.npy "1, 2, 5, 4" 40)
write_npy(k6.npy "1, 2, 6, 4" 48)
write_npy(short.npy "1, 2, 5, 4" 39)
ecosim_json(npy_out run --variant msa --input q.npy,q.npy,q.npy --device cpu)
string(JSON seq GET "${npy_out}" seq)
string(JSON error GET "${npy_out}" error_vs_msa)
if(NOT seq EQUAL 5 OR NOT error EQUAL 0)
  message(FATAL_ERROR "run --input q.npy: expected seq 5 and error_vs_msa 0, got ${npy_out}")
endif()
file(WRITE ${WORKDIR}/text.npy "not a numpy file")
expect_failure("mismatched shapes" run --variant msa --input q.npy,k6.npy,q.npy --device cpu)
expect_failure("truncated data" run --variant msa --input q.npy,short.npy,q.npy --device cpu)
expect_failure("bad magic" run --variant msa --input text.npy,q.npy,q.npy --device cpu)
expect_failure("two files" run --variant msa --input q.npy,q.npy --device cpu)
expect_failure("shape option disagrees" run --variant msa --input q.npy,q.npy,q.npy --seq 6 --device cpu)

# --causal: causal MSA is its own reference (error 0) and computes 64·65/2 of the 64² score pairs a head (scores
# and context: D muls each, the scale and the softmax's normalisation one each, as ops_counter counts a causal
# block); Performer and EcoFormer run their prefix-sum forms; a variant without a causal kernel is refused with the
# reason.
ecosim_json(causal run --variant msa --causal --seq 64 --heads 2 --dim 32)
string(JSON error GET "${causal}" error_vs_msa)
string(JSON flag GET "${causal}" causal)
string(JSON muls GET "${causal}" muls)
math(EXPR expected "2 * (64 * 65 / 2) * (2 * 32 + 2)")
if(NOT error EQUAL 0 OR NOT flag STREQUAL "ON" OR NOT muls EQUAL expected)
  message(FATAL_ERROR "run --causal msa: error ${error}, causal ${flag}, muls ${muls} (expected ${expected})")
endif()
ecosim_json(causal_performer run --variant performer --causal --seq 64 --features 16)
ecosim_json(causal_ecoformer run --variant ecoformer --causal --seq 64)
string(JSON flag GET "${causal_ecoformer}" causal)
if(NOT flag)
  message(FATAL_ERROR "run --causal ecoformer: causal ${flag}")
endif()
expect_failure("run --causal reformer" run --variant reformer --causal --seq 64)

# --decode-steps: the last T tokens decoded one at a time after a prefill of the others; EcoFormer's steps are
# the causal run's rows bit for bit and its recurrent state keeps its size as the context grows, where MSA's
# K/V cache grows by 2·D·4 bytes a token per (batch, head)
foreach(n 100 200)
  ecosim_json(eco_${n} run --variant ecoformer --causal --seq ${n} --heads 2 --dim 16 --decode-steps 4 --device cpu)
  ecosim_json(msa_${n} run --variant msa --causal --seq ${n} --heads 2 --dim 16 --decode-steps 4 --device cpu)
  string(JSON eco_state_${n} GET "${eco_${n}}" decode state_bytes)
  string(JSON eco_diff_${n} GET "${eco_${n}}" decode max_abs_diff_vs_causal_rows)
  string(JSON msa_state_${n} GET "${msa_${n}}" decode state_bytes)
  if(NOT eco_diff_${n} EQUAL 0)
    message(FATAL_ERROR "EcoFormer decode steps differ from the causal run's rows: ${eco_diff_${n}}")
  endif()
endforeach()
math(EXPR msa_growth "${msa_state_200} - ${msa_state_100}")
math(EXPR msa_expected "100 * 2 * 2 * 16 * 4")
if(NOT eco_state_100 EQUAL eco_state_200 OR NOT msa_growth EQUAL msa_expected)
  message(FATAL_ERROR "decode state: EcoFormer ${eco_state_100} -> ${eco_state_200} (constant), MSA grew ${msa_growth} "
                      "(want ${msa_expected})")
endif()
expect_failure("--decode-steps without --causal" run --variant msa --seq 16 --decode-steps 2 --device cpu)
expect_failure("--decode-steps leaving no prompt" run --variant msa --causal --seq 16 --decode-steps 16 --device cpu)
expect_failure("--decode-steps leaving fewer tokens than EcoFormer's anchors"
               run --variant ecoformer --causal --seq 30 --decode-steps 20 --device cpu)
