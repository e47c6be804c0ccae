// src/persist/posix.hpp: the POSIX steps every persistence source uses (an
// owning file descriptor, whole reads and writes that loop over short counts
// and EINTR, errors as fl::persist_error naming the path and the failed
// step). Private to src/persist/.
#pragma once

#include <fl/persist_error.hpp>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

#include <atomic>

#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// The page faults this process has taken (minor and major); 0 if the
// system does not say. A commit counts those after it dropped mapped pages.
inline std::uint64_t process_faults() noexcept {
  rusage ru{};
  if (::getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<std::uint64_t>(ru.ru_minflt) + static_cast<std::uint64_t>(ru.ru_majflt);
}

// "<step>: <strerror(err)>" as a persist_error for `path`.
[[noreturn]] inline void throw_errno(const std::filesystem::path& path, const char* step, int err) {
  throw persist_error(path, std::string(step) + ": " + std::strerror(err));
}

class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  ~unique_fd() { reset(); }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int get() const noexcept { return fd_; }
  // Gives the descriptor up without closing it.
  int release() noexcept { return std::exchange(fd_, -1); }
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// The most one write call puts in a file. The page cache holds a file's
// pages in folios as large as the write that made them (up to 2 MiB), and
// every later small write into a folio walks all of its blocks
// (ext4_block_write_begin): a commit's writes in place, tens of bytes each
// into pages an import wrote, cost 6 us a call in a store written by one
// call, 1.5 us in one written by pages. From 256 KiB down the walk is lost
// in the call's cost, and a big write pays one more call per 256 KiB. A
// durable add to an object of 100,000 members 84-86 -> 73-76 us of CPU, of
// ten million 105 -> 96 (docs/performance.md, "A streamed import's shared
// pages, and small writes into big folios").
inline constexpr std::size_t write_call_max = std::size_t{256} << 10;

// Writes all n bytes at `off`, in calls of at most write_call_max; returns 0
// or the errno of the failure.
inline int pwrite_all(int fd, const void* data, std::size_t n, std::uint64_t off) noexcept {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w =
        ::pwrite(fd, p, n < write_call_max ? n : write_call_max, static_cast<off_t>(off));
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
    off += static_cast<std::uint64_t>(w);
  }
  return 0;
}

// Writes every buffer of `iov` (which it consumes) at `off`, in order, with
// as few calls as IOV_MAX and write_call_max allow; returns 0 or the errno of
// the failure.
inline int pwritev_all(int fd, iovec* iov, std::size_t count, std::uint64_t off) noexcept {
  constexpr std::size_t max_iov = 1024;  // IOV_MAX on Linux
  for (; count > 0 && iov->iov_len == 0; --count) ++iov;  // nothing to write is no error
  while (count > 0) {
    // The buffers that fit in write_call_max bytes, or the first one's
    // first write_call_max (its length put back after the call).
    std::size_t k = 0, bytes = 0;
    while (k < count && k < max_iov && bytes + iov[k].iov_len <= write_call_max)
      bytes += iov[k++].iov_len;
    const std::size_t first_len = iov->iov_len;
    if (k == 0) {
      k = 1;
      iov->iov_len = write_call_max;
    }
    const ssize_t w = ::pwritev(fd, iov, static_cast<int>(k), static_cast<off_t>(off));
    iov->iov_len = first_len;
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return EIO;
    off += static_cast<std::uint64_t>(w);
    for (auto left = static_cast<std::size_t>(w); left > 0 || (count > 0 && iov->iov_len == 0);) {
      const std::size_t take = left < iov->iov_len ? left : iov->iov_len;
      iov->iov_base = static_cast<char*>(iov->iov_base) + take;
      iov->iov_len -= take;
      left -= take;
      if (iov->iov_len == 0) {
        ++iov;
        --count;
        if (count == 0) break;
      }
    }
  }
  return 0;
}

