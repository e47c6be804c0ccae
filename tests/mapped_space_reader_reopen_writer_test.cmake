# mapped_space_reader_reopen_writer_test: reads the reader table's format
# (src/persist/persist_format.hpp) to put a table in the state a writer
# leaves between a meta slot and the table's publication.
target_include_directories(${FL_TEST_TARGET} PRIVATE "${PROJECT_SOURCE_DIR}/src/persist")
