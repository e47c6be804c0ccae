# json_churn_test: links fl::json and nlohmann::json (the reference; the test
# skips itself without it). FL_CHURN_FULL=1 runs the full counts.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
target_compile_definitions(${FL_TEST_TARGET} PRIVATE
  "FL_JSON_DATA_DIR=\"${PROJECT_SOURCE_DIR}/../shared/data/json\"")
find_package(nlohmann_json CONFIG QUIET)
if(nlohmann_json_FOUND)
  target_link_libraries(${FL_TEST_TARGET} PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_TEST_HAVE_NLOHMANN=1)
endif()
# The test measures file sizes, not durability: on tmpfs its thousands of
# commits cost no disk flushes (seconds instead of tens of seconds).
if(EXISTS /dev/shm)
  set_tests_properties(${FL_TEST_TARGET} PROPERTIES ENVIRONMENT "TMPDIR=/dev/shm")
endif()
