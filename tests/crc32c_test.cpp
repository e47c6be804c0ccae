// tests/crc32c_test.cpp: fl::detail::crc32c (the kernel the CPU check picks:
// carry-less folds of 512-bit vectors on AVX-512 with VPCLMULQDQ, three
// interleaved crc32-instruction lanes on SSE4.2, else the byte table; ctest
// runs it at each level the machine has)
// against a bit-at-a-time CRC-32C written from the definition, on random
// lengths, alignments and split points.
#include "persist/crc32c.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

// Reflected CRC-32C, one bit at a time: the definition, nothing shared with
// the library's tables or lanes.
std::uint32_t reference(const unsigned char* p, std::size_t n, std::uint32_t crc = 0) {
  std::uint32_t c = ~crc;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
  }
  return ~c;
}

TEST(Crc32c, KnownValues) {
  EXPECT_EQ(fl::detail::crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(fl::detail::crc32c("", 0), 0u);
  const std::vector<unsigned char> zeros(32, 0);
  EXPECT_EQ(fl::detail::crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);  // RFC 3720 B.4
  const std::vector<unsigned char> ones(32, 0xFF);
  EXPECT_EQ(fl::detail::crc32c(ones.data(), ones.size()), 0x62A8AB43u);
}

TEST(Crc32c, MatchesReferenceOnRandomLengthsAndAlignments) {
  std::mt19937_64 rng(fl_test::test_seed());
  const std::string buf = fl_test::random_text(rng, 3 * 4096 + 64);
  const auto* base = reinterpret_cast<const unsigned char*>(buf.data());
  // Every length around the lane block sizes, then random ones.
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 800; ++n) lengths.push_back(n);
  for (std::size_t n = 4000; n <= 4200; ++n) lengths.push_back(n);
  for (std::size_t n = 8150; n <= 8200; ++n) lengths.push_back(n);
  for (int i = 0; i < 300; ++i) lengths.push_back(rng() % (3 * 4096));
  for (const std::size_t n : lengths) {
    const std::size_t align = rng() % 64;
    const auto start = static_cast<std::uint32_t>(rng());
    ASSERT_EQ(fl::detail::crc32c(base + align, n, start), reference(base + align, n, start))
        << "length " << n << ", offset " << align;
  }
}

TEST(Crc32c, PiecesChainToTheWhole) {
  std::mt19937_64 rng(fl_test::test_seed() + 1);
  const std::string buf = fl_test::random_text(rng, 20000);
  const auto* p = reinterpret_cast<const unsigned char*>(buf.data());
  const std::uint32_t whole = reference(p, buf.size());
  for (int i = 0; i < 100; ++i) {
    const std::size_t cut = rng() % buf.size();
    const std::uint32_t first = fl::detail::crc32c(p, cut);
    EXPECT_EQ(fl::detail::crc32c(p + cut, buf.size() - cut, first), whole) << "cut at " << cut;
  }
}

// crc32c_patch: a buffer's CRC followed through changed words equals the
// reference CRC of the changed buffer, for changes at the very start and
// end, adjacent ones, small gaps (carried over zero bytes) and gaps of up
// to a megabyte (carried by powers of x).
TEST(Crc32c, PatchFollowsChangedWords) {
  std::mt19937_64 rng(fl_test::test_seed() + 2);
  for (const std::size_t words : {std::size_t{1}, std::size_t{17}, std::size_t{1000},
                                  std::size_t{1} << 18}) {
    std::vector<std::uint32_t> buf(words);
    for (auto& w : buf) w = static_cast<std::uint32_t>(rng());
    const auto bytes = [&] { return reinterpret_cast<const unsigned char*>(buf.data()); };
    std::uint32_t crc = reference(bytes(), words * 4);
    for (int round = 0; round < 20; ++round) {
      std::vector<std::size_t> at;
      const std::size_t n = 1 + rng() % 12;
      for (std::size_t i = 0; i < n; ++i) at.push_back(rng() % words);
      if (round == 0) at.push_back(0);
      if (round == 1) at.push_back(words - 1);
      if (round == 2 && words > 1) at.insert(at.end(), {words / 2, words / 2 + 1});
      std::sort(at.begin(), at.end());
      at.erase(std::unique(at.begin(), at.end()), at.end());
      fl::detail::crc32c_patch patch(words * 4);
      for (const std::size_t i : at) {
        const std::uint32_t before = buf[i];
        buf[i] = round == 3 ? before : static_cast<std::uint32_t>(rng());  // round 3: no change
        patch.change(i * 4, before, buf[i]);
      }
      crc = patch.apply(crc);
      ASSERT_EQ(crc, reference(bytes(), words * 4)) << words << " words, round " << round;
    }
  }
}

}  // namespace
