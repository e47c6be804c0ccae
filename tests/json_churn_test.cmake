# json_churn_test: fl::json against nlohmann::json (support/json_reference.cmake;
# the test skips itself without it). FL_CHURN_FULL=1 runs the full counts.
include("${CMAKE_CURRENT_SOURCE_DIR}/support/json_reference.cmake")
# The test measures file sizes, not durability: on tmpfs its thousands of
# commits cost no disk flushes (seconds instead of tens of seconds).
if(EXISTS /dev/shm)
  set_property(TEST ${FL_TEST_TARGET} APPEND PROPERTY ENVIRONMENT "TMPDIR=/dev/shm")
endif()
