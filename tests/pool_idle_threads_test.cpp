// Memory handed back after big strings: four threads each build a big
// fl::string, free it and go idle; the process's resident set must fall back
// to where it was plus what the pool may hold by its stated rule
// (<fl/pool.hpp>): each thread's cache, the exchange, and nothing large once
// pool_keep_ms has passed. Before that rule each idle thread kept its last
// big block, and four threads that freed 100 MB strings held 400 MB.
#include <fl/pool.hpp>
#include <fl/string.hpp>

#include <gtest/gtest.h>

#include <barrier>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// The sanitizers' allocators keep freed memory in a quarantine of their own,
// so the resident set says nothing about the pool there; the pool's own
// figures are still checked, on smaller strings.
constexpr bool rss_meaningful = false;
constexpr std::size_t big = std::size_t{40} << 20;
#else
constexpr bool rss_meaningful = true;
constexpr std::size_t big = std::size_t{100} << 20;
#endif
constexpr std::size_t threads = 4;

// Resident bytes of this process (the second field of /proc/self/statm, in
// pages).
std::size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  const int got = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return got == 2 ? static_cast<std::size_t>(resident) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

// What the rule lets the pool hold with `threads` idle threads: their caches
// and the exchange.
constexpr std::size_t pool_bound =
    threads * fl::detail::pool_thread_cache_max_bytes + fl::detail::pool_exchange_max_bytes;
// The rest of the process may move a little between the two readings: the
// system allocator's free lists, the threads' stacks and the test's own
// small allocations. Far below one big string.
constexpr std::size_t slack = std::size_t{8} << 20;

TEST(PoolIdleThreadsTest, ResidentSetFallsBackAfterBigStringsAreFreed) {
  fl::pool_trim();
  std::barrier<> started(threads + 1), freed(threads + 1), leave(threads + 1);
  std::vector<int> built(threads);  // int, not bool: one element per thread
  std::vector<std::size_t> cached(threads);
  std::vector<std::thread> team;
  for (std::size_t t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      started.arrive_and_wait();
      {
        // Built by appends, as a program assembles a big reply.
        fl::string s;
        const fl::string piece(64 * 1024, static_cast<char>('a' + t));
        while (s.size() < big) s += piece;
        const char mark = static_cast<char>('a' + t);
        built[t] = s.size() >= big && s[big / 2] == mark && s[s.size() - 1] == mark;
      }
      cached[t] = fl::pool_stats().bytes_cached;
      freed.arrive_and_wait();
      leave.arrive_and_wait();  // idle until the main thread has measured
    });
  }
  started.arrive_and_wait();
  const std::size_t before = resident_bytes();
  freed.arrive_and_wait();
  const std::size_t just_freed = resident_bytes();

  // Within pool_keep_ms (and a margin for a loaded machine) the kept block
  // goes too, without any call into the pool.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(fl::detail::pool_keep_ms) + std::chrono::seconds(5);
  std::size_t now = resident_bytes();
  while ((fl::pool_stats().bytes_kept != 0 || (rss_meaningful && now > before + pool_bound + slack)) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    now = resident_bytes();
  }
  const std::size_t kept = fl::pool_stats().bytes_kept;
  leave.arrive_and_wait();
  for (auto& th : team) th.join();

  for (std::size_t t = 0; t < threads; ++t) {
    EXPECT_TRUE(built[t]) << "thread " << t;
    EXPECT_LE(cached[t], fl::detail::pool_thread_cache_max_bytes) << "thread " << t;
  }
  EXPECT_EQ(kept, 0u);
  std::printf("resident: %zu MiB before, %zu MiB right after the frees, %zu MiB idle (bound +%zu MiB)\n",
              before >> 20, just_freed >> 20, now >> 20, (pool_bound + slack) >> 20);
  if (rss_meaningful) {
    ASSERT_GT(before, 0u) << "/proc/self/statm unreadable";
    EXPECT_LE(now, before + pool_bound + slack);
  }
}

}  // namespace
