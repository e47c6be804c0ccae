# The GDB printers' script: <build>/gdb/fl_printers.py, written from
# tools/gdb/fl_printers.py.in with every FL_STR_* constant of
# include/fl/detail/string_layout.h filled in, so that header is the only
# owner of the string encoding (the printers need it where libfl's layout
# table cannot be found). Sets FL_GDB_PRINTERS to the script's path; libfl
# embeds that file (src/debug/gdb_scripts.cpp) and the install rule copies it.
set(fl_string_layout_h "${PROJECT_SOURCE_DIR}/include/fl/detail/string_layout.h")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${fl_string_layout_h}")
file(STRINGS "${fl_string_layout_h}" fl_layout_defines REGEX "^#define FL_STR_[A-Z_]+ ")
set(fl_layout_names)
foreach(line IN LISTS fl_layout_defines)
  string(REGEX MATCH "^#define (FL_STR_[A-Z_]+) (.*)$" unused "${line}")
  set(name "${CMAKE_MATCH_1}")
  set(expr "${CMAKE_MATCH_2}")
  # Each value is a C integer expression of literals and earlier FL_STR_
  # names: substitute the names, drop the C suffixes (0x80u, 0ull), and let
  # math() evaluate it (64-bit, as the header's values are).
  foreach(prev IN LISTS fl_layout_names)
    string(REGEX REPLACE "${prev}([^A-Z_]|$)" "${${prev}}\\1" expr "${expr}")
  endforeach()
  string(REGEX REPLACE "/\\*.*$" "" expr "${expr}")
  string(REGEX REPLACE "(0x[0-9a-fA-F]+|[0-9]+)[uUlL]+" "\\1" expr "${expr}")
  string(REGEX REPLACE "0x[0-9a-fA-F]+" "" probe "${expr}")
  if(probe MATCHES "[A-Za-z_]")
    message(FATAL_ERROR "string_layout.h: ${name} is not an integer expression of literals "
                        "and earlier FL_STR_ names: ${expr}")
  endif()
  math(EXPR value "${expr}" OUTPUT_FORMAT HEXADECIMAL)
  set(${name} "${value}")
  list(APPEND fl_layout_names ${name})
endforeach()
set(FL_GDB_PRINTERS "${PROJECT_BINARY_DIR}/gdb/fl_printers.py")
configure_file("${PROJECT_SOURCE_DIR}/tools/gdb/fl_printers.py.in" "${FL_GDB_PRINTERS}" @ONLY)
