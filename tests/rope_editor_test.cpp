// The rope calls editors use beyond the basic edits: rfind, chunks_at and
// the reverse chunk walk, iterator insert/erase, and the (line, UTF-16
// column) conversions on texts with "\r\n" lines; each checked against a
// std::string mirror, with 16-byte leaves (deep trees from small texts).
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_support.hpp"

#include <iterator>
#include <random>
#include <string>
#include <string_view>

using namespace rope_test;  // rope_support.hpp

// rfind as std::string::rfind: every needle length from 0, positions
// before, inside and past the text, matches across any number of leaves,
// and a text longer than one search window (64 KiB) so that a match may
// straddle two windows.
TEST(RopeEditor, RfindAgreesWithStdString) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (const std::size_t len : {0u, 1u, 7u, 100u, 3000u, 150000u}) {
    const std::string s = random_text(rng, len, 3);
    const fl::rope r = pick(rng, 2) ? fl::rope(s) : tree_of(s, 1 + pick(rng, 20));
    const int queries = len > 10000 ? 40 : 300;
    for (int q = 0; q < queries; ++q) {
      std::string needle;
      if (!s.empty() && pick(rng, 2)) {
        const std::size_t at = pick(rng, s.size());
        needle = s.substr(at, pick(rng, 24));
      } else {
        needle = random_text(rng, pick(rng, 6), 3);
      }
      const std::size_t pos = pick(rng, 4) == 0 ? fl::rope::npos : pick(rng, s.size() + 3);
      ASSERT_EQ(r.rfind(needle, pos), s.rfind(needle, pos))
          << "seed " << seed << " len " << len << " needle " << needle << " pos " << pos;
    }
    ASSERT_EQ(r.rfind('a'), s.rfind('a')) << "seed " << seed;
  }
  // A match that straddles the cut between two 64 KiB windows.
  std::string big(200000, 'x');
  big.replace(200000 - 65536 - 3, 6, "needle");
  const fl::rope rb = tree_of(big, 16);
  EXPECT_EQ(rb.rfind("needle"), big.rfind("needle"));
  EXPECT_EQ(rb.rfind("needle", 100), std::string::npos);
}

// chunks_at(pos) gives the text from pos on, the reverse walk the same
// chunks backwards; every chunk is non-empty and knows its index.
TEST(RopeEditor, ChunksAtAndReverseWalk) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::string s = random_utf8(rng, 2000);
  for (const fl::rope& r : {fl::rope(s), tree_of(s, 13)}) {
    for (int q = 0; q < 200; ++q) {
      const std::size_t pos = pick(rng, s.size() + 1);
      const fl::rope::chunk_range c = r.chunks_at(pos);
      std::string fwd, back;
      std::size_t at = pos;
      for (auto it = c.begin(); it != c.end(); ++it) {
        ASSERT_FALSE((*it).empty());
        ASSERT_EQ(it.index(), at);
        at += (*it).size();
        fwd += *it;
      }
      ASSERT_EQ(fwd, s.substr(pos)) << "seed " << seed << " pos " << pos;
      std::size_t pieces = 0;
      for (auto it = c.rbegin(); it != c.rend(); ++it, ++pieces) back.insert(0, *it);
      ASSERT_EQ(back, fwd) << "seed " << seed << " pos " << pos;
      ASSERT_EQ(pieces, static_cast<std::size_t>(std::distance(c.begin(), c.end())));
    }
    EXPECT_EQ(r.chunks_at(s.size()).begin(), r.chunks_at(s.size()).end());
    EXPECT_THROW((void)r.chunks_at(s.size() + 1), std::out_of_range);
  }
  static_assert(std::bidirectional_iterator<fl::rope::chunk_range::iterator>);
}

