// fl::rope's text metrics kept by edits: random edits (multi-byte UTF-8,
// invalid bytes, "\n" and "\r\n") on shared copies, checked byte edits, and
// keystrokes at a cursor by char and by UTF-16 unit, every metric, the code
// points (chars(), char_at) and the lines both ways checked against naive
// scans and a reference decoder of a std::string mirror; 16-byte leaves. The big-text
// test with the library's leaf size is rope_metrics_test.cpp.
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_support.hpp"

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace rope_test;  // rope_support.hpp

TEST(RopeMetrics, EmptyAndSmall) {
  const fl::rope e;
  EXPECT_EQ(e.char_count(), 0u);
  EXPECT_EQ(e.line_count(), 1u);
  EXPECT_EQ(e.utf16_count(), 0u);
  EXPECT_EQ(e.char_to_byte(0), 0u);
  EXPECT_EQ(e.line_to_byte(0), 0u);
  EXPECT_EQ(e.line_to_byte(1), 0u);
  EXPECT_THROW((void)e.line_to_byte(2), std::out_of_range);
  EXPECT_EQ(e.byte_to_line(0), 0u);
  const fl::rope r("h\xC3\xA9llo\n\xF0\x9F\x98\x80 w\r\nx");
  EXPECT_EQ(r.char_count(), 12u);
  EXPECT_EQ(r.utf16_count(), 13u);
  EXPECT_EQ(r.line_count(), 3u);
  EXPECT_EQ(r.char_to_byte(2), 3u);
  EXPECT_EQ(r.byte_to_char(3), 2u);
  EXPECT_EQ(r.byte_to_char(2), 2u);  // inside the 2-byte char: it started before
  EXPECT_EQ(r.line_to_byte(1), 7u);
  EXPECT_EQ(r.line_to_byte(2), 15u);
  EXPECT_EQ(r.byte_to_line(7), 1u);
  EXPECT_EQ(r.byte_to_line(6), 0u);
  EXPECT_EQ(r.utf16_to_byte(6), 7u);  // the emoji starts at byte 7, unit 6
  EXPECT_EQ(r.utf16_to_byte(7), 7u);  // its second unit: the same char
  EXPECT_EQ(r.utf16_to_byte(8), 11u);
  EXPECT_EQ(r.byte_to_utf16(11), 8u);
  try {
    (void)r.char_to_byte(13);
    FAIL();
  } catch (const std::out_of_range& err) {
    EXPECT_STREQ(err.what(),
                 "fl::rope::char_to_byte: i (which is 13) > char_count() (which is 12)");
  }
  EXPECT_EQ(r.line(0), "h\xC3\xA9llo\n");
  EXPECT_EQ(r.line(1), "\xF0\x9F\x98\x80 w\r\n");
  EXPECT_EQ(r.line(2), "x");
  EXPECT_THROW((void)r.line(3), std::out_of_range);
  std::string joined;
  std::size_t count = 0;
  for (const fl::rope& l : r.lines()) {
    joined += l.to_std();
    ++count;
  }
  EXPECT_EQ(count, r.line_count());
  EXPECT_EQ(joined, r.to_std());
}

// Random edits on shared copies, every metric checked against plain scans
// of a std::string mirror after every step (all positions while small).
TEST(RopeMetrics, RandomEditsAgreeWithNaiveScans) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x6d657472696373ULL);
  std::vector<std::pair<fl::rope, std::string>> slots(4);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr int steps = 4'000;  // sanitizers slow every byte the checks read
#else
  constexpr int steps = 12'000;
