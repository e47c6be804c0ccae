# rope_test builds its own copy of the rope with 16-byte leaves (and fan-out
# 4), so small inputs make deep trees. The leaf size names the inline
# namespace of every rope symbol (fl::rope_leaf16), so this copy links beside
# libfl's fl::rope_leaf4096 without clashing.
target_sources(${FL_TEST_TARGET} PRIVATE "${PROJECT_SOURCE_DIR}/src/rope.cpp")
target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_ROPE_LEAF_MAX=16)
# FL_ROPE_FAIL_HOOK: detail::rope_fail_after(n) makes the rope's n-th
# allocation from now throw std::bad_alloc, and detail::rope_live_blocks()
# counts its blocks, so the tests can fail every allocation of every edit in
# turn and check the strong guarantee and that nothing leaks.
target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_ROPE_FAIL_HOOK)
# The metrics and the queries over them (src/rope_metrics.cpp) are part of
# the rope and are built with the same leaf size.
target_sources(${FL_TEST_TARGET} PRIVATE "${PROJECT_SOURCE_DIR}/src/rope_metrics.cpp")
