// The redo log of fl::mapped_space (format 2; from format 4 a record holds
// the bytes its commit changed): a commit appends a record to "<path>-log"
// and flushes only it; the changes reach the data file unflushed and a
// checkpoint later. These tests build the states a crash leaves (a
// writer killed after its last sync(), a record torn mid-write, a run that
// wrapped past a checkpoint, damaged records) and check what reopens.
#include "persist/persist_format.hpp"
#include <fl/mapped_space.hpp>

#include <gtest/gtest.h>

#include "persist_support.hpp"

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fl_test::scratch_dir;

constexpr std::uint64_t page = fl::detail::space_page;
constexpr std::uint64_t pages = 64;  // the root block: one counter per page

// The root block (created on first use): `pages` pages, page p starting
// with a u64.
std::uint64_t* block(fl::mapped_space& s) {
  if (!s.root()) {
    s.set_root(s.allocate(pages * page, page));
    s.sync();
  }
  return s.get(s.root<std::uint64_t>());
}
std::uint64_t value(fl::mapped_space& s, std::uint64_t p) { return block(s)[p * page / 8]; }
void set_value(fl::mapped_space& s, std::uint64_t p, std::uint64_t v) {
  block(s)[p * page / 8] = v;
}
// Page p filled with v: a record holds all of it.
void fill_page(fl::mapped_space& s, std::uint64_t p, std::uint64_t v) {
  std::fill_n(block(s) + p * page / 8, page / 8, v);
}

// Runs `fn` on the space at `path` in a child process that then dies by
// SIGKILL, after its last sync() and before any close: the state a crash
// right after a commit leaves.
void kill_after(const fs::path& path, const std::function<void(fl::mapped_space&)>& fn) {
  const int rc = fl_test::run_in_child([&] {
    fl::mapped_space s(path);
    fn(s);
    ::raise(SIGKILL);
    return 1;
  });
  ASSERT_EQ(rc, 128 + SIGKILL);
}

fl::detail::space_meta newest_slot(const fs::path& path) {
  const std::vector<unsigned char> b = fl_test::read_bytes(path);
  fl::detail::space_meta m[2];
  std::memcpy(&m[0], b.data(), sizeof m[0]);
  std::memcpy(&m[1], b.data() + page, sizeof m[1]);
  const std::uint32_t d = ((m[0].state >> 1) - (m[1].state >> 1)) & fl::detail::meta_seq_mask;
  return d == 1 ? m[0] : m[1];
}

// The records of the run at the start of the log: offset and generation.
struct rec {
  std::uint64_t at, generation, bytes;
  std::uint64_t data_end;  // past its last logged byte (the zeros after are no part of it)
  std::uint64_t extents;
};
std::vector<rec> records(const std::vector<unsigned char>& log) {
  std::vector<rec> out;
  for (std::uint64_t at = 0; at + sizeof(fl::detail::log_record) <= log.size();) {
    fl::detail::log_record h;
    std::memcpy(&h, log.data() + at, sizeof h);
    if (std::memcmp(h.magic, fl::detail::record_magic, sizeof h.magic) != 0 ||
        (!out.empty() && h.generation != out.back().generation + 1))
      break;
    out.push_back(
        {at, h.generation, h.record_bytes,
         at + fl::detail::record_head_bytes(h.extent_count, h.format_version) + h.data_bytes,
         h.extent_count});
    at += h.record_bytes;
  }
  return out;
}

fs::path log_of(const fs::path& p) { return p.string() + "-log"; }

TEST(MappedSpaceLog, KilledAfterTheLogFlushReopensTheNewState) {
  scratch_dir d;
  const fs::path path = d / "s";
  kill_after(path, [](fl::mapped_space& s) {
    for (std::uint64_t i = 1; i <= 6; ++i) {
      set_value(s, i % pages, i);
      set_value(s, 0, i);
      s.sync();
    }
  });
  // The data file alone names an earlier commit: the last ones are in the
  // log only, and the newest meta slot sends the open there.
  const fl::detail::space_meta disk = newest_slot(path);
  EXPECT_NE(disk.state & fl::detail::meta_log_bit, 0u);
  EXPECT_GE(records(fl_test::read_bytes(log_of(path))).size(), 6u);
  {
    fl::mapped_space s(path);
    EXPECT_GT(s.stats().generation, disk.generation);
    EXPECT_EQ(value(s, 0), 6u);
    for (std::uint64_t i = 1; i <= 6; ++i) EXPECT_EQ(value(s, i), i);
    s.verify();
  }
  // The open finished the run with a checkpoint: the file alone is the state.
  EXPECT_EQ(newest_slot(path).state & fl::detail::meta_log_bit, 0u);
  fs::remove(log_of(path));
  fl::mapped_space s(path);
  EXPECT_EQ(value(s, 0), 6u);
}

