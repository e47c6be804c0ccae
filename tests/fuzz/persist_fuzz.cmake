# persist_fuzz compiles the persistence sources into the target itself, so
# that libFuzzer's coverage instrumentation sees the loaders' branches (libfl
# is built without it); the linker then takes no persistence object from libfl.
file(GLOB fl_persist_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/persist/*.cpp")
target_sources(${FL_FUZZ_TARGET} PRIVATE ${fl_persist_sources})
