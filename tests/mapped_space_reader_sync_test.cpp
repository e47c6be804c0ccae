// tests/mapped_space_reader_sync_test.cpp: the writer beside readers in two
// corners of docs/design.md ("Readers"):
// - a sync() with nothing to commit makes no commit, with or without a
//   reader, and moves the file forward to the commit the readers reached
//   (the pages it moved are then no longer the writer's private copies);
// - after compact() a reader holding an older commit keeps the file's old
//   end: neither rollback() nor write_fresh() nor growth into that end
//   changes or cuts a page the reader's commit reads;
// - a reader maps only its own commit's file: past a compaction's end it
//   keeps nothing that earlier records put there;
// - readers leave the files' access times alone;
// - a reader tells a file renamed over its path (replaced()) from any other
//   failed refresh.
#include <fl/mapped_space.hpp>

#include "persist_support.hpp"
#include "seq_block.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

namespace {

namespace fs = std::filesystem;

constexpr std::size_t block_bytes = 32 * 4096;

using state = fl_test::seq_root;

void fill(unsigned char* b, std::uint64_t seq) {
  for (std::size_t i = 0; i < block_bytes; ++i) b[i] = fl_test::seq_byte(seq, i);
}

// "seq:ok" when the root's block holds the bytes of commit seq.
std::string seen(const fl::mapped_space& sp) { return fl_test::seq_state(sp, block_bytes); }

std::string want(std::uint64_t seq) { return fl_test::seq_ok(seq); }

struct ReaderSyncTest : ::testing::Test {
  fl_test::scratch_dir dir;
  fs::path file() const { return dir / "space"; }

  // A space at commit seq 0: the root and its block.
  fl::mapped_space make() { return fl_test::make_seq_space(file(), block_bytes, 0); }
};

void commit(fl::mapped_space& sp, std::uint64_t seq) { fl_test::commit_seq(sp, seq, 0, block_bytes); }

TEST_F(ReaderSyncTest, NoChangeSyncMakesNoCommitBesideAReaderThatRefreshes) {
  fl::mapped_space w = make();
  // Without a reader: the baseline.
  const std::uint64_t g0 = w.stats().generation;
  w.sync();
  ASSERT_EQ(w.stats().generation, g0) << "a sync with no change committed (no reader open)";

  fl::mapped_space r = fl::mapped_space::open(file(), fl::open_mode::read_only);
  for (std::uint64_t seq = 1; seq <= 6; ++seq) {
    commit(w, seq);  // the reader holds seq - 1: the file stays there
    const std::uint64_t g = w.stats().generation;
    EXPECT_EQ(w.stats().pinned_generation, r.stats().generation);
    EXPECT_LT(w.stats().pinned_generation, g);
    r.refresh();  // the reader moves on: the file may follow
    ASSERT_EQ(seen(r), want(seq));
    const std::uintmax_t log_before = fl_test::log_bytes(file());
    w.sync();  // nothing changed since the commit
    EXPECT_EQ(w.stats().generation, g) << "a sync with no change committed, commit " << seq;
    EXPECT_EQ(fl_test::log_bytes(file()), log_before) << "commit " << seq;
    EXPECT_EQ(w.stats().pinned_generation, g) << "the file did not catch up, commit " << seq;
    w.sync();
    EXPECT_EQ(w.stats().generation, g) << "a second sync with no change committed";
    EXPECT_EQ(seen(w), want(seq));
    w.verify();  // the file holds the newest commit
  }
  // A change after the catch-up is still committed, and the reader sees it.
  commit(w, 7);
  r.refresh();
  EXPECT_EQ(seen(r), want(7));
  EXPECT_EQ(seen(fl::mapped_space::open(file(), fl::open_mode::read_only)), want(7));
}

// The access time a file had: set to a day and an hour ago by age(), so
// that relatime would update it at the next read.
std::int64_t atime_of(const fs::path& p) {
  struct stat sb;
  EXPECT_EQ(::stat(p.c_str(), &sb), 0) << p;
  return sb.st_atim.tv_sec;
}

void age(const fs::path& p) {
  const timespec old{::time(nullptr) - 25 * 3600, 0};
  const timespec times[2] = {old, {0, UTIME_OMIT}};
  ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), times, 0), 0) << p;
}

