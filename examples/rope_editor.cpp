// fl::rope for a large text edited in the middle: O(log n) inserts and
// erases, O(1) copies (an undo history is a vector of ropes), chunked reads.
#include <fl/rope.hpp>

#include <cstdio>
#include <string>
#include <vector>

int main() {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + "\n";
  fl::rope doc(text);

  std::vector<fl::rope> undo;
  undo.push_back(doc);  // O(1): shares every chunk
  doc.insert(doc.size() / 2, "-- inserted in the middle --\n");
  undo.push_back(doc);
  doc.erase(0, doc.find("line 100\n"));  // drop the first 100 lines

  // Read without flattening: one std::string_view per chunk.
  std::size_t lines = 0;
  for (std::string_view chunk : doc.chunks())
    for (char c : chunk) lines += c == '\n';

  const bool ok = doc.starts_with("line 100\n") && undo.front().size() == text.size() &&
                  undo.back().contains("-- inserted") && lines == 20000 - 100 + 1;
  std::printf("%zu bytes, %zu lines, %zu undo states\n", doc.size(), lines, undo.size());
  return ok ? 0 : 1;
}
