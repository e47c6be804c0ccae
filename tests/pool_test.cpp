// Tests for fl::pool_allocator and the thread-local pool behind it: allocator
// conformance, every size-class boundary, alignment, good_size, reallocate
// across class and large-block transitions, bad_alloc, statistics, the depth
// bound and pool_trim(). Threaded behaviour is in pool_threads_test.cpp.
#include <fl/pool.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace {

using fl_test::test_seed;

using fl::detail::pool_allocate;
using fl::detail::pool_deallocate;
using fl::detail::pool_good_size;
using fl::detail::pool_reallocate;
constexpr std::size_t kMax = fl::detail::pool_max_cached_bytes;

// Sizes at and around every class boundary, the cache limit and beyond.
std::vector<std::size_t> boundary_sizes() {
  std::vector<std::size_t> v;
  for (std::size_t c : fl::detail::pool_class_size) {
    v.push_back(c - 1);
    v.push_back(c);
    v.push_back(c + 1);
  }
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{8}, kMax + 1, std::size_t{8192},
                        std::size_t{65536}, std::size_t{1} << 20})
    v.push_back(n);
  return v;
}

void fill(void* p, std::size_t n, unsigned seed) {
  auto* b = static_cast<unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(seed + i * 31);
}
bool check(const void* p, std::size_t n, unsigned seed) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i)
    if (b[i] != static_cast<unsigned char>(seed + i * 31)) return false;
  return true;
}

}  // namespace

TEST(PoolTest, ClassTableIsConsistent) {
  const auto& sizes = fl::detail::pool_class_size;
  for (std::size_t c = 1; c < sizes.size(); ++c) {
    EXPECT_LT(sizes[c - 1], sizes[c]);
    EXPECT_EQ(sizes[c] % 16, 0u);
  }
  EXPECT_EQ(sizes.back(), kMax);
  // Each request maps to the smallest class that holds it.
  for (std::size_t n = 1; n <= kMax; ++n) {
    const std::size_t c = fl::detail::pool_class_index(n);
    ASSERT_GE(sizes[c], n) << n;
    if (c > 0) { ASSERT_LT(sizes[c - 1], n) << n; }
  }
}

TEST(PoolTest, AllocatorRoundTrip) {
  fl::pool_allocator<char> a;
  char* p = a.allocate(100);
  std::memset(p, 'x', 100);
  a.deallocate(p, 100);
  std::vector<int, fl::pool_allocator<int>> v(1000, 7);
  EXPECT_EQ(v[999], 7);
}

TEST(PoolTest, AllocatorConformance) {
  static_assert(std::is_same_v<std::allocator_traits<fl::pool_allocator<int>>::value_type, int>);
  static_assert(std::allocator_traits<fl::pool_allocator<int>>::is_always_equal::value);
  static_assert(std::is_empty_v<fl::pool_allocator<char>>);
  fl::pool_allocator<int> a;
  fl::pool_allocator<double> b(a);  // rebinding copy
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a != b);

  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t, fl::pool_allocator<std::uint64_t>> v;
  std::list<std::string, fl::pool_allocator<std::string>> l;
  std::map<int, int, std::less<>, fl::pool_allocator<std::pair<const int, int>>> m;
  std::vector<std::uint64_t> want;
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t x = rng();
    v.push_back(x);
    want.push_back(x);
    l.push_back(std::to_string(x));
    m[static_cast<int>(x % 1000)] = i;
    if (x % 7 == 0 && !l.empty()) l.pop_front();
  }
  ASSERT_EQ(v.size(), want.size()) << "seed " << seed;
  EXPECT_TRUE(std::equal(v.begin(), v.end(), want.begin())) << "seed " << seed;
  v.shrink_to_fit();
  EXPECT_LE(m.size(), 1000u);
  std::list<std::string, fl::pool_allocator<std::string>> l2 = l;
  EXPECT_TRUE(l2 == l);
}

