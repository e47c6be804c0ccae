# json_views_test: the stale-view check, so it links fl::json built with the
# check on whatever the configuration: fl_json itself where FL_JSON_CHECK_VIEWS
# is on (the default), else the json sources compiled again with it
# (fl_json_checked, linked instead of fl_json).
if(FL_JSON_CHECK_VIEWS)
  target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json)
else()
  if(NOT TARGET fl_json_checked)
    add_library(fl_json_checked OBJECT ${FL_JSON_SOURCES})
    target_compile_definitions(fl_json_checked PUBLIC FL_JSON_CHECK_VIEWS=1
                                               PRIVATE FL_JSON_HAVE_SIMDJSON=1)
    target_link_libraries(fl_json_checked PUBLIC fl PRIVATE simdjson::simdjson)
    fl_set_warnings(fl_json_checked PRIVATE)
  endif()
  target_link_libraries(${FL_TEST_TARGET} PRIVATE fl_json_checked simdjson::simdjson)
endif()
