# json_store_readers_test: one writer and reader processes (fork); links fl::json.
# FL_READERS_SECONDS sets the process test's length (2 s by default).
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
