# Compiles one file that must not compile and checks how it fails:
#   cmake -DCOMPILER=... -DARGS="<flags;...>" -DSOURCE=... -DEXPECT=<regex>
#         [-DMAX_ERRORS=n] -P run.cmake
# Passes when the compiler fails, its output matches EXPECT, and it reports at
# most MAX_ERRORS lines containing "error" (default: no limit).
foreach(v COMPILER SOURCE EXPECT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}= is required")
  endif()
endforeach()
execute_process(COMMAND "${COMPILER}" ${ARGS} -fsyntax-only "${SOURCE}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "run.cmake: ${SOURCE} compiled, but must not")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "run.cmake: the diagnostics lack '${EXPECT}':\n${all}")
endif()
if(DEFINED MAX_ERRORS)
  string(REPLACE ";" "," flat "${all}")  # a ';' in a message would split the list
  string(REGEX MATCHALL "[^\n]*: (fatal )?error:[^\n]*" errors "${flat}")
  list(LENGTH errors n)
  if(n GREATER MAX_ERRORS)
    message(FATAL_ERROR "run.cmake: ${n} errors, at most ${MAX_ERRORS} expected:\n${all}")
  endif()
endif()
message(STATUS "run.cmake: ${SOURCE} fails as expected")
