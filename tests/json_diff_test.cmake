# json_diff_test: fl::json; the random pairs checked against
# nlohmann::ordered_json (support/json_reference.cmake) are left out without it.
include("${CMAKE_CURRENT_SOURCE_DIR}/support/json_reference.cmake")
