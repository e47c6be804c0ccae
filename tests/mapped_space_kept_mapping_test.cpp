// tests/mapped_space_kept_mapping_test.cpp: a space whose mapping holds only
// the file's pages (a reader that read only the file, a writer that wrote
// nothing through the mapping) leaves it mapped at close, and the next open
// of the same file in the process, reader or writer, takes that mapping with
// its page tables (no map, no fault on the pages read before). Whatever
// happened to the file between the two, the next open sees exactly the
// newest commit: commits written in place (by this process or another), a
// compaction that cut the file, another file renamed over the path. A
// reader's mapping with private pages (pages it read from the log) is left
// as a view of its commit, which only a reader of that same commit takes; a
// writer's with private pages (its uncommitted or committed writes) is
// unmapped, a kept writer's lock is
// released at its close, and remove() drops a kept mapping (it would keep
// the file's blocks).
#include <fl/mapped_space.hpp>

#include "child_process.hpp"
#include "persist_support.hpp"
#include "seq_block.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

constexpr std::size_t block_bytes = 64 * 4096;

// How many of the pages of [p, p + bytes) this process has mapped now
// (present in its page tables: /proc/self/pagemap, bit 63), read without
// touching them.
std::size_t present_pages(const void* p, std::size_t bytes) {
  const long page = ::sysconf(_SC_PAGESIZE);
  const auto first = reinterpret_cast<std::uintptr_t>(p) / static_cast<std::uintptr_t>(page);
  const std::size_t n = bytes / static_cast<std::size_t>(page);
  std::vector<std::uint64_t> e(n);
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t got = ::pread(fd, e.data(), n * 8, static_cast<off_t>(first * 8));
  ::close(fd);
  std::size_t present = 0;
  for (std::size_t i = 0; got == static_cast<ssize_t>(n * 8) && i < n; ++i)
    present += (e[i] >> 63) & 1;
  return present;
}

// Whether this process maps `file` (a line of /proc/self/maps names it).
bool mapped(const fs::path& file) {
  std::ifstream in("/proc/self/maps");
  const std::string name = fs::canonical(file.parent_path()).string() + "/" +
                           file.filename().string();
  for (std::string line; std::getline(in, line);)
    if (line.find(name) != std::string::npos && line.find(name + "-") == std::string::npos)
      return true;
  return false;
}

fl::mapped_space open_reader(const fs::path& file) {
  return fl::mapped_space(file, fl::mapped_space_options{.mode = fl::open_mode::read_only});
}

struct KeptMappingTest : ::testing::Test {
  fl_test::scratch_dir dir;
  fs::path file() const { return dir / "space"; }
};

TEST_F(KeptMappingTest, TheNextReaderOfTheFileFaultsNoPageItsPredecessorRead) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 3); }
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(3));
  }
  EXPECT_TRUE(mapped(file()));
  fl::mapped_space r = open_reader(file());
  // Before any read, the block's pages are in the page tables already: the
  // first reader mapped them, and its mapping was taken as it was (a new
  // mapping has none).
  const fl_test::seq_root* root = r.get(r.root<fl_test::seq_root>());
  EXPECT_EQ(present_pages(r.get(root->block), block_bytes), block_bytes / 4096);
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(3));
}

TEST_F(KeptMappingTest, CommitsBetweenTwoReadersShowInTheMappingTheSecondTakes) {
  fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 0);
  // Commit k (k >= 1) writes pages [k, 32 + k) of the block.
  const auto expect = [](std::uint64_t s, std::size_t i) {
    for (std::uint64_t k = s; k > 0; --k)
      if (i >= k * 4096 && i < block_bytes / 2 + k * 4096) return fl_test::seq_byte(k, i);
    return fl_test::seq_byte(0, i);
  };
  for (std::uint64_t seq = 1; seq < 5; ++seq) {
    {
      fl::mapped_space r = open_reader(file());
      EXPECT_EQ(fl_test::seq_state(r, block_bytes, expect), std::to_string(seq - 1) + ":ok");
    }
    // In place, into the pages the closed reader left mapped.
    fl_test::commit_seq(w, seq, seq * 4096, block_bytes / 2 + seq * 4096);
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes, expect), std::to_string(seq) + ":ok");
  }
}

