# fl-json diff end to end: the patch it prints between two stores, applied
# by fl-json patch, turns the first into the second (dumps equal, member
# order included); equal stores give "[]"; a missing store or a wrong
# argument count exits 1 with one line on stderr.
#   cmake -DFL_JSON=<fl-json> -DWORK=<scratch dir> -P fl_json_diff_cli_test.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run want_rc)
  execute_process(COMMAND "${FL_JSON}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL want_rc)
    message(FATAL_ERROR "fl-json ${ARGN}: exit ${rc}, want ${want_rc}\n${out}${err}")
  endif()
  if(NOT want_rc EQUAL 0 AND NOT err MATCHES "^fl-json: [^\n]+\n$")
    message(FATAL_ERROR "fl-json ${ARGN}: not one line on stderr: '${err}'")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(WRITE "${WORK}/from.json"
     "{\"name\":\"fl\",\"tags\":[\"a\",\"b\",\"c\"],\"old\":1,\"o\":{\"x\":1,\"y\":2}}")
file(WRITE "${WORK}/to.json"
     "{\"o\":{\"y\":2,\"x\":3},\"name\":\"fl\",\"tags\":[\"a\",\"c\"],\"new\":[true,null]}")
run(0 import "${WORK}/from.json" "${WORK}/from.store")
run(0 import "${WORK}/to.json" "${WORK}/to.store")

run(0 diff "${WORK}/from.store" "${WORK}/to.store")
if(NOT out MATCHES "^\\[\\{\"op\":")
  message(FATAL_ERROR "fl-json diff printed '${out}'")
endif()
file(WRITE "${WORK}/patch.json" "${out}")
run(0 patch "${WORK}/from.store" "${WORK}/patch.json")
run(0 dump "${WORK}/from.store")
set(patched "${out}")
run(0 dump "${WORK}/to.store")
if(NOT patched STREQUAL out)
  message(FATAL_ERROR "the diff applied gives ${patched}, not ${out}")
endif()

run(0 diff "${WORK}/from.store" "${WORK}/to.store")
if(NOT out STREQUAL "[]\n")
  message(FATAL_ERROR "equal stores: '${out}'")
endif()

run(3 diff "${WORK}/from.store" "${WORK}/missing.store")  # not found
run(2 diff "${WORK}/from.store")  # usage
