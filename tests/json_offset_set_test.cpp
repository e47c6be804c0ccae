// offset_set (src/json/offset_set.hpp), the set of blocks edits made since
// the last commit: seeded random inserts, erases and clears against
// std::unordered_set, with offsets crowded into few slots so that probe runs
// wrap and erases shift them.
#include "json/offset_set.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_set>
#include <vector>

namespace {

using fl::detail::json::offset_set;

TEST(OffsetSet, AgreesWithUnorderedSetUnderRandomInsertsErasesAndClears) {
  std::mt19937_64 rng(3601);
  for (int round = 0; round < 40; ++round) {
    offset_set s;
    std::unordered_set<std::uint64_t> model;
    // Offsets as blocks have them (nonzero multiples of 8), from a range
    // small enough that most operations find their offset there.
    const std::uint64_t range = 8 + rng() % 4000;
    for (int op = 0; op < 5000; ++op) {
      const std::uint64_t x = 8 * (1 + rng() % range);
      switch (rng() % 16) {
        case 0:
          if (rng() % 8 == 0) {
            s.clear();
            model.clear();
          }
          break;
        case 1: case 2: case 3: case 4: case 5: case 6: {
          const std::size_t more = 1 + rng() % 4;
          s.reserve(more);
          for (std::size_t i = 0; i < more; ++i) {
            const std::uint64_t y = i == 0 ? x : 8 * (1 + rng() % range);
            s.insert(y);
            model.insert(y);
          }
          break;
        }
        default:
          ASSERT_EQ(s.erase(x), model.erase(x) == 1) << "round " << round << " op " << op;
      }
      ASSERT_EQ(s.size(), model.size()) << "round " << round << " op " << op;
    }
    // Every offset the model holds is found (and erased) once, no other.
    for (std::uint64_t x = 8; x <= 8 * range; x += 8)
      ASSERT_EQ(s.erase(x), model.count(x) == 1) << "round " << round << " offset " << x;
    EXPECT_EQ(s.size(), 0u);
  }
}

TEST(OffsetSet, InsertsWithinTheReservedRoomKeepTheTable) {
  offset_set s;
  s.reserve(1000);
  for (std::uint64_t x = 16; x <= 16 * 1000; x += 16) s.insert(x);
  EXPECT_EQ(s.size(), 1000u);
  s.insert(16);  // already there
  EXPECT_EQ(s.size(), 1000u);
  s.clear();  // a grown table is given back; the set works on
  EXPECT_EQ(s.size(), 0u);
  EXPECT_FALSE(s.erase(16));
  s.reserve(1);
  s.insert(24);
  EXPECT_TRUE(s.erase(24));
}

}  // namespace
