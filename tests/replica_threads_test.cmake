# replica_threads_test: links fl::replica; starts a nats-server of its own
# (tests/support/nats_server.hpp), so it runs alone with a timeout.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_replica)
set_tests_properties(${FL_TEST_TARGET} PROPERTIES TIMEOUT 120 RUN_SERIAL ON)
