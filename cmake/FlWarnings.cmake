# fl_set_warnings(target scope): our warnings, applied to our own targets only;
# users who build fl with add_subdirectory do not inherit them.
function(fl_set_warnings target scope)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} ${scope} -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                              -Wimplicit-fallthrough)
    if(FL_WERROR)
      target_compile_options(${target} ${scope} -Werror)
    endif()
  endif()
endfunction()
