// tests/mapped_space_lagging_reader_test.cpp: the redo log stays bounded
// beside a reader that never refreshes. Such a reader holds an old commit,
// so the data file cannot move past it and no checkpoint can run; the
// writer restarts the log instead with one record holding every page the
// file lacks (docs/design.md, "Readers"). The reader keeps its commit, sees
// the newest after refresh(), a reader opened later sees the newest, and a
// writer that dies after a restart (no close) reopens to its last commit
// without changing the reader's.
#include <fl/mapped_space.hpp>

#include "persist_support.hpp"
#include "seq_block.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

namespace {

namespace fs = std::filesystem;

// 64 pages rewritten a quarter at a time: each commit logs 64 KiB, so
// without a bound the log passes 4 MiB after 64 commits.
constexpr std::size_t block_bytes = 64 * 4096;
constexpr std::size_t chunk = block_bytes / 4;

// Commit `seq` rewrites chunk seq % 4 with bytes of seq and sets the root.
void commit(fl::mapped_space& sp, std::uint64_t seq) {
  const std::size_t at = (seq % 4) * chunk;
  fl_test::commit_seq(sp, seq, at, at + chunk);
}

// The block as commit `seq` leaves it: each chunk holds the bytes of the
// last commit that wrote it (seq or one of the three before it).
unsigned char expected(std::uint64_t seq, std::size_t i) {
  const std::uint64_t c = i / chunk;
  return fl_test::seq_byte(seq - (seq % 4 + 4 - c) % 4, i);
}

std::string seen(const fl::mapped_space& sp) {
  return fl_test::seq_state(sp, block_bytes, expected);
}

std::string want(std::uint64_t seq) { return fl_test::seq_ok(seq); }

struct LaggingReaderTest : ::testing::Test {
  fl_test::scratch_dir dir;
  fs::path file() const { return dir / "space"; }

  // A space at commit 3 (every chunk written since commit 0).
  fl::mapped_space make() {
    fl::mapped_space sp = fl_test::make_seq_space(file(), block_bytes, 0);
    for (std::uint64_t seq = 1; seq <= 3; ++seq) commit(sp, seq);
    return sp;
  }
};

// The bound the writer keeps: the log's bound or twice the pages the file
// lacks (here the block, 256 KiB), plus the record that crossed it.
constexpr std::uintmax_t log_limit = (std::uintmax_t{4} << 20) + 2 * block_bytes + (1 << 20);

TEST_F(LaggingReaderTest, LogStaysBoundedWhileAReaderNeverRefreshes) {
  fl::mapped_space w = make();
  fl::mapped_space old_reader = fl::mapped_space::open(file(), fl::open_mode::read_only);
  ASSERT_EQ(seen(old_reader), want(3));
  std::uintmax_t most = 0;
  const std::uint64_t last = 3 + 200;  // 12.5 MiB of records without a bound
  for (std::uint64_t seq = 4; seq <= last; ++seq) {
    commit(w, seq);
    most = std::max(most, fl_test::log_bytes(file()));
    if (seq == 120) {
      // A reader opened after restarts sees the newest commit.
      const fl::mapped_space late = fl::mapped_space::open(file(), fl::open_mode::read_only);
      EXPECT_EQ(seen(late), want(seq));
    }
  }
  std::printf("log at most %ju bytes over %ju commits beside a reader at commit 3 (bound %ju)\n",
              most, static_cast<std::uintmax_t>(last - 3), log_limit);
  EXPECT_LE(most, log_limit) << "the log grew past its bound beside the reader";
  EXPECT_EQ(w.stats().pinned_generation, old_reader.stats().generation)
      << "the reader must still hold its commit";
  // The reader still sees its commit, every page of it, then the newest.
  EXPECT_EQ(seen(old_reader), want(3));
  fl::mapped_space again = fl::mapped_space::open(file(), fl::open_mode::read_only);
  EXPECT_EQ(seen(again), want(last));
  old_reader.refresh();
  EXPECT_EQ(seen(old_reader), want(last));
}

TEST_F(LaggingReaderTest, AReaderThatRefreshesNowAndThenFollowsRestarts) {
  fl::mapped_space w = make();
  const fl::mapped_space stale = fl::mapped_space::open(file(), fl::open_mode::read_only);
  fl::mapped_space follower = fl::mapped_space::open(file(), fl::open_mode::read_only);
  for (std::uint64_t seq = 4; seq <= 3 + 160; ++seq) {
    commit(w, seq);
    if (seq % 37 == 0) {
      follower.refresh();
      ASSERT_EQ(seen(follower), want(seq)) << "commit " << seq;
    }
  }
  EXPECT_LE(fl_test::log_bytes(file()), log_limit);
  EXPECT_EQ(seen(stale), want(3));
}

TEST_F(LaggingReaderTest, WriterDeathAfterARestartReopensToTheLastCommit) {
  std::uint64_t last = 0;
  {
    fl::mapped_space w0 = make();
    (void)w0;
  }
  fl::mapped_space reader = fl::mapped_space::open(file(), fl::open_mode::read_only);
  last = 3 + 150;
  const int rc = fl_test::run_in_child([&]() -> int {
    fl::mapped_space w(file(), {.mode = fl::open_mode::open_existing});
    for (std::uint64_t seq = 4; seq <= last; ++seq) commit(w, seq);
    std::fflush(nullptr);
    ::_exit(fl_test::log_bytes(file()) <= log_limit ? 0 : 3);  // no close, no checkpoint
  });
  ASSERT_EQ(rc, 0) << "the log passed its bound (3) or the child failed";
  EXPECT_EQ(seen(reader), want(3));
  // The writer recovers beside the reader: the file stays at the reader's
  // commit (the recovery must not write the newer pages into it).
  fl::mapped_space w(file(), {.mode = fl::open_mode::open_existing});
  EXPECT_EQ(seen(w), want(last));
  EXPECT_EQ(seen(reader), want(3)) << "the writer's recovery changed the reader's commit";
  commit(w, last + 1);
  EXPECT_EQ(seen(w), want(last + 1));
  EXPECT_EQ(seen(reader), want(3));
  reader.refresh();
  EXPECT_EQ(seen(reader), want(last + 1));
  { const fl::mapped_space gone = std::move(reader); }
  w.sync();  // the file catches up: no reader is left
  w.verify();
}

}  // namespace

namespace {

// A reader that held an older commit closes: the writer's verify() moves the
// file forward as far as the readers now allow and checks it, instead of
// refusing as if a reader still held the older commit (it refused until the
// writer's next commit).
TEST_F(LaggingReaderTest, VerifyAfterTheLaggingReaderClosesChecksTheNewestCommit) {
  fl::mapped_space sp = make();
  {
    const fl::mapped_space reader = fl::mapped_space::open(file(), fl::open_mode::read_only);
    commit(sp, 4);
    EXPECT_THROW(sp.verify(), fl::persist_error);  // the reader holds commit 3
    EXPECT_EQ(seen(reader), want(3));
  }
  sp.verify();
  (void)sp.census();
  EXPECT_EQ(seen(sp), want(4));
  commit(sp, 5);
  sp.verify();
}

}  // namespace