TEST(PoolTest, OverAlignedTypesUseAlignedNew) {
  struct alignas(64) wide {
    char b[64];
  };
  fl::pool_allocator<wide> a;
  wide* p = a.allocate(3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
  a.deallocate(p, 3);
  EXPECT_THROW((void)a.allocate(std::numeric_limits<std::size_t>::max() / 2),
               std::bad_array_new_length);
}

TEST(PoolTest, EveryBoundaryIsUsableAndAligned) {
  for (std::size_t n : boundary_sizes()) {
    // Twice per size: a miss, then (for cached classes) a hit of the same block.
    for (int round = 0; round < 2; ++round) {
      void* p = pool_allocate(n);
      ASSERT_NE(p, nullptr) << n;
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u) << n;
      // A cached-class block is its whole class: good_size(n) bytes are usable.
      const std::size_t g = n <= kMax ? pool_good_size(n) : n;
      fill(p, g, static_cast<unsigned>(n));
      EXPECT_TRUE(check(p, g, static_cast<unsigned>(n))) << n;
      pool_deallocate(p, n);
    }
  }
}

TEST(PoolTest, GoodSizeIsAtLeastTheRequestAndMonotone) {
  std::size_t prev = 0;
  for (std::size_t n = 1; n <= 3 * kMax; ++n) {
    const std::size_t g = pool_good_size(n);
    ASSERT_GE(g, n) << n;
    ASSERT_GE(g, prev) << n;
    // Idempotent: a request of the good size costs the same.
    ASSERT_EQ(pool_good_size(g), g) << n;
    prev = g;
  }
  for (std::size_t n = 1; n <= kMax; ++n)
    ASSERT_EQ(pool_good_size(n), fl::detail::pool_class_size[fl::detail::pool_class_index(n)]);
  EXPECT_EQ(pool_good_size(1), 16u);
  EXPECT_EQ(pool_good_size(17), 32u);
  EXPECT_EQ(pool_good_size(129), 160u);
  EXPECT_EQ(pool_good_size(kMax), kMax);
  EXPECT_GT(pool_good_size(kMax + 1), kMax);
}

TEST(PoolTest, GoodSizeBlocksAreFullyUsableAboveTheCacheLimit) {
  // A block requested with n bytes may be used up to good_size(n) when the
  // caller asked for good_size(n) itself: that is the contract containers use.
  for (std::size_t n : {kMax + 1, kMax + 100, std::size_t{10000}, std::size_t{200000}}) {
    const std::size_t g = pool_good_size(n);
    void* p = pool_allocate(g);
    fill(p, g, 3);
    EXPECT_TRUE(check(p, g, 3));
    pool_deallocate(p, g);
  }
}

// pool_allocate_at_least hands out what pool_allocate(pool_good_size(n))
// would, in one lookup: the size is good_size, every byte of it is usable,
// and the block is freed by that size, at every class boundary and beyond
// the cache (where the second round takes the blocks the first cached).
TEST(PoolTest, AllocateAtLeastGivesTheGoodSizeBlock) {
  for (int round = 0; round < 2; ++round) {
    for (std::size_t n : boundary_sizes()) {
      const fl::detail::pool_block b = fl::detail::pool_allocate_at_least(n);
      ASSERT_NE(b.p, nullptr) << n;
      ASSERT_EQ(b.bytes, pool_good_size(n)) << n;
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(b.p) % 16, 0u) << n;
      fill(b.p, b.bytes, 5);
      ASSERT_TRUE(check(b.p, b.bytes, 5)) << n;
      pool_deallocate(b.p, b.bytes);
    }
  }
  EXPECT_THROW((void)fl::detail::pool_allocate_at_least(std::size_t{1} << 62), std::bad_alloc);
}

TEST(PoolTest, ReallocateKeepsContentsAcrossTransitions) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::vector<std::size_t> sizes = boundary_sizes();
  for (int step = 0; step < 2000; ++step) {
    const std::size_t a = sizes[rng() % sizes.size()];
    const std::size_t b = sizes[rng() % sizes.size()];
    void* p = pool_allocate(a);
    fill(p, a, static_cast<unsigned>(step));
    void* q = pool_reallocate(p, a, b);
    ASSERT_TRUE(check(q, a < b ? a : b, static_cast<unsigned>(step)))
        << "seed " << seed << " step " << step << " " << a << " -> " << b;
    fill(q, b <= kMax ? pool_good_size(b) : b, 1);  // the new block is fully usable
    pool_deallocate(q, b);
  }
  // A small-to-small move within one class keeps the block.
  void* p = pool_allocate(20);
  EXPECT_EQ(pool_reallocate(p, 20, 32), p);
  pool_deallocate(p, 32);
}

