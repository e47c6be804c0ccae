# The json_store sources are compiled into the target itself, so libFuzzer's
# coverage instrumentation sees their branches (fl_json is built without it).
target_sources(${FL_FUZZ_TARGET} PRIVATE ${FL_JSON_SOURCES})
target_include_directories(${FL_FUZZ_TARGET} PRIVATE "${PROJECT_SOURCE_DIR}/src/json")
target_link_libraries(${FL_FUZZ_TARGET} PRIVATE simdjson::simdjson)
target_compile_definitions(${FL_FUZZ_TARGET} PRIVATE FL_JSON_HAVE_SIMDJSON=1)
