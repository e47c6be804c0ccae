# fl::graphemes, and the Unicode consortium's test data for it: Debian's
# unicode-data ships GraphemeBreakTest.txt (for the Unicode version of its
# own release, which is also libutf8proc's there). Without the file the data
# test is skipped, saying so; the hand-written cases still run.
target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_graphemes)
find_file(FL_GRAPHEME_BREAK_TEST GraphemeBreakTest.txt
          PATHS /usr/share/unicode /usr/share/unicode-data /usr/share/unicode/ucd
          PATH_SUFFIXES auxiliary NO_DEFAULT_PATH)
if(FL_GRAPHEME_BREAK_TEST)
  target_compile_definitions(${FL_TEST_TARGET} PRIVATE
                             "FL_GRAPHEME_BREAK_TEST=\"${FL_GRAPHEME_BREAK_TEST}\"")
endif()