TEST(PoolTest, AbsurdSizesThrowBadAllocAndLeaveTheBlock) {
  const std::size_t absurd = std::numeric_limits<std::size_t>::max() / 2;
  EXPECT_THROW((void)pool_allocate(absurd), std::bad_alloc);
  EXPECT_THROW((void)pool_allocate(std::numeric_limits<std::size_t>::max()), std::bad_alloc);
  for (std::size_t n : {std::size_t{40}, std::size_t{100000}}) {
    void* p = pool_allocate(n);
    fill(p, n, 9);
    EXPECT_THROW((void)pool_reallocate(p, n, absurd), std::bad_alloc);
    EXPECT_TRUE(check(p, n, 9));  // untouched and still ours
    pool_deallocate(p, n);
  }
  fl::pool_allocator<char> a;
  EXPECT_THROW((void)a.allocate(absurd), std::bad_alloc);
  fl::pool_allocator<std::uint64_t> w;
  EXPECT_THROW((void)w.allocate(std::numeric_limits<std::size_t>::max() / 4),
               std::bad_array_new_length);
}

TEST(PoolTest, StatsMoveAsDocumented) {
  fl::pool_trim();
  void* warm = pool_allocate(48);
  pool_deallocate(warm, 48);  // opens the cache on the first free of the thread
  fl::pool_trim();

  const fl::pool_statistics s0 = fl::pool_stats();
  EXPECT_EQ(s0.bytes_cached, 0u);
  void* p = pool_allocate(40);  // class 48, empty: a miss
  const fl::pool_statistics s1 = fl::pool_stats();
  EXPECT_EQ(s1.misses, s0.misses + 1);
  EXPECT_EQ(s1.hits, s0.hits);

  pool_deallocate(p, 40);  // cached
  const fl::pool_statistics s2 = fl::pool_stats();
  EXPECT_EQ(s2.frees_cached, s1.frees_cached + 1);
  EXPECT_EQ(s2.bytes_cached, 48u);

  void* q = pool_allocate(33);  // same class 48: a hit, and the same block
  const fl::pool_statistics s3 = fl::pool_stats();
  EXPECT_EQ(q, p);
  EXPECT_EQ(s3.hits, s2.hits + 1);
  EXPECT_EQ(s3.misses, s2.misses);
  EXPECT_EQ(s3.bytes_cached, 0u);
  pool_deallocate(q, 33);

  // Large blocks bypass the cache both ways.
  const fl::pool_statistics s4 = fl::pool_stats();
  void* big = pool_allocate(kMax + 1);
  pool_deallocate(big, kMax + 1);
  const fl::pool_statistics s5 = fl::pool_stats();
  EXPECT_EQ(s5.misses, s4.misses + 1);
  EXPECT_EQ(s5.frees_released, s4.frees_released + 1);
  EXPECT_EQ(s5.bytes_cached, s4.bytes_cached);
  EXPECT_EQ(s5.hits, s4.hits);

  pool_deallocate(nullptr, 16);  // a no-op, not counted
  EXPECT_EQ(fl::pool_stats().frees_released, s5.frees_released);
  EXPECT_EQ(fl::pool_stats().frees_cached, s5.frees_cached);
}

