// fl::graphemes (fl/graphemes.hpp) against the Unicode consortium's
// GraphemeBreakTest.txt, every line of it, on a flat rope and on ropes of
// 1- to 3-byte leaves (every sequence cut between leaves), plus cases
// written from UAX #29 (emoji ZWJ sequences, flags, Hangul, CRLF, combining
// marks, prepend, invalid UTF-8) with long contexts that make the calls
// step back over many chars.
#include <fl/graphemes.hpp>
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_check.hpp"
#include "utf8.hpp"

#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace rope_test;  // rope_check.hpp: tree_of

namespace {

// A text and its grapheme boundaries (byte offsets, 0 and size() included).
struct case_t {
  std::string text;
  std::vector<std::size_t> breaks;
  std::string name;
};

// Builds a case from segments: each a cluster, in UTF-8.
case_t clusters(std::vector<std::string> parts, std::string name) {
  case_t c{{}, {0}, std::move(name)};
  for (const std::string& p : parts) {
    c.text += p;
    c.breaks.push_back(c.text.size());
  }
  if (c.text.empty()) c.breaks = {0};
  return c;
}

std::string u8(std::initializer_list<std::uint32_t> cps) {
  std::string s;
  for (std::uint32_t cp : cps) fl_test::put_utf8(s, cp);
  return s;
}

// Checks every call at every byte of c.text on rope r. Returns the number of
// positions checked.
std::size_t check_case(const fl::rope& r, const case_t& c) {
  const std::size_t size = c.text.size();
  std::size_t checks = 0;
  for (std::size_t pos = 0; pos <= size; ++pos) {
    std::size_t next = size, prev = 0;
    bool is = false;
    for (std::size_t b : c.breaks) {
      if (b > pos && next == size) next = b;
      if (b < pos) prev = b;
      if (b == pos) is = true;
    }
    if (pos == size) next = size;
    EXPECT_EQ(fl::next_grapheme_boundary(r, pos), next) << c.name << " pos " << pos;
    EXPECT_EQ(fl::prev_grapheme_boundary(r, pos), prev) << c.name << " pos " << pos;
    EXPECT_EQ(fl::is_grapheme_boundary(r, pos), is) << c.name << " pos " << pos;
    // Clusters overlapping [pos, end) for a few ends.
    for (std::size_t end = pos; end <= size; end += 1 + (end - pos) / 2) {
      std::size_t want = 0;
      for (std::size_t k = 0; k + 1 < c.breaks.size() && end > pos; ++k)
        if (c.breaks[k] < end && c.breaks[k + 1] > pos) ++want;
      EXPECT_EQ(fl::grapheme_count(r, pos, end - pos), want)
          << c.name << " [" << pos << ", " << end << ")";
    }
    ++checks;
  }
  return checks;
}

// The same text flat and in leaves of 1, 2 and 3 bytes (every sequence cut
// between leaves somewhere).
std::size_t check_all_shapes(const case_t& c) {
  std::size_t n = 0;
  for (const fl::rope& r :
       {fl::rope(c.text), tree_of(c.text, 1), tree_of(c.text, 2), tree_of(c.text, 3)})
    n += check_case(r, c);
  return n;
}

}  // namespace

// GraphemeBreakTest.txt: "÷ 0020 × 0308 ÷ 0020 ÷  # comment" per line; ÷
// marks a break, × none.
TEST(Graphemes, UnicodeGraphemeBreakTest) {
#ifndef FL_GRAPHEME_BREAK_TEST
  GTEST_SKIP() << "GraphemeBreakTest.txt not found (Debian: unicode-data); the hand-written "
                  "UAX #29 cases still run";
#else
  std::ifstream in(FL_GRAPHEME_BREAK_TEST);
  ASSERT_TRUE(in) << FL_GRAPHEME_BREAK_TEST;
  std::string line;
  std::size_t lines = 0, positions = 0, line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string w;
    case_t c{{}, {}, "GraphemeBreakTest.txt:" + std::to_string(line_no)};
    bool any = false;
    while (words >> w) {
      any = true;
      if (w == "\xC3\xB7") {  // ÷
        c.breaks.push_back(c.text.size());
      } else if (w != "\xC3\x97") {  // not ×: a code point
        fl_test::put_utf8(c.text, static_cast<std::uint32_t>(std::stoul(w, nullptr, 16)));
      }
    }
    if (!any) continue;
    positions += check_all_shapes(c);
    ++lines;
    if (HasFailure()) break;
  }
  EXPECT_GT(lines, 500u);
  std::cout << "[ graphemes ] GraphemeBreakTest.txt: " << lines << " lines, " << positions
            << " positions checked (4 rope shapes each)\n";
