# What a json test that checks fl::json against a reference links, written
# once: fl::json, the benchmark documents' directory beside the source tree
# (FL_JSON_DATA_DIR, read by json_test_support.hpp) and, when it is found,
# nlohmann::json (FL_TEST_HAVE_NLOHMANN; the tests that need it skip
# themselves without nlohmann-json3-dev). A tests/<name>_test.cmake includes
# this file to link them to ${FL_TEST_TARGET}.
if(NOT TARGET fl_json_reference)
  add_library(fl_json_reference INTERFACE)
  target_link_libraries(fl_json_reference INTERFACE fl_json)
  target_compile_definitions(fl_json_reference INTERFACE
    "FL_JSON_DATA_DIR=\"${PROJECT_SOURCE_DIR}/../shared/data/json\"")
  find_package(nlohmann_json CONFIG QUIET)
  if(nlohmann_json_FOUND)
    target_link_libraries(fl_json_reference INTERFACE nlohmann_json::nlohmann_json)
    target_compile_definitions(fl_json_reference INTERFACE FL_TEST_HAVE_NLOHMANN=1)
  endif()
endif()
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json_reference)