TEST(PoolTest, DepthBoundIsRespected) {
  fl::pool_trim();
  for (std::size_t c = 0; c < fl::detail::pool_class_count; ++c) {
    const std::size_t size = fl::detail::pool_class_size[c];
    const std::size_t depth = fl::detail::pool_class_depth[c];
    const std::size_t batch = fl::detail::pool_class_batch[c];
    // Exactly depth frees fill the class; the next one hands a batch to the
    // exchange, and the cache stays within its depth.
    std::vector<void*> blocks(depth + 10);
    for (auto& b : blocks) b = pool_allocate(size);
    const fl::pool_statistics before = fl::pool_stats();
    for (std::size_t i = 0; i < depth; ++i) pool_deallocate(blocks[i], size);
    const fl::pool_statistics full = fl::pool_stats();
    EXPECT_EQ(full.frees_cached - before.frees_cached, depth) << size;
    EXPECT_EQ(full.bytes_cached - before.bytes_cached, depth * size) << size;
    EXPECT_EQ(full.batches_given, before.batches_given) << size;
    for (std::size_t i = depth; i < blocks.size(); ++i) pool_deallocate(blocks[i], size);
    const fl::pool_statistics after = fl::pool_stats();
    EXPECT_EQ(after.frees_cached - before.frees_cached, depth + 10) << size;
    EXPECT_EQ(after.frees_released, before.frees_released) << size;
    EXPECT_GE(after.batches_given - before.batches_given, 1u) << size;
    EXPECT_LE(after.bytes_cached - before.bytes_cached, depth * size) << size;
    EXPECT_GE(batch, 1u);
    EXPECT_LE(batch, depth);
    if (size <= fl::detail::pool_short_class_bytes) {
      EXPECT_EQ(depth, fl::detail::pool_short_class_depth) << size;
    } else {
      EXPECT_LE(depth * size, std::max<std::size_t>(fl::detail::pool_class_budget_bytes, 2 * size));
    }
    fl::pool_trim();
  }
  // The whole cache is bounded: every class full at once.
  std::size_t bound = 0;
  for (std::size_t c = 0; c < fl::detail::pool_class_count; ++c) {
    const std::size_t size = fl::detail::pool_class_size[c];
    std::vector<void*> blocks(fl::detail::pool_class_depth[c]);
    for (auto& b : blocks) b = pool_allocate(size);
    for (void* b : blocks) pool_deallocate(b, size);
    bound += blocks.size() * size;
  }
  EXPECT_EQ(fl::pool_stats().bytes_cached, bound);
  EXPECT_LE(bound, 1792u * 1024u);  // ~1.7 MiB: 64 KiB per class above 128 bytes
  fl::pool_trim();
  EXPECT_EQ(fl::pool_stats().bytes_cached, 0u);
}

// The classes above 1 KiB exchange batches of pool_batch_min_blocks (4), not
// the 2 or 3 of their 4 KiB batch budget, and keep at least two batches: a
// full class of 4 KiB blocks hands on 4 of its 16 and keeps 13 with the one
// freed.
TEST(PoolTest, LargeClassesExchangeBatchesOfFourBlocks) {
  namespace d = fl::detail;
  for (std::size_t c = 0; c < d::pool_class_count; ++c) {
    EXPECT_GE(d::pool_class_batch[c], d::pool_batch_min_blocks) << c;
    EXPECT_LE(2 * std::size_t{d::pool_class_batch[c]}, d::pool_class_depth[c]) << c;
    if (d::pool_class_size[c] > 1024) {
      EXPECT_EQ(d::pool_class_batch[c], d::pool_batch_min_blocks) << c;
      EXPECT_EQ(d::pool_class_depth[c], d::pool_class_budget_bytes / d::pool_class_size[c]) << c;
    }
  }
  EXPECT_EQ(d::pool_class_depth[d::pool_class_index(4096)], 16u);
  fl::pool_trim();
  constexpr std::size_t n = 4096;
  const std::size_t depth = d::pool_class_depth[d::pool_class_index(n)];
  std::vector<void*> blocks(depth + 1);
  for (auto& p : blocks) p = pool_allocate(n);  // runs dry: the class opens to its depth
  const fl::pool_statistics before = fl::pool_stats();
  for (void* p : blocks) pool_deallocate(p, n);
  const fl::pool_statistics after = fl::pool_stats();
  EXPECT_EQ(after.batches_given - before.batches_given, 1u);
  EXPECT_EQ(after.bytes_cached - before.bytes_cached, (depth + 1 - 4) * n);
  fl::pool_trim();
}

