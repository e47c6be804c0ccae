// Tests for fl::pool_allocator and the pool behind it.
#include <fl/pool.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

TEST(PoolTest, AllocatorRoundTrip) {
  fl::pool_allocator<char> a;
  char* p = a.allocate(100);
  std::memset(p, 'x', 100);
  a.deallocate(p, 100);
  std::vector<int, fl::pool_allocator<int>> v(1000, 7);
  EXPECT_EQ(v[999], 7);
}
