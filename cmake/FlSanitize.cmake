# FL_SANITIZE="address;undefined" (or "thread") instruments everything this build
# compiles: the library, the tests and the fuzzers. Directory scope on purpose: a
# sanitizer must see both sides of every call.
# libFuzzer steers by coverage of the code under test, which is the library:
# a fuzzing build instruments every target, the libraries included, so the
# fuzzers link them as they are.
if(FL_BUILD_FUZZ AND NOT "fuzzer-no-link" IN_LIST FL_SANITIZE)
  list(APPEND FL_SANITIZE fuzzer-no-link)
endif()
if(FL_SANITIZE)
  string(REPLACE ";" "," fl_san "${FL_SANITIZE}")
  add_compile_options(-fsanitize=${fl_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  # A report needs file and line: -g unless the build chose its own level
  # (make test's sanitizer builds take -g1, line tables only, which symbolize
  # every frame and compile the template-heavy tests in about 60% of the time).
  string(TOUPPER "${CMAKE_BUILD_TYPE}" fl_san_build_type)
  if(NOT " ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${fl_san_build_type}} " MATCHES " -g[0-3]? ")
    add_compile_options(-g)
  endif()
  add_link_options(-fsanitize=${fl_san})
  # GCC cannot instrument std::atomic_thread_fence (-Wtsan, an error under
  # FL_WERROR). The reader table's sequence lock orders its relaxed loads and
  # stores with fences: it is shared between processes, and no threaded test
  # (label "threads") shares a reader table between threads, so nothing TSan
  # checks rests on those fences.
  if(fl_san MATCHES "thread" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set_source_files_properties("${PROJECT_SOURCE_DIR}/src/persist/reader_table.cpp"
                                "${PROJECT_SOURCE_DIR}/src/persist/lagging_file.cpp"
                                PROPERTIES COMPILE_OPTIONS -Wno-tsan)
  endif()
  message(STATUS "fl: sanitizers ${fl_san}")
endif()
