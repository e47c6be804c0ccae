# json_documents_test: fl::json, the benchmark documents and nlohmann::json
# for the differential tests, which skip themselves without it
# (support/json_reference.cmake).
include("${CMAKE_CURRENT_SOURCE_DIR}/support/json_reference.cmake")
