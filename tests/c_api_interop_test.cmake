# c_api_interop_test calls the C API from C++: link the C library too.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_c)
