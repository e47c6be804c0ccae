// fl::immutable_string under concurrency (run under TSan by `make test`):
// copies of one text are made, read and destroyed on two threads at once, and
// the last owner, whichever thread it is on, frees the block.
#include <fl/immutable_string.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

TEST(ImmutableStringThreads, CopiesHammeredFromTwoThreads) {
  const std::string text(64, 's');
  fl::immutable_string shared(text);
  std::atomic<bool> go{false};
  auto work = [&] {
    while (!go.load(std::memory_order_acquire)) {
    }
    std::vector<fl::immutable_string> held;
    for (int i = 0; i < 20'000; ++i) {
      fl::immutable_string copy = shared;  // concurrent increments
      ASSERT_EQ(copy.size(), 64u);
      ASSERT_EQ(copy.data()[63], 's');
      ASSERT_EQ(copy.hash(), std::hash<std::string_view>{}(text));  // concurrent lazy hash
      held.push_back(copy);
      if (held.size() == 64) held.clear();  // concurrent decrements
    }
  };
  std::thread a(work), b(work);
  go.store(true, std::memory_order_release);
  a.join();
  b.join();
  EXPECT_EQ(shared.use_count(), 1u);
}

TEST(ImmutableStringThreads, LastOwnerOnAnyThreadFrees) {
  // Each round hands the only other copy to a thread and races the two
  // destructions; whichever runs last frees the block (ASan/TSan check it).
  for (int round = 0; round < 2'000; ++round) {
    auto* original = new fl::immutable_string(std::string(32 + round % 32, 'r'));
    fl::immutable_string copy = *original;
    std::thread t([c = std::move(copy)]() mutable {
      ASSERT_EQ(c[0], 'r');
      c = fl::immutable_string();
    });
    EXPECT_EQ((*original)[0], 'r');
    delete original;
    t.join();
  }
}

TEST(ImmutableStringThreads, ReadersShareWhileWriterReplacesItsOwnCopy) {
  fl::immutable_string base(std::string(100, 'b'));
  std::thread writer([copy = base]() mutable {
    for (int i = 0; i < 5'000; ++i) {
      copy = fl::immutable_string(std::string(20 + i % 50, 'w'));
      ASSERT_EQ(copy[0], 'w');
    }
  });
  for (int i = 0; i < 5'000; ++i) {
    fl::immutable_string mine = base;
    ASSERT_EQ(mine.view(), std::string(100, 'b'));
  }
  writer.join();
}
