# FL_SANITIZE="address;undefined" (or "thread") instruments everything this build
# compiles: the library, the tests and the fuzzers. Directory scope on purpose: a
# sanitizer must see both sides of every call.
if(FL_SANITIZE)
  string(REPLACE ";" "," fl_san "${FL_SANITIZE}")
  add_compile_options(-fsanitize=${fl_san} -fno-omit-frame-pointer -fno-sanitize-recover=all -g)
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
