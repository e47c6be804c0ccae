// tests/persist_posix_test.cpp: the write helpers of src/persist/posix.hpp
// cut their calls at write_call_max (so that the page cache makes no folio
// larger) and must still put every byte where it belongs: runs and buffers
// that start and end anywhere, many buffers in one call, buffers longer than
// a call, empty buffers.
#include "persist/posix.hpp"

#include "persist_support.hpp"
#include "splitmix64.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>
#include <sys/uio.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

constexpr std::size_t write_piece = fl::detail::write_call_max;

class WritePieces : public ::testing::Test {
 protected:
  void SetUp() override {
    fd = fl::detail::unique_fd(
        ::open((d.path() / "f").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    ASSERT_TRUE(fd);
    ASSERT_EQ(::ftruncate(fd.get(), 16 << 20), 0);  // zeros past every write below
  }
  std::string contents(std::size_t n) {
    std::string got(n, '\0');
    EXPECT_EQ(fl::detail::pread_full(fd.get(), got.data(), n, 0), static_cast<long long>(n));
    return got;
  }
  // Bytes that differ at every offset, so a piece written one byte off shows.
  static std::string pattern(std::size_t n, std::uint64_t seed) {
    fl_test::splitmix64 r(seed);
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(r.next());
    return s;
  }

  fl_test::scratch_dir d;
  fl::detail::unique_fd fd;
};

TEST_F(WritePieces, ARunAcrossPiecesLandsWhole) {
  const std::size_t file = 3 * write_piece + 5000;
  std::string expect(file, '\0');
  for (const std::uint64_t off : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{write_piece - 7},
                                  std::uint64_t{write_piece}, std::uint64_t{4096 * 3 + 17}}) {
    const std::string run = pattern(2 * write_piece + 123, off);
    ASSERT_EQ(fl::detail::pwrite_all(fd.get(), run.data(), run.size(), off), 0);
    expect.replace(off, run.size(), run);
  }
  ASSERT_EQ(expect.size(), file);
  EXPECT_EQ(contents(file), expect);
}

TEST_F(WritePieces, ManyBuffersAcrossPiecesLandInOrder) {
  fl_test::splitmix64 r(fl_test::test_seed());
  for (int round = 0; round < 20; ++round) {
    const std::uint64_t off = r.below(2 * write_piece);
    std::vector<std::string> bufs;
    std::string joined;
    const std::size_t count = 1 + r.below(40);
    for (std::size_t i = 0; i < count; ++i) {
      // Empty, small, page-sized and longer than a piece.
      const std::size_t sizes[] = {0, 1 + r.below(100), 4096, write_piece + r.below(9000)};
      bufs.push_back(pattern(sizes[r.below(4)], r.next()));
      joined += bufs.back();
    }
    std::vector<iovec> iov;
    for (std::string& b : bufs) iov.push_back({b.data(), b.size()});
    const std::string before = contents(static_cast<std::size_t>(off) + joined.size());
    ASSERT_EQ(fl::detail::pwritev_all(fd.get(), iov.data(), iov.size(), off), 0) << round;
    std::string expect = before;
    expect.replace(static_cast<std::size_t>(off), joined.size(), joined);
    ASSERT_EQ(contents(expect.size()), expect) << "round " << round << " at " << off;
  }
}

TEST_F(WritePieces, OnlyEmptyBuffersWriteNothing) {
  char c = 'x';
  iovec iov[3] = {{&c, 0}, {&c, 0}, {&c, 0}};
  EXPECT_EQ(fl::detail::pwritev_all(fd.get(), iov, 3, 100), 0);
  EXPECT_EQ(contents(200), std::string(200, '\0'));
}

}  // namespace
