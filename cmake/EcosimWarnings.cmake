# Warning, -Werror and sanitizer flags shared by every ecosim target (ecosim_target_defaults).
if(ECOSIM_SANITIZE)
  # Every report aborts (UBSan would otherwise print and carry on, and the test would still pass).
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${ECOSIM_SANITIZE}>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=all>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=${ECOSIM_SANITIZE})
endif()

# GCC 12 reports -Wrestrict on plain std::string concatenation at -O2 (GCC bug 105329, fixed in 13): a
# false positive that -Werror would turn into a build failure.
set(ECOSIM_CXX_WARNING_FIXES "")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  set(ECOSIM_CXX_WARNING_FIXES -Wno-restrict)
endif()

function(ecosim_target_defaults target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic ${ECOSIM_CXX_WARNING_FIXES}>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${ECOSIM_WERROR}>>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall --expt-relaxed-constexpr>
    # A kernel that spills registers or keeps an array in local memory is slow: ptxas says so (an error under
    # ECOSIM_WERROR), at build time, without a GPU.
    $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=--warn-on-spills,--warn-on-local-memory-usage>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${ECOSIM_WERROR}>>:-Werror=all-warnings>)
endfunction()
