# string_core_test reads fl_str values written by C code: its C half is a
# small C11 library beside it (strict C flags, not the C++ test flags), and
# the C API (fl_c) frees them.
add_library(string_core_c_side STATIC "${CMAKE_CURRENT_SOURCE_DIR}/string_core_c_side.c")
set_target_properties(string_core_c_side PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                                                    C_EXTENSIONS OFF)
target_compile_options(string_core_c_side PRIVATE -Wall -Wextra -Werror -pedantic)
target_link_libraries(string_core_c_side PRIVATE fl_c)
target_link_libraries(${FL_TEST_TARGET} PRIVATE string_core_c_side fl_c)
