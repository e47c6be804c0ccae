# Runs gdb -batch on gdb_target and checks what `print` shows for each kind.
#   -D GDB=<gdb> -D TARGET=<program>
#   -D SCRIPT=<fl_printers.py>  optional: auto-loading off, the printers
#                               sourced from this file instead (an installed
#                               copy, as docs/debugging.md tells users)
#   -D INTERNAL_TYPES=absent    optional: also require that the program has no
#                               debug info of fl's internal types (a Release
#                               libfl), so the printers are shown not to need it
# Without SCRIPT the printers come from the program itself (libfl's
# .debug_gdb_scripts section), so this also tests the auto-loading.
foreach(v GDB TARGET)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_printers.cmake: -D${v}= is required")
  endif()
endforeach()
get_filename_component(here "${CMAKE_CURRENT_LIST_FILE}" DIRECTORY)
if(SCRIPT)
  set(load -iex "set auto-load python-scripts off" -ex "source ${SCRIPT}")
else()
  set(load -iex "set auto-load safe-path /")
endif()
execute_process(
  COMMAND ${GDB} -nx -batch ${load}
          -ex "break stop_here" -ex run -ex up
          -ex "print small" -ex "print heap" -ex "print ismall" -ex "print ibig"
          -ex "print rope" -ex "print flat" -ex "print c" -ex "print cbig"
          -ex "source ${here}/probe.py"
          ${TARGET}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gdb failed (${rc}): ${err}")
endif()
set(expect
  "= \"inline text\""
  "= \"hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh and \\\"quotes\\\"\\n\""
  "= \"short\""
  "= \"a shared immutable text of some length\""
  "= fl::rope of 50140 bytes: \"header line 0\\nheader line 1\\n"
  "header line 9\\n000000000000000000000000000000000000000000000000000000000000\"..."
  "= fl::rope of 9 bytes: \"flat rope\""
  "= \"from C\""
  "= \"a C string too long for the inline bytes\""
  "fl-layout-table: found"
  "fl-string-layout-mismatch: []")
if(INTERNAL_TYPES)
  list(APPEND expect "fl-internal-types: ${INTERNAL_TYPES}")
endif()
foreach(e IN LISTS expect)
  string(FIND "${out}" "${e}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "gdb output lacks: ${e}\n(stderr: ${err})")
  endif()
endforeach()
if(err MATCHES "Python Exception|Traceback")
  message(FATAL_ERROR "the printers raised: ${err}")
endif()
