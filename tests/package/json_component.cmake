# fl::json's files form the install component "json": installing everything
# else (component "Unspecified") leaves out <fl/json_store.hpp> and the other
# json_* headers, and component "json" holds them beside libfl_json.
#   cmake -DBUILD_DIR=<fl build> -DWORK_DIR=<scratch> -P json_component.cmake
foreach(v BUILD_DIR WORK_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "json_component.cmake: -D${v}= is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")

function(install_component component prefix)
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}"
                          --component ${component}
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "installing component ${component} failed (${rc})")
  endif()
endfunction()

install_component(Unspecified "${WORK_DIR}/base")
if(NOT EXISTS "${WORK_DIR}/base/include/fl/string.hpp")
  message(FATAL_ERROR "component Unspecified lacks fl/string.hpp")
endif()
file(GLOB_RECURSE leaked RELATIVE "${WORK_DIR}/base" "${WORK_DIR}/base/include/*json*")
if(leaked)
  message(FATAL_ERROR "installed without fl::json: ${leaked}")
endif()

install_component(json "${WORK_DIR}/json")
foreach(h fl/json_store.hpp fl/json_build.hpp fl/detail/json_format.hpp)
  if(NOT EXISTS "${WORK_DIR}/json/include/${h}")
    message(FATAL_ERROR "component json lacks ${h}")
  endif()
endforeach()
file(GLOB_RECURSE libs "${WORK_DIR}/json/*libfl_json*")
if(NOT libs)
  message(FATAL_ERROR "component json lacks libfl_json")
endif()
if(EXISTS "${WORK_DIR}/json/include/fl/string.hpp")
  message(FATAL_ERROR "component json holds fl/string.hpp, which belongs to fl::fl")
endif()
message(STATUS "json_component: json_* headers only in component json, beside libfl_json")