TEST(MappedSpaceLog, CleanCloseLeavesNothingInTheLog) {
  scratch_dir d;
  const fs::path path = d / "s";
  {
    fl::mapped_space s(path);
    for (std::uint64_t i = 1; i <= 4; ++i) {
      set_value(s, i, i);
      s.sync();
    }
  }
  EXPECT_EQ(newest_slot(path).state & fl::detail::meta_log_bit, 0u);
  fs::remove(log_of(path));  // not read by the open
  fl::mapped_space s(path);
  for (std::uint64_t i = 1; i <= 4; ++i) EXPECT_EQ(value(s, i), i);
  s.verify();
}

// The data file as it was after commit k, the log as the crash left it.
TEST(MappedSpaceLog, RecordsReplayInOrderAndATornLastRecordIsIgnored) {
  scratch_dir d;
  const fs::path path = d / "s";
  const fs::path snap = d / "snap";
  kill_after(path, [&](fl::mapped_space& s) {
    set_value(s, 0, 1);
    s.sync();  // the first record of the run; its meta slot is flushed
    fs::copy_file(path, snap);
    set_value(s, 0, 2);
    set_value(s, 1, 2);
    s.sync();
    set_value(s, 0, 3);
    s.sync();
    set_value(s, 2, 4);
    set_value(s, 0, 4);
    s.sync();
  });
  const std::vector<unsigned char> log = fl_test::read_bytes(log_of(path));
  const std::vector<rec> run = records(log);
  ASSERT_GE(run.size(), 4u);  // creation, the root block, then the four above
  const std::vector<unsigned char> snapshot = fl_test::read_bytes(snap);
  // Page 0 changes in every record: only an in-order replay ends at 4.
  fl_test::write_bytes(path, snapshot);
  {
    fl::mapped_space s(path);
    EXPECT_EQ(value(s, 0), 4u);
    EXPECT_EQ(value(s, 1), 2u);
    EXPECT_EQ(value(s, 2), 4u);
    s.verify();
  }
  // The last record torn (its last page never written): the commit before.
  std::vector<unsigned char> torn = log;
  const rec& last = run.back();
  std::memset(torn.data() + last.at + last.bytes - page, 0, page);
  fl_test::write_bytes(path, snapshot);
  fl_test::write_bytes(log_of(path), torn);
  {
    fl::mapped_space s(path);
    EXPECT_EQ(value(s, 0), 3u);
    EXPECT_EQ(value(s, 1), 2u);
    EXPECT_EQ(value(s, 2), 0u);
    s.verify();
  }
  // Only the head of the last record written: the same.
  torn = log;
  std::memset(torn.data() + last.at + fl::detail::record_head_bytes(0), 0,
              last.bytes - fl::detail::record_head_bytes(0));
  fl_test::write_bytes(path, snapshot);
  fl_test::write_bytes(log_of(path), torn);
  fl::mapped_space s(path);
  EXPECT_EQ(value(s, 0), 3u);
}

// A record holds the bytes its commit changed, not their pages: ten
// counters in ten pages make a record of one page. The replay after a crash
// rebuilds every page from the file and the records, a counter set and set
// back again included.
TEST(MappedSpaceLog, ARecordHoldsTheBytesItsCommitChanged) {
  scratch_dir d;
  const fs::path path = d / "s";
  kill_after(path, [](fl::mapped_space& s) {
    block(s);
    s.sync();
    set_value(s, 0, 5);
    s.sync();
    for (std::uint64_t p = 0; p < 10; ++p) set_value(s, p, p == 0 ? 0 : 100 + p);
    s.sync();
  });
  const std::vector<rec> run = records(fl_test::read_bytes(log_of(path)));
  ASSERT_GE(run.size(), 2u);
  const rec& last = run.back();
  EXPECT_EQ(last.bytes, page);
  EXPECT_GE(last.extents, 10u);
  EXPECT_LE(last.data_end - last.at, page);
  fl::mapped_space s(path);
  EXPECT_EQ(value(s, 0), 0u);
  for (std::uint64_t p = 1; p < 10; ++p) EXPECT_EQ(value(s, p), 100 + p) << p;
  for (std::uint64_t p = 10; p < pages; ++p) EXPECT_EQ(value(s, p), 0u) << p;
  s.verify();
}

