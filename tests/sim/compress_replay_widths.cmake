# `ecosim compress --trace` then `ecosim replay` (issue 18, finding 6), and a float16 --input: the activation and what compression
# keeps move at their stored width, and the uncompressed and compressed paths are reported side by side, never
# summed; GACT keeps a tensor raw at its own width. ActNN at 2 bits keeps per element 2 code bits and per group of 256 a bf16 (zero, range) pair; the
# uncompressed path stores and loads the whole fp32 (or fp16) activation.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
set(samples 64)
set(sample_elements 256)
set(group_size 256)       # ActNN's group (kernels/README.md)
set(metadata_bits 32)     # per group: zero and range, bf16 each
set(code_bits 2)
math(EXPR elements "${samples} * ${sample_elements}")
math(EXPR groups "(${elements} + ${group_size} - 1) / ${group_size}")
# compressed path: store + load of the codes and the metadata
math(EXPR compressed_bits "2 * (${elements} * ${code_bits} + ${groups} * ${metadata_bits})")

# check(<message> <condition...>): fails the test with <message> unless the if() condition holds.
macro(check message_text)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "${message_text}")
  endif()
endmacro()

foreach(dtype_bits "fp32;32" "fp16;16")
  list(GET dtype_bits 0 dtype)
  list(GET dtype_bits 1 bits)
  ecosim_run(out rc compress --scheme actnn --bits 2 --shape ${samples}x${sample_elements} --dtype ${dtype}
             --trace actnn_${dtype}.jsonl)
  check("compress --dtype ${dtype} --trace failed: ${out}" rc EQUAL 0)
  math(EXPR uncompressed_bits "2 * ${elements} * ${bits}")  # store + load of the activation
  foreach(engine systemc closed-form)
    execute_process(COMMAND ${EXE} replay actnn_${dtype}.jsonl --engine ${engine} --format json RESULT_VARIABLE rc
                    OUTPUT_VARIABLE json ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
    check("replay actnn_${dtype}.jsonl --engine ${engine}: ${err}" rc EQUAL 0)
    # No summed total: the totals live under "alternatives" only.
    string(JSON summed ERROR_VARIABLE absent GET "${json}" dram_bits)
    check("replay ${dtype} (${engine}) reports a top-level dram_bits (${summed}): the two paths summed" absent)
    string(JSON name0 GET "${json}" alternatives 0 name)
    string(JSON name1 GET "${json}" alternatives 1 name)
    check("alternatives '${name0}', '${name1}'" name0 STREQUAL "uncompressed" AND name1 STREQUAL "compressed")
    string(JSON got_uncompressed GET "${json}" alternatives 0 dram_bits)
    string(JSON got_compressed GET "${json}" alternatives 1 dram_bits)
    check("${dtype} (${engine}): uncompressed path moves ${got_uncompressed} DRAM bits, not ${uncompressed_bits}" got_uncompressed EQUAL uncompressed_bits)
    check("${dtype} (${engine}): compressed path moves ${got_compressed} DRAM bits, not ${compressed_bits}" got_compressed EQUAL compressed_bits)
    string(JSON ratio GET "${json}" ratios 0 dram_bits)
    math(EXPR expected_ratio_x1000 "1000 * ${uncompressed_bits} / ${compressed_bits}")
    math(EXPR got_ratio_x1000 "1000 * ${got_uncompressed} / ${got_compressed}")
    string(REGEX REPLACE "^([0-9]+)\\.([0-9][0-9][0-9]).*" "\\1\\2" reported_ratio_x1000 "${ratio}")
    check("${dtype} (${engine}): reported DRAM ratio ${ratio}, expected ${expected_ratio_x1000}/1000" reported_ratio_x1000 EQUAL expected_ratio_x1000)
    message("${dtype} (${engine}): DRAM bits uncompressed ${got_uncompressed}, compressed ${got_compressed}, "
            "ratio ${ratio}")
  endforeach()
  set(uncompressed_${dtype} ${got_uncompressed})
  set(ratio_x1000_${dtype} ${got_ratio_x1000})
endforeach()

# fp32 against 2 bits + metadata: well above 10× (about 15×), not the 1.37× of 8-bit operand pricing.
check("fp32 ActNN 2-bit DRAM ratio ${ratio_x1000_fp32}/1000 is not above 10" ratio_x1000_fp32 GREATER 10000)
# fp32 and fp16 activations replay to different traffic: 2:1 on the uncompressed path.
math(EXPR twice_fp16 "2 * ${uncompressed_fp16}")
check("uncompressed fp32 ${uncompressed_fp32} bits, fp16 ${uncompressed_fp16}" uncompressed_fp32 EQUAL twice_fp16)

# Table and CSV: a total per path (its kind column empty: a total is of no one kind) and their ratio, no row that
# sums them.
ecosim_run(table rc replay actnn_fp32.jsonl)
check("replay (table): ${table}" rc EQUAL 0)
foreach(line "\ntotal uncompressed +0 " "\ntotal compressed +0 " "\nuncompressed / compressed: DRAM bits [0-9.]+×")
  check("replay (table) lacks '${line}':\n${table}" table MATCHES "${line}")
endforeach()
check("replay (table) prints a summed total:\n${table}" NOT table MATCHES "\ntotal +[0-9]")
ecosim_run(csv rc replay actnn_fp32.jsonl --format csv)
check("replay (csv): ${csv}" rc EQUAL 0)
foreach(line "\nalternative,op,kind," "\nuncompressed,total,," "\ncompressed,total,,"
        "\n# ratio uncompressed / compressed: DRAM bits [0-9.]+×")
  check("replay --format csv lacks '${line}':\n${csv}" csv MATCHES "${line}")
endforeach()
check("replay --format csv prints a summed total:\n${csv}" NOT csv MATCHES "\ntotal,")

# count --trace would sum the alternatives: it is refused, naming them.
ecosim_run(counted rc count --trace actnn_fp32.jsonl)
check("count --trace of a trace with alternatives: rc ${rc}:\n${counted}"
      NOT rc EQUAL 0 AND counted MATCHES "alternatives .uncompressed, compressed.")

# A timeline draws one replay: refused for a trace whose alternatives are replayed one by one.
ecosim_run(timeline rc replay actnn_fp32.jsonl --timeline t.json)
check("replay --timeline of a trace with alternatives: rc ${rc}:\n${timeline}"
      NOT rc EQUAL 0 AND timeline MATCHES "--timeline draws one replay" AND NOT EXISTS ${WORKDIR}/t.json)

# A float16 .npy --input is compressed as the fp16 tensor it is (its bytes, its ratio) unless --dtype says
# otherwise (written by Debian's numpy; skipped without it).
execute_process(COMMAND /usr/bin/python3 -c "import numpy as np; np.save('x16.npy', np.ones((3, 1000), np.float16))"
                RESULT_VARIABLE no_numpy WORKING_DIRECTORY ${WORKDIR} OUTPUT_QUIET ERROR_QUIET)
if(NOT no_numpy)
  foreach(case "|fp16|6000" "--dtype;fp32|fp32|12000")
    string(REPLACE "|" ";" parts "${case}")
    list(GET parts -1 expected_bytes)
    list(GET parts -2 expected_dtype)
    list(REMOVE_AT parts -1 -2)
    ecosim_run(out rc compress --scheme actnn --bits 4 --input x16.npy ${parts} --format json)
    check("compress --input x16.npy ${parts}: ${out}" rc EQUAL 0)
    string(JSON dtype GET "${out}" dtype)
    string(JSON input_bytes GET "${out}" input_bytes)
    check("compress --input x16.npy ${parts}: ${dtype}, ${input_bytes} B, expected ${expected_dtype}, ${expected_bytes}"
          dtype STREQUAL expected_dtype AND input_bytes EQUAL expected_bytes)
  endforeach()
  # an fp32 value beyond fp16's range under --dtype fp16 is said to overflow it (it was called a NaN or Inf of the
  # input's own)
  execute_process(COMMAND /usr/bin/python3 -c "import numpy as np; np.save('big.npy', np.array([1, 2, 7e4, 3], 'f4'))"
                  WORKING_DIRECTORY ${WORKDIR})
  ecosim_run(out rc compress --scheme actnn --bits 2 --input big.npy --dtype fp16)
  if(rc EQUAL 0 OR NOT out MATCHES "element 2 \\(70000\\) overflows fp16" OR out MATCHES "non-finite")
    message(FATAL_ERROR "compress of 70000 as fp16: rc ${rc}: ${out}")
  endif()
endif()

# GACT under an average budget of 16 bits: an fp16 or bf16 activation fits raw (16 bits, nothing lost), an fp32
# one does not (32 bits) and is quantized at 8 bits, the widest choice below the budget.
foreach(dtype_raw "fp16;1" "bf16;1" "fp32;0")
  list(GET dtype_raw 0 dtype)
  list(GET dtype_raw 1 raw)
  ecosim_run(json rc compress --scheme gact --bits 16 --shape ${samples}x${sample_elements} --dtype ${dtype}
             --format json)
  check("compress --scheme gact --bits 16 --dtype ${dtype} failed: ${json}" rc EQUAL 0)
  string(JSON input_bytes GET "${json}" input_bytes)
  string(JSON storage_bytes GET "${json}" storage_bytes)
  string(JSON max_error GET "${json}" max_error)
  if(raw)
    check("gact 16 bits on ${dtype}: stored ${storage_bytes} of ${input_bytes} bytes, error ${max_error}: not kept raw"
          storage_bytes EQUAL input_bytes AND max_error EQUAL 0)
  else()
    math(EXPR eight_bit_bytes "${elements} + ${groups} * ${metadata_bits} / 8")
    check("gact 16 bits on fp32: stored ${storage_bytes} bytes, not 8-bit codes + metadata (${eight_bit_bytes})"
          storage_bytes EQUAL eight_bit_bytes)
  endif()
endforeach()
