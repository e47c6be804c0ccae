// tests/replica_threads_test.cpp: group commit, primary::commit(edit) from
// many threads at once, against a nats-server started here on 127.0.0.1
// (tests/support/nats_server.hpp): every caller's edit is in the batch whose
// sequence it got back, a follower holds every acknowledged edit byte for
// byte, an edit that throws fails its caller only, and a batch whose publish
// is refused (the primary was deposed) or whose sync fails (the redo log may
// not grow) throws for every caller in it. Label
// "threads": the TSan build runs it. Skipped, saying so, when nats-server is
// not installed.
#include <fl/persist_error.hpp>
#include <fl/replica.hpp>

#include "support/nats_server.hpp"
#include "support/replica_support.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/resource.h>

namespace {

using namespace fl_test::replica_names;

// A nats-server of the test's own, and the options that reach it.
class GroupCommitBase : public fl_test::nats_fixture {
 protected:
  GroupCommitBase() : nats_fixture("g", "fl_replica_threads_") {}
};

class GroupCommitTest : public GroupCommitBase, public ::testing::WithParamInterface<durability> {};
class GroupCommitFenceTest : public GroupCommitBase {};

// What one caller of commit(edit) put and what it got back.
struct acknowledged {
  std::string pointer;
  std::uint64_t sequence;
};

TEST_P(GroupCommitTest, EveryCallerIsInTheBatchItWasToldAndTheFollowerHasItAll) {
  constexpr int threads = 8, per_thread = 40;
  primary p(json_store::create(dir_ / "p.store"), opts_, GetParam());
  p.commit([](json_store& s) { s.put("/t", fl::json_text::object({})); });
  p.snapshot(dir_ / "snap");
  follower f(follower::from_snapshot(dir_ / "snap", dir_ / "f.store"), opts_);
  const std::uint64_t records_before = p.records_published();
  const std::uint64_t sequence_before = p.store().sequence();

  std::vector<std::vector<acknowledged>> got(threads);
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        const std::string pointer = "/t/w" + std::to_string(t) + "_" + std::to_string(i);
        const std::uint64_t seq =
            p.commit([&](json_store& s) { s.put(pointer, "from " + std::to_string(t)); });
        got[static_cast<std::size_t>(t)].push_back({pointer, seq});
      }
    });
  }
  for (auto& w : writers) w.join();
  p.wait_acknowledged();
  const std::uint64_t flushes = p.records_published() - records_before;

  // Each caller's sequence is a commit whose record holds its edit, and a
  // thread's sequences grow (its next edit waits for the previous batch).
  for (const auto& mine : got) {
    ASSERT_EQ(mine.size(), static_cast<std::size_t>(per_thread));
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (i > 0) { EXPECT_GT(mine[i].sequence, mine[i - 1].sequence); }
      const auto record = p.store().changes(mine[i].sequence - 1, 1);
      ASSERT_EQ(record.size(), 1u);
      EXPECT_NE(record.front().patch.find("\"" + mine[i].pointer + "\""), std::string::npos)
          << mine[i].pointer << " is not in the record of sequence " << mine[i].sequence;
    }
  }
  EXPECT_LE(flushes, static_cast<std::uint64_t>(threads * per_thread));
  EXPECT_EQ(p.store().sequence(), sequence_before + flushes);

  f.catch_up();
  fl_test::expect_same_store(p.store(), f.store(), dir_ / "f.store");
  std::size_t found = 0;
  for (const auto& mine : got)
    for (const auto& a : mine) found += f.store().find(a.pointer) ? 1 : 0;
  EXPECT_EQ(found, static_cast<std::size_t>(threads * per_thread));
  std::printf(
      "[ replica ] group commit (%s): %d threads, %d commits acknowledged in %llu flushes "
      "(%.1f a flush), found on the follower %zu\n",
      GetParam() == durability::local ? "local" : "replicated", threads, threads * per_thread,
      static_cast<unsigned long long>(flushes),
      static_cast<double>(threads * per_thread) / static_cast<double>(flushes), found);
}

TEST_P(GroupCommitTest, AnEditThatThrowsFailsItsCallerOnly) {
  primary p(json_store::create(dir_ / "p.store"), opts_, GetParam());
  std::atomic<int> threw{0}, returned{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        try {
          p.commit([&](json_store& s) {
            if (t == 0 && i % 2 == 0) throw std::runtime_error("refused by the caller");
            s.put("/w" + std::to_string(t) + "_" + std::to_string(i), i);
          });
          ++returned;
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "refused by the caller");
          ++threw;
        }
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(threw.load(), 5);
  EXPECT_EQ(returned.load(), 35);
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < 10; ++i)
      EXPECT_EQ(p.store().find("/w" + std::to_string(t) + "_" + std::to_string(i)).has_value(),
                t != 0 || i % 2 != 0);
}

