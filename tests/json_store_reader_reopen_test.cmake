# json_store_reader_reopen_test: readers reopened in one process and in a child; links fl::json.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
