# Also run at each lower instruction-set level (FL_ISA; cmake/FlIsa.cmake).
fl_add_isa_tests(${FL_TEST_TARGET})
