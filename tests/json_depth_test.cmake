# json_depth_test: links fl::json.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
