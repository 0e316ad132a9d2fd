# ecosim_embed_text(<target> <symbol> <file>): compiles <file>'s text into <target> as
#   std::string_view ecosim::embedded::<symbol>()
# so data files (technology tables, model zoo, accelerator configs) stay data in the source tree and the
# binaries need no install path to find them. Re-embeds when the file changes.
function(ecosim_embed_text target symbol file)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cpp)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYMBOL=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/EcosimEmbedFile.cmake
    DEPENDS ${file} ${PROJECT_SOURCE_DIR}/cmake/EcosimEmbedFile.cmake
    COMMENT "Embedding ${file}" VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