// A reader's open and refresh read the data file and the log, and so does
// the writer's catch-up beside a reader; every commit changes both files, so
// each such read would make the kernel write the inode's access time
// (relatime), a quarter of a refresh's time. The store opens them with
// O_NOATIME (the owner's right). A file system mounted noatime passes anyway.
TEST_F(ReaderSyncTest, ReadersLeaveTheAccessTimesAlone) {
  fl::mapped_space w = make();
  commit(w, 1);
  const fs::path log = file().string() + "-log";
  ASSERT_TRUE(fs::exists(log));
  age(file());
  age(log);
  const std::int64_t data_before = atime_of(file());
  const std::int64_t log_before = atime_of(log);
  fl::mapped_space r = fl::mapped_space::open(file(), fl::open_mode::read_only);
  ASSERT_EQ(seen(r), want(1));
  for (std::uint64_t seq = 2; seq <= 4; ++seq) {
    commit(w, seq);
    r.refresh();
    ASSERT_EQ(seen(r), want(seq));
  }
  EXPECT_EQ(atime_of(file()), data_before);
  EXPECT_EQ(atime_of(log), log_before);
}

// A reader maps only its commit's file: the pages past its end go, whatever
// the records it read before put there. A reader that builds its commit
// from the log (here: the state a power cut leaves while a reader pinned the
// file, whose growth never reached the disk: the growth's pages are zeros
// mapped past the file's end, then the records' pages) used to keep, past a
// compaction's end, the compacted block's pages of an older record. A writer
// that later carves a block there writes it straight into the file
// (write_fresh past the committed size: not in the log), so after its
// commit the reader showed the old block's bytes where the new block is
// (found by the power-loss test beside readers: 18 of 967 states of one seed).
TEST_F(ReaderSyncTest, AReaderBuiltFromTheLogDropsThePagesACompactionCut) {
  const fs::path crash = dir / "crash";
  fs::create_directory(crash);
  const fs::path copy = crash / "space";
  {
    fl::mapped_space w = make();  // seq 0: the root and its block
    const std::uintmax_t small = fs::file_size(file());
    // A reader pins the file at seq 0: the commits below stay in the log.
    const fl::mapped_space pin = fl::mapped_space::open(file(), fl::open_mode::read_only);
    state* s = w.get(w.root<state>());
    const auto big = w.allocate_end(block_bytes).cast<unsigned char>();  // the file grows
    fill(w.get(big), 1);
    s->block = big;
    s->seq = 1;
    w.sync();
    ASSERT_GT(fs::file_size(file()), small);
    s = w.get(w.root<state>());
    w.deallocate(s->block);
    s->block = nullptr;
    s->seq = 2;
    w.compact();
    w.sync();
    // The power cut: the data file as it was before the growth (the size
    // change never reached the disk), the log with both records.
    fs::copy_file(file(), copy);
    fs::resize_file(copy, small);
    fs::copy_file(file().string() + "-log", copy.string() + "-log");
  }
  fl::mapped_space r = fl::mapped_space::open(copy, fl::open_mode::read_only);
  ASSERT_EQ(seen(r), "2:none");
  {
    fl::mapped_space w(copy, {.mode = fl::open_mode::open_existing});
    ASSERT_EQ(seen(w), "2:none");
    const auto b = w.allocate_end(block_bytes).cast<unsigned char>();
    std::vector<unsigned char> bytes(block_bytes);
    fill(bytes.data(), 3);
    w.write_fresh(b, bytes.data(), block_bytes);
    state* s = w.get(w.root<state>());
    s->block = b;
    s->seq = 3;
    w.sync();
  }
  r.refresh();
  EXPECT_EQ(seen(r), want(3));
  EXPECT_EQ(seen(fl::mapped_space::open(copy, fl::open_mode::read_only)), want(3));
}

