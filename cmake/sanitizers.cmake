# OCPPGW_SANITIZE=ON builds everything with ASan+UBSan; CI runs the unit tests that way.
if(OCPPGW_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
