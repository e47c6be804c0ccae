# The rope with 16-byte leaves and the failure hook (CMakeLists.txt: fl_rope_small).
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_rope_small)
