include("${CMAKE_CURRENT_LIST_DIR}/rope_fuzz.cmake")  # the rope of 16-byte leaves
