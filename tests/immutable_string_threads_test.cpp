// fl::immutable_string under concurrency (run under TSan by `make test`):
// copies of one text are made, read and destroyed on two threads at once, and
// the last owner, whichever thread it is on, frees the block. The biased
// count: copies made on the owning thread and dropped on others (the owner's
// merge queue), texts whose owner exits while other threads still copy them,
// and texts made and dropped in thread_local destructors. A text freed twice
// or never is reported by ASan/LSan (and a race by TSan).
#include <fl/immutable_string.hpp>
#include <fl/pool.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

// A blocking queue of texts; close() wakes the consumer once it is drained.
class text_queue {
 public:
  void push(fl::immutable_string s) {
    {
      std::lock_guard<std::mutex> lock(m_);
      q_.push_back(std::move(s));
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
  std::optional<fl::immutable_string> pop() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return std::nullopt;
    fl::immutable_string s = std::move(q_.front());
    q_.pop_front();
    return s;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<fl::immutable_string> q_;
  bool closed_ = false;
};

std::string text_of(int i) {
  return std::string(16 + static_cast<std::size_t>(i % 200), static_cast<char>('a' + i % 26));
}

}  // namespace

TEST(ImmutableStringThreads, CopiesHammeredFromTwoThreads) {
  const std::string text(64, 's');
  fl::immutable_string shared(text);
  std::atomic<bool> go{false};
  auto work = [&] {
    while (!go.load(std::memory_order_acquire)) {}
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

// Copies made on the owning thread and dropped on another push the text on
// the owner's merge queue; the owner frees it when it next makes a long text.
// Observed through the owner's pool cache: the freed block returns to it.
TEST(ImmutableStringThreads, TextDroppedElsewhereIsFreedAtTheOwnersNextText) {
  fl::pool_trim();
  auto* text = new fl::immutable_string(std::string(200, 'q'));  // block of 248 + 1 bytes
  fl::immutable_string copy = *text;                             // counted by the owner
  EXPECT_EQ(copy.use_count(), 2u);
  std::thread t(
      [c = std::move(copy)]() mutable { c = fl::immutable_string(); });  // dropped elsewhere
  t.join();
  EXPECT_EQ(text->use_count(), 1u);
  delete text;  // the owner's count is still 1 here: the text waits in the queue
  const std::size_t before = fl::pool_stats().bytes_cached;
  fl::immutable_string next(std::string(20, 'n'));  // a 69-byte block: another class
  const std::size_t after = fl::pool_stats().bytes_cached;
  EXPECT_EQ(after - before, fl::detail::pool_good_size(fl::detail::immutable_rep::block_size(200)));
  EXPECT_EQ(next.view(), std::string(20, 'n'));
}

// The owner makes texts and hands copies to a consumer, then exits while the
// consumer still copies, compares and drops them; the consumer merges each
// text after the owner's queue closed.
TEST(ImmutableStringThreads, CopiesCrossThreadsWhileTheOwnerExits) {
  const auto seed = fl_test::test_seed();
  for (int round = 0; round < 20; ++round) {
    text_queue q;
    std::atomic<int> wrong{0};
    std::thread consumer([&] {
      std::vector<fl::immutable_string> kept;
      int i = 0;
      while (auto s = q.pop()) {
        fl::immutable_string c = *s;  // a copy on a non-owner
        if (c.view() != text_of(i)) wrong.fetch_add(1);
        if (i % 3 == 0) kept.push_back(std::move(c));
        ++i;
      }
      for (std::size_t k = 0; k < kept.size(); ++k)
        if (kept[k].view() != text_of(static_cast<int>(3 * k))) wrong.fetch_add(1);
    });
    std::thread owner([&, r = seed + static_cast<std::uint64_t>(round)] {
      std::mt19937_64 rng(r);
      std::vector<fl::immutable_string> mine;
      for (int i = 0; i < 300; ++i) {
        fl::immutable_string s(text_of(i));
        fl::immutable_string extra = s;  // counted locally, maybe dropped elsewhere
        q.push(rng() % 2 ? std::move(extra) : s);
        if (rng() % 4 == 0) mine.push_back(s);
      }
      q.close();  // exits now, with `mine` still holding copies of some texts
    });
    owner.join();
    consumer.join();
    EXPECT_EQ(wrong.load(), 0) << "seed " << seed;
  }
}

// Copies of one owner's text hammered on several threads (copy, hash,
// destroy) while the owner itself copies and drops it, then exits first.
TEST(ImmutableStringThreads, OwnerExitsFirstWhileOthersHoldCopies) {
  for (int round = 0; round < 50; ++round) {
    std::vector<fl::immutable_string> handed;
    std::thread owner([&handed, round] {
      fl::immutable_string s(text_of(round));
      for (int i = 0; i < 8; ++i) handed.push_back(s);
      for (int i = 0; i < 100; ++i) {
        fl::immutable_string local = s;
        ASSERT_EQ(local.size(), s.size());
      }
    });
    owner.join();
    std::vector<std::thread> others;
    for (auto& h : handed) {
      others.emplace_back([mine = std::move(h), round] {
        for (int i = 0; i < 200; ++i) {
          fl::immutable_string c = mine;
          ASSERT_EQ(c.view(), text_of(round));
          ASSERT_EQ(c.hash(), std::hash<std::string_view>{}(c.view()));
        }
      });
    }
    for (auto& t : others) t.join();
  }
}

namespace {

// Lets `n` threads through at once: each arrives and waits until all have
// (yielding, so that more threads than cores still reach the line quickly).
struct start_line {
  explicit start_line(int n) : waiting(n) {}
  void arrive_and_wait() {
    waiting.fetch_sub(1, std::memory_order_acq_rel);
    while (waiting.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  }
  std::atomic<int> waiting;
};

}  // namespace

// The owner's copies of its text are all dropped on other threads at the same
// moment, after the owner exited, and each of those threads exits right after
// its drop. Every drop takes the count below zero; one of them claims the
// text (QUEUED) and merges it, and the last one frees it. A drop that lost
// the claim to another thread must not touch the text again: the block may
// already be freed, and nothing orders such a late access before the free
// (TSan reported it as a race with the freeing thread's exit).
TEST(ImmutableStringThreads, CopiesOfAnExitedOwnerDroppedAtOnceElsewhere) {
  constexpr int droppers = 3;
  for (int round = 0; round < 300; ++round) {
    std::vector<fl::immutable_string> copies;
    std::thread owner([&copies, round] {
      fl::immutable_string s(text_of(round));
      for (int i = 0; i < droppers; ++i) copies.push_back(s);  // counted by the owner
    });
    owner.join();
    start_line line(droppers);
    std::vector<std::thread> others;
    for (auto& c : copies) {
      others.emplace_back([mine = std::move(c), &line, round]() mutable {
        EXPECT_EQ(mine.view(), text_of(round));  // not ASSERT: the others wait for this thread
        line.arrive_and_wait();
        mine = fl::immutable_string();  // the drop, then the thread exits
      });
    }
    for (auto& t : others) t.join();
  }
}

// The owner drops its last copy (its local count reaches 0, and it marks the
// text merged) while another thread drops the only other copy at the same
// moment; whichever is last frees the block. Once the text is marked merged,
// the other thread's drop may free it at once, so the owner must not write
// to the block after that mark.
TEST(ImmutableStringThreads, OwnerAndOtherThreadDropTheLastTwoCopiesAtOnce) {
  for (int round = 0; round < 500; ++round) {
    auto* text = new fl::immutable_string(text_of(round));
    start_line line(2);
    std::thread other([text, &line, round] {
      fl::immutable_string mine = *text;       // counted in `shared`
      EXPECT_EQ(mine.view(), text_of(round));  // not ASSERT: the owner waits for this thread
      line.arrive_and_wait();
      mine = fl::immutable_string();
    });
    line.arrive_and_wait();
    delete text;
    other.join();
  }
}

// Texts made, copied and dropped by thread_local destructors, before and
// after the thread's owner record is retired: texts made after it are born
// shared-counted, and texts it owned are merged by their last holder.
namespace {
std::atomic<int> texts_checked_at_exit{0};
struct text_holder {
  std::vector<fl::immutable_string> texts;
  ~text_holder() {
    for (int i = 0; i < 10; ++i) texts.emplace_back(text_of(1000 + i));  // made during exit
    for (const auto& t : texts)
      if (t.size() >= 16 && t.view().find_first_not_of(t[0]) == std::string_view::npos)
        texts_checked_at_exit.fetch_add(1, std::memory_order_relaxed);
  }
};
}  // namespace

TEST(ImmutableStringThreads, TextsInThreadLocalDestructors) {
  std::vector<fl::immutable_string> survivors;
  std::mutex m;
  for (int round = 0; round < 20; ++round) {
    std::thread t([&] {
      thread_local text_holder early;  // constructed before the owner record: destroyed after it
      fl::immutable_string first(text_of(round));  // makes the owner record and its exit hook
      thread_local text_holder late;               // destroyed before the owner record retires
      for (int i = 0; i < 10; ++i) {
        early.texts.push_back(first);
        late.texts.emplace_back(text_of(i));
      }
      std::lock_guard<std::mutex> lock(m);
      survivors.push_back(first);  // outlives the thread
    });
    t.join();
  }
  EXPECT_EQ(texts_checked_at_exit.load(), 20 * 40);
  for (std::size_t i = 0; i < survivors.size(); ++i)
    EXPECT_EQ(survivors[i].view(), text_of(static_cast<int>(i)));
}
