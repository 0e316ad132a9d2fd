# `ecosim train`: the JSON fields of issue 20 (schemes[].scheme, activation_bytes, peak_bytes, ops,
# accel_latency_ms, accel_energy_pj, gpu_ms labelled an estimate; absent in the paper convention), the
# accelerator's energy with fewer and with more DRAM bits than none, the GPU estimate above none's under GACT, the
# default schemes, --max-batch, an export's own batch, agreement of json, csv and --out, and one-line errors with
# no output for a batch overflowing 64-bit byte counts, an unknown scheme, level or bit width, a scheme given
# twice, an unknown optimizer, an unknown accelerator or a bad accelerator file, and a model with unmodelled
# layers; --accel-config prices the step on an accelerator file.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
set(accel_data ${CMAKE_CURRENT_LIST_DIR}/../accel_model/data)
set(onnx_models ${CMAKE_CURRENT_LIST_DIR}/../ops_counter/data/onnx/models)
set(onnx_ops ${CMAKE_CURRENT_LIST_DIR}/../ops_counter/data/onnx/ops)

ecosim_run(json rc train --model resnet18 --batch 4 --optimizer adamw --format json --out report)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "train failed: ${json}")
endif()
string(JSON scheme GET "${json}" schemes 0 scheme)
string(JSON activation GET "${json}" schemes 0 activation_bytes)
string(JSON peak GET "${json}" schemes 0 peak_bytes)
string(JSON forward GET "${json}" schemes 0 ops forward muls)
string(JSON backward GET "${json}" schemes 0 ops backward muls)
string(JSON state GET "${json}" optimizer_state_bytes)
string(JSON params GET "${json}" parameters)
if(NOT scheme STREQUAL "none" OR activation LESS_EQUAL 0 OR peak LESS_EQUAL activation OR backward LESS_EQUAL forward)
  message(FATAL_ERROR "train --format json: unexpected fields: ${json}")
endif()
math(EXPR adamw_state "8 * ${params}")  # two fp32 moments per parameter
if(NOT state EQUAL adamw_state)
  message(FATAL_ERROR "adamw state ${state} B for ${params} parameters")
endif()
foreach(field accel_latency_ms accel_energy_pj gpu_ms)  # priced in the exact convention
  string(JSON value ERROR_VARIABLE missing GET "${json}" schemes 0 ${field})
  if(missing OR NOT value GREATER 0)
    message(FATAL_ERROR "train --format json: '${field}' is '${value}' (${missing})")
  endif()
endforeach()
string(JSON gpu_kind GET "${json}" schemes 0 gpu_ms_kind)
if(NOT gpu_kind MATCHES "^estimate: modelled")
  message(FATAL_ERROR "train: gpu_ms not labelled an estimate: ${gpu_kind}")
endif()
ecosim_run(paper rc train --model resnet18 --batch 4 --scheme none --convention paper --format json)
foreach(absent accel_latency_ms accel_energy_pj gpu_ms)  # the paper convention is no machine's work: never a placeholder
  string(JSON value ERROR_VARIABLE missing GET "${paper}" schemes 0 ${absent})
  if(NOT missing)
    message(FATAL_ERROR "train --convention paper has '${absent}' (${value}), which is not computed")
  endif()
endforeach()

# the accelerator's step energy falls with fewer saved bits only where the DRAM bits saved outweigh the
# compression work: GACT at 2 bits below none, at 8 bits above (8.125 bits an element against the 8-bit floats
# the accelerator keeps in DRAM, plus the quantize and dequantize work)
ecosim_run(priced rc train --model resnet18 --batch 4 --scheme none,gact:2,gact:8 --format json)
foreach(i 0 1 2)
  string(JSON energy_${i} GET "${priced}" schemes ${i} accel_energy_pj)
  string(JSON dram_${i} GET "${priced}" schemes ${i} accel_dram_bits)
endforeach()
if(NOT energy_1 LESS energy_0 OR NOT dram_1 LESS dram_0 OR NOT energy_2 GREATER energy_0 OR NOT dram_2 GREATER dram_0)
  message(FATAL_ERROR "train: accelerator energy none ${energy_0} pJ (${dram_0} DRAM bits), gact:2 ${energy_1} "
                      "(${dram_1}), gact:8 ${energy_2} (${dram_2})")