TEST(MappedSpaceLog, RecordsBeforeACheckpointAreNeverReplayed) {
  scratch_dir d;
  const fs::path path = d / "s";
  std::uint64_t stale_generation = 0;
  kill_after(path, [&](fl::mapped_space& s) {
    s.set_durable(false);  // the same writes in the same order, without waiting for the disk
    // Every page of the block in each commit: 256 KiB records, so the log
    // passes its bound and the next commit starts a new run at offset 0.
    const std::uint64_t commits = fl::detail::log_bound / (pages * page) + 4;
    for (std::uint64_t i = 1; i <= commits; ++i) {
      for (std::uint64_t p = 0; p < pages; ++p) fill_page(s, p, i);
      s.sync();
    }
    for (std::uint64_t p = 0; p < 2; ++p) set_value(s, p, 1000 + p);
    s.sync();  // checkpoint, then a short record at offset 0
    set_value(s, 3, 2000);
    s.sync();
  });
  const std::vector<unsigned char> log = fl_test::read_bytes(log_of(path));
  const std::vector<rec> run = records(log);
  ASSERT_FALSE(run.empty());
  // Past the run: records of the earlier run, with older page images.
  fl::detail::log_record h;
  const std::uint64_t past = run.back().at + run.back().bytes;
  bool stale = false;
  for (std::uint64_t at = past; at + sizeof h <= log.size() && !stale; at += page) {
    std::memcpy(&h, log.data() + at, sizeof h);
    stale = std::memcmp(h.magic, fl::detail::record_magic, sizeof h.magic) == 0;
    stale_generation = h.generation;
  }
  ASSERT_TRUE(stale);
  EXPECT_LT(stale_generation, run.front().generation);
  fl::mapped_space s(path);
  EXPECT_EQ(value(s, 0), 1000u);
  EXPECT_EQ(value(s, 1), 1001u);
  EXPECT_EQ(value(s, 3), 2000u);
  const std::uint64_t last_full = value(s, 2);
  for (std::uint64_t p = 4; p < pages; ++p) EXPECT_EQ(value(s, p), last_full) << p;
  s.verify();
}

TEST(MappedSpaceLog, DamagedRecordsAreRefused) {
  scratch_dir d;
  const fs::path path = d / "s";
  kill_after(path, [](fl::mapped_space& s) {
    for (std::uint64_t i = 1; i <= 3; ++i) {
      set_value(s, i, i);
      s.sync();
    }
  });
  const std::vector<unsigned char> data = fl_test::read_bytes(path);
  const std::vector<unsigned char> log = fl_test::read_bytes(log_of(path));
  const std::vector<rec> run = records(log);
  ASSERT_GE(run.size(), 3u);
  // A flipped bit in the head or the page images of the first or a middle
  // record: the commits after it would be lost, so the open refuses, and
  // changes neither file.
  int refused = 0;
  for (std::size_t r = 0; r + 1 < run.size(); ++r) {
    for (const std::uint64_t off :
         {std::uint64_t{8}, std::uint64_t{200}, run[r].data_end - run[r].at - 1}) {
      std::vector<unsigned char> bad = log;
      bad[run[r].at + off] ^= 0x10;
      fl_test::write_bytes(path, data);
      fl_test::write_bytes(log_of(path), bad);
      try {
        fl::mapped_space s(path);
        ADD_FAILURE() << "record " << r << " byte " << off << " flipped, opened";
      } catch (const fl::persist_error& e) {
        ++refused;
        EXPECT_EQ(e.path(), path);
      }
      EXPECT_EQ(fl_test::read_bytes(path), data);
      EXPECT_EQ(fl_test::read_bytes(log_of(path)), bad);
    }
  }
  EXPECT_EQ(refused, 3 * static_cast<int>(run.size() - 1));
  // Without the log the newest meta slot names a commit nobody holds.
  fl_test::write_bytes(path, data);
  fs::remove(log_of(path));
  EXPECT_THROW(fl::mapped_space{path}, fl::persist_error);
}

}  // namespace
