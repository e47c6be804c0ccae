# Install rules: headers, the fl (and fl_c) libraries, a CMake package
# (find_package(fl CONFIG) gives fl::fl and fl::c; COMPONENTS json fmt
# graphemes replica add fl::json, fl::fmt, fl::graphemes and fl::replica) and, for pkg-config, fl.pc (C++), fl-c.pc (the C API,
# usable from plain C), fl-json.pc, fl-replica.pc and fl-fmt.pc.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Headers named json_* (fl/json_store.hpp, fl/json_build.hpp,
# fl/detail/json_format.hpp) belong to fl::json: installed with it, below.
# fl/graphemes.hpp belongs to fl::graphemes and fl/replica.hpp to
# fl::replica: installed with them, below.
install(DIRECTORY include/fl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} PATTERN "json_*" EXCLUDE
  PATTERN "graphemes.hpp" EXCLUDE PATTERN "replica.hpp" EXCLUDE)
install(FILES "${PROJECT_BINARY_DIR}/include/fl/version.hpp" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fl)
install(FILES "${PROJECT_BINARY_DIR}/include/fl/detail/build_config.hpp"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fl/detail)

# Export sets: flTargets holds what needs nothing optional (fl::fl, fl::c);
# each optional part has its own, loaded only when asked for as a component
# (find_package(fl CONFIG COMPONENTS json fmt)), so a consumer of fl::fl or
# fl::c never needs simdjson or {fmt} installed.
set(fl_install_targets fl)
if(TARGET fl_c)
  list(APPEND fl_install_targets fl_c)