// The exchange is bounded too: once a class's share is full, the batches a
// full cache hands over go back to malloc.
TEST(PoolTest, ExchangeBoundReleasesTheOverflow) {
  fl::pool_trim();
  const std::size_t size = 4096;
  const std::size_t c = fl::detail::pool_class_index(size);
  const std::size_t batch = fl::detail::pool_class_batch[c];
  const std::size_t exchange_blocks =
      fl::detail::pool_exchange_class_bytes / (batch * size) * batch;
  const std::size_t n = fl::detail::pool_class_depth[c] + exchange_blocks + 4 * batch;
  std::vector<void*> blocks(n);
  for (auto& b : blocks) b = pool_allocate(size);
  const fl::pool_statistics before = fl::pool_stats();
  for (void* b : blocks) pool_deallocate(b, size);
  const fl::pool_statistics after = fl::pool_stats();
  EXPECT_EQ(after.frees_cached - before.frees_cached, n);
  EXPECT_EQ(after.batches_given - before.batches_given, exchange_blocks / batch);
  EXPECT_GE(after.frees_released - before.frees_released, 4 * batch);
  EXPECT_LE(after.bytes_cached, fl::detail::pool_class_depth[c] * size);
  // The long run of frees without allocations left the class at one batch
  // (the consumer bound) at most, the rest in the exchange.
  EXPECT_LE(after.bytes_cached, batch * size);
  // An emptied class refills from the exchange: a hit, not a miss, a batch
  // at a time.
  fl::pool_statistics s = fl::pool_stats();
  std::vector<void*> again(fl::detail::pool_class_depth[c] + 1);
  for (auto& b : again) b = pool_allocate(size);
  EXPECT_EQ(fl::pool_stats().misses, s.misses);
  EXPECT_GE(fl::pool_stats().batches_taken - s.batches_taken, 1u);
  EXPECT_LE(fl::pool_stats().batches_taken - s.batches_taken, again.size() / batch + 1);
  for (void* b : again) pool_deallocate(b, size);
  fl::pool_trim();
  // After the trim the exchange is empty too: the next allocation misses.
  s = fl::pool_stats();
  for (auto& b : again) b = pool_allocate(size);
  EXPECT_EQ(fl::pool_stats().misses - s.misses, again.size());
  for (void* b : again) pool_deallocate(b, size);
  fl::pool_trim();
}

TEST(PoolTest, TrimEmptiesTheCacheAndItRefills) {
  std::vector<void*> blocks;
  for (std::size_t n = 16; n <= kMax; n += 48) blocks.push_back(pool_allocate(n));
  std::size_t n = 16;
  for (void* b : blocks) {
    pool_deallocate(b, n);
    n += 48;
  }
  EXPECT_GT(fl::pool_stats().bytes_cached, 0u);
  fl::pool_trim();
  EXPECT_EQ(fl::pool_stats().bytes_cached, 0u);
  // After a trim every allocation misses, and frees are cached again.
  const fl::pool_statistics s0 = fl::pool_stats();
  void* p = pool_allocate(100);
  EXPECT_EQ(fl::pool_stats().misses, s0.misses + 1);
  pool_deallocate(p, 100);
  EXPECT_EQ(fl::pool_stats().frees_cached, s0.frees_cached + 1);
  fl::pool_trim();
  EXPECT_EQ(fl::pool_stats().bytes_cached, 0u);
}

