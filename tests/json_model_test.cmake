# json_model_test: json_store against nlohmann::ordered_json
# (support/json_reference.cmake; skips itself without it). FL_MODEL_SEEDS and
# FL_MODEL_EDITS set the counts (the soak: 1 seed, 1,000,000 edits).
include("${CMAKE_CURRENT_SOURCE_DIR}/support/json_reference.cmake")
# Thousands of commits: on tmpfs they cost no disk flushes.
if(EXISTS /dev/shm)
  set_property(TEST ${FL_TEST_TARGET} APPEND PROPERTY ENVIRONMENT "TMPDIR=/dev/shm")
endif()
