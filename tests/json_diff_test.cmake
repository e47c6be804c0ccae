# json_diff_test: links fl::json; the random pairs checked against
# nlohmann::ordered_json need nlohmann-json3-dev and are left out without it.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
find_package(nlohmann_json CONFIG QUIET)
if(nlohmann_json_FOUND)
  target_link_libraries(${FL_TEST_TARGET} PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_TEST_HAVE_NLOHMANN=1)
endif()
