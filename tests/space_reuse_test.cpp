// fl::mapped_space reuse: a retired block stays live and unchanged until a
// commit no longer reaches it, then returns to the allocator; the deferred
// lists survive a crash between the commit and the reuse (no leak, no double
// free) and a rollback; compact() cuts free blocks at the end of the file.
#include <fl/mapped_space.hpp>

#include "persist_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

struct ReuseTest : ::testing::Test {
  fl_test::scratch_dir dir;
  std::filesystem::path file() const { return dir / "space.fls"; }
};

TEST_F(ReuseTest, RetiredBlockIsReusedOnlyAfterTheCommit) {
  fl::mapped_space space(file());
  const fl::fptr<void> a = space.allocate(100);
  std::memset(space.get(a.cast<char>()), 'a', 100);
  space.sync();
  space.retire(a);
  // Still live and unchanged: the committed state refers to it.
  EXPECT_EQ(space.get(a.cast<char>())[99], 'a');
  EXPECT_EQ(space.block_size(a), space.block_size(a));
  const fl::fptr<void> b = space.allocate(100);
  EXPECT_NE(b, a);
  EXPECT_EQ(space.get(a.cast<char>())[0], 'a');
  space.sync();  // the state without `a` is durable: `a` may go back
  EXPECT_GT(space.stats().deferred_bytes, 0u);
  const fl::fptr<void> c = space.allocate(100);
  EXPECT_EQ(c, a);
  EXPECT_EQ(space.stats().deferred_bytes, 0u);
  space.sync();
  space.verify();
}

TEST_F(ReuseTest, RetireOfAFreeBlockThrows) {
  fl::mapped_space space(file());
  const fl::fptr<void> a = space.allocate(64);
  space.deallocate(a);
  EXPECT_THROW(space.retire(a), std::invalid_argument);
  EXPECT_THROW(space.retire(fl::fptr<void>(12345)), std::invalid_argument);
}

// A crash after the commit that retired blocks, before anything reused
// them: the reopened space releases them once (the batch is part of the
// commit), so they are neither lost nor handed out twice.
TEST_F(ReuseTest, CrashBetweenCommitAndReuseNeitherLeaksNorFreesTwice) {
  std::uint64_t live_after = 0;
  {
    fl::mapped_space space(file());
    for (int i = 0; i < 20; ++i) space.allocate(48 + 16 * (i % 3));
    space.sync();
  }
  const int rc = fl_test::run_in_child([&] {
    fl::mapped_space space(file());
    std::vector<fl::fptr<void>> blocks;
    for (int i = 0; i < 10; ++i) blocks.push_back(space.allocate(48 + 16 * (i % 3)));
    space.sync();
    for (int i = 0; i < 10; i += 2) space.retire(blocks[i]);
    space.sync();  // commits the batch: the state no longer reaches them
    ::_exit(0);    // no close, no checkpoint: the reopen replays the log
    return 0;
  });
  ASSERT_EQ(rc, 0);
  fl::mapped_space space(file());
  const std::uint64_t live_before = space.stats().live_blocks;
  // The first allocation releases the batch: five blocks and the batch go.
  const fl::fptr<void> p = space.allocate(48);
  live_after = space.stats().live_blocks;
  EXPECT_EQ(live_after, live_before - 6 + 1);
  EXPECT_EQ(space.stats().deferred_bytes, 0u);
  space.sync();
  space.verify();
  // Every released block is handed out once.
  std::set<std::uint64_t> seen{p.offset()};
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(seen.insert(space.allocate(48 + 16 * (i % 3)).offset()).second);
  space.sync();
  space.verify();
}

// A crash before the commit that would have retired them: the blocks stay
// live (the committed state still refers to them).
TEST_F(ReuseTest, CrashBeforeTheCommitKeepsTheBlocks) {
  fl::fptr<void> a;
  {
    fl::mapped_space space(file());
    a = space.allocate(200);
    std::memset(space.get(a.cast<char>()), 'x', 200);
    space.sync();
  }
  const int rc = fl_test::run_in_child([&] {
    fl::mapped_space space(file());
    space.retire(a);
    ::_exit(0);
    return 0;
  });
  ASSERT_EQ(rc, 0);
  fl::mapped_space space(file());
  EXPECT_EQ(space.block_size(a), space.block_size(a));  // still live
  EXPECT_NE(space.allocate(200), a);
  EXPECT_EQ(space.get(a.cast<char>())[199], 'x');
  space.sync();
  space.verify();
}

