# json_object_tree_test: links fl::json; reads the format-5 store in tests/data/json_v5.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_JSON_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")