// The stream moves on under the primary (a promoted follower commits), then
// eight threads commit. The first caller's edit holds its batch open until
// the other seven have called, so the batch holds several edits; its
// publish is refused, and every caller of it gets fault::fenced, as every
// later caller does (before its edit runs: the primary is deposed).
TEST_F(GroupCommitFenceTest, ABatchWhosePublishIsRefusedThrowsForEveryCaller) {
  constexpr int threads = 8;
  opts_.stream = "fenced";
  primary old(json_store::create(dir_ / "p.store"), opts_, durability::replicated);
  old.commit([](json_store& s) { s.put("/by", "old"); });
  old.snapshot(dir_ / "snap");
  follower f(follower::from_snapshot(dir_ / "snap", dir_ / "f.store"), opts_);
  primary now = std::move(f).promote(durability::replicated);
  now.commit([](json_store& s) { s.put("/by", "new"); });

  std::atomic<int> calling{0}, edits_run{0}, fenced{0}, other{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([&, t] {
      ++calling;
      try {
        old.commit([&](json_store& s) {
          ++edits_run;
          if (t == 0) {
            // The others queue meanwhile and join this batch.
            while (calling.load() < threads) std::this_thread::yield();
            std::this_thread::sleep_for(100ms);
          }
          s.put("/late" + std::to_string(t), t);
        });
      } catch (const replica_error& e) {
        (e.kind() == fault::fenced ? fenced : other) += 1;
      } catch (...) { ++other; }
    });
    if (t == 0) {
      while (edits_run.load() == 0) std::this_thread::yield();  // thread 0 leads the batch
    }
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(fenced.load(), threads);
  EXPECT_EQ(other.load(), 0);
  EXPECT_GE(edits_run.load(), 2) << "the failed batch held one edit only";
  EXPECT_TRUE(old.deposed());
  std::printf(
      "[ replica ] a refused batch: %d callers, %d of them in the batch whose publish was refused, "
      "%d threw fault::fenced\n",
      threads, edits_run.load(), fenced.load());
}

// The batch's sync fails (no file may be written: RLIMIT_FSIZE 0, SIGXFSZ
// ignored, so the write of its log record fails with EFBIG): every caller of it
// throws persist_error, and the edits stay in the store, uncommitted; with
// room again, the next commit commits them all and the follower gets them.
TEST_F(GroupCommitFenceTest, ABatchWhoseSyncFailsThrowsForEveryCallerAndItsEditsCommitNext) {
  constexpr int threads = 4;
  opts_.stream = "full";
  primary p(json_store::create(dir_ / "p.store"), opts_, durability::replicated);
  p.commit([](json_store& s) { s.put("/start", 0); });
  p.snapshot(dir_ / "snap");
  follower f(follower::from_snapshot(dir_ / "snap", dir_ / "f.store"), opts_);
  p.commit(
      [](json_store& s) { s.put("/after", 1); });  // the compaction left no log: this one makes it
  const auto log = std::filesystem::path(dir_ / "p.store").concat("-log");
  ASSERT_TRUE(std::filesystem::exists(log));
  ::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ::getrlimit(RLIMIT_FSIZE, &old);
  rlimit lim = old;
  lim.rlim_cur = 0;  // every write fails, the commit's record the first
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &lim), 0);
  std::atomic<int> failed{0}, returned{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([&, t] {
      try {
        p.commit([&](json_store& s) { s.put("/k" + std::to_string(t), t); });
        ++returned;
      } catch (const fl::persist_error&) { ++failed; }
    });
  }
  for (auto& w : writers) w.join();
  ::setrlimit(RLIMIT_FSIZE, &old);
  EXPECT_EQ(failed.load(), threads);
  EXPECT_EQ(returned.load(), 0);
  const std::uint64_t seq = p.commit();
  for (int t = 0; t < threads; ++t) EXPECT_TRUE(p.store().find("/k" + std::to_string(t))) << t;
  f.catch_up();
  EXPECT_EQ(f.store().sequence(), seq);
  fl_test::expect_same_store(p.store(), f.store(), dir_ / "f.store");
}

INSTANTIATE_TEST_SUITE_P(Durability, GroupCommitTest,
                         ::testing::Values(durability::local, durability::replicated),
                         [](const auto& p) {
                           return p.param == durability::local ? "local" : "replicated";
                         });

}  // namespace
