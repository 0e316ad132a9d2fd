# `ecosim run --save-inputs DIR` → an independent numpy reference of Performer and Linformer computed from the
# saved q, k, v and random parameters (numpy_attention_reference.py, Debian's /usr/bin/python3 with numpy)
# → `ecosim validate --params DIR --output` passes; the same output with one value moved by 0.05 fails
# (exit 1).
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
set(reference ${CMAKE_CURRENT_LIST_DIR}/numpy_attention_reference.py)
execute_process(COMMAND /usr/bin/python3 -c "import numpy" RESULT_VARIABLE no_numpy OUTPUT_QUIET ERROR_QUIET)
if(no_numpy)
  message(FATAL_ERROR "this test needs numpy for /usr/bin/python3 (scripts/setup.sh installs python3-numpy)")
endif()

function(numpy_output folder out perturb)
  execute_process(COMMAND /usr/bin/python3 ${reference} ${folder} ${out} ${perturb} RESULT_VARIABLE rc
                  ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "numpy reference of ${folder} failed: ${err}")
  endif()
endfunction()

function(expect_validate expected folder out)
  ecosim_run(text rc validate --params ${folder} --output ${out})
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "validate --params ${folder} --output ${out}: exit ${rc}, expected ${expected}:\n${text}")
  endif()
endfunction()

foreach(variant performer linformer)
  file(REMOVE_RECURSE ${WORKDIR}/${variant})
  ecosim_run(text rc run --variant ${variant} --batch 2 --heads 2 --seq 48 --dim 16 --seed 5
             --save-inputs ${variant})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run --save-inputs failed: ${text}")
  endif()
  numpy_output(${variant} ${variant}_numpy.npy 0)
  numpy_output(${variant} ${variant}_moved.npy 0.05)
  expect_validate(0 ${variant} ${variant}_numpy.npy)
  expect_validate(1 ${variant} ${variant}_moved.npy)
endforeach()
