# The files of every format version, which must keep loading.
target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_PERSIST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")

# The commit's dirty-page scan (src/persist/commit.cpp, find_dirty) the other
# ways: the default run takes the kernel's PAGEMAP_SCAN where it has it (Linux
# 6.7); these read the pagemap entry by entry, as on older kernels, and
# compare every page with the file, as where /proc/self/pagemap is closed.
foreach(way pagemap compare)
  add_test(NAME persist_test_dirty_${way} COMMAND ${FL_TEST_TARGET} --gtest_brief=1)
  set_tests_properties(persist_test_dirty_${way}
                       PROPERTIES ENVIRONMENT "FL_DIRTY_SCAN=${way};FL_CHECK_WRITES=1")
endforeach()