// Under ASan a cached block is poisoned, but not its link word: LeakSanitizer
// does not follow pointers in poisoned memory, and a leak check run while a
// list held several blocks (libFuzzer runs one after an input that allocated
// more than it freed) reported every block behind the head as leaked.
TEST(PoolTest, CachedBlocksStayReachableForALeakCheck) {
#if defined(__SANITIZE_ADDRESS__)
  fl::pool_trim();
  // Two lists several blocks deep, a small class and one that also hands a
  // batch to the exchange.
  std::vector<void*> small, large;
  for (int i = 0; i < 40; ++i) small.push_back(pool_allocate(64));
  for (int i = 0; i < 40; ++i) large.push_back(pool_allocate(4096));
  for (void* b : small) pool_deallocate(b, 64);
  for (void* b : large) pool_deallocate(b, 4096);
  // Only the pool may point at them now.
  std::vector<void*>().swap(small);
  std::vector<void*>().swap(large);
  ASSERT_GT(fl::pool_stats().bytes_cached, 0u);
  EXPECT_EQ(__lsan_do_recoverable_leak_check(), 0) << "cached blocks were reported as leaked";
  fl::pool_trim();
#else
  GTEST_SKIP() << "needs AddressSanitizer's leak checker";
#endif
}

TEST(PoolTest, RandomWorkloadKeepsEveryBlockIntact) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  struct live {
    void* p;
    std::size_t n;
    unsigned tag;
  };
  std::vector<live> blocks;
  for (unsigned step = 0; step < 100000; ++step) {
    const auto op = rng() % 3;
    if (op == 0 || blocks.empty()) {
      const std::size_t n = 1 + (rng() % 8 == 0 ? rng() % 20000 : rng() % 300);
      void* p = pool_allocate(n);
      fill(p, n < 64 ? n : 64, step);
      blocks.push_back({p, n, step});
    } else {
      const std::size_t i = rng() % blocks.size();
      live& b = blocks[i];
      ASSERT_TRUE(check(b.p, b.n < 64 ? b.n : 64, b.tag)) << "seed " << seed << " step " << step;
      if (op == 1) {
        pool_deallocate(b.p, b.n);
        b = blocks.back();
        blocks.pop_back();
      } else {
        const std::size_t m = 1 + rng() % 6000;
        b.p = pool_reallocate(b.p, b.n, m);
        const std::size_t keep = std::min({b.n, m, std::size_t{64}});
        ASSERT_TRUE(check(b.p, keep, b.tag)) << "seed " << seed << " step " << step;
        b.n = m;
        fill(b.p, m < 64 ? m : 64, b.tag);
      }
    }
  }
  for (const live& b : blocks) pool_deallocate(b.p, b.n);
}

// Waits (up to a few seconds) until the kept large block is gone; true if it
// went.
bool kept_block_goes_away() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(fl::detail::pool_keep_ms) +
                        std::chrono::seconds(5);
  while (fl::pool_stats().bytes_kept != 0) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The kept large block: one for the process, reused for requests of about its
