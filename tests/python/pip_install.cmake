# python.pip_install: the README's way in on Debian 12 (PEP 668): a virtual environment with
# --system-site-packages, `pip install ./python` (offline: --no-index, numpy from Debian) building the extension in
# the project's build folder (ECOSIM_BUILD_DIR), then `import ecosim` from outside the source tree, whose count of
# a zoo model must equal the ecosim binary's. Given PYTHON, SOURCE, BUILD, EXE and WORKDIR.
set(venv ${WORKDIR}/venv)
file(REMOVE_RECURSE ${venv})
execute_process(COMMAND ${PYTHON} -m venv --system-site-packages ${venv} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python3 -m venv failed: ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ECOSIM_BUILD_DIR=${BUILD} ${venv}/bin/pip install --no-index --quiet
                        ${SOURCE}/python RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install ./python failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${venv}/bin/python -c
                        "import ecosim; print(ecosim.__file__); print(ecosim.count(model='resnet18')['muls'])"
                WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import ecosim from the virtual environment failed: ${err}")
endif()
string(REPLACE "\n" ";" lines "${out}")
list(GET lines 0 where)
list(GET lines 1 muls)
if(NOT where MATCHES "^${venv}/")
  message(FATAL_ERROR "ecosim was imported from ${where}, not from the virtual environment")
endif()
execute_process(COMMAND ${EXE} count --model resnet18 --format json OUTPUT_VARIABLE json RESULT_VARIABLE rc)
string(JSON expected GET "${json}" muls)
if(NOT rc EQUAL 0 OR NOT muls STREQUAL expected)
  message(FATAL_ERROR "the installed package counts ${muls} muls, the ecosim binary ${expected}")
endif()
message("installed in ${where}; resnet18: ${muls} muls as the binary")
