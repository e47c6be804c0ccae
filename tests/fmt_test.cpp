// tests/fmt_test.cpp: <fl/fmt.hpp>: the formatters of fl's string types give
// the text {fmt} gives for the same std::string under the same spec, the rope
// is written chunk by chunk, and fl::format / fl::format_to write into the
// string's own buffer (one growth per doubling, old text kept on a throw).
// Built only when {fmt} is found (target fl::fmt).
#include <fl/concat.hpp>
#include <fl/fmt.hpp>

#include <fmt/ranges.h>  // must not make the rope (a range) ambiguous
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "test_support.hpp"

namespace {

// A rope of many chunks: pieces longer than a leaf (4 KiB), put in front one
// by one, stay separate chunks.
fl::rope chunked_rope(std::string_view text, std::size_t piece = 4099) {
  fl::rope r;
  std::size_t end = text.size();
  while (end > 0) {
    const std::size_t n = std::min(piece, end);
    r.prepend(text.substr(end - n, n));
    end -= n;
  }
  return r;
}

TEST(FmtTest, StringMatchesStdStringUnderEverySpec) {
  const std::string text = "hello, world";
  const fl::string s(text);
  EXPECT_EQ(fmt::format("{}", s), text);
  EXPECT_EQ(fmt::format("{:>16}", s), fmt::format("{:>16}", text));
  EXPECT_EQ(fmt::format("{:*^17}", s), fmt::format("{:*^17}", text));
  EXPECT_EQ(fmt::format("{:.3}", s), "hel");
  EXPECT_EQ(fmt::format("{:<8.2}|", s), "he      |");
  EXPECT_EQ(fmt::format("{:{}}|", s, 14), "hello, world  |");  // dynamic width
  const fl::string heap(100, 'x');
  EXPECT_EQ(fmt::format("[{}]", heap), "[" + std::string(100, 'x') + "]");
  const fl::pmr::string p("pmr text");
  EXPECT_EQ(fmt::format("{:>9}", p), " pmr text");
}

TEST(FmtTest, ImmutableStringAndConcatenation) {
  const fl::immutable_string im("shared text");
  EXPECT_EQ(fmt::format("{}", im), "shared text");
  EXPECT_EQ(fmt::format("{:.6}", im), "shared");
  const fl::string a = "left";
  const fl::string b = "right";
  EXPECT_EQ(fmt::format("{:>12}", a + "/" + b), "  left/right");
}

TEST(FmtTest, RopeWrittenChunkByChunkMatchesFlatText) {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += fmt::format("line {} ", i);
  const fl::rope r = chunked_rope(text);
  ASSERT_GT(std::distance(r.chunks().begin(), r.chunks().end()), 20);
  EXPECT_EQ(fmt::format("{}", r), text);
  EXPECT_EQ(fmt::format("{:.10}", r), text.substr(0, 10));
  EXPECT_EQ(fmt::format("{:.0}|", r), "|");
  const fl::rope small("abcdef");
  EXPECT_EQ(fmt::format("{:>8}", small), "  abcdef");
  EXPECT_EQ(fmt::format("{:<8}|", small), "abcdef  |");
  EXPECT_EQ(fmt::format("{:-^10}", small), "--abcdef--");
  EXPECT_EQ(fmt::format("{:^9.3}|", small), "   abc   |");
  EXPECT_EQ(fmt::format("{:3}", small), "abcdef");  // width below the size: no cut
  EXPECT_EQ(fmt::format("{:s}", small), "abcdef");
  EXPECT_EQ(fmt::format("{}", fl::rope()), "");
  EXPECT_EQ(fmt::format("{:>3}", fl::rope()), "   ");
}

TEST(FmtTest, RopeSpecsCountCodePointsAcrossChunks) {
  // "\xC3\xA9" is two bytes, "\xE2\x82\xAC" three: pieces of an odd
  // length cut sequences in two at chunk boundaries.
  std::string text;
  for (int i = 0; i < 6000; ++i) text += i % 3 ? "\xC3\xA9" : "\xE2\x82\xAC";  // 6000 code points
  const fl::rope r = chunked_rope(text);
  ASSERT_GT(std::distance(r.chunks().begin(), r.chunks().end()), 2);
  std::string want_prefix;
  for (int i = 0; i < 4500; ++i) want_prefix += i % 3 ? "\xC3\xA9" : "\xE2\x82\xAC";
  EXPECT_EQ(fmt::format("{:.4500}", r), want_prefix);
  EXPECT_EQ(fmt::format("{:>6003}", r), "   " + text);
  EXPECT_EQ(fmt::format("{:6000}", r), text);
  // A multi-byte fill.
  EXPECT_EQ(fmt::format("{:\xE2\x82\xAC<4}", fl::rope("ab")), "ab\xE2\x82\xAC\xE2\x82\xAC");
}

TEST(FmtTest, RopeRejectsBadSpecsAtRunTime) {
  const fl::rope r("abc");
  EXPECT_THROW((void)fmt::format(fmt::runtime("{:d}"), r), fmt::format_error);
  EXPECT_THROW((void)fmt::format(fmt::runtime("{:.}"), r), fmt::format_error);
  EXPECT_THROW((void)fmt::format(fmt::runtime("{:{}}"), r, 3), fmt::format_error);
  EXPECT_THROW((void)fmt::format(fmt::runtime("{:08}"), r), fmt::format_error);
}

TEST(FmtTest, FormatReturnsFlString) {
  const fl::string s = fl::format("{}-{:.2f}-{}", 42, 3.14159, "x");
  EXPECT_EQ(s, "42-3.14-x");
  const auto before = fl_test::pool_allocations();
  const fl::string small = fl::format("{} {}", 1, 2);  // fits inline
  EXPECT_EQ(fl_test::pool_allocations(), before);
  EXPECT_EQ(small, "1 2");
  const fl::string big = fl::format("{:>1000}", "end");
  EXPECT_EQ(big.size(), 1000u);
  EXPECT_EQ(std::string_view(big).substr(997), "end");
  EXPECT_EQ(big.c_str()[1000], '\0');
}

TEST(FmtTest, FormatToAppendsAndMatchesFmtFormat) {
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  fl::string got = "head:";
  std::string want = "head:";
  for (int i = 0; i < 2000; ++i) {
    const auto v = static_cast<long long>(rng() % 1000000007) - 500000000;
    const std::size_t w = rng() % 40;
    fl::format_to(got, "{:>{}}|{:.3f};", v, w, static_cast<double>(v) / 7);
    want += fmt::format("{:>{}}|{:.3f};", v, w, static_cast<double>(v) / 7);
    ASSERT_EQ(std::string_view(got), want) << "seed " << seed << " step " << i;
    ASSERT_EQ(got.c_str()[got.size()], '\0');
  }
  // Growth is geometric: appending many short pieces reallocates O(log n) times.
  fl::string s;
  const auto before = fl_test::pool_allocations();
  for (int i = 0; i < 100000; ++i) fl::format_to(s, "{}", i % 10);
  EXPECT_EQ(s.size(), 100000u);
  EXPECT_LT(fl_test::pool_allocations() - before, 40u);
}

TEST(FmtTest, FormatToKeepsOldTextWhenFormattingThrows) {
  fl::string s = "kept";
  EXPECT_THROW(fl::format_to(s, fmt::runtime("{:.}"), 1.5), fmt::format_error);
  EXPECT_EQ(s, "kept");
  // The throw comes after the first argument was written into the buffer.
  fl::string big(500, 'y');
  EXPECT_THROW(fl::format_to(big, fmt::runtime("{:>300}{:q}"), "a", 1), fmt::format_error);
  EXPECT_EQ(big, fl::string(500, 'y'));
  EXPECT_EQ(big.c_str()[500], '\0');
  fl::format_to(s, "{}", fl::rope("+rope"));
  EXPECT_EQ(s, "kept+rope");
}

}  // namespace
