# rope_threads_test builds its own copy of the rope with 16-byte leaves (and fan-out
# 4), so small inputs make deep trees. The leaf size names the inline
# namespace of every rope symbol (fl::rope_leaf16), so this copy links beside
# libfl's fl::rope_leaf4096 without clashing.
target_sources(${FL_TEST_TARGET} PRIVATE "${PROJECT_SOURCE_DIR}/src/rope.cpp")
target_compile_definitions(${FL_TEST_TARGET} PRIVATE FL_ROPE_LEAF_MAX=16)
target_sources(${FL_TEST_TARGET} PRIVATE "${PROJECT_SOURCE_DIR}/src/rope_metrics.cpp")
