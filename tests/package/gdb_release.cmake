# The GDB printers against a Release fl, installed: configures and builds fl
# from SOURCE_DIR as a plain Release build (no debug info in libfl, no
# optional parts), installs it into WORK_DIR/prefix, then builds and runs the
# tests/package/gdb consumer against that prefix, which also checks that the
# program really has no debug info of fl's internal types.
#   cmake -DSOURCE_DIR=<fl> -DWORK_DIR=<dir> -DGENERATOR=<generator> -DGDB=<gdb>
#         -DCXX=<c++> -DCC=<cc> [-DLAUNCHER=<ccache>] -P gdb_release.cmake
foreach(v SOURCE_DIR WORK_DIR GENERATOR GDB CXX CC)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "gdb_release.cmake: -D${v}= is required")
  endif()
endforeach()
set(launch "")
if(LAUNCHER)
  set(launch "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}" "-DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gdb_release.cmake: ${what} failed (${rc})")
  endif()
endfunction()
set(prefix "${WORK_DIR}/prefix")
run("configuring the Release fl"
    ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
    -DCMAKE_BUILD_TYPE=Release -DFL_BUILD_TESTS=OFF -DFL_BUILD_EXAMPLES=OFF
    -DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON
    "-DCMAKE_INSTALL_PREFIX=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_C_COMPILER=${CC}" ${launch})
run("building the Release fl" ${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j 2)
run("installing the Release fl" ${CMAKE_COMMAND} --install "${WORK_DIR}/build")
run("the printers against the Release install"
    ${CMAKE_CTEST_COMMAND} --build-and-test "${SOURCE_DIR}/tests/package/gdb" "${WORK_DIR}/consumer"
    --build-generator "${GENERATOR}"
    --build-options "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX}" "-DGDB=${GDB}"
                    "-DFL_TESTS_DIR=${SOURCE_DIR}/tests" "-DFL_PRINTERS=${prefix}/share/fl/gdb/fl_printers.py"
                    -DINTERNAL_TYPES=absent
    --test-command ${CMAKE_CTEST_COMMAND} --output-on-failure)
