# json_patch_test: fl::json; the differential test against
# nlohmann::ordered_json (support/json_reference.cmake) is left out without it.
include("${CMAKE_CURRENT_SOURCE_DIR}/support/json_reference.cmake")
