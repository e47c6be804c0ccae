# tests/readme_snippet.cmake: cmake -DREADME=<README.md> -DNAME=<snippet> -DOUT=<file> -P
# Writes the code of README.md's snippet NAME (the fenced block between
# "<!-- readme-snippet:NAME ...-->" and "<!-- /readme-snippet -->") to OUT,
# exactly as written, for a test to compile. A missing or empty snippet is an
# error, so the test breaks when the README changes shape.
file(READ "${README}" text)
string(FIND "${text}" "<!-- readme-snippet:${NAME}" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "${README}: no <!-- readme-snippet:${NAME} --> marker")
endif()
string(SUBSTRING "${text}" ${begin} -1 text)
string(FIND "${text}" "<!-- /readme-snippet -->" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${README}: snippet ${NAME} has no <!-- /readme-snippet --> end marker")
endif()
string(SUBSTRING "${text}" 0 ${end} text)
# The fenced block: from the line after the opening ``` to the closing ```.
string(FIND "${text}" "```" fence)
if(fence EQUAL -1)
  message(FATAL_ERROR "${README}: snippet ${NAME} holds no fenced code block")
endif()
string(SUBSTRING "${text}" ${fence} -1 text)
string(FIND "${text}" "\n" line_end)
math(EXPR code_begin "${line_end} + 1")
string(SUBSTRING "${text}" ${code_begin} -1 text)
string(FIND "${text}" "```" close)
if(close EQUAL -1)
  message(FATAL_ERROR "${README}: snippet ${NAME}'s code block is not closed")
endif()
string(SUBSTRING "${text}" 0 ${close} code)
string(STRIP "${code}" stripped)
if(stripped STREQUAL "")
  message(FATAL_ERROR "${README}: snippet ${NAME} is empty")
endif()
file(WRITE "${OUT}.new" "// README.md's snippet ${NAME}, extracted by tests/readme_snippet.cmake\n${code}")
# Rewritten only when it changed: no rebuild for an edit elsewhere in the README.
file(COPY_FILE "${OUT}.new" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.new")
