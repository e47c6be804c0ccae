# Also run at each lower instruction-set level (FL_ISA; cmake/FlIsa.cmake),
# without the tests that reach no dispatched kernel (the inline short path,
# Two-Way on its own).
fl_add_isa_tests(${FL_TEST_TARGET}
  --gtest_filter=-FindTest.ShortHaystacksEveryLengthAndStart:FindTest.TwoWayAgreesWithStringView)
