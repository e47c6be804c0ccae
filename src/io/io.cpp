// src/io/io.cpp
// fl::read_file / fl::write_file over POSIX open/fstat/read/write.
//
// read_file's buffer is a pool block handed to the string without copying
// (detail::string_access::adopt, which string_core::adopt decides); it is
// never zero-filled, so the only pass
// over the bytes is the kernel's copy from the page cache.
#include <fl/io.hpp>
#include <fl/rope.hpp>

#include <fl/detail/string_access.hpp>
#include <fl/detail/string_core.hpp>
#include <fl/pool.hpp>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace {

// Linux transfers at most 0x7ffff000 bytes per read()/write(); asking for
// 1 GiB at a time keeps every call inside that and the syscall count tiny.
constexpr std::size_t max_io_chunk = std::size_t{1} << 30;

// Files that report no size (/proc, pipes, character devices) are first read
// into this stack buffer: most such files are small, and then the string gets
// exactly their length (often inline) instead of a guessed heap block.
constexpr std::size_t probe_bytes = 16 * 1024;

[[noreturn]] void throw_io(int err, const char* fn, const char* step, const char* path) {
  std::string what = fn;
  what += ": ";
  what += step;
  what += " \"";
  what += path;
  what += '"';
  throw std::system_error(err, std::system_category(), what);
}

struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

// Owns a pool block of cap + 1 bytes until it is handed to a string.
struct block_guard {
  char* p = nullptr;
  std::size_t cap = 0;
  ~block_guard() {
    if (p != nullptr) detail::pool_deallocate(p, cap + 1);
  }
  void grow(std::size_t new_cap) {
    p = static_cast<char*>(detail::pool_reallocate(p, cap + 1, new_cap + 1));
    cap = new_cap;
  }
};

// A big buffer is fresh memory from mmap: every 4 KiB page faults and is
// zeroed by the kernel as read() first touches it, which made a 100 MiB read
// run at a third of the page-cache copy speed. Asking for transparent huge
// pages on the 2 MiB-aligned interior of the block cuts the faults 512-fold
// (it is only advice: where THP is off, nothing changes), but the kernel still
// zeroes every byte: measured on a warm 100 MiB file, a fresh huge-page block
// reads in about 1.2x the time of a buffer that is already mapped. The pool
// therefore keeps the process's last freed block of 32 to 256 MiB for 250 ms
// (fl/pool.hpp), so that reading a big file again after the last result is
// gone reuses mapped (and huge-page backed) memory; repeating the advice then
// is a no-op.
constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t huge_page_min_file = 4 * huge_page;