endif()
# on a GPU autograd keeps its tensors where they were made (no copy to save): a scheme only adds its quantize and
# dequantize kernels, so the estimate grows with every compressing scheme
foreach(i 0 1 2)
  string(JSON gpu_${i} GET "${priced}" schemes ${i} gpu_ms)
endforeach()
if(NOT gpu_1 GREATER gpu_0 OR NOT gpu_2 GREATER gpu_0)
  message(FATAL_ERROR "train: GPU estimate none ${gpu_0} ms, gact:2 ${gpu_1}, gact:8 ${gpu_2}")
endif()

# the default list where each applies on a CNN (no Mesa, no Few-Bit), every scheme below none, compression ops
set(names "")
string(JSON count LENGTH "${json}" schemes)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${json}" schemes ${i} scheme)
  string(JSON bytes GET "${json}" schemes ${i} activation_bytes)
  string(JSON compression GET "${json}" schemes ${i} ops compression muls)
  list(APPEND names ${name})
  if(bytes GREATER activation OR (name MATCHES "actnn|gact" AND compression LESS_EQUAL 0))
    message(FATAL_ERROR "train: scheme ${name} keeps ${bytes} B (none: ${activation}), compression ${compression}")
  endif()
endforeach()
if(NOT names STREQUAL "none;amp;actnn:L3;gact:4")
  message(FATAL_ERROR "train: default schemes on resnet18 are '${names}'")
endif()
file(READ ${WORKDIR}/report/train.json written)
string(JSON written_activation GET "${written}" schemes 0 activation_bytes)
ecosim_run(csv rc train --model resnet18 --batch 4 --optimizer adamw --format csv)
if(NOT written_activation EQUAL activation OR NOT csv MATCHES "\nnone,${activation},${peak},"
   OR NOT EXISTS ${WORKDIR}/report/memory_curve.csv)
  message(FATAL_ERROR "--out and csv disagree with json (${activation} B): ${written_activation}, ${csv}")
endif()
# the memory curves drawn (scripts/plot_train.py) where Debian's matplotlib is installed, a PNG file
execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE no_matplotlib OUTPUT_QUIET ERROR_QUIET)
if(no_matplotlib EQUAL 0)
  file(READ ${WORKDIR}/report/train.png png LIMIT 8 HEX)
  if(NOT png STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "train --out: no PNG train.png (first bytes '${png}')")
  endif()
endif()

# --max-batch: per scheme the largest batch, more with ActNN than without
ecosim_run(json rc train --model resnet18 --scheme none,actnn:L3 --max-batch --memory-gb 4 --format json)
string(JSON none_batch GET "${json}" schemes 0 max_batch)
string(JSON l3_batch GET "${json}" schemes 1 max_batch)
if(NOT rc EQUAL 0 OR none_batch LESS 1 OR l3_batch LESS_EQUAL none_batch)
  message(FATAL_ERROR "train --max-batch: ${rc} ${json}")
endif()
# at a lower resolution: more fits, and the report says which resolution it searched
ecosim_run(json rc train --model resnet18 --scheme none --max-batch --memory-gb 4 --resolution 128 --format json)
string(JSON small_batch GET "${json}" schemes 0 max_batch)
string(JSON resolution ERROR_VARIABLE missing GET "${json}" workload resolution)
if(NOT rc EQUAL 0 OR missing OR NOT resolution EQUAL 128 OR small_batch LESS_EQUAL none_batch)
  message(FATAL_ERROR "train --max-batch --resolution 128: ${rc} ${json}")
endif()

# --onnx: the export's batch (its first input's leading dimension), which ActNN L3 allocates bits over
# (an inference export: its merged norm scales warned on stderr)
execute_process(COMMAND ${EXE} train --onnx ${onnx_models}/transformer_encoder.onnx --scheme actnn:L3 --format json
                RESULT_VARIABLE rc OUTPUT_VARIABLE exported ERROR_QUIET WORKING_DIRECTORY ${WORKDIR})