#endif
}

// Cases written from UAX #29's rules, each as its clusters.
TEST(Graphemes, HandWrittenUax29Cases) {
  const std::string e_acute = "e" + u8({0x301});
  const std::string family = u8({0x1F468, 0x200D, 0x1F469, 0x200D, 0x1F467});  // GB11
  const std::string flag_de = u8({0x1F1E9, 0x1F1EA}), flag_fr = u8({0x1F1EB, 0x1F1F7});
  const std::string thumbs = u8({0x1F44D, 0x1F3FD});     // emoji + skin tone (Extend)
  const std::string han = u8({0x1100, 0x1161, 0x11A8});  // L V T: one syllable (GB6-8)
  const std::string lv_t = u8({0xAC00, 0x11A8});         // LV T
  const std::string prepend = u8({0x0600, 0x0661});      // Prepend + letter (GB9b)
  const std::string spacing = u8({0x0915, 0x093F});      // KA + VOWEL SIGN I (GB9a)
  const std::vector<case_t> cases = {
      clusters({"a", "b", "\r\n", "c", "\n", "\r", "d"}, "CRLF is one cluster, CR alone is one"),
      clusters({e_acute, e_acute, "x" + u8({0x301, 0x302, 0x303})}, "combining marks"),
      clusters({family, "a", family}, "emoji ZWJ sequence"),
      clusters({"a" + u8({0x200D}), u8({0x1F467})}, "ZWJ after a letter does not join"),
      clusters({flag_de, flag_fr, u8({0x1F1E9})}, "flags: regional indicators in pairs"),
      clusters({"x", flag_de, flag_fr, flag_de, "y"}, "flags after a letter"),
      clusters({thumbs, thumbs}, "emoji modifiers"),
      clusters({han, lv_t, u8({0x1100}), "a"}, "Hangul syllables"),
      clusters({prepend, "b"}, "prepend"),
      clusters({spacing, "b"}, "spacing mark"),
      clusters({"\t", u8({0x301}), "a"}, "a mark after a control stands alone"),
      clusters({"\xC3", "\xFF", "a\x80", e_acute}, "invalid UTF-8: U+FFFD per char"),
      clusters({}, "empty"),
  };
  std::size_t positions = 0;
  for (const case_t& c : cases) positions += check_all_shapes(c);
  // The same with a long context before: 100 flags' worth of regional
  // indicators (the parity decides every pair) and combining marks.
  std::vector<std::string> long_flags(100, flag_fr);
  long_flags.push_back(u8({0x1F1E9}));
  long_flags.push_back("a" + u8({0x301, 0x301}));
  positions += check_all_shapes(clusters(long_flags, "100 flags, a lone indicator"));
  std::string a_and_marks = "a";
  for (int i = 0; i < 100; ++i) fl_test::put_utf8(a_and_marks, 0x301);
  const std::vector<std::string> marks{a_and_marks, "b"};
  positions += check_all_shapes(clusters(marks, "100 combining marks"));
  // Continuation bytes before the first char belong to the first cluster.
  const fl::rope orphan("\x80\x80\x61" + u8({0x301}) + "b");  // 0x61: 'a'
  EXPECT_EQ(fl::next_grapheme_boundary(orphan, 0), 5u);
  EXPECT_EQ(fl::next_grapheme_boundary(orphan, 2), 5u);
  EXPECT_EQ(fl::prev_grapheme_boundary(orphan, 5), 0u);
  EXPECT_FALSE(fl::is_grapheme_boundary(orphan, 2));
  EXPECT_EQ(fl::grapheme_count(orphan), 2u);
  std::cout << "[ graphemes ] UAX #29 hand-written cases: " << cases.size() + 2 << " texts, "
            << positions << " positions checked (4 rope shapes each)\n";
}

TEST(Graphemes, PastTheEndThrows) {
  const fl::rope r("ab");
  EXPECT_THROW((void)fl::next_grapheme_boundary(r, 3), std::out_of_range);
  EXPECT_THROW((void)fl::prev_grapheme_boundary(r, 3), std::out_of_range);
  EXPECT_THROW((void)fl::is_grapheme_boundary(r, 3), std::out_of_range);
  try {
    (void)fl::grapheme_count(r, 4, 1);
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "fl::grapheme_count: pos (which is 4) > size() (which is 2)");
  }
  EXPECT_EQ(fl::grapheme_count(r, 2), 0u);
}
