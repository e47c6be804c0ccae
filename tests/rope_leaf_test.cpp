// fl::rope with the library's own leaf size (4 KiB leaves, 1 KiB index
// blocks), which the small-leaf programs cannot show: an edit of a long leaf
// that is shared with a copy, or that outgrows its room, copies a window of
// old bytes cut at index-block boundaries, not the whole leaf; and random
// edits on shared copies of a tree of such leaves agree with a std::string
// mirror in content and every metric.
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_check.hpp"

#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

static_assert(fl::detail::leaf_max_bytes == 4096 && fl::detail::index_block == 1024,
              "rope_leaf_test checks the library's own leaf size");

using namespace rope_test;  // rope_check.hpp

namespace {

std::vector<std::size_t> chunk_sizes(const fl::rope& r) {
  std::vector<std::size_t> out;
  for (std::string_view c : r.chunks()) out.push_back(c.size());
  return out;
}

}  // namespace

TEST(RopeLeafTest, EditOfASharedLeafCopiesAWindowOnBlockBoundaries) {
  std::mt19937_64 rng(11);
  const std::string text = random_utf8(rng, 4 * 4096);
  const fl::rope original = tree_of(text, 4096);
  ASSERT_EQ(chunk_sizes(original), (std::vector<std::size_t>{4096, 4096, 4096, 4096}));

  // Byte 1500 of leaf 1: the window is [1024, 2048) of that leaf (256 bytes
  // of context on each side, rounded out to 1 KiB); head and tail keep
  // sharing the original's chunk.
  fl::rope r = original;
  r.insert(4096 + 1500, "abc");
  std::string want = text;
  want.insert(4096 + 1500, "abc");
  EXPECT_EQ(chunk_sizes(r), (std::vector<std::size_t>{4096, 1024, 1024 + 3, 2048, 4096, 4096}));
  fl::detail::check_invariants(r);
  expect_content(r, want, "edited copy");
  expect_metrics(r, want, rng, 200, false, "edited copy");
  expect_content(original, text, "original");

  // The next edits nearby fall inside the window, which is now unique:
  // rewritten in place, no new leaf.
  r.replace(4096 + 1400, 20, "xy");
  want.replace(4096 + 1400, 20, "xy");
  r.erase(4096 + 1600, 5);
  want.erase(4096 + 1600, 5);
  EXPECT_EQ(chunk_sizes(r),
            (std::vector<std::size_t>{4096, 1024, 1024 + 3 - 18 - 5, 2048, 4096, 4096}));
  fl::detail::check_invariants(r);
  expect_metrics(r, want, rng, 200, false, "edits in the window");

  // At the start of a leaf the window has no head: [0, 1024).
  fl::rope s = original;
  s.insert(0, "\n");
  EXPECT_EQ(chunk_sizes(s), (std::vector<std::size_t>{1024 + 1, 3072, 4096, 4096, 4096}));
  fl::detail::check_invariants(s);
}

// Random edits, most of them on copies that share leaves, on a tree of 4 KiB
// leaves: content, invariants and every metric against the mirror.
TEST(RopeLeafTest, RandomEditsOfSharedCopiesAgreeWithStdString) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x6c656166ULL);
  const std::string text = random_utf8(rng, 64 * 1024);
  std::vector<std::pair<fl::rope, std::string>> slots(4, {tree_of(text, 4096), text});
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr int steps = 400;  // every step rescans the whole text
#else
  constexpr int steps = 2'000;
#endif
  for (int step = 0; step < steps; ++step) {
    const std::string ctx = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    auto& [r, s] = slots[pick(rng, slots.size())];
    if (pick(rng, 3) == 0) {  // edit a fresh copy: every leaf it reaches is shared
      auto& [r2, s2] = slots[pick(rng, slots.size())];
      r2 = r;
      s2 = s;
    }
    const std::size_t pos = pick(rng, s.size() + 1);
    const std::size_t n = pick(rng, 2) ? pick(rng, 40) : pick(rng, 3000);
    const std::string piece = random_utf8(rng, pick(rng, 4) == 0 ? pick(rng, 1200) : pick(rng, 12));
    const auto e = static_cast<basic_edit>(pick(rng, 5));
    apply_edit(e, r, s, pos, n, piece);
    fl::detail::check_invariants(r);
    expect_content(r, s, ctx);
    expect_metrics(r, s, rng, 4, false, ctx);
    if (HasFatalFailure()) return;
  }
  for (const auto& [r, s] : slots) {
    fl::detail::check_invariants(r);
    expect_content(r, s, "end, seed " + std::to_string(seed));
    expect_metrics(r, s, rng, 100, false, "end, seed " + std::to_string(seed));
  }
}

