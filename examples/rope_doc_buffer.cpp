// examples/rope_doc_buffer.cpp: docs/rope.md's editor buffer ("An editor's
// buffer"), exactly as the doc writes it (the build extracts it between the
// doc's readme-snippet markers: examples/CMakeLists.txt), driven as an
// editor would: load a file, a cursor, two LSP edits (one after an emoji,
// which counts two UTF-16 units), a refused edit, undo (the cursor moving
// with each step), save, and the file read back.
#include "rope_editor_buffer_snippet.inc"

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

int main() {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("fl_rope_doc_buffer_" + std::to_string(getpid()) + ".txt"))
                               .string();
  fl::write_file(path, std::string_view("fn main() {\n  say(\"\xF0\x9F\x98\x80 hi\");\n}\n"));
  buffer b(path);
  b.set_cursor(b.text().line_column_to_byte({1, 12}));  // after "hi"
  // Line 1, UTF-16 columns 10-12: "hi" (the emoji at column 7 takes two units).
  b.edit({1, 10}, {1, 12}, "h\xC3\xA9llo");
  bool ok = b.cursor() == fl::rope::line_column{1, 15};  // after "héllo" (bias::after)
  b.edit({2, 1}, {2, 1}, " // end");
  bool refused = false;
  try {
    b.edit({0, 0}, {0, 0}, "\xC3");  // a truncated sequence
  } catch (const std::invalid_argument&) { refused = true; }
  const std::string want = "fn main() {\n  say(\"\xF0\x9F\x98\x80 h\xC3\xA9llo\");\n} // end\n";
  ok = ok && refused && b.text() == want && b.cursor() == fl::rope::line_column{1, 15};
  ok = ok && b.undo() && b.text() == "fn main() {\n  say(\"\xF0\x9F\x98\x80 h\xC3\xA9llo\");\n}\n";
  ok = ok && b.undo() && b.undo() == false && b.cursor() == fl::rope::line_column{1, 12};
  b.edit({0, 3}, {0, 7}, "start");
  b.save();
  ok = ok && std::string_view(fl::read_file(path)) ==
                 "fn start() {\n  say(\"\xF0\x9F\x98\x80 hi\");\n}\n";
  std::filesystem::remove(path);
  std::printf("%s: %zu bytes, %zu lines\n", ok ? "ok" : "FAILED", b.text().size(),
              b.text().line_count());
  return ok ? 0 : 1;
}
