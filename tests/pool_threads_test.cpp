// Threaded tests of the pool (also built and run under TSan): blocks
// allocated on one thread and freed on another, in both directions at once,
// and a thread's cache handed back when the thread exits (a leak would be
// reported by LSan in the ASan build).
#include <fl/pool.hpp>
#include <fl/string.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using fl_test::test_seed;

using fl::detail::pool_allocate;
using fl::detail::pool_deallocate;

struct block {
  unsigned char* p;
  std::size_t n;
  unsigned char tag;
};

// A small blocking queue; close() wakes the consumer once it is drained.
class block_queue {
 public:
  void push(block b) {
    {
      std::lock_guard<std::mutex> lock(m_);
      q_.push_back(b);
    }
    cv_.notify_one();
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(m_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  std::optional<block> pop() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return std::nullopt;
    block b = q_.front();
    q_.pop_front();
    return b;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<block> q_;
  bool closed_ = false;
};

std::size_t random_size(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return 1 + rng() % 32;
    case 1: return 1 + rng() % 512;
    case 2: return 1 + rng() % fl::detail::pool_max_cached_bytes;
    default: return 1 + rng() % 20000;  // some large blocks too
  }
}

// The consumer's loop: frees every block the producer sends, checking that its
// bytes arrived intact, and returns the most this thread's cache held at once.
std::size_t consume(block_queue& q) {
  std::size_t peak = 0;
  while (auto b = q.pop()) {
    EXPECT_EQ(b->p[0], b->tag);
    EXPECT_EQ(b->p[b->n - 1], b->tag);
    pool_deallocate(b->p, b->n);
    peak = std::max(peak, fl::pool_stats().bytes_cached);
  }
  return peak;
}

}  // namespace

// Two threads each produce blocks for the other and free what they receive,
// while also allocating and freeing locally, so every cache holds a mix of
// its own blocks and the other thread's.
TEST(PoolThreadsTest, ThreadsFreeEachOthersBlocks) {
  const auto seed = test_seed();
  constexpr int kPerThread = 20000;
  block_queue to_b, to_a;
  std::atomic<int> corrupt{0};

  auto worker = [&](block_queue& out, block_queue& in, std::uint64_t s) {
    std::mt19937_64 rng(s);
    int received = 0;
    for (int i = 0; i < kPerThread; ++i) {
      const std::size_t n = random_size(rng);
      auto* p = static_cast<unsigned char*>(pool_allocate(n));
      const auto tag = static_cast<unsigned char>(rng());
      std::memset(p, tag, n);
      out.push({p, n, tag});
      // Local churn through the same caches.
      const std::size_t m = random_size(rng);
      void* local = pool_allocate(m);
      std::memset(local, 0x5a, m);
      pool_deallocate(local, m);
      if (i % 2 == 1) {
        if (auto b = in.pop()) {
          for (std::size_t k = 0; k < b->n; ++k)
            if (b->p[k] != b->tag) {
              corrupt.fetch_add(1);
              break;
            }
          pool_deallocate(b->p, b->n);
          ++received;
        }
      }
    }
    out.close();
    while (auto b = in.pop()) {
      if (b->p[0] != b->tag || b->p[b->n - 1] != b->tag) corrupt.fetch_add(1);
      pool_deallocate(b->p, b->n);
      ++received;
    }
    return received;
  };

  int got_a = 0, got_b = 0;
  std::thread a([&] { got_a = worker(to_b, to_a, seed); });
  std::thread b([&] { got_b = worker(to_a, to_b, seed + 1); });
  a.join();
  b.join();
  EXPECT_EQ(corrupt.load(), 0) << "seed " << seed;
  EXPECT_EQ(got_a, kPerThread) << "seed " << seed;
  EXPECT_EQ(got_b, kPerThread) << "seed " << seed;
}

