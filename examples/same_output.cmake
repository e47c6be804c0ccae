# Runs programs A and B; passes when both exit 0 and print the same text.
#   cmake -DA=<program> -DB=<program> -P same_output.cmake
execute_process(COMMAND "${A}" RESULT_VARIABLE ra OUTPUT_VARIABLE a)
execute_process(COMMAND "${B}" RESULT_VARIABLE rb OUTPUT_VARIABLE b)
if(NOT ra EQUAL 0 OR NOT rb EQUAL 0)
  message(FATAL_ERROR "same_output.cmake: exit ${ra} and ${rb}")
endif()
if(NOT a STREQUAL b)
  message(FATAL_ERROR "same_output.cmake: ${A} printed\n${a}\n${B} printed\n${b}")
endif()
