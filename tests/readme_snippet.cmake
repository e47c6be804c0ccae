# tests/readme_snippet.cmake: cmake -DREADME=<README.md> -DNAME=<snippet> -DOUT=<file> -P
# Writes the code of README.md's snippet NAME (the fenced block between
# "<!-- readme-snippet:NAME ...-->" and "<!-- /readme-snippet -->") to OUT,
# exactly as written, for a test to compile. A missing or empty snippet is an
# error, so the test breaks when the README changes shape.

# Sets <out> to where <what> first occurs in <text>; stops with <why> when it
# does not occur.
function(find_or_fail text what why out)
  string(FIND "${text}" "${what}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${README}: ${why}")
  endif()
  set(${out} ${at} PARENT_SCOPE)
endfunction()

file(READ "${README}" text)
find_or_fail("${text}" "<!-- readme-snippet:${NAME}" "no <!-- readme-snippet:${NAME} --> marker" begin)
string(SUBSTRING "${text}" ${begin} -1 text)
find_or_fail("${text}" "<!-- /readme-snippet -->"
             "snippet ${NAME} has no <!-- /readme-snippet --> end marker" end)
string(SUBSTRING "${text}" 0 ${end} text)
# The fenced block: from the line after the opening ``` to the closing ```.
find_or_fail("${text}" "```" "snippet ${NAME} holds no fenced code block" fence)
string(SUBSTRING "${text}" ${fence} -1 text)
string(FIND "${text}" "\n" line_end)
math(EXPR code_begin "${line_end} + 1")
string(SUBSTRING "${text}" ${code_begin} -1 text)
find_or_fail("${text}" "```" "snippet ${NAME}'s code block is not closed" close)
string(SUBSTRING "${text}" 0 ${close} code)
string(STRIP "${code}" stripped)
if(stripped STREQUAL "")
  message(FATAL_ERROR "${README}: snippet ${NAME} is empty")
endif()
file(WRITE "${OUT}.new" "// README.md's snippet ${NAME}, extracted by tests/readme_snippet.cmake\n${code}")
# Rewritten only when it changed: no rebuild for an edit elsewhere in the README.
file(COPY_FILE "${OUT}.new" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.new")