// insert and erase at iterators, as std::string's: the returned iterator
// points at the first byte inserted / after the erased range.
TEST(RopeEditor, IteratorInsertAndErase) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  std::string s = random_text(rng, 300, 26);
  fl::rope r = tree_of(s, 7);
  for (int step = 0; step < 400; ++step) {
    const std::size_t pos = pick(rng, s.size() + 1);
    fl::rope::const_iterator got;
    const std::size_t want = pos;
    switch (pick(rng, 4)) {
      case 0: {
        const std::string text = random_text(rng, pick(rng, 40), 26);
        got = r.insert(r.begin() + static_cast<std::ptrdiff_t>(pos), text);
        s.insert(pos, text);
        break;
      }
      case 1:
        got = r.insert(r.begin() + static_cast<std::ptrdiff_t>(pos), 'Z');
        s.insert(pos, 1, 'Z');
        break;
      case 2:
        if (pos == s.size()) continue;
        got = r.erase(r.begin() + static_cast<std::ptrdiff_t>(pos));
        s.erase(pos, 1);
        break;
      default: {
        const std::size_t n = pick(rng, s.size() - pos + 1);
        got = r.erase(r.begin() + static_cast<std::ptrdiff_t>(pos),
                      r.begin() + static_cast<std::ptrdiff_t>(pos + n));
        s.erase(pos, n);
        break;
      }
    }
    ASSERT_EQ(got.index(), want) << "seed " << seed << " step " << step;
    ASSERT_EQ(got == r.end(), want == s.size());
    if (want < s.size()) {
      ASSERT_EQ(*got, s[want]);
    }
    expect_content(r, s, "seed " + std::to_string(seed) + " step " + std::to_string(step));
    if (HasFatalFailure()) return;
  }
  fl::detail::check_invariants(r);
}

// Edits and conversions by char and UTF-16 unit on a fixed text: a
// surrogate pair (an astral char) counts two units, a unit inside it means
// the whole char; LSP columns past a line's end clamp to it; "\r\n" lines.
TEST(RopeEditor, CharAndUtf16EditsAndLineColumns) {
  // a é \n 😀 b \r \n c
  const std::string s = "a\xC3\xA9\n\xF0\x9F\x98\x80" "b\r\nc";
  fl::rope r = tree_of(s, 3);
  EXPECT_EQ(r.char_to_line(3), 1u);     // the emoji
  EXPECT_EQ(r.line_to_char(1), 3u);
  EXPECT_EQ(r.line_to_char(2), 7u);     // 'c'
  EXPECT_EQ(r.line_to_char(3), r.char_count());
  EXPECT_EQ(r.byte_to_line_column(4), (fl::rope::line_column{1, 0}));
  EXPECT_EQ(r.byte_to_line_column(8), (fl::rope::line_column{1, 2}));   // 'b' after the pair
  EXPECT_EQ(r.byte_to_line_column(11), (fl::rope::line_column{2, 0}));
  EXPECT_EQ(r.byte_to_line_column(12), (fl::rope::line_column{2, 1}));
  EXPECT_EQ(r.byte_to_line_column(10), (fl::rope::line_column{1, 4}));  // the '\n' after '\r'

  EXPECT_EQ(r.line_column_to_byte({1, 1}), 4u);   // inside the pair: its start
  EXPECT_EQ(r.line_column_to_byte({1, 2}), 8u);
  EXPECT_EQ(r.line_column_to_byte({1, 99}), 10u);  // clamped before the '\n'
  EXPECT_EQ(r.line_column_to_byte({2, 5}), 12u);   // the last line ends at size()
  EXPECT_THROW((void)r.line_column_to_byte({3, 0}), std::out_of_range);
  EXPECT_EQ(r.chars_after(0, 3), 4u);
  EXPECT_EQ(r.chars_after(5, 1), 8u);   // from inside the emoji: the char after it
  EXPECT_EQ(r.utf16_after(4, 1), 4u);   // the pair's second unit: the same char
  EXPECT_EQ(r.utf16_after(4, 2), 8u);
  EXPECT_EQ(r.chars_after(0, 100), s.size());

  std::string m = s;
  r.replace_utf16(4, 1, "X");  // unit 4 is the pair's second: the whole pair goes
  m.replace(4, 4, "X");
  EXPECT_EQ(r, m);
  r.insert_chars(1, "\xE2\x82\xAC");  // before the é
  m.insert(1, "\xE2\x82\xAC");
  EXPECT_EQ(r, m);
  r.erase_chars(2, 2);  // é and '\n'
  m.erase(4, 3);
  EXPECT_EQ(r, m);
  r.erase_utf16(0);
  EXPECT_TRUE(r.empty());
  EXPECT_THROW(r.replace_chars(1, 0, "x"), std::out_of_range);
  EXPECT_THROW(r.insert_utf16(1, "x"), std::out_of_range);
  r.insert_chars(0, "ok");
  EXPECT_EQ(r, "ok");
}
