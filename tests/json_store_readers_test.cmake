# json_store_readers_test: one writer and reader processes (fork); links fl::json.
# FL_READERS_SECONDS sets the process test's length (2 s by default).
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
# Again with its files on tmpfs when there is one: a commit costs no flush
# there, so the writer runs thousands of commits ahead of its readers and
# restarts its log between a reader's look at the table and its read of the
# log (a refresh failed with "the log does not hold commit N" before it read
# the table again).
if(IS_DIRECTORY /dev/shm)
  add_test(NAME json_store_readers_tmpfs_test COMMAND ${FL_TEST_TARGET} --gtest_brief=1)
  set_tests_properties(json_store_readers_tmpfs_test
                       PROPERTIES ENVIRONMENT "TMPDIR=/dev/shm;FL_CHECK_WRITES=1")
endif()
