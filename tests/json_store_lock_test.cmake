# json_store_lock_test: links fl::json (the glob skips json_* tests without it).
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
