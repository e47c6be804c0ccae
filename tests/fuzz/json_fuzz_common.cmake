# tests/fuzz/json_fuzz_common.cmake: included by each json fuzzer's .cmake.
# The json fuzzers link fl_json, which this build instruments for libFuzzer
# like everything else (make test-fuzz: FL_SANITIZE=...;fuzzer-no-link), and
# reach its internal entry points through src/json/json_internal.hpp.
target_link_libraries(${FL_FUZZ_TARGET} PRIVATE fl_json simdjson::simdjson)
target_compile_definitions(${FL_FUZZ_TARGET} PRIVATE FL_JSON_HAVE_SIMDJSON=1)
