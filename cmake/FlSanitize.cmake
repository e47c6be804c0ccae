# FL_SANITIZE="address;undefined" (or "thread") instruments everything this build
# compiles: the library, the tests and the fuzzers. Directory scope on purpose: a
# sanitizer must see both sides of every call.
if(FL_SANITIZE)
  string(REPLACE ";" "," fl_san "${FL_SANITIZE}")
  add_compile_options(-fsanitize=${fl_san} -fno-omit-frame-pointer -fno-sanitize-recover=all -g)
  add_link_options(-fsanitize=${fl_san})
  message(STATUS "fl: sanitizers ${fl_san}")
endif()