// The same with fl::string: strings of every length (inline and heap) are
// built and grown on one thread, moved through a queue, appended to and
// destroyed on the other, in both directions at once.
TEST(PoolThreadsTest, ThreadsDestroyEachOthersStrings) {
  const auto seed = test_seed();
  constexpr int kPerThread = 20000;
  std::mutex m[2];
  std::condition_variable cv[2];
  std::deque<fl::string> q[2];
  bool done[2] = {false, false};
  std::atomic<int> corrupt{0};

  auto worker = [&](int self, std::uint64_t s) {
    const int other = 1 - self;
    std::mt19937_64 rng(s);
    int received = 0;
    auto consume = [&](fl::string& str) {
      // Each string is one repeated letter followed by its length digits.
      const std::size_t digits = str.find('#');
      if (digits == fl::string::npos ||
          std::to_string(digits) != std::string_view(str).substr(digits + 1)) {
        corrupt.fetch_add(1);
      }
      str += "appended on the receiving thread, past any inline size";
      ++received;
    };
    for (int i = 0; i < kPerThread; ++i) {
      const std::size_t n = rng() % 4 == 0 ? rng() % 5000 : rng() % 40;
      fl::string str(n, static_cast<char>('a' + rng() % 26));
      str += '#';
      str += std::to_string(n);
      {
        std::lock_guard<std::mutex> lock(m[other]);
        q[other].push_back(std::move(str));
      }
      cv[other].notify_one();
      std::deque<fl::string> mine;
      {
        std::lock_guard<std::mutex> lock(m[self]);
        mine.swap(q[self]);
      }
      for (auto& r : mine) consume(r);
    }
    {
      std::lock_guard<std::mutex> lock(m[other]);
      done[other] = true;
    }
    cv[other].notify_one();
    std::unique_lock<std::mutex> lock(m[self]);
    for (;;) {
      cv[self].wait(lock, [&] { return !q[self].empty() || done[self]; });
      std::deque<fl::string> mine;
      mine.swap(q[self]);
      const bool finished = done[self] && mine.empty();
      lock.unlock();
      for (auto& r : mine) consume(r);
      mine.clear();  // destroyed here, on the receiving thread
      lock.lock();
      if (finished || (done[self] && q[self].empty())) break;
    }
    return received;
  };

  int got[2] = {0, 0};
  std::thread a([&] { got[0] = worker(0, seed); });
  std::thread b([&] { got[1] = worker(1, seed + 1); });
  a.join();
  b.join();
  EXPECT_EQ(corrupt.load(), 0) << "seed " << seed;
  EXPECT_EQ(got[0], kPerThread) << "seed " << seed;
  EXPECT_EQ(got[1], kPerThread) << "seed " << seed;
}

// Producer/consumer: every block allocated on one thread is freed on the
// other, which therefore caches blocks it never allocated and serves its own
// allocations from them.
TEST(PoolThreadsTest, ConsumerCachesTheProducersBlocks) {
  const auto seed = test_seed();
  block_queue q;
  std::thread producer([&] {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 10000; ++i) {
      const std::size_t n = 1 + rng() % 256;
      auto* p = static_cast<unsigned char*>(pool_allocate(n));
      std::memset(p, i & 0xff, n);
      q.push({p, n, static_cast<unsigned char>(i & 0xff)});
    }
    q.close();
  });
  fl::pool_statistics consumer_stats{};
  std::thread consumer([&] {
    while (auto b = q.pop()) {
      EXPECT_EQ(b->p[b->n - 1], b->tag);
      pool_deallocate(b->p, b->n);
    }
    // Now this thread's cache holds foreign blocks; allocating from it hits.
    // Its cache keeps at least one batch of a class when it spills the rest
    // to the exchange (32 blocks of 16 bytes: pool_batch_max_blocks); the
    // exchange's batches the pool's releaser may hand back to the system at
    // any moment (under TSan it did: 71 hits of 100), so only that batch is
    // certain.
    const fl::pool_statistics before = fl::pool_stats();
    std::vector<void*> mine;
    for (int i = 0; i < 16; ++i) mine.push_back(pool_allocate(16));
    for (void* p : mine) pool_deallocate(p, 16);
    consumer_stats = fl::pool_stats();
    EXPECT_EQ(consumer_stats.hits - before.hits, 16u);
  });
  producer.join();
  consumer.join();
  EXPECT_GT(consumer_stats.frees_cached, 0u) << "seed " << seed;
  EXPECT_GT(consumer_stats.bytes_cached, 0u);
}