string(JSON exported_batch ERROR_VARIABLE missing GET "${exported}" workload batch)
if(NOT rc EQUAL 0 OR missing OR NOT exported_batch EQUAL 2)
  message(FATAL_ERROR "train --onnx: exit ${rc}, workload batch '${exported_batch}': ${exported}")
endif()

# --accel-config: the step priced on an accelerator file merged over the built-in one (its DRAM model here)
ecosim_run(configured rc train --model resnet18 --batch 4 --scheme none --format json
           --accel-config ${accel_data}/hbm2.json)
string(JSON latency ERROR_VARIABLE missing GET "${configured}" schemes 0 accel_latency_ms)
if(NOT rc EQUAL 0 OR missing OR NOT latency GREATER 0)
  message(FATAL_ERROR "train --accel-config: exit ${rc}, accel_latency_ms '${latency}': ${configured}")
endif()

# a batch whose saved tensors overflow 64-bit byte counts (2^39 images of ResNet-152), a scheme or optimizer
# not modelled, a model with a layer kind without training rules: exit 2, one line, no partial folder
foreach(case "--model|resnet152|--batch|549755813888|layer .stem.conv.: [^\n]*overflow[^\n]*64 bits"
        "--model|resnet18|--scheme|zip|unknown scheme 'zip'"
        "--model|resnet18|--scheme|actnn|scheme 'actnn' needs a level"
        "--model|resnet18|--scheme|none,actnn:L4|unknown ActNN level 'L4'"
        "--model|resnet18|--scheme|gact:3|3"
        "--model|resnet18|--scheme|fewbit:9|9"
        "--model|resnet18|--scheme|amp,amp|'amp' given twice"
        "--model|resnet18|--gpu|h999|unknown GPU 'h999'"
        "--model|resnet18|--accel|nosuch|unknown accelerator 'nosuch'"
        "--model|resnet18|--accel|bitfusion-45nm|--accel-config|${accel_data}/hbm2.json|not both"
        "--model|resnet18|--accel-config|${accel_data}/unknown_key.json|unknown key"
        "--model|resnet18|--engine|fast|unknown engine 'fast'"
        "--model|resnet18|--max-batch|--max-batch needs --memory-gb"
        "--model|resnet18|--max-batch|--memory-gb|0|--memory-gb: give a size"
        "--model|resnet18|--max-batch|--memory-gb|nan|--memory-gb: give a size"
        "--model|resnet18|--memory-gb|4|--memory-gb needs --max-batch"
        "--model|resnet18|--max-batch|--memory-gb|4|--batch|8|leave out --batch"
        "--model|resnet18|--optimizer|adam|unknown optimizer 'adam'"
        "--model|pvt_v2_b0|layer 'stage1.block0.attn' .sra attention.: its saved tensors and backward are not modelled"
        "--onnx|${onnx_models}/tiny_vit.onnx|--model|resnet18|give --model NAME or --onnx FILE"
        "--scheme|none|give --model NAME or --onnx FILE"
        "--onnx|${onnx_models}/tiny_vit.onnx|--batch|4|--batch applies to --model"
        "--onnx|${onnx_models}/tiny_vit.onnx|--strict|always refuses unknown op types"
        "--onnx|${onnx_models}/tiny_vit.onnx|--max-batch|--memory-gb|4|it needs --model"
        "--onnx|${onnx_ops}/hostile/cycle.onnx|cycle"
        "--onnx|${onnx_ops}/einsum.onnx|unknown op types[^\n]*Einsum ×1")
  string(REPLACE "|" ";" case "${case}")
  list(POP_BACK case expected)
  ecosim_run(out rc train ${case} --out failed)
  string(STRIP "${out}" out)
  if(NOT rc EQUAL 2 OR NOT out MATCHES "^ecosim train: error: [^\n]*${expected}[^\n]*$" OR EXISTS ${WORKDIR}/failed)
    message(FATAL_ERROR "train ${case}: expected exit 2, one line with '${expected}', no folder; got ${rc}: ${out}")
  endif()
endforeach()

