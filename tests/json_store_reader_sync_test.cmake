# json_store_reader_sync_test: a no-op sync beside a refreshing reader; links fl::json.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