void advise_huge_pages(char* p, std::size_t n) noexcept {
#if defined(MADV_HUGEPAGE)
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + huge_page - 1) & ~(huge_page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(huge_page - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

// read() that retries on EINTR; returns the byte count (0 at EOF).
std::size_t read_some(int fd, char* dst, std::size_t n, const char* path) {
  if (n > max_io_chunk) n = max_io_chunk;
  for (;;) {
    const ssize_t r = ::read(fd, dst, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno != EINTR) throw_io(errno, "fl::read_file", "read", path);
  }
}

// The block to move to when `needed` bytes do not fit `cap`: fl::string's
// growth policy, rounded up to the pool's block.
std::size_t grown_block(std::size_t cap, std::size_t needed) {
  if (needed > detail::pool_string_max_size) throw std::bad_alloc();
  return detail::pool_block_capacity(
      detail::grown_capacity(cap, needed, detail::pool_string_max_size));
}

// Copies a std::string_view path into a NUL-terminated buffer; embedded NULs
// cannot name a file.
class c_path {
 public:
  c_path(std::string_view p, const char* fn) {
    if (p.find('\0') != std::string_view::npos)
      throw_io(EINVAL, fn, "path with a NUL byte", std::string(p).c_str());
    if (p.size() < sizeof(small_)) {
      std::memcpy(small_, p.data(), p.size());
      small_[p.size()] = '\0';
      ptr_ = small_;
    } else {
      big_.assign(p);
      ptr_ = big_.c_str();
    }
  }
  const char* c_str() const noexcept { return ptr_; }

 private:
  char small_[256];
  std::string big_;
  const char* ptr_;
};

}  // namespace

string read_file(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_io(errno, "fl::read_file", "open", path);
  fd_guard fg{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) throw_io(errno, "fl::read_file", "fstat", path);
  if (S_ISDIR(st.st_mode)) throw_io(EISDIR, "fl::read_file", "read", path);

  block_guard b;
  std::size_t got = 0;
  const bool sized = S_ISREG(st.st_mode) && st.st_size > 0;
  if (sized) {
    // The common case: one exact-size block, filled by (usually) one read.
    const auto expect = static_cast<std::size_t>(st.st_size);
    b.p = static_cast<char*>(detail::pool_allocate(expect + 1));
    b.cap = expect;
    if (expect >= huge_page_min_file) advise_huge_pages(b.p, expect);
    while (got < expect) {
      const std::size_t r = read_some(fd, b.p + got, expect - got, path);
      if (r == 0) break;  // the file shrank: what was read is the file
      got += r;
    }
    if (got < expect) {
      detail::heap_block hb{b.p, got, b.cap};
      b.p = nullptr;
      return detail::string_access::adopt(hb);
    }
  }

  // Unsized files, and sized ones that may have grown: read into a stack
  // buffer until EOF or until it is full.
  char probe[probe_bytes];
  std::size_t pn = 0;
  for (;;) {
    const std::size_t r = read_some(fd, probe + pn, sizeof(probe) - pn, path);
    if (r == 0) break;
    pn += r;
    if (pn == sizeof(probe)) break;
  }
  if (b.p == nullptr && pn < sizeof(probe)) return string(probe, pn);  // small, exact
  if (pn == 0) {
    detail::heap_block hb{b.p, got, b.cap};
    b.p = nullptr;
    return detail::string_access::adopt(hb);
  }

  // More data than fstat said (or an unsized file past the probe): grow
  // geometrically and read to EOF.
  b.grow(grown_block(b.cap, got + pn));
  std::memcpy(b.p + got, probe, pn);
  got += pn;
  for (;;) {
    if (got == b.cap) b.grow(grown_block(b.cap, got + 1));
    const std::size_t r = read_some(fd, b.p + got, b.cap - got, path);
    if (r == 0) break;
    got += r;
  }
  detail::heap_block hb{b.p, got, b.cap};
  b.p = nullptr;
  return detail::string_access::adopt(hb);
}

string read_file(std::string_view path) { return read_file(c_path(path, "fl::read_file").c_str()); }

rope read_rope_file(const char* path) {
  rope r(read_file(path));
  // The counts of the whole text: the chunk's block index is built to its
  // end here, not by the first query that needs it.
  (void)r.line_count();
  return r;
}

rope read_rope_file(std::string_view path) {
  return read_rope_file(c_path(path, "fl::read_file").c_str());
}

void write_file(const char* path, std::string_view data) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw_io(errno, "fl::write_file", "open", path);
  fd_guard fg{fd};
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t r = ::write(fd, p, left < max_io_chunk ? left : max_io_chunk);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_io(errno, "fl::write_file", "write", path);
    }
    if (r == 0) throw_io(EIO, "fl::write_file", "write", path);  // no progress: never loop forever
    p += r;
    left -= static_cast<std::size_t>(r);
  }
  // close() is where some file systems (NFS, quotas) report a failed write.
  fg.fd = -1;
  if (::close(fd) != 0 && errno != EINTR) throw_io(errno, "fl::write_file", "close", path);
}

void write_file(std::string_view path, std::string_view data) {
  write_file(c_path(path, "fl::write_file").c_str(), data);
}

namespace {

// Writes iov[0, k) whole: writev again after a partial write, from the first
// byte not written (iov is advanced in place), and after EINTR.
void write_batch(int fd, iovec* iov, int k, const char* path) {
  int first = 0;
  while (first < k) {
    const ssize_t r = ::writev(fd, iov + first, k - first);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_io(errno, "fl::write_file", "write", path);
    }
    if (r == 0) throw_io(EIO, "fl::write_file", "write", path);  // no progress: never loop forever
    auto done = static_cast<std::size_t>(r);
    while (first < k && done >= iov[first].iov_len) done -= iov[first++].iov_len;
    if (first < k) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + done;
      iov[first].iov_len -= done;
    }
  }
}

}  // namespace

// The rope's chunks as they are, up to iov_batch of them per writev (never
// flattened). Same errors and guarantees as write_file of a string_view.
void detail::write_rope_file(const char* path, const rope& text) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw_io(errno, "fl::write_file", "open", path);
  fd_guard fg{fd};
  constexpr int iov_batch = 64;
  iovec iov[iov_batch];
  const rope::chunk_range chunks = text.chunks();
  auto it = chunks.begin();
  const auto end = chunks.end();
  for (;;) {
    int k = 0;
    for (; k < iov_batch && it != end; ++it) {
      const std::string_view c = *it;
      iov[k++] = iovec{const_cast<char*>(c.data()), c.size()};
    }
    if (k == 0) break;
    write_batch(fd, iov, k, path);
  }
  // close() is where some file systems (NFS, quotas) report a failed write.
  fg.fd = -1;
  if (::close(fd) != 0 && errno != EINTR) throw_io(errno, "fl::write_file", "close", path);
}

void detail::write_rope_file(std::string_view path, const rope& text) {
  write_rope_file(c_path(path, "fl::write_file").c_str(), text);
}

}  // namespace FL_ABI_NS
}  // namespace fl