// A thread that fills its cache and exits hands every block back: the cache
// is full when the thread ends, and LSan (ASan build) would report the blocks
// as leaked if the exit hook did not free them. Statistics are per thread, so
// a new thread starts from zero.
TEST(PoolThreadsTest, ThreadExitReturnsTheCache) {
  for (int round = 0; round < 8; ++round) {
    std::size_t cached_at_exit = 0;
    std::thread t([&] {
      EXPECT_EQ(fl::pool_stats().hits, 0u);
      EXPECT_EQ(fl::pool_stats().bytes_cached, 0u);
      std::vector<void*> blocks;
      for (std::size_t n = 1; n <= fl::detail::pool_max_cached_bytes; n += 7)
        blocks.push_back(pool_allocate(n));
      std::size_t n = 1;
      for (void* p : blocks) {
        pool_deallocate(p, n);
        n += 7;
      }
      cached_at_exit = fl::pool_stats().bytes_cached;
    });
    t.join();
    EXPECT_GT(cached_at_exit, 0u);
  }
}

// Frees that happen during thread exit, after the pool's own exit hook may
// already have run (a thread_local object whose destructor frees pool
// memory), go straight to the system allocator and do not leak.
namespace {
struct frees_at_exit {
  void* p = nullptr;
  ~frees_at_exit() { pool_deallocate(p, 64); }
};
}  // namespace

TEST(PoolThreadsTest, FreesDuringThreadExitAreSafe) {
  std::thread t([] {
    // Constructed before the pool's exit hook, so destroyed after it.
    thread_local frees_at_exit early;
    early.p = pool_allocate(64);
    void* first = pool_allocate(32);
    pool_deallocate(first, 32);  // the thread's first free registers the hook
    // Constructed after the hook, so destroyed before it (a cached free).
    thread_local frees_at_exit late;
    late.p = pool_allocate(64);
  });
  t.join();
  SUCCEED();
}

// The memory bound under producer/consumer traffic: a consumer that frees
// every block a producer allocates keeps at most its depth bound cached (the
// rest goes, a batch at a time, to the exchange), and the producer refills
// from those batches instead of calling malloc for every block.
TEST(PoolThreadsTest, ConsumerCacheStaysWithinItsBound) {
  const auto seed = test_seed();
  fl::pool_trim();  // an empty exchange, so every batch below is the consumer's
  std::size_t bound = 0;
  for (std::size_t c = 0; c < fl::detail::pool_class_count; ++c)
    bound += std::size_t{fl::detail::pool_class_depth[c]} * fl::detail::pool_class_size[c];
  constexpr int kCount = 60000;
  block_queue q;
  fl::pool_statistics producer_stats{}, consumer_stats{};
  std::thread producer([&] {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < kCount; ++i) {
      const std::size_t n = 1 + rng() % (i % 2 == 0 ? 128 : fl::detail::pool_max_cached_bytes);
      auto* p = static_cast<unsigned char*>(pool_allocate(n));
      const auto tag = static_cast<unsigned char>(i);
      p[0] = tag;
      p[n - 1] = tag;
      q.push({p, n, tag});
    }
    q.close();
    producer_stats = fl::pool_stats();
  });
  std::thread consumer([&] {
    const std::size_t peak = consume(q);
    consumer_stats = fl::pool_stats();
    EXPECT_LE(peak, bound);
  });
  producer.join();
  consumer.join();
  EXPECT_LE(consumer_stats.bytes_cached, bound) << "seed " << seed;
  EXPECT_EQ(consumer_stats.frees_cached, std::uint64_t{kCount})
      << "seed " << seed;  // every free cached first
  EXPECT_GT(consumer_stats.batches_given, 0u) << "seed " << seed;
  // The producer ran ahead of the consumer at times, so not every batch can
  // have come back in time; but some did, and each saved a malloc per block.
  EXPECT_EQ(producer_stats.hits + producer_stats.misses, std::uint64_t{kCount});
  fl::pool_trim();
}

