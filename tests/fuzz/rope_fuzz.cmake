# rope_fuzz builds its own copy of the rope with 16-byte leaves (and fan-out
# 4), so short inputs make deep trees; the leaf size names the inline
# namespace of every rope symbol, so it links beside libfl's rope.
target_sources(${FL_FUZZ_TARGET} PRIVATE "${PROJECT_SOURCE_DIR}/src/rope.cpp")
target_compile_definitions(${FL_FUZZ_TARGET} PRIVATE FL_ROPE_LEAF_MAX=16)
target_sources(${FL_FUZZ_TARGET} PRIVATE "${PROJECT_SOURCE_DIR}/src/rope_metrics.cpp")
