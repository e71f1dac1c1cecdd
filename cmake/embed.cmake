# ocppgw_embed_files(target name dir ext): compiles every *.<ext> under dir into the target as a
# table {file stem -> text}, so the binary carries its schemas and migrations and runs from
# anywhere. The generated function is
#   `const std::map<std::string_view, std::string_view>& <name>()` (global namespace).
function(ocppgw_embed_files target name dir ext)
  file(GLOB files CONFIGURE_DEPENDS ${dir}/*.${ext})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNAME=${name} -DDIR=${dir} -DEXT=${ext} -P ${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake
    COMMENT "Embedding ${dir}/*.${ext}")
  target_sources(${target} PRIVATE ${out})
endfunction()
