# The editing traces are gzipped JSON (tests/rope_trace.hpp reads them with
# zlib); the corpus is looked for beside the source tree at run time.
find_package(ZLIB REQUIRED)
target_link_libraries(${FL_TEST_TARGET} PRIVATE ZLIB::ZLIB)
target_compile_definitions(${FL_TEST_TARGET} PRIVATE "FL_TEST_SOURCE_DIR=\"${PROJECT_SOURCE_DIR}\"")
