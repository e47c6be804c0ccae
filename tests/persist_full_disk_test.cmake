# persist_full_disk_test: the json_store part of the workload needs fl::json.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
