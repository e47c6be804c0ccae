// fl::rope in line_break::lf_crlf mode with the library's own leaf size: a
// Windows text file read by fl::read_file and adopted as a rope, then edited
// by big and small edits (inserts longer than a leaf, which build() cuts into
// leaves; edits between a '\r' and its '\n'; ropes of lf mode whose leaves
// split pairs appended and inserted), each step checked against a
// std::string mirror: the content, the invariants (no chunk ends with the
// '\r' of a "\r\n"), and the line calls at random lines and positions; at
// the end fl::write_file writes the chunks back. The small-leaf
// differential test is rope_line_break_test.cpp.
#include <fl/io.hpp>
#include <fl/detail/rope_debug.hpp>
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <cstddef>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::size_t text_bytes = 256 << 10;  // sanitizers slow every byte the checks read
constexpr int steps = 40;
#else
constexpr std::size_t text_bytes = 1 << 20;
constexpr int steps = 120;
#endif

// Lines of 0..80 bytes ended by "\r\n", now and then by '\n' alone, with a
// lone '\r' inside some.
std::string windows_text(std::mt19937_64& rng, std::size_t n) {
  return fl_test::random_lines(rng, n,
                               {"abcd", "ef ", "\xC3\xA9", "\xF0\x9F\x98\x80", "0123", "\r", "x"},
                               80, "\r\n", "\n", 8);
}

// An lf-mode tree of `text` cut every `piece` bytes (it may split pairs).
fl::rope lf_tree(std::string_view text, std::size_t piece) {
  fl::rope r;
  for (std::size_t i = 0; i < text.size(); i += piece) r.append(fl::rope(text.substr(i, piece)));
  return r;
}

void expect_chunks_keep_breaks(const fl::rope& r, const std::string& ctx) {
  char prev = '\0';
  for (std::string_view c : r.chunks()) {
    ASSERT_FALSE(prev == '\r' && c.front() == '\n') << ctx;
    prev = c.back();
  }
}

// line_end and line_text of line i of s (lf_crlf mode), and the line of a
// position, from plain scans.
struct lines_of {
  std::vector<std::size_t> start, end;
  explicit lines_of(const std::string& s) {
    start.push_back(0);
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\n') continue;
      end.push_back(i > 0 && s[i - 1] == '\r' ? i - 1 : i);
      start.push_back(i + 1);
    }
    end.push_back(s.size());
  }
};

}  // namespace

TEST(RopeLineBreakFile, AWindowsFileEditedKeepsItsBreaksWhole) {
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  const fl_test::temp_dir dir;
  const auto file = dir / "windows.txt";
  std::string want = windows_text(rng, text_bytes);
  {
    std::ofstream out(file, std::ios::binary);
    out << want;
  }
  fl::rope doc(fl::read_file(file), fl::line_break::lf_crlf);
  ASSERT_EQ(doc, want);
  ASSERT_EQ(doc.line_break_mode(), fl::line_break::lf_crlf);
  for (int step = 0; step < steps; ++step) {
    const std::string ctx = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    // Often right after a '\r', so that the edit's ends meet pairs.
    std::size_t pos = rng() % (want.size() + 1);
    if (rng() % 2) {
      const std::size_t cr = want.find('\r', pos);
      if (cr != std::string::npos) pos = cr + 1;
    }
    switch (rng() % 6) {
      case 0: {  // longer than a leaf: built into leaves
        const std::string t = "\n" + windows_text(rng, 4096 + rng() % 20000) + "\r";
        doc.insert(pos, t);
        want.insert(pos, t);
        break;
      }
      case 1: {
        const std::size_t n = rng() % 3000;
        doc.erase(pos, n);
        want.erase(pos, n);
        break;
      }
      case 2: {  // an lf-mode tree whose leaves split pairs, inserted whole
        const std::string t = windows_text(rng, 10000 + rng() % 20000);
        doc.insert(pos, lf_tree(t, 1000 + rng() % 3000));
        want.insert(pos, t);
        break;
      }
      case 3: {
        const std::string t = "\n" + windows_text(rng, 8000);
        doc.append(lf_tree(t, 4096));
        want += t;
        break;
      }
      case 4: {  // typing: a '\r' then its '\n', one edit each
        doc.insert(pos, "\r");
        doc.insert(pos + 1, "\n");
        want.insert(pos, "\r\n");
        break;
      }
      default: {
        const std::size_t n = rng() % 40;
        const std::string t = windows_text(rng, rng() % 30);
        doc.replace(pos, n, t);
        want.replace(pos, n, t);
        break;
      }
    }
    ASSERT_EQ(doc.size(), want.size()) << ctx;
    ASSERT_NO_THROW(fl::detail::check_invariants(doc)) << ctx;
    expect_chunks_keep_breaks(doc, ctx);
    if (HasFatalFailure()) return;
    const lines_of ref(want);
    ASSERT_EQ(doc.line_count(), ref.start.size()) << ctx;
    for (int q = 0; q < 50; ++q) {
      const std::size_t i = rng() % ref.start.size();
      ASSERT_EQ(doc.line_to_byte(i), ref.start[i]) << ctx << " line " << i;
      ASSERT_EQ(doc.line_end(i), ref.end[i]) << ctx << " line " << i;
      ASSERT_EQ(doc.line_text(i),
                std::string_view(want).substr(ref.start[i], ref.end[i] - ref.start[i]))
          << ctx << " line " << i;
      ASSERT_EQ(doc.line_column_to_byte({i, fl::rope::npos}), ref.end[i]) << ctx << " line " << i;
      const std::size_t p = rng() % (want.size() + 1);
      const fl::rope::line_column lc = doc.byte_to_line_column(p);
      const bool in_break = p > 0 && p < want.size() && want[p] == '\n' && want[p - 1] == '\r';
      ASSERT_EQ(lc.line, doc.byte_to_line(in_break ? p - 1 : p)) << ctx << " pos " << p;
      ASSERT_EQ(lc.column,
                doc.byte_to_utf16(in_break ? p - 1 : p) - doc.byte_to_utf16(ref.start[lc.line]))
          << ctx << " pos " << p;
    }
  }
  ASSERT_EQ(doc, want);
  fl::write_file(file, doc);
  EXPECT_EQ(fl_test::read_whole_file(file), want);
}