TEST_F(KeptMappingTest, ACompactionThatCutTheFileLeavesTheNextReaderItsCommit) {
  fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 1);
  // A second block at the end, then read whole by a reader that closes.
  const auto tail = w.allocate(8 * block_bytes);
  std::memset(w.get(tail.cast<unsigned char>()), 0x5a, 8 * block_bytes);
  w.sync();
  const std::uint64_t long_size = fs::file_size(file());
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(1));
    const auto* t = reinterpret_cast<const unsigned char*>(r.checked(tail, 8 * block_bytes));
    EXPECT_EQ(t[8 * block_bytes - 1], 0x5a);
  }
  w.deallocate(tail);
  w.compact();
  w.sync();
  fl_test::commit_seq(w, 2, 0, block_bytes);
  ASSERT_LT(fs::file_size(file()), long_size);
  fl::mapped_space r = open_reader(file());
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(2));
  EXPECT_EQ(r.file_bytes(), fs::file_size(file()));
}

TEST_F(KeptMappingTest, AFileRenamedOverThePathIsMappedAfresh) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 4); }
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(4));
  }
  {
    fl::mapped_space other = fl_test::make_seq_space(dir / "other", block_bytes, 9);
    other.rename(file());
  }
  fl::mapped_space r = open_reader(file());
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(9));
}

TEST_F(KeptMappingTest, AReaderThatReadTheLogLeavesItsViewForTheNextReaderOfItsCommit) {
  fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 0);
  // Held at commit 0, so the file stays there: later readers read the
  // commits after it from the log, into private pages.
  std::optional<fl::mapped_space> old = open_reader(file());
  fl_test::commit_seq(w, 1, 0, block_bytes);
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(1));
  }
  EXPECT_TRUE(mapped(file()));  // its view, left
  for (int i = 0; i < 2; ++i) {
    fl::mapped_space r = open_reader(file());
    // Taken whole: the block's pages (all of them private copies) are in
    // the page tables before any read of them.
    const fl_test::seq_root* root = r.get(r.root<fl_test::seq_root>());
    EXPECT_EQ(present_pages(r.get(root->block), block_bytes), block_bytes / 4096);
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(1));
    EXPECT_NO_THROW(r.verify());
  }
  // The file may move to commit 1 now (in place, under the view kept):
  // the view is still commit 1's.
  old.reset();
  w.sync();
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(1));
  }
  // A commit since: the view is not that commit's, and is not taken.
  old = open_reader(file());
  fl_test::commit_seq(w, 2, block_bytes / 4, block_bytes / 2);
  const auto expect = [](std::uint64_t, std::size_t i) {
    return i >= block_bytes / 4 && i < block_bytes / 2 ? fl_test::seq_byte(2, i)
                                                       : fl_test::seq_byte(1, i);
  };
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes, expect), fl_test::seq_ok(2));
  }
  // A refreshed reader leaves the view of the commit it refreshed to.
  fl_test::commit_seq(w, 3, 0, block_bytes);
  old->refresh();
  EXPECT_EQ(fl_test::seq_state(*old, block_bytes), fl_test::seq_ok(3));
  old.reset();
  fl::mapped_space r = open_reader(file());
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(3));
}

TEST_F(KeptMappingTest, AViewOfMoreRecordsThanTheLogsBoundIsNotLeft) {
  // One commit of a block bigger than the log's bound, read from the log by
  // a reader: its private pages would stay allocated in the slot.
  constexpr std::size_t big = (5u << 20) + 4096;
  {
    fl::mapped_space w = fl_test::make_seq_space(file(), big, 0);
    std::optional<fl::mapped_space> old = open_reader(file());
    fl_test::commit_seq(w, 1, 0, big);
    {
      fl::mapped_space r = open_reader(file());
      EXPECT_EQ(fl_test::seq_state(r, big), fl_test::seq_ok(1));
    }
    old.reset();
  }
  EXPECT_FALSE(mapped(file()));
  fl::mapped_space r = open_reader(file());
  EXPECT_EQ(fl_test::seq_state(r, big), fl_test::seq_ok(1));
}

