# The files of every format version, which must keep loading.
target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_PERSIST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")