// One refresh over a growth and the compaction that cuts it again: the
// growth's pages are read from the log, then cut; the reader's map and its
// set of checked pages end at the smaller commit (a page of the growth left
// marked checked would skip the check of what a later growth maps there;
// in a build with _GLIBCXX_ASSERTIONS, marking it indexed past the set).
TEST_F(ReaderSyncTest, ARefreshOverAGrowthAndItsCompaction) {
  fl::mapped_space w = make();
  fl::mapped_space r = fl::mapped_space::open(file(), fl::open_mode::read_only);
  constexpr std::size_t big_bytes = 64 * 4096;
  const auto big = w.allocate_end(big_bytes).cast<unsigned char>();
  std::memset(w.get(big), 0x6b, big_bytes);
  commit(w, 1);
  const std::uint64_t grown = w.stats().file_bytes;
  w.deallocate(big);
  w.compact();
  commit(w, 2);
  ASSERT_LT(w.stats().file_bytes, grown) << "compact() did not cut the growth";
  r.refresh();  // commits 1 and 2 in one refresh
  EXPECT_EQ(seen(r), want(2));
  EXPECT_LT(r.stats().file_bytes, grown);
  // Growth over the cut end again, straight into the file.
  const auto again = w.allocate_end(big_bytes).cast<unsigned char>();
  std::vector<unsigned char> bytes(big_bytes, 0x3c);
  w.write_fresh(again, bytes.data(), big_bytes);
  commit(w, 3);
  r.refresh();
  EXPECT_EQ(seen(r), want(3));
  EXPECT_EQ(std::memcmp(r.checked(again, big_bytes), bytes.data(), big_bytes), 0);
  w.sync();  // nothing new: the file catches up with the reader gone past
  w.verify();
}

// A space whose big block (the file's end) was freed and compacted away while
// a reader holds the commit that still has it: the file keeps that end.
struct CompactedBesideReader : ReaderSyncTest {
  fl::mapped_space w = make();
  fl::mapped_space r = fl::mapped_space::open(file(), fl::open_mode::read_only);
  std::uintmax_t old_end = 0;

  void SetUp() override {
    ASSERT_EQ(seen(r), want(0));
    old_end = fs::file_size(file());
    state* s = w.get(w.root<state>());
    w.deallocate(s->block);
    s->block = nullptr;
    s->seq = 1;
    w.compact();
    w.sync();
    ASSERT_LT(w.stats().file_bytes, old_end) << "compact() did not shrink the space";
    ASSERT_EQ(fs::file_size(file()), old_end) << "the file lost the end the reader reads";
    ASSERT_EQ(seen(r), want(0));
  }

  // The reader's commit still whole: its end in the file, its bytes.
  void expect_reader_intact(const char* after) {
    ASSERT_GE(fs::file_size(file()), old_end) << "the file was cut under the reader " << after;
    EXPECT_EQ(seen(r), want(0)) << after;
  }

  // The reader moves on; the writer's state is committed and verified.
  void finish(std::uint64_t seq, const char* want_seen) {
    r.refresh();
    EXPECT_EQ(seen(r), std::to_string(seq) + want_seen);
    w.sync();
    EXPECT_EQ(w.stats().pinned_generation, w.stats().generation);
    w.verify();
    EXPECT_EQ(seen(fl::mapped_space::open(file(), fl::open_mode::read_only)),
              std::to_string(seq) + want_seen);
  }
};

