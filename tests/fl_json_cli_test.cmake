# fl-json end to end: every command, and the failures a shell user meets
# (bad pointers, bad JSON, a failed patch, a missing value or store, a
# locked store, a damaged one): each with its exit code (2 usage or bad
# input, 3 not found, 4 locked, 5 damaged, 6 I/O), one line on stderr, the
# store unchanged. import refuses an existing store without --force. And
# fl-json get in a loop never makes an application's writer open fail.
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

# Bad input: exit 2; nothing there: exit 3; one line, nothing changed.
run(2 "" set "${S}" /x "dark")
if(NOT last_err MATCHES "put\\(\"/x\", value\\) stores a C\\+\\+ string")
  message(FATAL_ERROR "set of text that is not JSON: ${last_err}")
endif()
run(3 "" set "${S}" /q/r "1")
run(2 "" get "${S}" "a")
if(NOT last_err MATCHES "\"a\" must be empty or start with '/'")
  message(FATAL_ERROR "a pointer without '/': ${last_err}")
endif()
run(3 "" get "${S}" /missing)
run(3 "" erase "${S}" /missing)
run(3 "" get "${WORK}/missing.store" /a)
run(3 "" dump "${WORK}/missing.store")
run(3 "" import "${WORK}/missing.json" "${WORK}/t.store")
run(2 "" import "${WORK}/doc.json" "${S}.2" extra)
run(2 "" get "${S}")
file(WRITE "${WORK}/bad.json" "{\"a\":}")
run(2 "" import "${WORK}/bad.json" "${WORK}/t.store")
if(EXISTS "${WORK}/t.store")
  message(FATAL_ERROR "an import of invalid JSON left a store")
endif()
file(WRITE "${WORK}/fail.json" "[{\"op\":\"remove\",\"path\":\"/a/0\"},{\"op\":\"test\",\"path\":\"/name\",\"value\":\"x\"}]")
run(2 "" patch "${S}" "${WORK}/fail.json")
if(NOT last_err MATCHES "operation 1: test failed")
  message(FATAL_ERROR "the failed patch's message: ${last_err}")
endif()
run(2 "" dump "${S}" --indent x)
run(2 "" frobnicate "${S}")
run(2 "")
run(0 "${doc}" dump "${S}")

# --help lists the exit codes.
run(0 "2  usage or bad input.*3  not found.*4  locked.*5  damaged.*6  I/O error" --help)

# import does not replace a store unless told to.
file(WRITE "${WORK}/other.json" "[1]")
run(2 "" import "${WORK}/other.json" "${S}")
if(NOT last_err MATCHES "exists: import replaces a store only with --force")
  message(FATAL_ERROR "import onto a store: ${last_err}")
endif()
run(0 "${doc}" dump "${S}")
run(0 "" import --force "${WORK}/other.json" "${WORK}/r.store")
run(0 "" import "${WORK}/doc.json" "${WORK}/r.store2")
run(0 "" import --force "${WORK}/other.json" "${WORK}/r.store2")
run(0 "^\\[1\\]\n$" dump "${WORK}/r.store2")

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
run(3 "" compact "${WORK}/missing.store")
run(2 "" compact "${WORK}/c.store" extra)
message(STATUS "fl-json compact: file_bytes ${file_before} -> ${file_after}, live_bytes "
               "${live_before} -> ${live_after}")

# A store held by another process (a patch waiting for its input) is locked.
execute_process(
  COMMAND sh -c "{ sleep 2; echo '[]'; } | \"$0\" patch \"$1\" - & sleep 1; \"$0\" set \"$1\" /n 1; rc=$?; wait; exit $rc"
          "${FL_JSON}" "${S}"
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 4 OR NOT err MATCHES "^fl-json: [^\n]*locked[^\n]*\n$")
  message(FATAL_ERROR "a set on a locked store: exit ${rc}, '${err}'")
endif()

