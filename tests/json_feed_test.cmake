# json_feed_test: the change feed, checked against nlohmann::ordered_json
# where it is found (support/json_reference.cmake).
include("${CMAKE_CURRENT_SOURCE_DIR}/support/json_reference.cmake")