// (line, UTF-16 column) to byte and back, on lines short enough to be
// resolved inside one leaf and lines longer than that scan (up to 700
// bytes), with 1- to 4-byte chars and "\r\n" breaks, in both line-break
// modes, flat and as a tree: every position and a spread of columns agree
// with the definitions worked out on the std::string.
TEST(RopeLeafTest, LineColumnsAgreeWithTheDefinitionsInBothModes) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x6c636f6cULL);
  static const char* const pieces[] = {"ab", "c", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                                       " "};
  std::string s;
  while (s.size() < 40'000) {
    const std::size_t len = pick(rng, 4) == 0 ? pick(rng, 700) : pick(rng, 90);
    for (const std::size_t end = s.size() + len; s.size() < end;) s += pieces[pick(rng, 6)];
    s += pick(rng, 3) == 0 ? "\r\n" : "\n";
  }
  s += "last line without a break \xF0\x9F\x98\x80";
  for (const fl::line_break mode : {fl::line_break::lf, fl::line_break::lf_crlf}) {
    const bool crlf = mode == fl::line_break::lf_crlf;
    // Line starts, and each line's text end (its '\n', or the '\r' before it).
    std::vector<std::size_t> start{0}, eol;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\n') continue;
      eol.push_back(crlf && i > start.back() && s[i - 1] == '\r' ? i - 1 : i);
      start.push_back(i + 1);
    }
    eol.push_back(s.size());
    for (const bool tree : {false, true}) {
      const fl::rope r(tree ? tree_of(s, 4096) : fl::rope(s), mode);
      const std::string ctx = std::string(crlf ? "lf_crlf" : "lf") + (tree ? " tree" : " flat") +
                              ", seed " + std::to_string(seed);
      std::size_t line = 0, col = 0;  // of byte pos
      for (std::size_t pos = 0; pos <= s.size(); ++pos) {
        if (pos > 0 && s[pos - 1] == '\n') {
          ++line;
          col = 0;
        }
        // A position inside a "\r\n" (lf_crlf) is the end of the line's text.
        const bool in_break =
            crlf && pos < s.size() && s[pos] == '\n' && pos > 0 && s[pos - 1] == '\r';
        const std::size_t want_col = in_break ? col - 1 : col;
        ASSERT_EQ(r.byte_to_line_column(pos), (fl::rope::line_column{line, want_col}))
            << ctx << " pos " << pos;
        if (pos < s.size()) col += units_of(s[pos]);
      }
      for (std::size_t l = 0; l < start.size(); ++l) {
        for (const std::size_t c : {std::size_t{0}, std::size_t{1}, std::size_t{2}, pick(rng, 40),
                                    pick(rng, 300), pick(rng, 800)}) {
          // The start of the char holding unit c, or the line's text end.
          std::size_t want = start[l];
          for (std::size_t u = 0; want < eol[l]; ++want) {
            if (!is_char_byte(s[want])) continue;
            if (u + units_of(s[want]) > c) break;
            u += units_of(s[want]);
          }
          ASSERT_EQ(r.line_column_to_byte({l, c}), want) << ctx << " line " << l << " col " << c;
        }
      }
    }
  }
}

// A flat rope cut down by substr, then grown past its chunk by an append
// (rope_check.hpp), with the library's leaves and 1 KiB index blocks.
TEST(RopeLeafTest, AppendPastACutChunkDropsItsStaleIndex) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  expect_append_past_a_cut_chunk(rng, "seed " + std::to_string(seed));
}
