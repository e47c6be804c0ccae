// tests/mapped_space_file_times_test.cpp: a commit never asks for the store
// files' times. On file systems with multigrain timestamps (Linux 6.13+) a
// query of a file's times makes the kernel stamp its next write with a
// fine-grained time, so the inode changes with every commit's write and each
// commit's fdatasync writes the inode block too (docs/performance.md, "Who
// looked at the file times was the store itself"). The kernel shows no
// trace of such a query, so this program counts the calls: it defines fstat,
// stat and statx itself (a static libfl's calls bind to them), forwards each
// to the C library, and counts the ones that return times while commits run.
#include <fl/mapped_space.hpp>

#include "persist_support.hpp"
#include "real_function.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>

namespace {

template <class F>
F libc(const char* name) {
  return fl_test::real_function<F>("mapped_space_file_times_test", name);
}

std::atomic<bool> counting{false};
std::atomic<int> time_queries{0};

void count_query() {
  if (counting.load(std::memory_order_relaxed)) time_queries.fetch_add(1);
}

}  // namespace

// Every stat of the fstat and stat families returns the times.
extern "C" int fstat(int fd, struct stat* st) noexcept {
  static const auto real = libc<int (*)(int, struct stat*)>("fstat");
  count_query();
  return real(fd, st);
}

extern "C" int stat(const char* path, struct stat* st) noexcept {
  static const auto real = libc<int (*)(const char*, struct stat*)>("stat");
  count_query();
  return real(path, st);
}

// statx returns them only when asked for them.
extern "C" int statx(int dirfd, const char* path, int flags, unsigned mask,
                     struct statx* sx) noexcept {
  static const auto real =
      libc<int (*)(int, const char*, int, unsigned, struct statx*)>("statx");
  if (mask & (STATX_ATIME | STATX_MTIME | STATX_CTIME | STATX_BTIME)) count_query();
  return real(dirfd, path, flags, mask, sx);
}

namespace {

TEST(MappedSpaceFileTimes, CommitsNeverQueryTheFilesTimes) {
  fl_test::scratch_dir dir;
  fl::mapped_space sp(dir / "space");
  const auto block = sp.allocate(4096).cast<unsigned char>();
  sp.set_root(block);
  sp.sync();  // the first commit opens the log (one identity check of its name)
  // The counting works: a plain fstat is seen.
  counting = true;
  struct stat sb;
  (void)::fstat(0, &sb);
  ASSERT_EQ(time_queries.exchange(0), 1) << "this program's fstat was not the one called";
  for (int i = 0; i < 20; ++i) {
    std::memset(sp.get(block), i, 4096);
    sp.sync();
  }
  counting = false;
  EXPECT_EQ(time_queries.load(), 0) << "commits asked for the files' times (fstat, stat, or "
                                       "statx with a time in its mask)";
}

}  // namespace