// size, replaced by the next one freed, returned by pool_trim(); never part of
// a thread's cache.
TEST(PoolTest, KeptLargeBlockIsReusedReplacedAndTrimmed) {
  constexpr std::size_t mib = std::size_t{1} << 20;
  constexpr std::size_t keep_min = fl::detail::pool_keep_min_bytes;
  constexpr std::size_t keep_max = fl::detail::pool_keep_max_bytes;
  static_assert(keep_min == 32 * mib && keep_max == 256 * mib);
  fl::pool_trim();
  const fl::pool_statistics s0 = fl::pool_stats();
  EXPECT_EQ(s0.bytes_cached, 0u);
  EXPECT_EQ(s0.bytes_kept, 0u);

  // Below the keep range: released at once, as before.
  void* below = pool_allocate(keep_min - 1);
  pool_deallocate(below, keep_min - 1);
  EXPECT_EQ(fl::pool_stats().frees_released, s0.frees_released + 1);
  EXPECT_EQ(fl::pool_stats().bytes_kept, 0u);

  void* a = pool_allocate(40 * mib);
  fill(a, 40 * mib, 1);
  pool_deallocate(a, 40 * mib);
  const fl::pool_statistics s1 = fl::pool_stats();
  EXPECT_EQ(s1.bytes_kept, 40 * mib);
  EXPECT_EQ(s1.bytes_cached, 0u);  // not the thread's: the process's
  EXPECT_EQ(s1.frees_cached, s0.frees_cached + 1);

  // A request of at most its size and more than half of it reuses it.
  void* b = pool_allocate(36 * mib);
  const fl::pool_statistics s2 = fl::pool_stats();
  EXPECT_EQ(b, a);
  EXPECT_EQ(s2.hits, s1.hits + 1);
  EXPECT_EQ(s2.misses, s1.misses);
  EXPECT_EQ(s2.bytes_kept, 0u);
  fill(b, 36 * mib, 2);
  EXPECT_TRUE(check(b, 36 * mib, 2));
  b = pool_reallocate(b, 36 * mib, 64 * mib);  // a kept block is a plain system block
  EXPECT_TRUE(check(b, 36 * mib, 2));
  pool_deallocate(b, 64 * mib);
  EXPECT_EQ(fl::pool_stats().bytes_kept, 64 * mib);

  // Too small a request for it: the kept block is released before a new one
  // is allocated, so the two never coexist.
  const fl::pool_statistics s3 = fl::pool_stats();
  void* c = pool_allocate(32 * mib);
  const fl::pool_statistics s4 = fl::pool_stats();
  EXPECT_EQ(s4.misses, s3.misses + 1);
  EXPECT_EQ(s4.frees_released, s3.frees_released + 1);
  EXPECT_EQ(s4.bytes_kept, 0u);
  fill(c, 32 * mib, 3);
  pool_deallocate(c, 32 * mib);
  EXPECT_EQ(fl::pool_stats().bytes_kept, 32 * mib);

  // A newer block replaces it; one above the range is never kept.
  void* d = pool_allocate(keep_max);
  pool_deallocate(d, keep_max);
  EXPECT_EQ(fl::pool_stats().bytes_kept, keep_max);
  const fl::pool_statistics s5 = fl::pool_stats();
  void* e = pool_allocate(keep_max + 1);
  pool_deallocate(e, keep_max + 1);
  const fl::pool_statistics s6 = fl::pool_stats();
  EXPECT_EQ(s6.frees_released, s5.frees_released + 2);  // the kept block, then e
  EXPECT_EQ(s6.bytes_kept, 0u);

  void* f = pool_allocate(48 * mib);
  pool_deallocate(f, 48 * mib);
  EXPECT_EQ(fl::pool_stats().bytes_kept, 48 * mib);
  fl::pool_trim();
  EXPECT_EQ(fl::pool_stats().bytes_kept, 0u);
}

// Nobody reuses the kept block: it goes back to the system pool_keep_ms after
// its free, with no call into the pool (the reaper thread frees it).
TEST(PoolTest, KeptLargeBlockIsReturnedWithinTheKeepTime) {
  fl::pool_trim();
  const auto freed = std::chrono::steady_clock::now();
  void* p = pool_allocate(40u << 20);
  fill(p, 4096, 4);
  pool_deallocate(p, 40u << 20);
  EXPECT_EQ(fl::pool_stats().bytes_kept, std::size_t{40} << 20);
  ASSERT_TRUE(kept_block_goes_away());
  EXPECT_GE(std::chrono::steady_clock::now() - freed, std::chrono::milliseconds(fl::detail::pool_keep_ms));
  // The next one is kept again (a new reaper starts).
  p = pool_allocate(40u << 20);
  pool_deallocate(p, 40u << 20);
  EXPECT_EQ(fl::pool_stats().bytes_kept, std::size_t{40} << 20);
  ASSERT_TRUE(kept_block_goes_away());
}

// A block freed by a thread that then exits is the process's, reused by
// another thread, and returned in time all the same (a leak checker, in ASan
// builds, reports it if it never is).
TEST(PoolTest, KeptLargeBlockOfAnExitedThreadIsReusedElsewhere) {
  fl::pool_trim();
  void* freed = nullptr;
  std::thread t([&] {
    freed = pool_allocate(40u << 20);
    fill(freed, 4096, 4);
    pool_deallocate(freed, 40u << 20);
    EXPECT_EQ(fl::pool_stats().bytes_cached, 0u);
  });
  t.join();
  void* p = pool_allocate(40u << 20);
  EXPECT_EQ(p, freed);
  pool_deallocate(p, 40u << 20);
  ASSERT_TRUE(kept_block_goes_away());
}
