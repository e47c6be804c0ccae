// tests/mapped_space_reader_reopen_writer_test.cpp: a writer that opens a
// space while a reader holds an older commit than the space's newest. The
// writer closed beside that reader (the file lags at the reader's commit
// and the log holds the commits after it), or died; the next writer's open
// must recover the newest commit without changing a page the reader's
// commit reads from the file, and without cutting the file under the
// reader's mapping (a compaction the reader has not seen).
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"
#include "persist_support.hpp"
#include "seq_block.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

constexpr std::size_t pages = 32;
constexpr std::size_t block_bytes = pages * 4096;

void commit(fl::mapped_space& sp, std::uint64_t seq) { fl_test::commit_seq(sp, seq, 0, block_bytes); }

// "" when `sp` shows commit `seq` whole, else what it shows.
std::string differs(const fl::mapped_space& sp, std::uint64_t seq) {
  const std::string shown = fl_test::seq_state(sp, block_bytes);
  return shown == fl_test::seq_ok(seq) ? std::string() : shown;
}

struct ReopenWriterTest : ::testing::Test {
  fl_test::scratch_dir dir;
  fs::path file() const { return dir / "space"; }

  fl::mapped_space make() { return fl_test::make_seq_space(file(), block_bytes, 1); }
};

// The reader holds commit 1; the writer commits 2..6 and closes (the file
// stays at 1), a new writer opens (recovers 6): the reader still reads 1,
// every page, and refresh() takes it to 6.
TEST_F(ReopenWriterTest, ReaderKeepsItsCommitAcrossAWriterReopen) {
  std::optional<fl::mapped_space> w(make());
  const fl::mapped_space reader = fl::mapped_space::open(file(), fl::open_mode::read_only);
  ASSERT_EQ(differs(reader, 1), "");
  for (std::uint64_t seq = 2; seq <= 6; ++seq) commit(*w, seq);
  w.reset();
  ASSERT_EQ(differs(reader, 1), "") << "after the writer's close";
  w.emplace(file(), fl::mapped_space_options{.mode = fl::open_mode::open_existing});
  EXPECT_EQ(differs(*w, 6), "");
  EXPECT_EQ(differs(reader, 1), "") << "after a writer's open recovered commit 6";
  commit(*w, 7);
  EXPECT_EQ(differs(reader, 1), "") << "after the reopened writer's commit";
  fl::mapped_space r2 = fl::mapped_space::open(file(), fl::open_mode::read_only);
  EXPECT_EQ(differs(r2, 7), "");
  fl::mapped_space& r = const_cast<fl::mapped_space&>(reader);
  r.refresh();
  EXPECT_EQ(differs(r, 7), "");
}

// The same after a compaction the reader has not seen: the file must not be
// cut under the reader's commit (a read there would be SIGBUS).
TEST_F(ReopenWriterTest, ReaderKeepsItsPagesWhenTheReopenedSpaceWasCompacted) {
  const int rc = fl_test::run_in_child([&] {
    std::optional<fl::mapped_space> w(make());
    const auto tail = w->allocate(16 * 4096).cast<unsigned char>();
    std::memset(w->get(tail), 'T', 16 * 4096);
    w->sync();
    const fl::mapped_space reader = fl::mapped_space::open(file(), fl::open_mode::read_only);
    w->deallocate(tail);
    w->compact();
    commit(*w, 2);
    w.reset();
    w.emplace(file(), fl::mapped_space_options{.mode = fl::open_mode::open_existing});
    if (!differs(*w, 2).empty()) return 2;
    if (!differs(reader, 1).empty()) return 3;
    const unsigned char* t = reader.get(tail);
    for (std::size_t i = 0; i < 16 * 4096; i += 4096)
      if (t[i] != 'T') return 4;
    return 0;
  });
  EXPECT_EQ(rc, 0) << "2: the writer's value, 3: the reader's block, 4: the reader's tail, "
                      "128+: a signal (7: SIGBUS)";
}