TEST_F(ReuseTest, RollbackRestoresTheDeferredLists) {
  fl::mapped_space space(file());
  const fl::fptr<void> a = space.allocate(64), b = space.allocate(64);
  space.sync();
  space.retire(a);
  space.sync();       // batch {a}
  space.retire(b);    // not committed
  space.allocate(64); // releases {a}
  space.rollback();   // back to: a in the batch, b live
  EXPECT_GT(space.stats().deferred_bytes, 0u);
  EXPECT_EQ(space.allocate(64), a);  // the batch is released again, once
  EXPECT_NE(space.allocate(64), b);
  space.sync();
  space.verify();
}

// A block taken back from a free list is checked against its page's
// checksum before its header is read: the check reads the page from the
// file (not through the mapping, whose first touch is the allocator's
// write), and a page damaged on disk is still refused, naming the page.
TEST_F(ReuseTest, AFreeBlockDamagedOnDiskIsRefusedWhenTakenBack) {
  std::uint64_t freed = 0;
  {
    fl::mapped_space space(file());
    const fl::fptr<void> a = space.allocate(3000);
    const fl::fptr<void> b = space.allocate(3000);
    std::memset(space.get(a.cast<char>()), 'a', 3000);
    std::memset(space.get(b.cast<char>()), 'b', 3000);
    space.sync();
    space.deallocate(a);
    space.sync();
    freed = a.offset();
  }
  {
    // Undamaged, it comes back as the next block of its size.
    const std::vector<unsigned char> before = fl_test::read_bytes(file());
    fl::mapped_space space(file());
    EXPECT_EQ(space.allocate(3000).offset(), freed);
    fl_test::write_bytes(file(), before);  // the allocation was never committed
  }
  {
    std::vector<unsigned char> bytes = fl_test::read_bytes(file());
    bytes[freed + 1000] ^= 0x5a;  // in the free block's payload, not its header
    fl_test::write_bytes(file(), bytes);
  }
  fl::mapped_space space(file());
  try {
    (void)space.allocate(3000);
    FAIL() << "a damaged free block was handed out";
  } catch (const fl::persist_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not match its checksum"), std::string::npos)
        << e.what();
  }
}

TEST_F(ReuseTest, CompactCutsFreeBlocksAtTheEnd) {
  std::uint64_t grown = 0;
  {
    fl::mapped_space space(file());
    const fl::fptr<void> keep = space.allocate(1000);
    std::vector<fl::fptr<void>> big;
    for (int i = 0; i < 16; ++i) big.push_back(space.allocate(256 * 1024));
    space.sync();
    grown = space.stats().file_bytes;
    for (fl::fptr<void> p : big) space.deallocate(p);
    space.sync();
    EXPECT_EQ(space.stats().file_bytes, grown);  // free blocks keep their place
    space.compact();
    space.sync();
    EXPECT_LT(space.stats().file_bytes, grown / 4);
    EXPECT_EQ(std::filesystem::file_size(file()), space.stats().file_bytes);
    space.verify();
    EXPECT_EQ(space.block_size(keep), space.block_size(keep));
  }
  fl::mapped_space space(file());
  space.verify();
  EXPECT_LT(space.stats().file_bytes, grown / 4);
  // The space grows again from its new end.
  const fl::fptr<void> again = space.allocate(512 * 1024);
  space.sync();
  space.verify();
  EXPECT_NE(again, fl::fptr<void>());
}

