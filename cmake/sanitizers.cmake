# OCPPGW_SANITIZE=ON builds everything with ASan+UBSan; CI runs the unit tests that way.
if(OCPPGW_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# OCPPGW_FUZZ=ON (clang only; scripts/fuzz.sh) builds the libFuzzer targets of fuzz/: every
# library is instrumented for coverage and checked by ASan+UBSan; only the targets link the
# fuzzer's main.
if(OCPPGW_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "OCPPGW_FUZZ needs clang (scripts/fuzz.sh uses clang++-14)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