// A compaction beside the reader leaves the file's end (the reader's pages);
// growth over it zeroes the writer's view of it. The pages past the
// allocator's top must read as zeros again after a writer's reopen: the
// blocks later carved there are checked against a zero page's checksum.
TEST_F(ReopenWriterTest, GrowthOverTheEndACompactionLeftReadsZerosAfterAReopen) {
  std::optional<fl::mapped_space> w(make());
  const auto tail = w->allocate(64 * 4096).cast<unsigned char>();
  std::memset(w->get(tail), 'T', 64 * 4096);
  w->sync();
  fl::mapped_space reader = fl::mapped_space::open(file(), fl::open_mode::read_only);
  w->deallocate(tail);
  w->compact();
  commit(*w, 2);  // the file keeps its end: the reader reads the tail there
  // Growth into that end, by a step past the block: pages past the top that
  // the file holds the tail's bytes in.
  const fl::space_stats st = w->stats();
  const std::size_t grow_by = static_cast<std::size_t>(st.file_bytes - st.top) + 4096;
  const auto small = w->allocate(grow_by).cast<unsigned char>();
  std::memset(w->get(small), 's', grow_by);
  ASSERT_GT(w->stats().file_bytes, w->stats().top + 4096) << "no page past the top";
  commit(*w, 3);
  w.reset();  // closes beside the reader: the log keeps commits 2 and 3
  w.emplace(file(), fl::mapped_space_options{.mode = fl::open_mode::open_existing});
  EXPECT_EQ(differs(*w, 3), "");
  EXPECT_NO_THROW({
    const auto more = w->allocate(40 * 4096).cast<unsigned char>();  // carves past the top
    std::memset(w->get(more), 'm', 40 * 4096);
    commit(*w, 4);
  });
  EXPECT_EQ(differs(reader, 1), "");
  { const fl::mapped_space gone = std::move(reader); }
  w->sync();
  EXPECT_NO_THROW(w->verify());
}

// The table one commit behind the meta slot, as a writer leaves it between
// writing the slot of a run's first commit and publishing that commit (and
// for good if it dies there). A reader opening then must not take the pins
// of the readers beside it away: before, it rebuilt the table from scratch,
// the writer's next commit saw no pin and moved the file past reader A's
// commit (in the process test: /n of commit 1 with /m of commit 0).
TEST_F(ReopenWriterTest, AReaderRebuildingAStaleTableKeepsThePinsBesideIt) {
  fl::mapped_space w = make();
  const fl::mapped_space a = fl::mapped_space::open(file(), fl::open_mode::read_only);
  {
    const int fd = ::open((file().string() + "-readers").c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    // Older than any slot's commit (the slot names its run's first).
    const std::uint64_t newest = 1;
    constexpr off_t at = offsetof(fl::detail::reader_file_head, newest);
    ASSERT_EQ(::pwrite(fd, &newest, sizeof newest, at), static_cast<ssize_t>(sizeof newest));
    ::close(fd);
  }
  {
    const fl::mapped_space b = fl::mapped_space::open(file(), fl::open_mode::read_only);
    EXPECT_EQ(differs(b, 1), "");
  }  // B's pin goes: only A's holds the file
  commit(w, 2);
  EXPECT_EQ(w.stats().pinned_generation, a.stats().generation) << "reader A's pin was lost";
  EXPECT_EQ(differs(a, 1), "") << "the file moved past reader A's commit";
}

// A writer killed while it published a commit leaves the table's sequence
// counter odd. The next writer's open waited for it to turn even, for ever
// (persist_crash_test hung there once in a few hundred kills); it must see a
// table that needs its set-up, and repair it. A reader that meets the odd
// counter waits a moment for a live writer, then rebuilds the table as a
// damaged one instead of spinning.
void leave_publish_half_done(const fs::path& data) {
  const int fd = ::open((data.string() + "-readers").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  std::uint64_t seq = 0;
  constexpr off_t at = offsetof(fl::detail::reader_file_head, seq);
  ASSERT_EQ(::pread(fd, &seq, sizeof seq, at), static_cast<ssize_t>(sizeof seq));
  seq |= 1;
  ASSERT_EQ(::pwrite(fd, &seq, sizeof seq, at), static_cast<ssize_t>(sizeof seq));
  ::close(fd);
}

TEST_F(ReopenWriterTest, AWriterOpensOverATableLeftMidPublish) {
  {
    fl::mapped_space w = make();
    commit(w, 2);
  }
  leave_publish_half_done(file());
  fl::mapped_space w(file(), fl::mapped_space_options{.mode = fl::open_mode::open_existing});
  EXPECT_EQ(differs(w, 2), "");
  commit(w, 3);
  const fl::mapped_space r = fl::mapped_space::open(file(), fl::open_mode::read_only);
  EXPECT_EQ(differs(r, 3), "");
}

TEST_F(ReopenWriterTest, AReaderOpensOverATableLeftMidPublish) {
  {
    fl::mapped_space w = make();
    commit(w, 2);
  }
  leave_publish_half_done(file());
  const fl::mapped_space r = fl::mapped_space::open(file(), fl::open_mode::read_only);
  EXPECT_EQ(differs(r, 2), "");
  fl::mapped_space w(file(), fl::mapped_space_options{.mode = fl::open_mode::open_existing});
  commit(w, 3);
  fl::mapped_space& rr = const_cast<fl::mapped_space&>(r);
  rr.refresh();
  EXPECT_EQ(differs(rr, 3), "");
}

}  // namespace
