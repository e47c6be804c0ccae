# json_store_reader_first_test: a reader process opened before (or while) the
# writer process opens, beside compactions; links fl::json.
# FL_READER_FIRST_RUNS sets the number of runs (24 by default).
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
set_tests_properties(${FL_TEST_TARGET} PROPERTIES TIMEOUT 120)
