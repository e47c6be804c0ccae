# fmt_test exercises <fl/fmt.hpp>, so it links {fmt} through fl::fmt.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_fmt)