// The consumer bound: a thread that only frees blocks of a class (never
// allocates one) keeps at most one batch of it at any time, not the full
// depth, whatever the volume of traffic; the producer gets the
// rest back through the exchange. A thread that allocates from a class again
// gets its full depth back.
TEST(PoolThreadsTest, ConsumerKeepsOneBatchPerClass) {
  fl::pool_trim();
  namespace d = fl::detail;
  std::size_t batch_bound = 0, depth_bound = 0;
  for (std::size_t c = 0; c < d::pool_class_count; ++c) {
    batch_bound += std::size_t{d::pool_class_batch[c]} * d::pool_class_size[c];
    depth_bound += std::size_t{d::pool_class_depth[c]} * d::pool_class_size[c];
  }
  ASSERT_LE(2 * batch_bound, depth_bound);
  std::uint64_t produced = 0;
  for (std::size_t c = 0; c < d::pool_class_count; ++c) produced += 9 * d::pool_class_depth[c];
  block_queue q;
  fl::pool_statistics producer_stats{};
  std::thread producer([&] {
    // Three rounds of 3 * depth blocks of every class: each class overflows
    // on the consumer several times.
    for (int round = 0; round < 3; ++round) {
      for (std::size_t c = 0; c < d::pool_class_count; ++c) {
        const std::size_t n = d::pool_class_size[c];
        for (std::size_t i = 0; i < 3 * std::size_t{d::pool_class_depth[c]}; ++i) {
          auto* p = static_cast<unsigned char*>(pool_allocate(n));
          const auto tag = static_cast<unsigned char>(i + c);
          p[0] = tag;
          p[n - 1] = tag;
          q.push({p, n, tag});
        }
      }
    }
    q.close();
    producer_stats = fl::pool_stats();
  });
  fl::pool_statistics consumer_stats{};
  std::size_t reused_cached = 0;
  std::size_t consumer_peak = 0;
  std::thread consumer([&] {
    consumer_peak = consume(q);
    consumer_stats = fl::pool_stats();
    // Allocating from a class again restores its depth. depth + 1
    // allocations run the class dry at least once (it held at most a batch),
    // leaving j < batch blocks; depth + 1 frees then overflow it once, and
    // with the full depth restored it ends with depth - batch + 1 + j blocks
    // (a consumer's class would end with at most a batch).
    const std::size_t n = d::pool_class_size[0];
    std::vector<void*> mine(d::pool_class_depth[0] + 1);
    for (auto& p : mine) p = pool_allocate(n);
    const std::size_t before = fl::pool_stats().bytes_cached;
    for (void* p : mine) pool_deallocate(p, n);
    reused_cached = fl::pool_stats().bytes_cached - before;
  });
  producer.join();
  consumer.join();
  // From its first free on: a class starts at one batch.
  EXPECT_LE(consumer_peak, batch_bound);
  EXPECT_LE(consumer_stats.bytes_cached, batch_bound);
  EXPECT_GT(consumer_stats.batches_given, 0u);
  EXPECT_EQ(consumer_stats.hits, 0u);
  EXPECT_EQ(reused_cached, (std::size_t{d::pool_class_depth[0]} - d::pool_class_batch[0] + 1) *
                               d::pool_class_size[0]);
  // Every block the producer asked for was a hit or a miss (the batches it
  // took back, if it ran dry after the consumer gave some, count as hits).
  EXPECT_EQ(producer_stats.hits + producer_stats.misses, produced);
  fl::pool_trim();
}

