// The pool's trim calls and its releaser, measured by the pool's own figures
// (pool_stats) rather than by time: pool_trim() returns what the calling
// thread holds, pool_trim_all() makes every other thread drop its cache at
// its next slow-path call, and the releaser empties the exchange after a
// burst of frees with no call from the threads that freed.
#include <fl/pool.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using fl::detail::pool_allocate;
using fl::detail::pool_deallocate;

// A one-shot signal between two threads.
class flag {
 public:
  void set() {
    std::lock_guard<std::mutex> lock(m_);
    set_ = true;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return set_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool set_ = false;
};

// Allocates n blocks of `bytes` and frees them: the class fills this thread's
// cache (and overflows into the exchange when n exceeds its depth).
void fill_cache(std::size_t bytes, std::size_t n) {
  std::vector<void*> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back(pool_allocate(bytes));
  for (void* p : v) pool_deallocate(p, bytes);
}

TEST(PoolTrimTest, TrimReturnsTheCallingThreadsCache) {
  fill_cache(64, 200);
  fill_cache(1000, 40);
  ASSERT_GT(fl::pool_stats().bytes_cached, 0u);
  fl::pool_trim();
  EXPECT_EQ(fl::pool_stats().bytes_cached, 0u);
  EXPECT_EQ(fl::pool_stats().bytes_kept, 0u);
}

// Another thread's cache is its own until it calls into the pool's slow
// path: pool_trim_all() leaves it there, and its next slow-path call (here an
// allocation of a class it has never used) returns all of it.
TEST(PoolTrimTest, TrimAllReachesOtherThreadsAtTheirNextSlowPath) {
  flag filled, trimmed;
  std::size_t before = 0, after_idle = 0, after_call = 0;
  std::thread worker([&] {
    fill_cache(64, 200);
    fill_cache(2048, 20);
    before = fl::pool_stats().bytes_cached;
    filled.set();
    trimmed.wait();
    after_idle = fl::pool_stats().bytes_cached;  // pool_stats is no slow path
    void* p = pool_allocate(6000);               // class 6144: empty, the slow path
    after_call = fl::pool_stats().bytes_cached;
    pool_deallocate(p, 6000);
  });
  filled.wait();
  fl::pool_trim_all();
  trimmed.set();
  worker.join();
  EXPECT_GT(before, 0u);
  EXPECT_EQ(after_idle, before);
  EXPECT_EQ(after_call, 0u);
}

// A free into a full class is a slow path too: after pool_trim_all() the
// first free that finds its class full returns the whole cache and then
// keeps the block it was given (without the trim it would hand one batch on
// and keep the rest of the class).
TEST(PoolTrimTest, TrimAllIsHonouredByAFreeIntoAFullClass) {
  flag filled, trimmed;
  std::size_t at_slow_free = 0;
  bool found = false;
  std::thread worker([&] {
    std::vector<void*> v;
    for (int i = 0; i < 2000; ++i) v.push_back(pool_allocate(32));
    for (int i = 0; i < 1000; ++i) pool_deallocate(v[i], 32);
    filled.set();
    trimmed.wait();
    for (int i = 1000; i < 2000; ++i) {
      const std::size_t before = fl::pool_stats().bytes_cached;
      pool_deallocate(v[i], 32);
      const std::size_t now = fl::pool_stats().bytes_cached;
      if (!found && now < before + 32) {  // this free took the slow path
        found = true;
        at_slow_free = now;
      }
    }
  });
  filled.wait();
  fl::pool_trim_all();
  trimmed.set();
  worker.join();
  ASSERT_TRUE(found);
  EXPECT_EQ(at_slow_free, 32u);
}

// The exchange is emptied by the releaser after a burst of frees, with no
// call from the thread that freed: blocks a later thread allocates are
// misses, not batches taken from the exchange.
TEST(PoolTrimTest, ReleaserEmptiesTheExchangeAfterABurst) {
  fl::pool_trim();
  std::thread burst([] {
    // Far more than the exchange's share of the class: most of it goes to
    // malloc (counted as released), the rest fills the exchange.
    std::vector<void*> v;
    constexpr std::size_t n = (std::size_t{8} << 20) / 64;
    v.reserve(n);
    for (std::size_t i = 0; i < n; ++i) v.push_back(pool_allocate(64));
    for (void* p : v) pool_deallocate(p, 64);
    EXPECT_GT(fl::pool_stats().batches_given, 0u);
  });
  burst.join();
  // A probe thread asks for a batch; once the releaser has run there is
  // none. Probes are half a second apart, so the few batches they take
  // themselves (one each) cannot empty the exchange's 128 batches of the
  // class in the time allowed.
  bool emptied = false;
  for (int i = 0; i < 10 && !emptied; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::uint64_t taken = 1;
    std::thread probe([&] {
      void* p = pool_allocate(64);  // an empty class: the exchange, or malloc
      taken = fl::pool_stats().batches_taken;
      pool_deallocate(p, 64);
    });
    probe.join();
    emptied = taken == 0;
  }
  EXPECT_TRUE(emptied);
}

}  // namespace