# A damaged store: a byte of a string flipped on disk, in the middle of a
# string of several pages (a page that holds nothing else).
string(REPEAT "A" 20000 longer)
file(WRITE "${WORK}/long.json" "{\"a\":[1,2,3],\"blob\":\"${longer}\"}")
run(0 "" import "${WORK}/long.json" "${WORK}/d.store")
run(0 "^ok 6 values\n$" verify "${WORK}/d.store")
execute_process(
  COMMAND sh -c "off=$(grep -obUa AAAAAAAA \"$0\" | head -1 | cut -d: -f1) && printf B | dd of=\"$0\" bs=1 seek=$((off + 10000)) conv=notrunc 2>/dev/null"
          "${WORK}/d.store"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not damage the store")
endif()
run(5 "" verify "${WORK}/d.store")
if(NOT last_err MATCHES "verify: /blob: page [0-9]+ \\(offset 0x[0-9a-f]+\\) does not match its checksum")
  message(FATAL_ERROR "verify of a damaged store: ${last_err}")
endif()
run(5 "" dump "${WORK}/d.store")

# Readers never block the application: fl-json get runs in a loop while an
# application (here fl-json set: a writer's open, a commit, a close) edits
# the store 60 times; none of its opens fails "locked", and no get fails.
run(0 "" import "${WORK}/doc.json" "${WORK}/loop.store")
execute_process(
  COMMAND sh -c [=[
    fl="$0"; s="$1"; w="$2"
    : > "$w/stop"; rm -f "$w/stop"
    ( n=0; bad=0
      while [ ! -e "$w/stop" ]; do
        "$fl" get "$s" /a/1 > /dev/null 2>> "$w/get.err" || bad=$((bad + 1))
        n=$((n + 1))
      done
      echo "$n $bad" > "$w/gets" ) &
    locked=0; other=0; i=0
    while [ $i -lt 60 ]; do
      "$fl" set "$s" /n $i 2> "$w/set.err"; rc=$?
      if [ $rc -eq 4 ]; then locked=$((locked + 1)); elif [ $rc -ne 0 ]; then other=$((other + 1)); fi
      i=$((i + 1))
    done
    touch "$w/stop"; wait
    echo "$locked $other $(cat "$w/gets")"
  ]=] "${FL_JSON}" "${WORK}/loop.store" "${WORK}"
  OUTPUT_VARIABLE loop RESULT_VARIABLE rc)
string(STRIP "${loop}" loop)
if(NOT rc EQUAL 0 OR NOT loop MATCHES "^([0-9]+) ([0-9]+) ([0-9]+) ([0-9]+)$")
  message(FATAL_ERROR "the get loop: exit ${rc}, '${loop}'")
endif()
set(locked ${CMAKE_MATCH_1})
set(other ${CMAKE_MATCH_2})
set(gets ${CMAKE_MATCH_3})
set(bad_gets ${CMAKE_MATCH_4})
message(STATUS "fl-json get loop: ${gets} gets (${bad_gets} failed) beside 60 application "
               "commits: ${locked} failed locked, ${other} failed otherwise")
if(NOT locked EQUAL 0 OR NOT other EQUAL 0 OR NOT bad_gets EQUAL 0 OR gets LESS 1)
  file(READ "${WORK}/get.err" get_err)
  message(FATAL_ERROR "readers blocked the application or failed: ${loop}\n${get_err}")
endif()
run(0 "^59\n$" get "${WORK}/loop.store" /n)

# changes: one line per commit, from the oldest kept or after --since.
set(C "${WORK}/feed.store")
file(WRITE "${WORK}/feed.json" "{\"n\":0}")
run(0 "" import "${WORK}/feed.json" "${C}")
run(0 "^$" changes "${C}")
run(0 "" set "${C}" /n "1")
run(0 "" set "${C}" /t "[1, 2]")
run(0 "" erase "${C}" /n)
set(id "\"history\":\"[0-9a-f]+\"")
set(one "\\{${id},\"sequence\":1,\"patch\":\\[\\{\"op\":\"replace\",\"path\":\"/n\",\"value\":1\\}\\]\\}\n")
set(two "\\{${id},\"sequence\":2,\"patch\":\\[\\{\"op\":\"add\",\"path\":\"/t\",\"value\":\\[1,2\\]\\}\\]\\}\n")
set(three "\\{${id},\"sequence\":3,\"patch\":\\[\\{\"op\":\"remove\",\"path\":\"/n\"\\}\\]\\}\n")
run(0 "^${one}${two}${three}$" changes "${C}")
run(0 "^${three}$" changes "${C}" --since 2)
run(0 "^$" changes "${C}" --since 3)
run(3 "" changes "${C}" --since 4)
run(2 "" changes "${C}" --since x)
run(2 "" changes "${C}" --bogus)
run(3 "" changes "${WORK}/missing.store")
message(STATUS "fl-json: all commands and failures as expected")