// A consumer's class holds one batch; its overflow hands that list on whole
// (without following its links) as a batch of exactly pool_class_batch[c]
// blocks, and the next thread that runs dry of the class gets exactly those
// blocks, still null-terminated: batch hits, then a miss. The pool's
// releaser may empty the exchange between the handing on and the taking (a
// pass every pool_idle_ms once enough was released; under a loaded
// sanitizer run it did): the taker then finds no batch, and the round is
// tried again, up to 20 times.
TEST(PoolThreadsTest, ConsumerHandsItsWholeListOnAsOneBatch) {
  namespace d = fl::detail;
  for (const std::size_t n : {std::size_t{64}, std::size_t{512}, std::size_t{4096},
                              std::size_t{8192}}) {
    bool taken_whole = false;
    for (int round = 0; round < 20 && !taken_whole; ++round) {
      fl::pool_trim();  // an empty exchange
      const std::size_t c = d::pool_class_index(n);
      const std::size_t batch = d::pool_class_batch[c];
      std::vector<void*> blocks(batch + 1);
      std::thread producer([&] {
        for (std::size_t i = 0; i < blocks.size(); ++i) {
          blocks[i] = pool_allocate(n);
          std::memset(blocks[i], static_cast<int>(i + 1), n);
        }
      });
      producer.join();
      fl::pool_statistics given{};
      std::thread consumer([&] {
        for (void* p : blocks) pool_deallocate(p, n);  // the last one overflows
        given = fl::pool_stats();
      });
      consumer.join();
      EXPECT_EQ(given.batches_given, 1u) << n;
      EXPECT_EQ(given.frees_released, 0u) << n;
      EXPECT_EQ(given.bytes_cached, n) << n;  // the last block, in a fresh list
      std::vector<void*> taken(batch + 1);
      fl::pool_statistics took{};
      std::thread taker([&] {
        for (auto& p : taken) p = pool_allocate(n);
        took = fl::pool_stats();
        for (void* p : taken) pool_deallocate(p, n);
      });
      taker.join();
      if (took.batches_taken == 0) continue;  // the releaser emptied the exchange first
      taken_whole = true;
      EXPECT_EQ(took.batches_taken, 1u) << n;
      EXPECT_EQ(took.hits, batch) << n;
      EXPECT_EQ(took.misses, 1u) << n;
      std::vector<void*> want(blocks.begin(), blocks.begin() + static_cast<std::ptrdiff_t>(batch));
      std::vector<void*> got(taken.begin(), taken.begin() + static_cast<std::ptrdiff_t>(batch));
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, want) << n;
    }
    EXPECT_TRUE(taken_whole) << n << ": the releaser emptied the exchange in every round";
  }
  fl::pool_trim();
}

// Threads created and ended in a loop, each using the pool (and leaving
// blocks in the exchange for the next): LSan (ASan build) reports a leak if a
// thread's cache or the records behind it are not returned.
TEST(PoolThreadsTest, ThreadCreateExitLoop) {
  const auto seed = test_seed();
  for (int round = 0; round < 50; ++round) {
    std::vector<std::thread> ts;
    for (int k = 0; k < 3; ++k) {
      ts.emplace_back([s = seed + static_cast<std::uint64_t>(round * 3 + k)] {
        std::mt19937_64 rng(s);
        std::vector<fl::string> keep;
        for (int i = 0; i < 300; ++i) {
          keep.emplace_back(1 + rng() % 300, static_cast<char>('a' + i % 26));
          if (rng() % 3 == 0)
            keep.erase(keep.begin() + static_cast<std::ptrdiff_t>(rng() % keep.size()));
        }
        for (const fl::string& x : keep) ASSERT_EQ(x.back(), x.front());
      });
    }
    for (auto& t : ts) t.join();
  }
  fl::pool_trim();
}

// Strings destroyed by thread_local destructors, before and after the pool's
// own exit hook (heap and inline strings, moved in from another thread).
namespace {
std::atomic<int> strings_checked_at_exit{0};
// Checks its strings when destroyed, then frees them.
struct string_holder {
  std::vector<fl::string> strings;
  ~string_holder() {
    for (const fl::string& s : strings)
      if (!s.empty() && s.front() == s.back() && s.find_first_not_of(s.front()) == fl::string::npos)
        strings_checked_at_exit.fetch_add(1, std::memory_order_relaxed);
  }
};
}  // namespace

TEST(PoolThreadsTest, StringsFreedInThreadLocalDestructors) {
  for (int round = 0; round < 20; ++round) {
    std::vector<fl::string> from_main;
    for (int i = 0; i < 50; ++i) from_main.emplace_back(static_cast<std::size_t>(10 + i * 37), 'm');
    std::thread t([&from_main] {
      thread_local string_holder early;  // destroyed after the pool's exit hook
      for (int i = 0; i < 50; ++i)
        early.strings.emplace_back(static_cast<std::size_t>(5 + i * 41), 'e');
      fl::string first(200, 'f');
      first = fl::string();             // this thread's first free: registers the exit hook
      thread_local string_holder late;  // destroyed before the exit hook
      for (auto& s : from_main) late.strings.push_back(std::move(s));
      for (int i = 0; i < 50; ++i)
        late.strings.emplace_back(static_cast<std::size_t>(3 + i * 29), 'l');
    });
    t.join();
    for (const fl::string& s : from_main) ASSERT_TRUE(s.empty());  // moved into the thread
  }
  EXPECT_EQ(strings_checked_at_exit.load(), 20 * 150);
}
