# json_parse_test: fl::json; valid texts are also compared with
# nlohmann::ordered_json's reading of them when it is found
# (support/json_reference.cmake).
include("${CMAKE_CURRENT_SOURCE_DIR}/support/json_reference.cmake")
