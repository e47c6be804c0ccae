// Tests for fl::read_file / fl::write_file: round trips at sizes around the
// inline limit and the reader's internal buffer sizes, a 100 MB file, repeated
// big reads through the pool's kept block, files
// that report size 0 (/proc) or have no size (a FIFO), and every error path
// (missing file, directory, unwritable and full targets, NUL in the path).
#include <fl/io.hpp>
#include <fl/pool.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace {

using fl_test::random_text;  // any byte
using fl_test::read_whole_file;
using fl_test::test_seed;

// A fresh directory per test, removed afterwards.
class IoTest : public ::testing::Test {
 protected:
  std::string path(const char* name) const { return (dir_ / name).string(); }
  fl_test::temp_dir dir_{"fl_io_test"};
};

// Expects f() to throw std::system_error with errno `err` and a message naming `p`.
template <class F>
void expect_system_error(F&& f, int err, const std::string& p) {
  try {
    f();
    ADD_FAILURE() << "no exception for " << p;
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), err) << e.what();
    EXPECT_EQ(e.code().category(), std::system_category());
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

}  // namespace

TEST_F(IoTest, RoundTripsAtEverySizeBoundary) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  // 0, around the 23-char inline limit, the pool's classes, the reader's
  // 16 KiB probe buffer, and a few MiB.
  for (std::size_t n :
       {0, 1, 22, 23, 24, 25, 4095, 4096, 4097, 16383, 16384, 16385, 100000, (3 << 20) + 7}) {
    const std::string want = random_text(rng, n);
    const std::string p = path("f.bin");
    fl::write_file(p.c_str(), want);
    ASSERT_EQ(std::filesystem::file_size(p), n) << "seed " << seed;
    const fl::string got = fl::read_file(p.c_str());
    ASSERT_EQ(std::string_view(got), want) << "seed " << seed << " size " << n;
    EXPECT_EQ(got.c_str()[n], '\0');
    EXPECT_EQ(read_whole_file(p), want);
  }
}

TEST_F(IoTest, EmptyFileGivesEmptyString) {
  const std::string p = path("empty");
  std::ofstream(p).close();
  const fl::string s = fl::read_file(p.c_str());
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.capacity(), 23u);  // inline: nothing allocated
}

TEST_F(IoTest, WriteTruncatesAnExistingFile) {
  const std::string p = path("t");
  fl::write_file(p.c_str(), std::string(1000, 'a'));
  fl::write_file(p.c_str(), "short");
  EXPECT_EQ(std::string_view(fl::read_file(p.c_str())), "short");
}

TEST_F(IoTest, HundredMegabyteFile) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  std::string want(100u << 20, '\0');
  // Cheap to generate, and every 8-byte word differs.
  for (std::size_t i = 0; i + 8 <= want.size(); i += 8) {
    const std::uint64_t x = rng();
    std::memcpy(want.data() + i, &x, 8);
  }
  const std::string p = path("big.bin");
  fl::write_file(p.c_str(), want);
  const fl::string got = fl::read_file(p.c_str());
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(std::string_view(got) == want) << "seed " << seed;
}

// Reading a big file again after the first result is gone reuses the
// process's kept block (fl/pool.hpp) instead of fresh memory, and the second
// result is still exactly the file, not what the block held before.
TEST_F(IoTest, RepeatedBigReadsReuseTheKeptBlock) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::size_t n = std::size_t{40} << 20;
  std::string want(n, '\0');
  for (std::size_t i = 0; i + 8 <= want.size(); i += 8) {
    const std::uint64_t x = rng();
    std::memcpy(want.data() + i, &x, 8);
  }
  const std::string a = path("a.bin");
  const std::string b = path("b.bin");
  fl::write_file(a.c_str(), want);
  std::string shorter = want.substr(0, n - 12345);
  shorter[77] ^= 1;
  fl::write_file(b.c_str(), shorter);
  fl::pool_trim();
  {
    const fl::string first = fl::read_file(a.c_str());
    ASSERT_TRUE(std::string_view(first) == want) << "seed " << seed;
  }
  const fl::pool_statistics before = fl::pool_stats();
  EXPECT_GE(before.bytes_kept, n);
  const fl::string second = fl::read_file(b.c_str());
  const fl::pool_statistics after = fl::pool_stats();
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_EQ(after.misses, before.misses);
  ASSERT_EQ(second.size(), shorter.size());
  EXPECT_TRUE(std::string_view(second) == shorter) << "seed " << seed;
  EXPECT_EQ(second.c_str()[second.size()], '\0');
}

