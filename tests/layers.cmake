# The map of the tests: every ctest entry carries the label of the layer it
# checks (the src/ folders of src/README.md, plus the checks that belong to
# no layer: docs, layering, package, fuzz, examples), so `ctest -L rope` runs the rope's
# tests and `ctest --print-labels` lists the groups. tests/README.md says what
# each group holds.
#
# The label is read from the test's name, first match wins. A test whose name
# matches no pattern stops the configuration: a new test is placed on the map
# when it is added, not found later unlabelled.
set(fl_test_layer_patterns
  "^(json_|fl_json_|compile_(fail_)?json_)"                 json
  "^(persist_|mapped_space_|space_|crc32c_|powerloss)"       persist
  "^rope_"                                                   rope
  "^(pool_|size_class_)"                                     pool
  "^find_"                                                   find
  "^text_"                                                   text
  "^isa_"                                                    simd
  "^immutable_string"                                        shared
  "^(builder_|concat_)"                                      concat
  "^(io_|writer_)"                                           io
  "^(c_api_|string_layout_test)"                             c
  "^(string_|alloc_failure_|compile_(fail_)?braced_)"      string
  "^fmt_"                                                    fmt
  "^graphemes_"                                              graphemes
  "^replica_"                                                replica
  "^gdb_"                                                    debug
  "^doc_"                                                    docs
  "^layering"                                                layering
  "^(package_|sanitizer_mix_|port_|compile_fail_cxx17_|compile_pedantic_)" package
  "_fuzz$"                                                   fuzz
  "^example_"                                                examples)

# Labels every test defined so far in the calling directory (CMake sets test
# properties only from the directory that made the test).
function(fl_label_tests_by_layer)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    set(layer "")
    set(patterns ${fl_test_layer_patterns})
    while(patterns AND NOT layer)
      list(POP_FRONT patterns pattern label)
      if(test MATCHES "${pattern}")
        set(layer ${label})
      endif()
    endwhile()
    if(NOT layer)
      message(FATAL_ERROR "tests/layers.cmake: test '${test}' is on no layer; add its name to fl_test_layer_patterns")
    endif()
    set_property(TEST ${test} APPEND PROPERTY LABELS ${layer})
  endforeach()
endfunction()