# --measure-gpu: the step measured in PyTorch replaces the estimate, which stays beside it. Without a GPU here the
# real interpreter says why and the estimate stays; a stand-in interpreter writing step_time.py's report (what
# a GPU machine's PyTorch would) shows the measured figures taking the estimate's place.
ecosim_run(out rc train --model resnet18 --batch 2 --resolution 64 --scheme none --measure-gpu /usr/bin/python3
           --format json)
if(NOT rc EQUAL 0 OR NOT out MATCHES "the GPU step was not measured" OR NOT out MATCHES "estimate: modelled")
  message(FATAL_ERROR "train --measure-gpu without a GPU: rc ${rc}: ${out}")
endif()
file(WRITE ${WORKDIR}/stand_in_python [=[#!/usr/bin/python3
import json, sys
out = sys.argv[sys.argv.index("--json-out") + 1]
schemes = sys.argv[sys.argv.index("--schemes") + 1].split(",")
json.dump({"schemes": [{"scheme": s, "step_ms": 12.5 + i, "peak_bytes": 1000 + i} for i, s in enumerate(schemes)],
           "saved_activation_bytes": 5, "torch": "2.x", "device_name": "Stand-in GPU"}, open(out, "w"))
]=])
file(CHMOD ${WORKDIR}/stand_in_python PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
# train's JSON report on stdout, its notes apart
function(train_report out_var rc_var err_var)
  execute_process(COMMAND ${EXE} train ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORKDIR})
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${rc_var} ${rc} PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()
train_report(measured rc measured_err --model resnet18 --batch 2 --resolution 64 --scheme none,gact:4,actnn:L3
             --measure-gpu ${WORKDIR}/stand_in_python --format json)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "train --measure-gpu with a stand-in interpreter: rc ${rc}: ${measured}${measured_err}")
endif()
string(JSON none_ms GET "${measured}" schemes 0 gpu_ms)
string(JSON none_kind GET "${measured}" schemes 0 gpu_ms_kind)
string(JSON none_estimate GET "${measured}" schemes 0 gpu_ms_estimate)
string(JSON none_peak GET "${measured}" schemes 0 gpu_peak_bytes_measured)
string(JSON gact_ms GET "${measured}" schemes 1 gpu_ms)
string(JSON gact_kind GET "${measured}" schemes 1 gpu_ms_kind)
string(JSON actnn_kind GET "${measured}" schemes 2 gpu_ms_kind)
string(JSON actnn_estimate ERROR_VARIABLE no_estimate GET "${measured}" schemes 2 gpu_ms_estimate)
string(JSON autograd_saved GET "${measured}" workload autograd_saved_bytes_measured)
if(NOT none_ms EQUAL 12.5 OR NOT gact_ms EQUAL 13.5 OR NOT none_peak EQUAL 1000 OR NOT none_estimate GREATER 0
   OR NOT none_kind MATCHES "^measured: PyTorch 2.x on Stand-in GPU" OR NOT actnn_kind MATCHES "^estimate"
   OR none_kind MATCHES "hooks" OR NOT gact_kind MATCHES "through ecosim.torch's hooks, which take each saved tensor"
   OR NOT no_estimate OR NOT autograd_saved EQUAL 5)
  message(FATAL_ERROR "train --measure-gpu: measured figures not in place: ${measured}")