TEST_F(IoTest, ProcFilesThatReportSizeZeroAreReadToEof) {
  struct stat st;
  ASSERT_EQ(::stat("/proc/self/status", &st), 0);
  EXPECT_EQ(st.st_size, 0);  // what makes /proc special
  const fl::string s = fl::read_file("/proc/self/status");
  ASSERT_FALSE(s.empty());
  EXPECT_TRUE(s.starts_with("Name:"));
  EXPECT_NE(std::string_view(s).find("\nPid:"), std::string_view::npos);
  EXPECT_EQ(s.back(), '\n');
  // A larger /proc file, usually past the 16 KiB probe buffer.
  const fl::string maps = fl::read_file("/proc/self/smaps");
  EXPECT_FALSE(maps.empty());
  EXPECT_EQ(maps.back(), '\n');
}

TEST_F(IoTest, FifoWithoutSizeIsReadToEof) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::string want = random_text(rng, 300000);  // well past the probe buffer
  const std::string p = path("fifo");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  std::thread writer([&] {
    // Small writes, so the reader sees many short reads.
    std::ofstream out(p, std::ios::binary);
    for (std::size_t i = 0; i < want.size(); i += 1000) {
      out.write(want.data() + i, 1000);
      out.flush();
    }
  });
  const fl::string got = fl::read_file(p.c_str());
  writer.join();
  EXPECT_TRUE(std::string_view(got) == want) << "seed " << seed;
}

TEST_F(IoTest, PathForms) {
  const std::string p = path("forms");
  fl::write_file(std::string_view(p), "view");
  EXPECT_EQ(std::string_view(fl::read_file(std::string_view(p))), "view");
  fl::write_file(std::filesystem::path(p), "path");
  EXPECT_EQ(std::string_view(fl::read_file(std::filesystem::path(p))), "path");
  fl::write_file(p, "std::string");  // picks the string_view overload
  EXPECT_EQ(std::string_view(fl::read_file(p)), "std::string");
  const fl::string fp(p);
  fl::write_file(fp, fl::string("fl::string"));
  EXPECT_EQ(std::string_view(fl::read_file(fp)), "fl::string");
  // A long path (past the reader's small on-stack copy).
  std::string deep = dir_.path().string();
  for (int i = 0; i < 30; ++i) deep += "/directory_name_" + std::to_string(i);
  std::filesystem::create_directories(deep);
  deep += "/f";
  fl::write_file(std::string_view(deep), "deep");
  EXPECT_EQ(std::string_view(fl::read_file(std::string_view(deep))), "deep");
}

TEST_F(IoTest, MissingFileThrowsEnoent) {
  const std::string p = path("missing");
  expect_system_error([&] { (void)fl::read_file(p.c_str()); }, ENOENT, p);
  expect_system_error([&] { (void)fl::read_file(std::string_view(p)); }, ENOENT, p);
  const std::string in_missing_dir = path("no/such/dir");
  expect_system_error([&] { fl::write_file(in_missing_dir.c_str(), "x"); }, ENOENT, in_missing_dir);
}

TEST_F(IoTest, DirectoryThrowsEisdir) {
  const std::string d = dir_.path().string();
  expect_system_error([&] { (void)fl::read_file(d.c_str()); }, EISDIR, d);
  expect_system_error([&] { fl::write_file(d.c_str(), "x"); }, EISDIR, d);
}

TEST_F(IoTest, UnwritableTargetsThrow) {
  // /dev/full accepts open() and fails every write with ENOSPC: the write
  // loop's error path. (Permission bits are no test when running as root.)
  expect_system_error([&] { fl::write_file("/dev/full", std::string(100000, 'x')); }, ENOSPC,
                      "/dev/full");
  // A read-only file: EACCES for normal users; root may write it anyway.
  const std::string p = path("readonly");
  fl::write_file(p.c_str(), "keep");
  ASSERT_EQ(::chmod(p.c_str(), 0400), 0);
  if (::geteuid() != 0) {
    expect_system_error([&] { fl::write_file(p.c_str(), "lost"); }, EACCES, p);
    EXPECT_EQ(std::string_view(fl::read_file(p.c_str())), "keep");
  }
  // /proc/self/status cannot be written by anyone.
  EXPECT_THROW(fl::write_file("/proc/self/status", "x"), std::system_error);
}

TEST_F(IoTest, PathWithNulThrowsEinval) {
  const std::string p = path("a") + std::string(1, '\0') + "b";
  try {
    (void)fl::read_file(std::string_view(p));
    ADD_FAILURE() << "no exception";
  } catch (const std::system_error& e) { EXPECT_EQ(e.code().value(), EINVAL); }
  EXPECT_THROW(fl::write_file(std::string_view(p), "x"), std::system_error);
}
