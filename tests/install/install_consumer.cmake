# Script of the test install.consumer: installs the build BUILD_DIR (configuration CONFIG) into
# WORKDIR/prefix, checks the package files are there, configures and builds CONSUMER_DIR against it with
# find_package(ecosim) (GENERATOR, MAKE_PROGRAM, CXX, CXX_FLAGS and LAUNCHER of the main build), runs the
# consumer and the installed ecosim.
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  message("${what}: ok\n${out}")
endfunction()

set(prefix ${WORKDIR}/prefix)
set(build ${WORKDIR}/build)
file(REMOVE_RECURSE ${prefix} ${build})

run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${CONFIG})
foreach(file lib/cmake/ecosim/ecosimConfig.cmake lib/cmake/ecosim/ecosimConfigVersion.cmake
             lib/cmake/ecosim/ecosimTargets.cmake include/ecosim/ops_counter/op_counter.hpp
             include/ecosim/traces/trace_writer.hpp bin/ecosim)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install has no ${file}")
  endif()
endforeach()

run_step("configure the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${build} -G ${GENERATOR}
         -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_CXX_FLAGS=${CXX_FLAGS}
         -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_PREFIX_PATH=${prefix})
run_step("build the consumer" ${CMAKE_COMMAND} --build ${build} --config ${CONFIG})
run_step("run the consumer" ${build}/ecosim_consumer ${WORKDIR}/attention.jsonl)
run_step("run the installed ecosim" ${prefix}/bin/ecosim --version)