TEST_F(KeptMappingTest, RemoveDropsTheMappingAClosedSpaceLeft) {
  for (const bool reader : {true, false}) {
    { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 5); }
    {
      fl::mapped_space sp = reader ? open_reader(file()) : fl::mapped_space(file());
      EXPECT_EQ(fl_test::seq_state(sp, block_bytes), fl_test::seq_ok(5));
    }
    ASSERT_TRUE(mapped(file()));
    EXPECT_TRUE(fl::mapped_space::remove(file()));
    EXPECT_FALSE(fs::exists(file()));
    // (The reader table's small mapping stays, as a closed space keeps it.)
    std::ifstream in("/proc/self/maps");
    const std::string gone = file().filename().string() + " (deleted)";
    for (std::string line; std::getline(in, line);)
      EXPECT_EQ(line.find(dir.path().filename().string() + "/" + gone), std::string::npos) << line;
  }
}

TEST_F(KeptMappingTest, ARenameOverTheFileDropsTheMappingAClosedSpaceLeft) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 6); }
  for (const bool reader : {true, false}) {
    // Opened first: an open would take the range the next close leaves.
    fl::mapped_space other = fl_test::make_seq_space(dir / "other", block_bytes, 6);
    {
      fl::mapped_space s = reader ? open_reader(file()) : fl::mapped_space(file());
      EXPECT_EQ(fl_test::seq_state(s, block_bytes), fl_test::seq_ok(6));
    }
    ASSERT_TRUE(mapped(file()));
    struct stat sb;
    ASSERT_EQ(::stat(file().c_str(), &sb), 0);
    other.rename(file());
    // The replaced file is no longer mapped (its blocks are free).
    std::ifstream in("/proc/self/maps");
    for (std::string line; std::getline(in, line);) {
      std::istringstream fields(line);
      std::string range, perms, offset, device;
      std::uint64_t inode = 0;
      fields >> range >> perms >> offset >> device >> inode;
      EXPECT_NE(inode, static_cast<std::uint64_t>(sb.st_ino)) << line;
    }
  }
}

// ---- a writer's mapping ----

fl::mapped_space open_writer(const fs::path& file) {
  return fl::mapped_space(file, fl::mapped_space_options{.mode = fl::open_mode::read_write});
}

// Runs body() in a forked child (another process, with this one's kept
// mapping and descriptor inherited) and waits for it: "" when body returned,
// else what it threw, or that the child failed.
template <class Body>
std::string in_child(const Body& body) {
  const fl_test::piped_child c = fl_test::fork_piped([&](int out) {
    int status = 1;
    try {
      body();
      status = 0;
    } catch (const std::exception& e) {
      const std::string m = e.what();
      (void)!::write(out, m.data(), m.size());
    }
    ::close(out);
    ::_exit(status);
  });
  const std::string said = fl_test::read_all(c.from_child);
  ::close(c.from_child);
  int status = 0;
  if (::waitpid(c.pid, &status, 0) != c.pid) return "waitpid failed";
  if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) && said.empty()) return "the child failed";
  return said;
}

TEST_F(KeptMappingTest, AWriterThatWroteNothingLeavesTheFileMappedForTheNextOpen) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 3); }
  {
    fl::mapped_space w = open_writer(file());
    EXPECT_EQ(fl_test::seq_state(w, block_bytes), fl_test::seq_ok(3));
  }
  EXPECT_TRUE(mapped(file()));
  // Its lock went with the close, though its mapping holds the file open.
  EXPECT_FALSE(fl::mapped_space::locked(file()));
  {
    fl::mapped_space w = open_writer(file());
    const fl_test::seq_root* root = w.get(w.root<fl_test::seq_root>());
    EXPECT_EQ(present_pages(w.get(root->block), block_bytes), block_bytes / 4096);
    EXPECT_EQ(fl_test::seq_state(w, block_bytes), fl_test::seq_ok(3));
    // Edits and commits on the mapping it took, as on a new one.
    fl_test::commit_seq(w, 4, 0, block_bytes);
  }
  // A reader after it: the commit, whatever the writer's close left.
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(4));
  }
  // A writer after a reader's kept mapping.
  fl::mapped_space w = open_writer(file());
  const fl_test::seq_root* root = w.get(w.root<fl_test::seq_root>());
  EXPECT_EQ(present_pages(w.get(root->block), block_bytes), block_bytes / 4096);
  EXPECT_EQ(fl_test::seq_state(w, block_bytes), fl_test::seq_ok(4));
}