endif()
install(TARGETS ${fl_install_targets} EXPORT flTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT flTargets NAMESPACE fl:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fl)
set(FL_COMPONENTS "")
# An optional library installed as a component of its own: the library, the
# headers given after the export set (into include/fl), and its CMake targets,
# loaded only by find_package(fl CONFIG COMPONENTS <component>), so a packager
# can ship it apart (cmake --install build --component <component>) and a
# static library hands its own dependency (simdjson, utf8proc, libnats) to its
# consumers' link alone.
function(fl_install_component target component export)
  install(TARGETS ${target} EXPORT ${export} COMPONENT ${component}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  if(ARGN)
    install(FILES ${ARGN} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fl COMPONENT ${component})
  endif()
  install(EXPORT ${export} NAMESPACE fl:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fl
    COMPONENT ${component})
  set(FL_COMPONENTS ${FL_COMPONENTS} ${component} PARENT_SCOPE)
endfunction()
if(TARGET fl_json)
  # "json" also holds fl-json.pc and the fl-json tool (CMakeLists.txt). Its
  # headers are every json_* one, in fl/ and fl/detail/.
  fl_install_component(fl_json json flJsonTargets)
  install(DIRECTORY include/fl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT json
    FILES_MATCHING PATTERN "json_*")
  install(FILES "${PROJECT_BINARY_DIR}/include/fl/detail/json_config.hpp"
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fl/detail COMPONENT json)
endif()
if(TARGET fl_graphemes)
  set_target_properties(fl_graphemes PROPERTIES EXPORT_NAME graphemes)
  fl_install_component(fl_graphemes graphemes flGraphemesTargets include/fl/graphemes.hpp)
endif()
if(TARGET fl_replica)
  # "replica" also holds fl-replica.pc (below).
  fl_install_component(fl_replica replica flReplicaTargets include/fl/replica.hpp)
endif()
if(TARGET fl_fmt)
  set_target_properties(fl_fmt PROPERTIES EXPORT_NAME fmt)
  install(TARGETS fl_fmt EXPORT flFmtTargets INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT flFmtTargets NAMESPACE fl:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fl)
  list(APPEND FL_COMPONENTS fmt)
endif()
# A static fl_json hands simdjson to its consumers' link (a shared one links
# it itself): then the json component must find simdjson.
set(FL_CONFIG_JSON_FINDS_SIMDJSON OFF)
if(TARGET fl_json)
  get_target_property(fl_json_type fl_json TYPE)
  if(fl_json_type STREQUAL "STATIC_LIBRARY")
    set(FL_CONFIG_JSON_FINDS_SIMDJSON ON)
  endif()
endif()

# A static fl hands its private dependencies to the consumer's link.
set(FL_CONFIG_FIND_MIMALLOC OFF)
get_target_property(fl_type fl TYPE)
if(FL_WITH_MIMALLOC AND fl_type STREQUAL "STATIC_LIBRARY")
  set(FL_CONFIG_FIND_MIMALLOC ON)
endif()
configure_package_config_file(cmake/flConfig.cmake.in "${PROJECT_BINARY_DIR}/flConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fl)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/flConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/flConfig.cmake" "${PROJECT_BINARY_DIR}/flConfigVersion.cmake"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fl)

# pkg-config. Neither file passes a -std flag: it would break C, and placed
# after a C++ program's own -std=c++23 it would silently lower it; C++
# programs compile with -std=c++20 or newer (an older standard stops at one
# #error saying so). The libraries a static link needs beyond -lfl go into
# Libs when fl is static (there is then no shared library to carry them, and
# plain `pkg-config --libs` must link) and into Libs.private when shared.
set(fl_pc_deps "")
if(FL_WITH_MIMALLOC)
  string(APPEND fl_pc_deps " -lmimalloc")
endif()
if(CMAKE_THREAD_LIBS_INIT)
  string(APPEND fl_pc_deps " ${CMAKE_THREAD_LIBS_INIT}")
endif()
set(fl_pc_cxx_runtime "")
foreach(lib IN LISTS fl_cxx_runtime)
  if(IS_ABSOLUTE "${lib}" OR lib MATCHES "^-")
    string(APPEND fl_pc_cxx_runtime " ${lib}")
  else()
    string(APPEND fl_pc_cxx_runtime " -l${lib}")
  endif()
endforeach()
# Relocatable: the prefix is found from the .pc file's own directory, so
# `cmake --install build --prefix DIR` gives working files in DIR too.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(FL_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH fl_pc_up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" fl_pc_up "${fl_pc_up}")
  set(FL_PC_PREFIX "\${pcfiledir}/${fl_pc_up}")
endif()
if(fl_type STREQUAL "STATIC_LIBRARY")
  # The -u that keeps the embedded GDB printers of a static libfl (the same
  # option the fl target gives CMake consumers; see CMakeLists.txt).
  set(fl_pc_keep "")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    set(fl_pc_keep "-Wl,--undefined=fl_gdb_printers_anchor ")
  endif()
  set(FL_PC_LIBS "${fl_pc_keep}-lfl${fl_pc_deps}")
  set(FL_PC_LIBS_PRIVATE "")
  set(FL_PC_C_LIBS "-lfl_c ${fl_pc_keep}-lfl${fl_pc_deps}${fl_pc_cxx_runtime}")
  set(FL_PC_C_LIBS_PRIVATE "")
else()
  set(FL_PC_LIBS "-lfl")
  set(FL_PC_LIBS_PRIVATE "${fl_pc_deps}")
  set(FL_PC_C_LIBS "-lfl_c")
  set(FL_PC_C_LIBS_PRIVATE "-lfl${fl_pc_deps}${fl_pc_cxx_runtime}")
endif()
string(STRIP "${FL_PC_LIBS_PRIVATE}" FL_PC_LIBS_PRIVATE)
string(STRIP "${FL_PC_C_LIBS_PRIVATE}" FL_PC_C_LIBS_PRIVATE)
configure_file(cmake/fl.pc.in "${PROJECT_BINARY_DIR}/fl.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/fl.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(TARGET fl_c)
  configure_file(cmake/fl-c.pc.in "${PROJECT_BINARY_DIR}/fl-c.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/fl-c.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
# fl-<name>.pc of an optional library over another: its -l before the
# base's libraries (it calls into them) and its own dependency last, written
# out in Libs rather than left to Requires, so the order is the one a static
# link needs; when shared, the dependency goes to Libs.private. Sets
# FL_PC_<NAME>_LIBS and FL_PC_<NAME>_LIBS_PRIVATE here and for the caller.
function(fl_component_pc target name dep base_libs base_private component)
  string(TOUPPER "${name}" up)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    set(FL_PC_${up}_LIBS "-l${target} ${base_libs} ${dep}")
    set(FL_PC_${up}_LIBS_PRIVATE "${base_private}")
  else()
    set(FL_PC_${up}_LIBS "-l${target} ${base_libs}")
    set(FL_PC_${up}_LIBS_PRIVATE "${dep} ${base_private}")
  endif()
  string(STRIP "${FL_PC_${up}_LIBS_PRIVATE}" FL_PC_${up}_LIBS_PRIVATE)
  configure_file(cmake/fl-${name}.pc.in "${PROJECT_BINARY_DIR}/fl-${name}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/fl-${name}.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
    COMPONENT ${component})
  set(FL_PC_${up}_LIBS "${FL_PC_${up}_LIBS}" PARENT_SCOPE)
  set(FL_PC_${up}_LIBS_PRIVATE "${FL_PC_${up}_LIBS_PRIVATE}" PARENT_SCOPE)
endfunction()
# fl-json.pc: over fl, with simdjson; fl-replica.pc: over fl-json, with libnats.
if(TARGET fl_json)
  fl_component_pc(fl_json json -lsimdjson "${FL_PC_LIBS}" "${FL_PC_LIBS_PRIVATE}" json)
endif()
if(TARGET fl_replica)
  fl_component_pc(fl_replica replica -lnats "${FL_PC_JSON_LIBS}" "${FL_PC_JSON_LIBS_PRIVATE}" replica)
endif()
# fl-fmt.pc: <fl/fmt.hpp> is header-only over fl and {fmt}; {fmt} brings its
# own fmt.pc (Debian's libfmt-dev).
if(TARGET fl_fmt)
  configure_file(cmake/fl-fmt.pc.in "${PROJECT_BINARY_DIR}/fl-fmt.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/fl-fmt.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
include(FlGdb)
