// Copies of one rope of 4 KiB leaves (the library's own leaf size) edited
// on several threads at once: each thread's edits cut windows out of the
// leaves all copies share, and the first cut of a chunk builds its block
// index, which other threads may be building or reading at the same time.
// Run under TSan by `make test` (the "threads" label); each thread checks
// its copy against its own std::string mirror.
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_check.hpp"

#include <algorithm>
#include <cstddef>
#include <random>
#include <string>
#include <thread>
#include <vector>

static_assert(fl::detail::leaf_max_bytes == 4096, "checks the library's own leaf size");

using namespace rope_test;  // rope_check.hpp

TEST(RopeLeafThreads, CopiesOfSharedLeavesEditedInParallel) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::string text = random_utf8(rng, 64 * 1024);
  const fl::rope shared = tree_of(text, 4096);
  constexpr int threads = 4;
  std::vector<std::string> errors(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937_64 g(seed + 1 + static_cast<unsigned>(t));
      fl::rope r = shared;
      std::string s = text;
      for (int step = 0; step < 200; ++step) {
        const std::size_t pos = pick(g, s.size() + 1);
        const std::string piece = random_utf8(g, pick(g, 12));
        const auto e = static_cast<basic_edit>(pick(g, 5));
        apply_edit(e, r, s, pos, pick(g, 30), piece);
        const std::size_t probe = pick(g, s.size() + 1);
        const auto lines = static_cast<std::size_t>(std::count(s.begin(), s.begin() + probe, '\n'));
        if (r.byte_to_line(probe) != lines) {
          errors[t] = "byte_to_line(" + std::to_string(probe) + ") at step " + std::to_string(step);
          return;
        }
      }
      if (r.to_std() != s) errors[t] = "content";
    });
  }
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t << " seed " << seed;
  expect_content(shared, text, "the shared original");
  fl::detail::check_invariants(shared);
}
