// Tests of the byte-counting kernels behind fl::rope's text metrics and
// fl::count (src/text/text_count.hpp): every length from 0 to 300 at every start
// offset within a vector, over random bytes biased towards the bytes the
// predicates turn on ('\n', continuation bytes 0x80..0xBF, lead bytes
// 0xC0..0xFF), against a byte-by-byte count. Covers the inline path for up
// to 16 bytes, and the whole-vector loop, the 16-byte step and the 64-bit
// tail of whichever kernel the CPU selects.
#include "text/text_count.hpp"

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace {

using fl::detail::text_counts;
using fl::detail::text_metric;

text_counts naive(const unsigned char* p, std::size_t n) {
  text_counts t;
  for (std::size_t i = 0; i < n; ++i) {
    t.chars += (p[i] & 0xC0) != 0x80;
    t.newlines += p[i] == '\n';
    t.astral += p[i] >= 0xF0;
  }
  return t;
}

std::vector<unsigned char> random_bytes(std::mt19937_64& rng, std::size_t n) {
  static const unsigned char special[] = {'\n', 0x80, 0xBF, 0xC3, 0xEF, 0xF0, 0xF4, 0xFF, 'a', 0};
  std::vector<unsigned char> v(n);
  for (auto& b : v)
    b = rng() % 2 ? special[rng() % sizeof special] : static_cast<unsigned char>(rng());
  return v;
}

TEST(TextCount, EveryLengthAndOffsetAgreesWithAByteByByteCount) {
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  const std::vector<unsigned char> buf = random_bytes(rng, 400);
  const char* base = reinterpret_cast<const char*>(buf.data());
  for (std::size_t off = 0; off < 40; ++off) {
    for (std::size_t n = 0; off + n <= 340; ++n) {
      const text_counts want = naive(buf.data() + off, n);
      const text_counts got = fl::detail::count_text(base + off, n);
      ASSERT_EQ(got.chars, want.chars) << "seed " << seed << " off " << off << " n " << n;
      ASSERT_EQ(got.newlines, want.newlines) << "seed " << seed << " off " << off << " n " << n;
      ASSERT_EQ(got.astral, want.astral) << "seed " << seed << " off " << off << " n " << n;
      // The vector kernel on its own, whose tails also serve short ranges.
      const text_counts bulk = fl::detail::count_text_bulk(base + off, n);
      ASSERT_EQ(bulk.chars, want.chars) << "seed " << seed << " off " << off << " n " << n;
      ASSERT_EQ(bulk.newlines, want.newlines) << "seed " << seed << " off " << off << " n " << n;
      ASSERT_EQ(bulk.astral, want.astral) << "seed " << seed << " off " << off << " n " << n;
      std::size_t nl = 0;
      for (std::size_t i = 0; i < n; ++i) nl += buf[off + i] == '\n';
      ASSERT_EQ(fl::detail::count_byte(base + off, n, '\n'), nl) << "off " << off << " n " << n;
    }
  }
}

TEST(TextCount, NthItemFindsEachItem) {
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  const std::vector<unsigned char> buf = random_bytes(rng, 300);
  const char* p = reinterpret_cast<const char*>(buf.data());
  for (const text_metric m : {text_metric::chars, text_metric::newlines, text_metric::utf16}) {
    // The positions where each item starts, byte by byte.
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < buf.size(); ++i) {
      const bool is_char = (buf[i] & 0xC0) != 0x80;
      const std::size_t w = m == text_metric::chars      ? is_char
                            : m == text_metric::newlines ? buf[i] == '\n'
                                                         : (is_char ? 1u + (buf[i] >= 0xF0) : 0u);
      for (std::size_t j = 0; j < w; ++j) starts.push_back(i);
    }
    for (std::size_t k = 0; k <= starts.size(); ++k) {
      std::size_t skipped = 0;
      const std::size_t at = fl::detail::nth_item(p, buf.size(), m, k, skipped);
      if (k == starts.size()) {
        ASSERT_EQ(at, buf.size()) << "seed " << seed << " k " << k;
        ASSERT_EQ(skipped, starts.size());
      } else {
        ASSERT_EQ(at, starts[k]) << "seed " << seed << " metric " << static_cast<int>(m) << " k "
                                 << k;
      }
    }
  }
}

}  // namespace
