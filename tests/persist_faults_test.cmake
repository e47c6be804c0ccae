# persist_faults_test: the json_store workload needs fl::json; the program
# defines the file-changing POSIX calls itself (its definitions must win over
# the C library's for libfl's calls, shared or static: ENABLE_EXPORTS) and
# finds the C library's with dlsym(RTLD_NEXT).
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json ${CMAKE_DL_LIBS})
set_target_properties(${FL_TEST_TARGET} PROPERTIES ENABLE_EXPORTS ON)
