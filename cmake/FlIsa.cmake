# cmake/FlIsa.cmake: the compile flags of fl's SIMD kernel files, from the one
# list of instruction-set levels, src/simd/isa_levels.def (which also gives
# the run-time checks, src/simd/isa.cpp).
#
# fl_isa_levels(): sets FL_ISA_LEVELS (the level names, "scalar" first) and,
# for each level L, FL_ISA_FLAGS_<L>: -m<feature> for the features of L and
# of every level below it.
# fl_isa_kernel_flags(<sources>): gives each source named *_<L>.cpp the
# flags of level L.
function(fl_isa_levels)
  set(def "${PROJECT_SOURCE_DIR}/src/simd/isa_levels.def")
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${def}")
  file(STRINGS "${def}" lines REGEX "^FL_ISA_LEVEL\\(")
  set(levels scalar)
  set(flags "")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^FL_ISA_LEVEL\\(([a-z0-9_]+), *\"([^\"]*)\"\\)")
      message(FATAL_ERROR "fl: cannot read this line of ${def}: ${line}")
    endif()
    set(name "${CMAKE_MATCH_1}")
    string(REGEX REPLACE " +" ";" features "${CMAKE_MATCH_2}")
    foreach(f IN LISTS features)
      list(APPEND flags "-m${f}")
    endforeach()
    list(REMOVE_DUPLICATES flags)
    list(APPEND levels ${name})
    set(FL_ISA_FLAGS_${name} "${flags}" PARENT_SCOPE)
  endforeach()
  set(FL_ISA_LEVELS "${levels}" PARENT_SCOPE)
endfunction()

function(fl_isa_kernel_flags)
  foreach(f IN LISTS ARGN)
    foreach(level IN LISTS FL_ISA_LEVELS)
      if(level STREQUAL "scalar")
        continue()
      endif()
      if(f MATCHES "_${level}\\.cpp$")
        set_source_files_properties(${f} PROPERTIES COMPILE_OPTIONS "${FL_ISA_FLAGS_${level}}")
      endif()
    endforeach()
  endforeach()
endfunction()

# fl_add_isa_tests(<test target> [args...]): one more ctest entry per level
# below the highest, <target>_isa_<level>, which runs the test with
# FL_ISA=<level> so that every kernel family runs at that level (the plain
# entry runs at the machine's best). Labelled "isa".
function(fl_add_isa_tests target)
  set(lower ${FL_ISA_LEVELS})
  list(POP_BACK lower)
  foreach(level IN LISTS lower)
    add_test(NAME ${target}_isa_${level} COMMAND ${target} --gtest_brief=1 ${ARGN})
    set_tests_properties(${target}_isa_${level} PROPERTIES ENVIRONMENT "FL_ISA=${level}"
                         LABELS isa)
  endforeach()
endfunction()