endif()
# the GPU that ran prices the estimate beside its measurement where CUDA's name of it is a built-in GPU's (and
# --gpu is not given); a card no file lists leaves --gpu's default
string(JSON stand_in_gpu GET "${measured}" workload gpu)
file(READ ${WORKDIR}/stand_in_python stand_in)
string(REPLACE "Stand-in GPU" "NVIDIA H200" stand_in "${stand_in}")
file(WRITE ${WORKDIR}/stand_in_h200 "${stand_in}")
file(CHMOD ${WORKDIR}/stand_in_h200 PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
train_report(on_h200 rc err --model resnet18 --batch 2 --resolution 64 --scheme none --measure-gpu
             ${WORKDIR}/stand_in_h200 --format json)
string(JSON h200_gpu GET "${on_h200}" workload gpu)
train_report(on_l4 rc_l4 err_l4 --model resnet18 --batch 2 --resolution 64 --scheme none --gpu l4 --measure-gpu
             ${WORKDIR}/stand_in_h200 --format json)  # --gpu given: its GPU, whatever ran
string(JSON l4_gpu GET "${on_l4}" workload gpu)
if(NOT rc EQUAL 0 OR NOT h200_gpu STREQUAL "h200" OR NOT stand_in_gpu STREQUAL "h100-sxm" OR NOT rc_l4 EQUAL 0
   OR NOT l4_gpu STREQUAL "l4" OR NOT measured_err MATCHES "no built-in GPU file names the card 'Stand-in GPU'")
  message(FATAL_ERROR "train --measure-gpu: the estimate's GPU: ${h200_gpu} / ${stand_in_gpu} / ${l4_gpu}: "
                      "${on_h200}${err}${measured_err}")
endif()
# a wrong pricing option fails before the (slow) measurement: the interpreter never runs
file(WRITE ${WORKDIR}/stand_in_marker "#!/bin/sh\ntouch ${WORKDIR}/interpreter_ran\n")
file(CHMOD ${WORKDIR}/stand_in_marker PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
foreach(wrong "--accel;nope" "--engine;nope" "--gpu;h300")
  file(REMOVE ${WORKDIR}/interpreter_ran)
  ecosim_run(out rc train --model resnet18 --batch 2 --resolution 64 --scheme none ${wrong}
             --measure-gpu ${WORKDIR}/stand_in_marker)
  if(rc EQUAL 0 OR EXISTS ${WORKDIR}/interpreter_ran)
    message(FATAL_ERROR "train ${wrong} --measure-gpu: not refused before the measurement: ${out}")
  endif()
endforeach()
# the network is built at the length train prices: a stand-in reporting the zoo entry's seq_len it was handed
file(WRITE ${WORKDIR}/stand_in_seq_len [=[#!/usr/bin/python3
import json, sys
zoo = json.load(open(sys.argv[sys.argv.index("--zoo") + 1]))
json.dump({"schemes": [{"scheme": "none", "step_ms": 1.0, "peak_bytes": 1}],
           "saved_activation_bytes": next(iter(zoo.values()))["seq_len"], "torch": "2.x", "device_name": "Stand-in GPU"},
          open(sys.argv[sys.argv.index("--json-out") + 1], "w"))
]=])
file(CHMOD ${WORKDIR}/stand_in_seq_len PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
train_report(measured rc err --model bert_base --seq-len 64 --scheme none --measure-gpu ${WORKDIR}/stand_in_seq_len
             --format json)
string(JSON seq_len_built GET "${measured}" workload autograd_saved_bytes_measured)
if(NOT rc EQUAL 0 OR NOT seq_len_built EQUAL 64)
  message(FATAL_ERROR "train --measure-gpu --seq-len 64: the network was built at ${seq_len_built}: ${measured}")
endif()
# --gpu-device: the estimate's GPU by the name CUDA gives the card (step_time.py passes torch's): the built-in file
# that lists it, else --gpu's default with a note; not beside --gpu
execute_process(COMMAND ${EXE} train --model resnet18 --batch 2 --resolution 64 --scheme none --gpu-device "NVIDIA H200"
                --format json RESULT_VARIABLE rc OUTPUT_VARIABLE by_device ERROR_VARIABLE err)
string(JSON device_gpu GET "${by_device}" workload gpu)
execute_process(COMMAND ${EXE} train --model resnet18 --batch 2 --resolution 64 --scheme none --gpu-device "Tesla T4"
                --format json RESULT_VARIABLE rc_unknown OUTPUT_VARIABLE unknown_device ERROR_VARIABLE unknown_err)
string(JSON unknown_gpu GET "${unknown_device}" workload gpu)
if(NOT rc EQUAL 0 OR NOT device_gpu STREQUAL "h200" OR NOT rc_unknown EQUAL 0 OR NOT unknown_gpu STREQUAL "h100-sxm"
   OR NOT unknown_err MATCHES "no built-in GPU file names the card 'Tesla T4'")
  message(FATAL_ERROR "train --gpu-device: ${by_device}${err} / ${unknown_device}${unknown_err}")
endif()
foreach(case "--model;resnet18;--measure-gpu;python3|absolute path"
             "--model;resnet18;--gpu;l4;--gpu-device;NVIDIA H200|give --gpu or --gpu-device, not both"
             "--onnx;${onnx_models}/small_cnn.onnx;--measure-gpu;/usr/bin/python3|it needs --model")
  string(REPLACE "|" ";" parts "${case}")
  list(POP_BACK parts message)
  ecosim_run(out rc train ${parts})
  if(rc EQUAL 0 OR NOT out MATCHES "${message}")
    message(FATAL_ERROR "train ${parts}: expected an error naming '${message}', got: ${out}")
  endif()
endforeach()

# The DeiT-Ti export and the zoo's DeiT-Ti keep the same activation bytes under every scheme: an imported attention
# block's q, k, v and probabilities take the zoo attention's roles (Mesa's 8-bit codes, autocast's fp16 copies).
foreach(scheme none amp actnn:L3 gact:4 mesa fewbit:2)
  ecosim_run(from_export rc train --onnx ${onnx_models}/deit_tiny.onnx --scheme ${scheme} --format json)
  string(JSON export_bytes GET "${from_export}" schemes 0 activation_bytes)
  ecosim_run(from_zoo rc2 train --model deit_tiny --scheme ${scheme} --format json)
  string(JSON zoo_bytes GET "${from_zoo}" schemes 0 activation_bytes)
  if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT export_bytes EQUAL zoo_bytes)
    message(FATAL_ERROR "train ${scheme}: the DeiT-Ti export keeps ${export_bytes} B, the zoo's ${zoo_bytes} B")
  endif()
endforeach()

# train.csv prints the JSON's numbers exactly: the same doubles (the shortest text reading back as one, as compare.csv
# and sweep.csv; the JSON may print more digits of it)
ecosim_run(as_json rc train --model resnet18 --scheme none --format json)
string(JSON json_energy GET "${as_json}" schemes 0 accel_energy_pj)
ecosim_run(as_csv rc2 train --model resnet18 --scheme none --format csv)
string(REGEX MATCH "\nnone,[^\n]*" csv_row "${as_csv}")
string(REPLACE "," ";" csv_fields "${csv_row}")
list(GET csv_fields 17 csv_energy)
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT csv_energy EQUAL json_energy)  # the same double
  message(FATAL_ERROR "train --format csv accel_energy_pj ${csv_energy}, JSON ${json_energy}")
endif()

# a step whose peak memory exceeds the GPU's is priced but marked (gpu_fits false, a warning naming the GPU):
# ResNet-50 at batch 1024 peaks near 90 GB against the L4's 24 GiB; at batch 8 it fits
foreach(case "1024;OFF" "8;ON")  # (CMake reads JSON booleans as ON/OFF)
  list(GET case 0 batch)
  list(GET case 1 fits_wanted)
  set(warning "")
  if(fits_wanted STREQUAL "OFF")
    set(warning "warning: none: the step.s peak memory")
  endif()
  execute_process(COMMAND ${EXE} train --model resnet50 --batch ${batch} --scheme none --gpu l4 --format json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
  string(JSON fits GET "${json}" schemes 0 gpu_fits)
  string(JSON peak GET "${json}" schemes 0 peak_bytes)
  if(NOT rc EQUAL 0 OR NOT fits STREQUAL fits_wanted OR (warning AND NOT err MATCHES "${warning}.*exceeds the L4")
     OR (NOT warning AND err MATCHES "exceeds"))
    message(FATAL_ERROR "train resnet50 batch ${batch} on the L4: peak ${peak} B, gpu_fits ${fits}: ${err}")
  endif()
endforeach()

# an inference export merges initializers of equal values, a fresh model's norm scales among them: PVTv2-b0's
# export reads 4 merged scales, counted once (6,144 parameters short, without a word); said on stderr
execute_process(COMMAND ${EXE} train --onnx ${onnx_models}/pvt_v2_b0.onnx --scheme none --format json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0 OR NOT err MATCHES "4 norm scale\\(s\\) read by several norms \\('patch_norms.0.weight' first\\)")
  message(FATAL_ERROR "train --onnx pvt_v2_b0: expected the merged-scales warning (exit ${rc}): ${err}")
endif()
