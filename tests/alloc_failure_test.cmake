# alloc_failure_test links its own copy of the pool built with
# FL_POOL_FAIL_HOOK: detail::pool_fail_after(n) makes the n-th system
# allocation of the thread fail (and turns its cache off, so every
# allocation counts), detail::pool_live_blocks() counts blocks alive. The
# copy's object defines every pool symbol, so libfl's own pool object is not
# linked in beside it. The C API is tested too, hence fl_c.
target_sources(${FL_TEST_TARGET} PRIVATE "${PROJECT_SOURCE_DIR}/src/pool/pool.cpp")
target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_POOL_FAIL_HOOK)
if(TARGET fl_c)
  target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_c)
endif()
