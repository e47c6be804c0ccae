# json_patch_test: links fl::json; the differential test against
# nlohmann::ordered_json needs nlohmann-json3-dev and is left out without it.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
target_compile_definitions(${FL_TEST_TARGET} PRIVATE
  "FL_JSON_DATA_DIR=\"${PROJECT_SOURCE_DIR}/../shared/data/json\"")
find_package(nlohmann_json CONFIG QUIET)
if(nlohmann_json_FOUND)
  target_link_libraries(${FL_TEST_TARGET} PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_TEST_HAVE_NLOHMANN=1)
endif()