TEST_F(KeptMappingTest, AWriterThatWroteThroughTheMappingLeavesNothingOfItMapped) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 2); }
  {
    // Uncommitted: a write, an allocation and a new root, then the close.
    fl::mapped_space w = open_writer(file());
    EXPECT_EQ(fl_test::seq_state(w, block_bytes), fl_test::seq_ok(2));
    fl_test::seq_root* root = w.get(w.root<fl_test::seq_root>());
    w.get(root->block)[block_bytes / 2] ^= 0xff;
    root->seq = 99;
  }
  EXPECT_FALSE(mapped(file()));
  {
    fl::mapped_space w = open_writer(file());
    EXPECT_EQ(fl_test::seq_state(w, block_bytes), fl_test::seq_ok(2));
    // One page written and rolled back: the mapping is the file's again.
    w.get(w.get(w.root<fl_test::seq_root>())->block)[5] ^= 0xff;
    w.rollback();
    EXPECT_EQ(fl_test::seq_state(w, block_bytes), fl_test::seq_ok(2));
  }
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(2));
  }
  // Committed writes: whatever private copies the commit kept go at close.
  {
    fl::mapped_space w = open_writer(file());
    fl_test::commit_seq(w, 3, 0, block_bytes / 2);
  }
  fl::mapped_space w = open_writer(file());
  EXPECT_EQ(fl_test::seq_state(w, block_bytes,
                               [](std::uint64_t s, std::size_t i) {
                                 return fl_test::seq_byte(i < block_bytes / 2 ? s : 2, i);
                               }),
            fl_test::seq_ok(3));
}

TEST_F(KeptMappingTest, AnotherProcessWritesBetweenAKeptWritersCloseAndTheNextOpen) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 1); }
  for (std::uint64_t seq = 2; seq < 5; ++seq) {
    {
      fl::mapped_space w = open_writer(file());
      EXPECT_EQ(fl_test::seq_state(w, block_bytes), fl_test::seq_ok(seq - 1));
    }
    ASSERT_TRUE(mapped(file()));
    // The child opens as the writer (the kept mapping holds no lock) and
    // commits in place, into the pages this process keeps mapped; the
    // last round also grows the file and compacts it.
    ASSERT_EQ(in_child([&] {
                fl::mapped_space w = open_writer(file());
                if (seq == 4) {
                  const auto extra = w.allocate(16 * block_bytes);
                  std::memset(w.get(extra.cast<unsigned char>()), 0x33, 16 * block_bytes);
                  w.sync();
                  w.deallocate(extra);
                  w.compact();
                }
                fl_test::commit_seq(w, seq, 0, block_bytes);
              }),
              "");
    fl::mapped_space w = open_writer(file());
    EXPECT_EQ(fl_test::seq_state(w, block_bytes), fl_test::seq_ok(seq));
    EXPECT_EQ(w.file_bytes(), fs::file_size(file()));
    w.verify();
  }
}

