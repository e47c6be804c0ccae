// tests/test_support.hpp: what several test programs share.
#pragma once

#include <fl/pool.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>

namespace fl_test {

// The seed of the randomized tests: FL_TEST_SEED (decimal) when set, else the
// clock. Read once per program, so every test of a run, and every failure
// message that prints it, names the same seed, and FL_TEST_SEED=<it>
// replays the run.
inline std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("FL_TEST_SEED"))
      return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 10));
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  return seed;
}

// Blocks the calling thread has taken from the pool so far (cache hits plus
// misses): the difference across a call is the number of allocations it made.
inline std::uint64_t pool_allocations() {
  const fl::pool_statistics st = fl::pool_stats();
  return st.hits + st.misses;
}

}  // namespace fl_test