TEST_F(CompactedBesideReader, RollbackOfGrowthKeepsTheReadersEnd) {
  state* s = w.get(w.root<state>());
  const auto b = w.allocate(block_bytes).cast<unsigned char>();  // grows into the old end
  std::memset(w.get(b), 0x5a, block_bytes);
  s->block = b;
  w.rollback();
  expect_reader_intact("(rollback)");
  // The writer's uncommitted growth is gone: its state is commit seq 1.
  EXPECT_EQ(seen(w), "1:none");
  // It grows again over zeros and commits; the reader keeps its commit.
  // Bytes past the committed size read as zeros again (the ones before it
  // hold what the compacted block left: allocate() promises zeros only there).
  const std::uint64_t committed_end = w.stats().file_bytes;
  s = w.get(w.root<state>());
  const auto b2 = w.allocate(block_bytes).cast<unsigned char>();
  const unsigned char* p = w.get(b2);
  for (std::size_t i = 0; i < block_bytes; ++i) {
    if (b2.offset() + i >= committed_end) {
      ASSERT_EQ(p[i], 0) << "a page past the committed size is not zero at " << i;
    }
  }
  s->block = b2;
  s->seq = 2;
  fill(w.get(b2), 2);
  w.sync();
  expect_reader_intact("(commit after the rollback)");
  finish(2, ":ok");
}

TEST_F(CompactedBesideReader, WriteFreshIntoTheOldEndGoesThroughTheLog) {
  state* s = w.get(w.root<state>());
  const auto b = w.allocate_end(block_bytes).cast<unsigned char>();
  std::vector<unsigned char> bytes(block_bytes);
  fill(bytes.data(), 3);
  w.write_fresh(b, bytes.data(), bytes.size());
  expect_reader_intact("(write_fresh)");
  s = w.get(w.root<state>());
  s->block = b;
  s->seq = 3;
  w.sync();
  expect_reader_intact("(commit of the fresh block)");
  EXPECT_EQ(seen(w), want(3));
  finish(3, ":ok");
}

TEST_F(CompactedBesideReader, RollbackOfCompactBeforeItsCommitKeepsTheEnd) {
  // Compacted again (nothing to drop) and rolled back: the size the writer
  // maps comes back, the file keeps its end.
  w.compact();
  w.rollback();
  expect_reader_intact("(rollback of compact)");
  EXPECT_EQ(seen(w), "1:none");
  finish(1, ":none");
}

}  // namespace

// A space renamed over the reader's path: the reader's refresh() fails and
// replaced() says why (json_store's reader reopens on that, and on nothing
// else); a failed refresh for another reason leaves it false.
TEST_F(ReaderSyncTest, AReaderTellsAFileRenamedOverItsPath) {
  {
    fl::mapped_space w = make();
    commit(w, 1);
  }
  fl::mapped_space r(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  EXPECT_FALSE(r.replaced());
  {
    fl::mapped_space w(file());
    commit(w, 2);
  }
  r.refresh();
  EXPECT_EQ(seen(r), want(2));
  EXPECT_FALSE(r.replaced()) << "a refresh that worked";
  {
    // A log that lost the commit the reader needs: damage, not another file
    // ("does not hold commit 3 (damaged, or replaced by another file)").
    fl::mapped_space w(file());
    commit(w, 3);
    fs::resize_file(fs::path(file().string() + "-log"), 0);
    EXPECT_THROW(r.refresh(), fl::persist_error);
    EXPECT_FALSE(r.replaced()) << "a log that lost a commit is not another file";
  }
  {
    const fs::path other = dir / "other";
    fl::mapped_space b(other);
    const auto root = b.make<state>();
    b.get(root)->seq = 9;
    b.set_root(root);
    b.sync();
    b.rename(file());
  }
  EXPECT_THROW(r.refresh(), fl::persist_error);
  EXPECT_TRUE(r.replaced());
  EXPECT_EQ(seen(r), want(2)) << "the reader keeps its last commit";
  fl::mapped_space again(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  EXPECT_EQ(seen(again), "9:none");
  EXPECT_FALSE(again.replaced());
}
