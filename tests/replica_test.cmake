# replica_test: links fl::replica; starts nats-server processes of its own
# (tests/support/nats_server.hpp), so it runs alone with a timeout.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_replica)
set_tests_properties(${FL_TEST_TARGET} PROPERTIES TIMEOUT 420 RUN_SERIAL ON)
