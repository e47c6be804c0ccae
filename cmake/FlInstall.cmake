# Install rules: headers, the fl (and fl_c) libraries, a CMake package
# (find_package(fl CONFIG) gives fl::fl and fl::c) and fl.pc for pkg-config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY include/fl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES "${PROJECT_BINARY_DIR}/include/fl/version.hpp" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fl)

set(fl_install_targets fl)
if(TARGET fl_c)
  list(APPEND fl_install_targets fl_c)
endif()
set(FL_INSTALL_JSON OFF)
if(TARGET fl_json)
  list(APPEND fl_install_targets fl_json)
  set(FL_INSTALL_JSON ON)
endif()
install(TARGETS ${fl_install_targets} EXPORT flTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT flTargets NAMESPACE fl:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fl)

configure_package_config_file(cmake/flConfig.cmake.in "${PROJECT_BINARY_DIR}/flConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fl)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/flConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/flConfig.cmake" "${PROJECT_BINARY_DIR}/flConfigVersion.cmake"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fl)

configure_file(cmake/fl.pc.in "${PROJECT_BINARY_DIR}/fl.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/fl.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
