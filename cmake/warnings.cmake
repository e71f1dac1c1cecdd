# ocppgw_warnings(target): the project's warning set, applied to every target we own.
function(ocppgw_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wconversion -Wno-sign-conversion)
  if(OCPPGW_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
