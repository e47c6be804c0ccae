# json_store_crash_test: links fl::json.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
