# What `ecosim compare` prints is for a person: every line fits 120 columns (bytes, so columns, counted) with
# the longest variant name (klsh-ecoformer) beside a count-only variant (sra, "analytic (no kernel)"); the first
# line names the workload (batch, tokens, heads, head width), the next the variants' parameters; the table's
# text columns are sized to their longest entry (every row's source starts where the header's "source" does,
# every row is as long as the header), its column titles are distinct; the published ratios, which belong to
# another workload, are left out with the reason (the workload of sim/data/published_accelerator.json); no
# provenance line reaches standard output, while compare.json and compare.csv still carry the provenance; the
# last line points to the reports; with Debian's python3-matplotlib the chart compare.png is among them.
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST)
set(published_json ${CMAKE_CURRENT_LIST_DIR}/../../sim/data/published_accelerator.json)
file(REMOVE_RECURSE ${WORKDIR}/out)
set(args compare --device cpu --variants msa,klsh-ecoformer,sra --batch 1 --heads 2 --seq 64 --dim 16
         --engine closed-form --out out)
execute_process(COMMAND ${EXE} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare failed (${rc}): ${err}")
endif()
file(READ ${WORKDIR}/out/compare.json json)
file(READ ${published_json} published)
string(REPLACE ";" "," out "${out}")
string(REGEX MATCHALL "[^\n]*\n" all_lines "${out}")

# every line within 120 columns, none of them provenance
foreach(line IN LISTS all_lines)
  string(LENGTH "${line}" length)
  if(length GREATER 121)  # with its newline
    message(FATAL_ERROR "a line of ${length} characters:\n${line}\n${out}")
  endif()
endforeach()
foreach(provenance "# " "command_line" "ecosim_version" "tech_table" "pj_per_op" "\"array\"")
  string(FIND "${out}" "${provenance}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "provenance ('${provenance}') on standard output:\n${out}")
  endif()
endforeach()

# the workload and the parameters, as compare.json records them
if(NOT out MATCHES "^workload: one attention layer, batch 1, 64 tokens, 2 heads, head width 16, on bitfusion-45nm\n")
  message(FATAL_ERROR "the first line does not name the workload:\n${out}")
endif()
string(JSON bits GET "${json}" provenance variant_parameters klsh-ecoformer bits)
string(JSON support GET "${json}" provenance variant_parameters klsh-ecoformer support)
string(JSON sr_ratio GET "${json}" provenance variant_parameters sra sr_ratio)
set(klsh "klsh-ecoformer bits=${bits} support=${support}")
if(NOT out MATCHES "\nparameters: [^\n]*${klsh}[^\n]*sra [^\n]*sr_ratio=${sr_ratio}")
  message(FATAL_ERROR "no parameters line with ${klsh}, sra sr_ratio=${sr_ratio}:\n${out}")
endif()

# the table: aligned text columns, distinct titles
string(REGEX MATCH "\nvariant [^\n]*\n([^\n]+\n)+" table "\n${out}")
string(REGEX MATCHALL "[^\n]+" lines "${table}")
list(GET lines 0 header)
string(FIND "${header}" " source " source_at)
string(LENGTH "${header}" width)
string(JSON count LENGTH "${json}" variants)
math(EXPR last "${count} - 1")
set(sources "")
foreach(i RANGE ${last})
  string(JSON variant GET "${json}" variants ${i} name)
  string(JSON source GET "${json}" variants ${i} source)
  list(APPEND sources "${source}")
  math(EXPR n "${i} + 1")
  list(GET lines ${n} line)
  string(FIND "${line}" " ${source} " at)
  string(LENGTH "${line}" length)
  if(NOT line MATCHES "^${variant} " OR NOT at EQUAL source_at OR NOT length EQUAL width)
    message(FATAL_ERROR "row ${variant}: source at ${at} (header ${source_at}), ${length} characters (header "
                        "${width})\n${header}\n${line}")
  endif()
endforeach()
if(NOT sources MATCHES "^kernel " OR NOT sources MATCHES "no kernel")
  message(FATAL_ERROR "the test needs a kernel row and a count-only row: ${sources}")
endif()
string(REGEX REPLACE "  +" ";" titles "${header}")
string(STRIP "${titles}" titles)
set(distinct ${titles})
list(REMOVE_DUPLICATES distinct)
list(LENGTH titles n_titles)
list(LENGTH distinct n_distinct)
if(NOT n_titles EQUAL n_distinct OR NOT "lat/MSA" IN_LIST titles OR NOT "E/MSA" IN_LIST titles)
  message(FATAL_ERROR "column titles not distinct or ratios missing: ${titles}")
endif()

# the published ratios: another workload's, left out with the reason
if("paper lat" IN_LIST titles)
  message(FATAL_ERROR "published ratios shown for a workload they do not belong to:\n${out}")
endif()
string(JSON p_batch GET "${published}" workload batch)
string(JSON p_seq GET "${published}" workload seq)
string(JSON p_dim GET "${published}" workload dim)
string(JSON p_accelerator GET "${published}" workload accelerator)
set(published_layer
    "one attention layer, batch ${p_batch}, ${p_seq} tokens,[^\n]*head width ${p_dim}, on[ \n]+${p_accelerator}")
if(NOT out MATCHES "\npublished ratios not shown: they are for ${published_layer}\n")
  message(FATAL_ERROR "the legend does not say why the published ratios are left out:\n${out}")
endif()

# the provenance, in the files
string(JSON command_line GET "${json}" provenance command_line)
string(JSON mul_pj GET "${json}" provenance tech_table pj_per_op mul.fp32)
string(JSON accelerator GET "${json}" provenance accelerator name)
string(JSON engine GET "${json}" provenance engine)
if(NOT command_line MATCHES "^ecosim compare --device cpu --variants msa,klsh-ecoformer,sra .*--out out$"
   OR NOT mul_pj GREATER 0 OR NOT accelerator STREQUAL "bitfusion-45nm" OR NOT engine STREQUAL "closed-form")
  message(FATAL_ERROR "compare.json provenance: '${command_line}', mul.fp32 ${mul_pj}, ${accelerator}, ${engine}")
endif()
file(READ ${WORKDIR}/out/compare.csv csv)
set(head "^# ecosim_version: [^\n]*\n# command_line: ecosim compare [^\n]*\n")
if(NOT csv MATCHES "${head}(# [a-z_]+: [^\n]*\n)*# tech_table: {")
  message(FATAL_ERROR "compare.csv has no provenance head:\n${csv}")
endif()

# the pointer to the reports, naming the chart only when it was drawn
list(GET all_lines -1 pointer)
if(NOT pointer MATCHES "^reports in out/: compare.csv, compare.json ")
  message(FATAL_ERROR "the last line does not point to the reports: ${pointer}")
endif()
string(FIND "${pointer}" "compare.png" names_png)
if(EXISTS ${WORKDIR}/out/compare.png AND names_png EQUAL -1)
  message(FATAL_ERROR "compare.png was drawn but the pointer does not name it: ${pointer}")
elseif(NOT EXISTS ${WORKDIR}/out/compare.png AND NOT names_png EQUAL -1)
  message(FATAL_ERROR "the pointer names compare.png, which was not drawn: ${pointer}")
endif()
execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE no_matplotlib OUTPUT_QUIET ERROR_QUIET)
if(NOT no_matplotlib)
  if(NOT EXISTS ${WORKDIR}/out/compare.png)
    message(FATAL_ERROR "compare.png was not drawn: ${err}")
  endif()
  file(READ ${WORKDIR}/out/compare.png head LIMIT 8 HEX)
  if(NOT head STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "compare.png is missing or not a PNG (starts '${head}'): ${err}")
  endif()
endif()
