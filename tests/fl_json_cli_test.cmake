# fl-json end to end: every command, and the failures a shell user meets
# (bad pointers, bad JSON, a failed patch, a locked store, a damaged one):
# exit 1, one line on stderr, the store unchanged.
#   cmake -DFL_JSON=<fl-json> -DWORK=<scratch dir> -P fl_json_cli_test.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(S "${WORK}/s.store")

# run(<expected exit> <expected stdout regex or ""> args...): runs fl-json;
# a failure must print exactly one line, starting "fl-json: ", on stderr.
function(run want_rc want_out)
  execute_process(COMMAND "${FL_JSON}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL want_rc)
    message(FATAL_ERROR "fl-json ${ARGN}: exit ${rc}, want ${want_rc}\n${out}${err}")
  endif()
  if(want_rc EQUAL 0 AND NOT err STREQUAL "")
    message(FATAL_ERROR "fl-json ${ARGN}: stderr on success: ${err}")
  endif()
  if(NOT want_rc EQUAL 0 AND NOT err MATCHES "^fl-json: [^\n]+\n$")
    message(FATAL_ERROR "fl-json ${ARGN}: not one line on stderr: '${err}'")
  endif()
  if(NOT want_out STREQUAL "" AND NOT out MATCHES "${want_out}")
    message(FATAL_ERROR "fl-json ${ARGN}: output '${out}' does not match '${want_out}'")
  endif()
  set(last_err "${err}" PARENT_SCOPE)
endfunction()

string(REPEAT "A" 600 long)
file(WRITE "${WORK}/doc.json" "{\"a\":[1,2,3],\"name\":\"fl\",\"blob\":\"${long}\"}")
run(0 "" import "${WORK}/doc.json" "${S}")
run(0 "^2\n$" get "${S}" /a/1)
run(0 "" set "${S}" /x "\"y\"")
run(0 "^\"y\"\n$" get "${S}" /x)
set(doc "^\\{\"a\":\\[1,2,3\\],\"name\":\"fl\",\"blob\":\"A+\",\"x\":\"y\"\\}\n$")
run(0 "${doc}" dump "${S}")

# Bad input: exit 1, one line, nothing changed.
run(1 "" set "${S}" /x "dark")
run(1 "" set "${S}" /q/r "1")
run(1 "" get "${S}" "a")
run(1 "" get "${S}" /missing)
run(1 "" erase "${S}" /missing)
run(1 "" import "${WORK}/doc.json" "${S}.2" extra)
file(WRITE "${WORK}/bad.json" "{\"a\":}")
run(1 "" import "${WORK}/bad.json" "${WORK}/t.store")
if(EXISTS "${WORK}/t.store")
  message(FATAL_ERROR "an import of invalid JSON left a store")
endif()
file(WRITE "${WORK}/fail.json" "[{\"op\":\"remove\",\"path\":\"/a/0\"},{\"op\":\"test\",\"path\":\"/name\",\"value\":\"x\"}]")
run(1 "" patch "${S}" "${WORK}/fail.json")
if(NOT last_err MATCHES "operation 1: test failed")
  message(FATAL_ERROR "the failed patch's message: ${last_err}")
endif()
run(1 "" dump "${S}" --indent x)
run(1 "" frobnicate "${S}")
run(0 "${doc}" dump "${S}")

# Edits that work.
file(WRITE "${WORK}/ok.json" "[{\"op\":\"remove\",\"path\":\"/a/0\"},{\"op\":\"add\",\"path\":\"/a/0\",\"value\":0},{\"op\":\"remove\",\"path\":\"/blob\"}]")
run(0 "" patch "${S}" "${WORK}/ok.json")
run(0 "" erase "${S}" /x)
run(0 "^\\{\n  \"a\": \\[\n    0,\n    2,\n    3\n  \\],\n  \"name\": \"fl\"\n\\}\n$"
    dump "${S}" --indent 2)
run(0 "file_bytes [0-9]+\nlive_bytes [1-9][0-9]*\nfree_bytes [0-9]+\nretired_bytes [0-9]+\ncommits [1-9][0-9]*\ndocument_bytes 25\nvalues 6\n"
    stat "${S}")
run(0 "^ok 6 values\n$" verify "${S}")

# compact: a store that held a 100 KB string shrinks to about its live size,
# the document unchanged; stat's figures follow.
string(REPEAT "B" 100000 big)
file(WRITE "${WORK}/big.json" "{\"keep\":[1,2],\"big\":\"${big}\"}")
run(0 "" import "${WORK}/big.json" "${WORK}/c.store")
run(0 "" erase "${WORK}/c.store" /big)
function(stat_field store field out)
  execute_process(COMMAND "${FL_JSON}" stat "${store}" OUTPUT_VARIABLE o RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT o MATCHES "\n${field} ([0-9]+)\n")
    message(FATAL_ERROR "stat ${store}: exit ${rc}, no ${field} in '${o}'")
  endif()
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()
stat_field("${WORK}/c.store" file_bytes file_before)
stat_field("${WORK}/c.store" live_bytes live_before)
run(0 "^file_bytes ${file_before} -> [0-9]+\n$" compact "${WORK}/c.store")
stat_field("${WORK}/c.store" file_bytes file_after)
stat_field("${WORK}/c.store" live_bytes live_after)
stat_field("${WORK}/c.store" commits commits_after)
if(NOT file_after LESS file_before OR NOT live_after LESS live_before OR commits_after LESS 1)
  message(FATAL_ERROR "compact: file ${file_before} -> ${file_after}, live ${live_before} -> "
                      "${live_after}, commits ${commits_after}")
endif()
run(0 "^\\{\"keep\":\\[1,2\\]\\}\n$" dump "${WORK}/c.store")
run(0 "^ok 4 values\n$" verify "${WORK}/c.store")
run(1 "" compact "${WORK}/missing.store")
run(1 "" compact "${WORK}/c.store" extra)
message(STATUS "fl-json compact: file_bytes ${file_before} -> ${file_after}, live_bytes "
               "${live_before} -> ${live_after}")

# A store held by another process (a patch waiting for its input) is locked.
execute_process(
  COMMAND sh -c "{ sleep 2; echo '[]'; } | \"$0\" patch \"$1\" - & sleep 1; \"$0\" set \"$1\" /n 1; rc=$?; wait; exit $rc"
          "${FL_JSON}" "${S}"
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "^fl-json: [^\n]*locked[^\n]*\n$")
  message(FATAL_ERROR "a set on a locked store: exit ${rc}, '${err}'")
endif()

# A damaged store: a byte of a string flipped on disk.
run(0 "" import "${WORK}/doc.json" "${WORK}/d.store")
execute_process(
  COMMAND sh -c "off=$(grep -obUa AAAAAAAA \"$0\" | head -1 | cut -d: -f1) && printf B | dd of=\"$0\" bs=1 seek=$off conv=notrunc 2>/dev/null"
          "${WORK}/d.store"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not damage the store")
endif()
run(1 "" verify "${WORK}/d.store")
run(1 "" dump "${WORK}/d.store")
message(STATUS "fl-json: all commands and failures as expected")
