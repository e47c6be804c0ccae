// tests/mapped_space_reader_mapping_test.cpp: a reader that read only the
// file leaves it mapped at close, and the next reader of the same file takes
// that mapping with its page tables (no map, no fault on the pages read
// before). Whatever happened to the file between the two, the next reader
// sees exactly the newest commit: commits written in place, a compaction
// that cut the file, another file renamed over the path. A reader that
// read the log (private pages) leaves nothing mapped, and remove() drops a
// kept mapping (it would keep the file's blocks).
#include <fl/mapped_space.hpp>

#include "persist_support.hpp"
#include "seq_block.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
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

struct ReaderMappingTest : ::testing::Test {
  fl_test::scratch_dir dir;
  fs::path file() const { return dir / "space"; }
};

TEST_F(ReaderMappingTest, TheNextReaderOfTheFileFaultsNoPageItsPredecessorRead) {
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

TEST_F(ReaderMappingTest, CommitsBetweenTwoReadersShowInTheMappingTheSecondTakes) {
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

TEST_F(ReaderMappingTest, ACompactionThatCutTheFileLeavesTheNextReaderItsCommit) {
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

TEST_F(ReaderMappingTest, AFileRenamedOverThePathIsMappedAfresh) {
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

TEST_F(ReaderMappingTest, AReaderThatReadTheLogLeavesNothingMapped) {
  {
    fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 0);
    std::optional<fl::mapped_space> r = open_reader(file());
    fl_test::commit_seq(w, 1, 0, block_bytes);
    r->refresh();  // commit 1's pages from the log, into private pages
    EXPECT_EQ(fl_test::seq_state(*r, block_bytes), fl_test::seq_ok(1));
    r.reset();  // closed first: the range it gives back is the one kept
  }
  EXPECT_FALSE(mapped(file()));
  fl::mapped_space r = open_reader(file());
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(1));
}

TEST_F(ReaderMappingTest, RemoveDropsTheMappingAClosedReaderLeft) {
  { fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 5); }
  {
    fl::mapped_space r = open_reader(file());
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(5));
  }
  ASSERT_TRUE(mapped(file()));
  EXPECT_TRUE(fl::mapped_space::remove(file()));
  EXPECT_FALSE(fs::exists(file()));
  // (The reader table's small mapping stays, as a closed reader keeps it.)
  std::ifstream in("/proc/self/maps");
  const std::string gone = file().filename().string() + " (deleted)";
  for (std::string line; std::getline(in, line);)
    EXPECT_EQ(line.find(dir.path().filename().string() + "/" + gone), std::string::npos) << line;
}

}  // namespace