#endif
  unsigned max_height = 0;
  for (int step = 0; step < steps; ++step) {
    auto& [r, s] = slots[pick(rng, slots.size())];
    const std::string ctx = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    const std::size_t pos = pick(rng, s.size() + 1);
    const std::size_t n = pick(rng, 2) ? pick(rng, 8) : pick(rng, 200);
    const std::string piece = random_utf8(rng, pick(rng, 3) == 0 ? pick(rng, 100) : pick(rng, 12));
    if (pick(rng, 8) == 0) {  // a checked byte edit: splits no char, writes valid UTF-8 only
      static const char* const valid[] = {"a", "\n", "\xC3\xA9", "\xE2\x82\xAC",
                                          "\xF0\x9F\x98\x80", "\r\n", "xy"};
      std::string text;
      if (pick(rng, 2)) {
        for (std::size_t k = pick(rng, 5); k > 0; --k) text += valid[pick(rng, std::size(valid))];
      } else {
        text = piece;
      }
      checked_edit(r, s, pos, n, text, static_cast<int>(pick(rng, 3)), ctx);
      if (HasFatalFailure()) return;
    } else if (pick(rng, 4) == 0) {  // an edit by char or by UTF-16 unit
      const naive_metrics m(s);
      const std::string how = pick(rng, 2) ? "chars" : "utf16";
      const std::size_t total = how == "chars" ? m.char_at.size() - 1 : m.unit_at.size() - 1;
      const std::size_t at = pick(rng, total + 1);
      const std::size_t k = pick(rng, 3) ? pick(rng, 3) : pick(rng, 40);
      const auto [b, e] = how == "chars" ? naive_char_range(s, at, k) : naive_utf16_range(s, at, k);
      if (how == "chars") {
        r.replace_chars(at, k, piece);
      } else {
        r.replace_utf16(at, k, piece);
      }
      s.replace(b, e - b, piece);
      expect_content(r, s, ctx + " replace_" + how);
      if (HasFatalFailure()) return;
    } else switch (pick(rng, s.size() > 4000 ? 9 : 12)) {
      case 0: apply_edit(basic_edit::append, r, s, pos, n, piece); break;
      case 1: apply_edit(basic_edit::prepend, r, s, pos, n, piece); break;
      case 2: apply_edit(basic_edit::insert, r, s, pos, n, piece); break;
      case 3: apply_edit(basic_edit::erase, r, s, pos, n, piece); break;
      case 4: apply_edit(basic_edit::replace, r, s, pos, n, piece); break;
      case 5: {  // a shared copy edited; the original must keep its metrics
        auto& [r2, s2] = slots[pick(rng, slots.size())];
        r2 = r;
        s2 = s;
        const std::size_t p2 = pick(rng, s2.size() + 1);
        r2.replace(p2, n, piece);
        s2.replace(p2, n, piece);
        break;
      }
      case 6: {
        const std::size_t len = pick(rng, s.size() - pos + 1);
        r = r.substr(pos, len);
        s = s.substr(pos, len);
        break;
      }
      case 7: {  // small appends: the in-place paths (flat and spine)
        for (int k = 0; k < 8; ++k) {
          const std::string small = random_utf8(rng, pick(rng, 6) + 1);
          r += small;
          s += small;
        }
        break;
      }
      case 8: {  // a rope into a rope
        const auto& [r2, s2] = slots[pick(rng, slots.size())];
        if (s.size() + s2.size() < 12000) {
          r.insert(pos, r2);
          s.insert(pos, s2);
        }
        break;
      }
      case 9: {  // a big flat chunk (block index), then appends to it
        s = random_utf8(rng, 500 + pick(rng, 3000));
        r = fl::rope(s);
        (void)r.char_to_byte(pick(rng, r.char_count() + 1));  // builds the index
        for (int k = 0; k < 4; ++k) {
          const std::string more = random_utf8(rng, pick(rng, 300));
          r.append(more);
          s.append(more);
        }
        break;
      }
      case 10: {  // adopt a flattened string, then edit it in place
        r = fl::rope(std::move(r).flatten());
        (void)r.byte_to_line(pick(rng, s.size() + 1));
        apply_edit(basic_edit::replace, r, s, pos, n, piece);
        break;
      }
      default: {  // rope + rope
        const auto& [r2, s2] = slots[pick(rng, slots.size())];
        if (s.size() + s2.size() < 12000) {
          r = r + r2;
          s = s + s2;
        }
        break;
      }
    }
    fl::detail::check_invariants(r);
    max_height = std::max(max_height, fl::detail::rope_height(r));
    expect_metrics(r, s, rng, 8, s.size() < 300 || step % 50 == 0, ctx);
    if (HasFatalFailure()) return;
    expect_chars(r, s, rng, 4, s.size() < 300 || step % 50 == 0, ctx);
    if (HasFatalFailure()) return;
    if (step % 100 == 0) {
      for (const auto& [rr, ss] : slots) {
        fl::detail::check_invariants(rr);
        expect_metrics(rr, ss, rng, 16, false, ctx + " (slots)");
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_GE(max_height, 4u) << "seed " << seed;
}

// Keystrokes at a cursor (rope_check.hpp: type_at_cursor) by char and by
// UTF-16 unit, on a flat rope edited in place and then on trees of 16-byte
// leaves: the leaf index and the hint an edit by char leaves for the next
// one, truncated by edits in place and dropped by edits by byte, checked
// with every metric after every step.
TEST(RopeMetrics, TypingAtACursorKeepsEveryMetric) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x747970696e67ULL);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr int steps = 1'500;
#else
  constexpr int steps = 6'000;
#endif
  std::string s = random_utf8(rng, 20);
  fl::rope r(s);
  type_at_cursor(r, s, rng, steps, "seed " + std::to_string(seed));
  EXPECT_GE(fl::detail::rope_height(r), 3u) << "seed " << seed;
}

// Several copies of one big flat rope, queried in parallel orders: all
// read the chunk's one block index.
TEST(RopeMetrics, BigFlatRopeQueriesMatchAfterEditsAtBothEnds) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  std::string s = random_utf8(rng, 20000);
  fl::rope r(s);
  expect_metrics(r, s, rng, 200, false, "flat, seed " + std::to_string(seed));
  fl::rope copy = r;
  r.insert(10000, "\n\xF0\x9F\x98\x80\n");
  std::string s2 = s;
  s2.insert(10000, "\n\xF0\x9F\x98\x80\n");
  expect_metrics(r, s2, rng, 200, false, "edited, seed " + std::to_string(seed));
  expect_metrics(copy, s, rng, 200, false, "copy, seed " + std::to_string(seed));
  fl::detail::check_invariants(r);
  fl::detail::check_invariants(copy);
}

// A chunk with a block index handed to an fl::string by flatten() && frees
// the index (the sanitizer build's leak check sees it otherwise).
TEST(RopeMetrics, FlattenOfAnIndexedChunk) {
  fl::rope r(std::string(5000, 'a') + "\n\xC3\xA9");
  EXPECT_EQ(r.byte_to_line(4000), 0u);
  EXPECT_EQ(r.char_to_byte(5001), 5001u);
  const fl::string s = std::move(r).flatten();
  EXPECT_EQ(s.size(), 5003u);
}

// A flat rope cut down by substr, then grown past its chunk by an append
// (rope_check.hpp), with 16-byte leaves; rope_leaf_test runs it with the
// library's.
TEST(RopeMetrics, AppendPastACutChunkDropsItsStaleIndex) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  expect_append_past_a_cut_chunk(rng, "seed " + std::to_string(seed));
}
