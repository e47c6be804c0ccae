// Threaded tests for fl::rope (also built and run under TSan): copies of one
// shared rope are taken, read and edited on two threads at once. Built with
// FL_ROPE_LEAF_MAX=16 (it links fl_rope_small) so the shared tree is
// deep and every edit copies a path of shared nodes while the other thread
// reads them. Seeds: FL_TEST_SEED, else the clock.
#include <fl/detail/rope_debug.hpp>
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using fl_test::test_seed;

// Lowercase letters.
std::string random_text(std::mt19937_64& rng, std::size_t n) {
  return fl_test::random_text(rng, n, 26, 'a');
}

// Edits a private copy of `shared` and its mirror; checks both agree, and
// that `shared` still reads as `want_shared` throughout.
void worker(const fl::rope& shared, const std::string& want_shared, std::uint64_t seed, int steps,
            std::atomic<int>& failures) {
  std::mt19937_64 rng(seed);
  fl::rope mine = shared;
  std::string mirror = want_shared;
  for (int step = 0; step < steps; ++step) {
    const std::size_t pos = rng() % (mirror.size() + 1);
    const std::string piece = random_text(rng, rng() % 20 + 1);
    switch (rng() % 7) {
      case 0:
        mine.append(piece);
        mirror.append(piece);
        break;
      case 1:
        mine.insert(pos, piece);
        mirror.insert(pos, piece);
        break;
      case 2:
        mine.erase(pos, 15);
        mirror.erase(pos, 15);
        break;
      case 3:
        mine.replace(pos, 9, piece);
        mirror.replace(pos, 9, piece);
        break;
      case 4: {  // start over from the shared rope: a fresh copy of the shared tree
        mine = shared;
        mirror = want_shared;
        break;
      }
      case 5: {
        fl::rope part = shared.substr(pos % (want_shared.size() + 1), 200);
        mine += part;
        mirror += want_shared.substr(pos % (want_shared.size() + 1), 200);
        break;
      }
      default: {  // read the shared rope: iterate, find, compare
        std::uint64_t sum = 0;
        for (char c : shared) sum += static_cast<unsigned char>(c);
        std::uint64_t want = 0;
        for (char c : want_shared) want += static_cast<unsigned char>(c);
        if (sum != want) ++failures;
        const std::string needle = want_shared.substr(want_shared.size() / 3, 40);
        if (shared.find(needle) != want_shared.find(needle)) ++failures;
        break;
      }
    }
    if (mine.size() != mirror.size()) ++failures;
    if (step % 50 == 0) {
      if (mine.to_std() != mirror) ++failures;
      try {
        fl::detail::check_invariants(mine);
      } catch (...) { ++failures; }
    }
  }
  if (mine.to_std() != mirror) ++failures;
}

}  // namespace

TEST(RopeThreads, TwoThreadsEditCopiesOfOneRope) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  std::string text;
  fl::rope shared;
  for (int i = 0; i < 400; ++i) {
    const std::string piece = random_text(rng, rng() % 30 + 1);
    // A copy alive during each append keeps the rope shared, so pieces join
    // as leaves of a tree instead of growing one flat chunk in place.
    const fl::rope before = shared;
    shared += piece;
    text += piece;
  }
  ASSERT_GE(fl::detail::rope_height(shared), 4u);
  std::atomic<int> failures{0};
  std::thread a(worker, std::cref(shared), std::cref(text), seed + 1, 3000, std::ref(failures));
  std::thread b(worker, std::cref(shared), std::cref(text), seed + 2, 3000, std::ref(failures));
  a.join();
  b.join();
  EXPECT_EQ(failures.load(), 0) << "seed " << seed;
  EXPECT_EQ(shared.to_std(), text) << "seed " << seed;
  fl::detail::check_invariants(shared);
}

TEST(RopeThreads, CopiesHandedAcrossThreadsAreReleasedSafely) {
  // Each thread drops its copies in a different order than the other takes
  // them, so the last reference to a node may fall on either thread.
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  fl::rope base(random_text(rng, 3000));
  for (int round = 0; round < 50; ++round) {
    std::vector<fl::rope> left, right;
    for (int i = 0; i < 20; ++i) {
      left.push_back(base.substr(static_cast<std::size_t>(i) * 100, 500));
      right.push_back(left.back());
    }
    std::thread t([&] {
      for (auto& r : left) r.insert(r.size() / 2, "x");
      left.clear();
    });
    for (auto it = right.rbegin(); it != right.rend(); ++it) it->append("y");
    right.clear();
    t.join();
  }
  fl::detail::check_invariants(base);
  EXPECT_EQ(base.size(), 3000u);
}

// Threads query the metrics of one big flat rope (its chunk's block index
// is built by whichever query comes first, and published to the others) and
// of their own edited copies, whose pieces still view that chunk.
TEST(RopeThreads, MetricQueriesOnSharedChunksFromManyThreads) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  std::string text;
  while (text.size() < 20000) text += rng() % 5 == 0 ? "\n" : rng() % 3 == 0 ? "\xC3\xA9" : "ab";
  const fl::rope shared(text);
  std::atomic<int> failures{0};
  auto newlines_before = [](const std::string& t, std::size_t pos) {
    return static_cast<std::size_t>(
        std::count(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
  };
  auto run = [&](std::uint64_t s) {
    std::mt19937_64 r(s);
    fl::rope mine = shared;
    std::string mirror = text;
    for (int step = 0; step < 300; ++step) {
      const std::size_t pos = r() % (mirror.size() + 1);
      const std::size_t p0 = std::min(pos, text.size());
      if (shared.byte_to_line(p0) != newlines_before(text, p0)) failures.fetch_add(1);
      if (step % 10 == 0) {
        mine.insert(pos, "\n");
        mirror.insert(pos, "\n");
      }
      const std::size_t q = r() % (mirror.size() + 1);
      if (mine.byte_to_line(q) != newlines_before(mirror, q)) failures.fetch_add(1);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(run, seed + static_cast<std::uint64_t>(t));
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0) << "seed " << seed;
  EXPECT_EQ(shared.line_count(),
            static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
}