// The descriptor a closed space leaves with its mapping is used by the next
// open of the same path only while the path names its file: here another
// process renames a new space over the path in between (which drops nothing
// in this process), and removes the store once.
TEST_F(KeptMappingTest, AnotherProcessReplacesTheFileBetweenACloseAndTheNextOpen) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 1); }
  for (std::uint64_t seq = 2; seq < 10; ++seq) {
    // Every pair of kinds: the space closed, and the next open.
    const bool reader = seq % 2 == 0, next_reader = seq % 4 < 2;
    {
      fl::mapped_space sp = reader ? open_reader(file()) : open_writer(file());
      EXPECT_EQ(fl_test::seq_state(sp, block_bytes), fl_test::seq_ok(seq - 1));
    }
    ASSERT_TRUE(mapped(file()));
    ASSERT_EQ(in_child([&] {
                if (seq == 5) {
                  fl::mapped_space::remove(file());
                  fl_test::make_seq_space(file(), block_bytes, seq);
                } else {
                  fl::mapped_space other = fl_test::make_seq_space(
                      dir / ("other" + std::to_string(seq)), block_bytes, seq);
                  other.rename(file());
                }
              }),
              "");
    fl::mapped_space sp = next_reader ? open_reader(file()) : open_writer(file());
    EXPECT_EQ(fl_test::seq_state(sp, block_bytes), fl_test::seq_ok(seq));
    EXPECT_EQ(sp.file_bytes(), fs::file_size(file()));
  }
}

// A reader takes the reader table the last space of its data file kept
// without looking at the table's path; its join checks the path under the
// table's lock. Here the table file was deleted between the two: the reader
// must join the new one, where the writer publishes its commits.
TEST_F(KeptMappingTest, AReaderJoinsTheTableThePathNamesNotTheOneKept) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 1); }
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(1));
  }
  fs::path table = file();
  table += "-readers";
  ASSERT_TRUE(fs::remove(table));
  fl::mapped_space r = open_reader(file());
  EXPECT_TRUE(fs::exists(table));
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(1));
  fl::mapped_space w = open_writer(file());
  fl_test::commit_seq(w, 2, 0, block_bytes);
  r.refresh();
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(2));
  // The reader holds commit 2 in the table the writer sees: the writer's
  // next commits are logged for it, and it moves to them.
  fl_test::commit_seq(w, 3, 0, block_bytes);
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(2));
  r.refresh();
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(3));
}

// A child forked while a closed space's descriptor was kept holds that open
// file description as long as it lives. The parent's next writer locks the
// same description (the kept descriptor): its close must release the lock
// itself, whether it keeps its mapping or not, or the store stays locked
// until the child exits.
TEST_F(KeptMappingTest, AChildForkedWhileADescriptorWasKeptLeavesTheLockToItsOwner) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 1); }
  { fl::mapped_space w = open_writer(file()); }  // kept: its mapping and descriptor
  ASSERT_TRUE(mapped(file()));
  const fl_test::piped_child c = fl_test::fork_piped([](int) {
    for (;;) ::pause();  // until the parent kills it
  });
  struct reaper {  // the child goes whatever happens below
    pid_t pid;
    int fd;
    ~reaper() {
      fl_test::kill_and_reap(pid);
      ::close(fd);
    }
  } const child{c.pid, c.from_child};
  for (std::uint64_t seq = 2; seq < 5; ++seq) {
    {
      fl::mapped_space w = open_writer(file());
      if (seq != 3) fl_test::commit_seq(w, seq, 0, block_bytes);  // 3: a close that keeps
    }
    EXPECT_FALSE(fl::mapped_space::locked(file())) << seq;
  }
  fl::mapped_space w = open_writer(file());
  EXPECT_EQ(fl_test::seq_state(w, block_bytes), fl_test::seq_ok(4));
}

// A second handle of this process takes the file over from the first (the
// same open file description, and its lock): the first one's close, which
// wrote nothing, must not release the lock the second one holds.
TEST_F(KeptMappingTest, AHandleTakenOverKeepsTheLockForTheOneThatTookIt) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 7); }
  std::optional<fl::mapped_space> first = open_writer(file());
  EXPECT_EQ(fl_test::seq_state(*first, block_bytes), fl_test::seq_ok(7));
  fl::mapped_space second = open_writer(file());
  first.reset();
  EXPECT_TRUE(fl::mapped_space::locked(file()));
  EXPECT_NE(in_child([&] { fl::mapped_space w = open_writer(file()); }).find("locked"),
            std::string::npos);
  fl_test::commit_seq(second, 8, 0, block_bytes);
  EXPECT_EQ(fl_test::seq_state(second, block_bytes), fl_test::seq_ok(8));
}


}  // namespace
