# json_readme_snippet_test: README.md's json_store snippet, extracted at build
# time (tests/readme_snippet.cmake) and compiled into one function; links
# fl::json. An edit of the README's snippet rebuilds the test; a snippet that
# stops compiling, or markers that go, break the build.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
set(fl_snippet_dir "${CMAKE_CURRENT_BINARY_DIR}/${FL_TEST_TARGET}_snippet")
set(fl_snippet "${fl_snippet_dir}/readme_json_store_snippet.inc")
add_custom_command(
  OUTPUT "${fl_snippet}"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${fl_snippet_dir}"
  COMMAND ${CMAKE_COMMAND} "-DREADME=${PROJECT_SOURCE_DIR}/README.md" -DNAME=json_store
          "-DOUT=${fl_snippet}" -P "${CMAKE_CURRENT_SOURCE_DIR}/readme_snippet.cmake"
  DEPENDS "${PROJECT_SOURCE_DIR}/README.md" "${CMAKE_CURRENT_SOURCE_DIR}/readme_snippet.cmake"
  COMMENT "README.md's json_store snippet for ${FL_TEST_TARGET}"
  VERBATIM)
target_sources(${FL_TEST_TARGET} PRIVATE "${fl_snippet}")
set_source_files_properties("${fl_snippet}" PROPERTIES HEADER_FILE_ONLY ON)
target_include_directories(${FL_TEST_TARGET} PRIVATE "${fl_snippet_dir}")
