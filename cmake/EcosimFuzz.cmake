# ecosim_add_fuzz_target(<name> <source> LIBS <libs...>): a libFuzzer executable with the address and
# undefined-behaviour sanitizers, built only with -DECOSIM_FUZZ=ON (clang). scripts/fuzz_all.sh builds and
# runs every one.
function(ecosim_add_fuzz_target name source)
  if(NOT ECOSIM_FUZZ)
    return()
  endif()
  cmake_parse_arguments(F "" "" "LIBS" ${ARGN})
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE ${F_LIBS})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
endfunction()