// Reads up to n bytes at `off` (fewer only at end of file); returns the
// count, or -errno.
inline long long pread_full(int fd, void* data, std::size_t n, std::uint64_t off) noexcept {
  auto* p = static_cast<char*>(data);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, p + got, n - got, static_cast<off_t>(off + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return static_cast<long long>(got);
}

// Opens a space's data file or log (open(2)'s flags and mode), without
// access-time updates where the kernel allows them (O_NOATIME: the file's
// owner or a privileged process). Both files change at every commit, so
// under relatime the first read after each commit, a reader's refresh or a
// writer's catch-up, would otherwise dirty the inode: about a quarter of a
// refresh's time on a paravirtualized VM. Another user's process gets EPERM
// for the flag and opens as usual.
inline int open_store_file(const std::filesystem::path& p, int flags, mode_t mode = 0) noexcept {
  const int fd = ::open(p.c_str(), flags | O_CLOEXEC | O_NOATIME, mode);
  if (fd >= 0 || errno != EPERM) return fd;
  return ::open(p.c_str(), flags | O_CLOEXEC, mode);
}

// One field of the open file fd's status (STATX_NLINK: the link count, 0
// once its name is gone; STATX_SIZE: its size), by a statx that asks for
// nothing else. On file systems with multigrain timestamps (ext4, XFS, Btrfs
// since Linux 6.13) a query of a file's times makes the kernel stamp its
// next write with a fine-grained time, so the inode changes on every write
// and each commit's fdatasync writes the inode block too: one more
// synchronous round trip to the disk (a 4 KiB overwrite + fdatasync, an
// fstat after each: 250-337 µs against 150-213 µs at the median). The checks
// that run on every commit or refresh ask for the one field they need.
// False (errno set) on failure.
inline bool stat_field(int fd, unsigned field, std::uint64_t& value) noexcept {
  struct statx sx;
  if (::statx(fd, "", AT_EMPTY_PATH, field, &sx) != 0) return false;
  if ((sx.stx_mask & field) != field) {  // a file system that cannot give it alone
    struct stat sb;
    if (::fstat(fd, &sb) != 0) return false;
    value = field == STATX_NLINK ? static_cast<std::uint64_t>(sb.st_nlink)
                                 : static_cast<std::uint64_t>(sb.st_size);
    return true;
  }
  value = field == STATX_NLINK ? sx.stx_nlink : sx.stx_size;
  return true;
}

// The files beside a space's data file `p`, named here only: its redo log
// "<p>-log" and its readers' table "<p>-readers" (fl/mapped_space.hpp, Files).
inline constexpr const char* log_suffix = "-log";
inline constexpr const char* readers_suffix = "-readers";
inline std::filesystem::path side_file(const std::filesystem::path& p, const char* suffix) {
  std::filesystem::path r = p;
  r += suffix;
  return r;
}

// Does the name `p` refer to the file open as `fd` (same device and inode)?
// A lock taken on a descriptor protects the name only while this holds: a
// rename onto the name replaces the file, and an opener that locked the
// replaced file must open the name again.
// `fd_stat`, if given, receives the descriptor's fstat.
inline bool names_file(const std::filesystem::path& p, int fd,
                       struct stat* fd_stat = nullptr) noexcept {
  struct stat a, b;
  if (fd_stat == nullptr) fd_stat = &b;
  return ::stat(p.c_str(), &a) == 0 && ::fstat(fd, fd_stat) == 0 && a.st_dev == fd_stat->st_dev &&
         a.st_ino == fd_stat->st_ino;
}

// "<p>.<what>-<pid>-<n>": a name beside `p` that no other process and no
// other call of this process uses, for a file built before it is renamed
// or linked onto `p`.
inline std::filesystem::path unique_sibling(const std::filesystem::path& p, const char* what) {
  static std::atomic<std::uint64_t> counter{0};
  std::filesystem::path r = p;
  r += std::string(".") + what + "-" + std::to_string(::getpid()) + "-" +
       std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
  return r;
}

// This process's id, read once (getpid is a system call, about 0.8 us on a
// paravirtualized VM, and an open asked it up to three times); a child made
// by fork() reads its own (the fork handler forgets the parent's).
inline pid_t process_id() noexcept {
  static std::atomic<pid_t> cached{0};
  static const bool forgets_at_fork = [] {
    ::pthread_atfork(nullptr, nullptr, [] { cached.store(0, std::memory_order_relaxed); });
    return true;
  }();
  (void)forgets_at_fork;
  pid_t p = cached.load(std::memory_order_relaxed);
  if (p == 0) {
    p = ::getpid();
    cached.store(p, std::memory_order_relaxed);
  }
  return p;
}

// Gives the file blocks for its bytes [from, to), extending it to `to` if
// it is shorter, so that no later write into the range can fail for lack of
// space: not a write(), and above all not a fault of a mapping (a MAP_SHARED
// page the file system cannot back, or a MAP_PRIVATE fault on a hole of a
// tmpfs file, kills the process with SIGBUS instead of returning an error).
// Every growth of a store file goes through it: fallocate(2), which costs one
// call per growth step (blocks already held are left as they are). Where
// the file system has no fallocate (EOPNOTSUPP), the file is extended
// sparse (ftruncate), as before. Returns 0 or the errno: ENOSPC, EDQUOT,
// EIO, or EFBIG past the file size limit (RLIMIT_FSIZE; the kernel also
// sends SIGXFSZ then, which the process must ignore: docs/persist.md).
inline int reserve_file(int fd, std::uint64_t from, std::uint64_t to) noexcept {
  if (to <= from) return 0;
  while (::fallocate(fd, 0, static_cast<off_t>(from), static_cast<off_t>(to - from)) != 0) {
    if (errno == EINTR) continue;
    if (errno != EOPNOTSUPP && errno != ENOSYS) return errno;
    std::uint64_t size = 0;
    if (!stat_field(fd, STATX_SIZE, size)) return errno;
    if (size < to && ::ftruncate(fd, static_cast<off_t>(to)) != 0) return errno;
    return 0;
  }
  return 0;
}

inline int sync_data(int fd) noexcept {
  while (::fdatasync(fd) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

// Reads every buffer of `iov` (consumed) from `off` on; false on an error or
// the end of the file.
inline bool preadv_all(int fd, iovec* iov, std::size_t count, std::uint64_t off) {
  constexpr std::size_t max_iov = 1024;  // IOV_MAX on Linux
  while (count > 0) {
    const ssize_t got =
        ::preadv(fd, iov, static_cast<int>(std::min(count, max_iov)), static_cast<off_t>(off));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    off += static_cast<std::uint64_t>(got);
    auto left = static_cast<std::size_t>(got);
    while (count > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov;
      --count;
    }
    if (count > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return true;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
