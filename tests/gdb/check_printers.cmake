# Runs gdb -batch on gdb_target and checks what `print` shows for each kind.
# -D GDB=<gdb> -D TARGET=<program>. The printers come from the program itself
# (libfl's .debug_gdb_scripts section), so this also tests the auto-loading.
execute_process(
  COMMAND ${GDB} -nx -batch
          -iex "set auto-load safe-path /"
          -ex "break stop_here" -ex run -ex up
          -ex "print small" -ex "print heap" -ex "print ismall" -ex "print ibig"
          -ex "print rope" -ex "print flat" -ex "print c" -ex "print cbig"
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
  "= \"a C string too long for the inline bytes\"")
foreach(e IN LISTS expect)
  string(FIND "${out}" "${e}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "gdb output lacks: ${e}\n(stderr: ${err})")
  endif()
endforeach()
