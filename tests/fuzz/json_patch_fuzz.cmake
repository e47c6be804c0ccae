include("${CMAKE_CURRENT_LIST_DIR}/json_fuzz_common.cmake")