TEST_F(ReuseTest, CompactUndoneByRollbackKeepsTheFile) {
  fl::mapped_space space(file());
  std::vector<fl::fptr<void>> big;
  for (int i = 0; i < 8; ++i) big.push_back(space.allocate(256 * 1024));
  space.sync();
  for (fl::fptr<void> p : big) space.deallocate(p);
  space.sync();
  const std::uint64_t size = space.stats().file_bytes;
  space.compact();
  space.rollback();
  EXPECT_EQ(space.stats().file_bytes, size);
  space.allocate(100);
  space.sync();
  space.verify();
  EXPECT_EQ(space.stats().file_bytes, size);
}

// A reader holding the commit before a compaction keeps every page of it: the
// shrinking commit leaves the file's end in place while the reader lags (the
// file still serves its commit), growth into that end reads as zeros, and a
// later commit, once the reader has moved on, cuts the file.
TEST_F(ReuseTest, CompactBesideALaggingReaderKeepsItsPages) {
  fl::mapped_space space(file());
  std::vector<fl::fptr<void>> big;
  for (int i = 0; i < 8; ++i) {
    big.push_back(space.allocate(256 * 1024));
    std::memset(space.get(big.back()), 'a' + i, 256 * 1024);
  }
  space.sync();
  const std::uint64_t grown = space.stats().file_bytes;
  std::optional<fl::mapped_space> reader;
  reader.emplace(fl::mapped_space::open(file(), fl::open_mode::read_only));
  for (fl::fptr<void> p : big) space.deallocate(p);
  space.compact();
  space.sync();
  EXPECT_LT(space.stats().file_bytes, grown / 4);
  EXPECT_GE(std::filesystem::file_size(file()), grown);  // the reader's commit is still there
  for (int i = 0; i < 8; ++i) {
    const auto* b = static_cast<const unsigned char*>(reader->get(big[i]));
    EXPECT_EQ(b[0], 'a' + i);
    EXPECT_EQ(b[256 * 1024 - 1], 'a' + i);
  }
  // Growth into the end the reader kept: the pages past the committed size
  // read as zeros, and the commit's checksums match what it wrote.
  const std::uint64_t committed = space.stats().file_bytes;
  const fl::fptr<void> again = space.allocate(512 * 1024);
  const auto* base = static_cast<const unsigned char*>(space.get(again)) - again.offset();
  EXPECT_EQ(std::count(base + committed, base + space.stats().file_bytes, 0),
            static_cast<std::ptrdiff_t>(space.stats().file_bytes - committed));
  std::memset(space.get(again), 'z', 4096);
  space.sync();
  try {
    space.verify();
    ADD_FAILURE() << "verify() checked a file a reader holds back";
  } catch (const fl::persist_error& e) {
    EXPECT_NE(std::string(e.what()).find("a reader holds an older commit"), std::string::npos)
        << e.what();
  }
  reader->refresh();
  EXPECT_EQ(static_cast<const unsigned char*>(reader->get(again))[0], 'z');
  reader.reset();
  space.deallocate(again);
  space.compact();
  space.sync();
  EXPECT_EQ(std::filesystem::file_size(file()), space.stats().file_bytes);
  space.verify();
}

}  // namespace

namespace {

// stats() right after an open reports the committed lists of retired blocks
// (before, they counted as 0 until the first allocation, free or commit read
// them, so `fl-json stat` showed retired bytes as live only).
TEST_F(ReuseTest, StatsAfterReopenCountRetiredBlocks) {
  std::uint64_t deferred = 0, used = 0;
  {
    fl::mapped_space space(file());
    const fl::fptr<void> a = space.allocate(3000);
    const fl::fptr<void> b = space.allocate(100);
    space.sync();
    space.retire(a);
    space.retire(b);
    space.sync();  // the batch is part of this commit; nothing reuses it yet
    deferred = space.stats().deferred_bytes;
    used = space.stats().used_bytes;
    ASSERT_GT(deferred, 3000u);
  }
  const fl::mapped_space again(file(), {.mode = fl::open_mode::open_existing});
  EXPECT_EQ(again.stats().deferred_bytes, deferred);
  EXPECT_EQ(again.stats().used_bytes, used);
  const fl::mapped_space reader = fl::mapped_space::open(file(), fl::open_mode::read_only);
  EXPECT_EQ(reader.stats().deferred_bytes, deferred);
}

}  // namespace
