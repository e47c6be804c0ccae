// tests/size_class_test.cpp: the size classes of fl's two allocators come
// from one generator (fl/detail/size_classes.hpp) with two bounds: the pool's
// tables (fl/detail/pool_impl.hpp, up to pool_max_cached_bytes) and
// mapped_space's classes (up to 2^46 bytes, stored in its files). These tests
// hold both exactly as they were defined before they shared the generator:
// every class against the scheme's definition, stepped class by class
// (16-byte steps to 128, then a quarter of the power of two below), and the
// lookups against a search of that list.
#include <fl/detail/size_classes.hpp>
#include <fl/pool.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using fl::detail::class_size;
using fl::detail::size_class;
using fl::detail::size_class_count;

// Blocks of mapped_space files go up to 2^46 bytes (persist_format.hpp).
constexpr std::uint64_t kSpaceMaxBlock = std::uint64_t{1} << 46;

// The scheme, stepped: 16, 32, ..., 128, then for each power of two 2^k from
// 128 on, 2^k + 2^(k-2), + 2 * 2^(k-2), + 3 * 2^(k-2), 2^(k+1); up to max.
std::vector<std::uint64_t> stepped_classes(std::uint64_t max) {
  std::vector<std::uint64_t> s;
  for (std::uint64_t n = 16; n <= 128 && n <= max; n += 16) s.push_back(n);
  for (std::uint64_t base = 128; base < max; base *= 2)
    for (std::uint64_t q = 1; q <= 4; ++q) s.push_back(base + base / 4 * q);
  return s;
}

// The index of the smallest class of at least n bytes.
unsigned smallest_fitting(const std::vector<std::uint64_t>& classes, std::uint64_t n) {
  unsigned c = 0;
  while (classes[c] < n) ++c;
  return c;
}

TEST(SizeClassTest, FileClassesAreTheSteppedScheme) {
  const std::vector<std::uint64_t> want = stepped_classes(kSpaceMaxBlock);
  ASSERT_EQ(size_class_count(kSpaceMaxBlock), want.size());
  EXPECT_EQ(want.back(), kSpaceMaxBlock);
  for (unsigned c = 0; c < want.size(); ++c) EXPECT_EQ(class_size(c), want[c]) << "class " << c;
}

TEST(SizeClassTest, SizeClassIsTheSmallestThatFits) {
  const std::vector<std::uint64_t> classes = stepped_classes(kSpaceMaxBlock);
  EXPECT_EQ(size_class(1), 0u);
  for (unsigned c = 0; c < classes.size(); ++c) {
    const std::uint64_t n = classes[c];
    EXPECT_EQ(size_class(n), c) << n;
    EXPECT_EQ(size_class(n - 1), smallest_fitting(classes, n - 1)) << n - 1;
    if (c + 1 < classes.size()) {
      EXPECT_EQ(size_class(n + 1), c + 1) << n + 1;
    }
  }
  // Every request up to the pool's bound, one by one.
  for (std::uint64_t n = 1; n <= fl::detail::pool_max_cached_bytes; ++n)
    ASSERT_EQ(size_class(n), smallest_fitting(classes, n)) << n;
}

TEST(SizeClassTest, PoolClassesAreTheSchemeUpToItsBound) {
  const std::vector<std::uint64_t> want = stepped_classes(fl::detail::pool_max_cached_bytes);
  ASSERT_EQ(fl::detail::pool_class_count, want.size());
  for (unsigned c = 0; c < want.size(); ++c)
    EXPECT_EQ(fl::detail::pool_class_size[c], want[c]) << "class " << c;
  // The granule table behind the pool's one-load lookup.
  for (std::size_t g = 0; g < fl::detail::pool_granules; ++g)
    EXPECT_EQ(fl::detail::pool_class_of[g], smallest_fitting(want, g * 16)) << "granule " << g;
  for (std::size_t n = 1; n <= fl::detail::pool_max_cached_bytes; ++n)
    ASSERT_EQ(fl::detail::pool_class_index(n), size_class(n)) << n;
}

}  // namespace
