// tests/powerloss/recorder.cpp: the POSIX calls of the power-loss test
// program (see recorder.hpp). Each definition forwards to the C library's
// function of the same name, found with dlsym(RTLD_NEXT) on first use, and
// records the change when it succeeded and concerns the recorded directory.
// errno is kept as the real call left it.
#include "recorder.hpp"

#include "real_function.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <unordered_map>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/fs.h>  // RENAME_NOREPLACE

namespace fl_powerloss {
namespace {

constexpr int dir_fd_mark = -2;  // fds[fd] for a descriptor of the directory itself

struct recorder {
  bool on = false;
  bool skip_flushes = false;
  dev_t dir_dev = 0;
  ino_t dir_ino = 0;
  std::unordered_map<int, int> fds;   // open descriptor -> inode (or dir_fd_mark)
  std::map<std::string, int> names;   // the directory as the workload sees it
  trace t;
};

recorder& rec() {
  static recorder r;
  return r;
}

// The C library's `name`, typed as this program declares it.
#define FL_REAL(name)        \
  static const auto real = \
      fl_test::real_function<decltype(&::name)>("powerloss recorder", #name)

class errno_keeper {
 public:
  errno_keeper() : e_(errno) {}
  ~errno_keeper() { errno = e_; }

 private:
  int e_;
};

bool same_dir(const char* path) {
  struct stat sb;
  const recorder& r = rec();
  return ::stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && sb.st_dev == r.dir_dev &&
         sb.st_ino == r.dir_ino;
}

// The name of `path` in the recorded directory, if it lies there.
std::optional<std::string> name_in_dir(const char* path) {
  const std::filesystem::path p(path);
  if (!p.has_filename()) return std::nullopt;
  std::filesystem::path parent = p.parent_path();
  if (parent.empty()) parent = ".";
  if (!same_dir(parent.c_str())) return std::nullopt;
  return p.filename().string();
}

void unmodelled(std::string what) { rec().t.unmodelled.push_back(std::move(what)); }

// A mapped_space's reader table ("<path>-readers"): shared memory that holds
// nothing durable (every writer's open rebuilds it), so not part of the
// states a power cut leaves; not recorded.
bool volatile_name(const std::string& name) {
  constexpr std::string_view suffix = "-readers";
  return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Appends `o`; a data operation carries its file's name at that moment.
void push(op o) {
  trace& t = rec().t;
  if (o.name.empty() && o.inode >= 0) o.name = t.inode_names[static_cast<std::size_t>(o.inode)];
  t.ops.push_back(std::move(o));
}

int file_inode(int fd) {
  const recorder& r = rec();
  const auto it = r.fds.find(fd);
  return it == r.fds.end() ? -1 : it->second;
}

// After a successful open of `path` as `fd`.
void opened(const char* path, int flags, int fd) {
  recorder& r = rec();
  if (!r.on) return;
  const errno_keeper keep;
  if (same_dir(path)) {
    r.fds[fd] = dir_fd_mark;
    return;
  }
  const auto name = name_in_dir(path);
  if (!name || volatile_name(*name)) return;
  int inode;
  const auto it = r.names.find(*name);
  if (it == r.names.end()) {
    if (!(flags & O_CREAT)) {
      unmodelled("open of " + *name + ", a file not created while recording");
      return;
    }
    inode = static_cast<int>(r.t.inode_names.size());
    r.t.inode_names.push_back(*name);
    r.names[*name] = inode;
    push({op_kind::create, inode, *name, {}, 0, {}});
  } else {
    inode = it->second;
    if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY)
      push({op_kind::truncate, inode, {}, {}, 0, {}});
  }
  if (flags & O_APPEND) unmodelled("O_APPEND on " + *name);
  r.fds[fd] = inode;
}

// The position write() and writev() write at.
std::uint64_t position(int fd) {
  const off_t at = ::lseek(fd, 0, SEEK_CUR);
  return at < 0 ? 0 : static_cast<std::uint64_t>(at);
}

void wrote(int fd, std::uint64_t offset, const void* data, std::size_t n) {
  if (!rec().on || n == 0) return;
  const int inode = file_inode(fd);
  if (inode < 0) return;
  push({op_kind::write, inode, {}, {}, offset, std::string(static_cast<const char*>(data), n)});
}

void wrote_v(int fd, std::uint64_t offset, const iovec* iov, int count, ssize_t n) {
  if (!rec().on || n <= 0) return;
  const int inode = file_inode(fd);
  if (inode < 0) return;
  std::string data;
  data.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < count && data.size() < static_cast<std::size_t>(n); ++i) {
    const std::size_t take =
        std::min(iov[i].iov_len, static_cast<std::size_t>(n) - data.size());
    data.append(static_cast<const char*>(iov[i].iov_base), take);
  }
  push({op_kind::write, inode, {}, {}, offset, std::move(data)});
}

void resized(int fd, std::uint64_t size) {
  if (!rec().on) return;
  const int inode = file_inode(fd);
  if (inode >= 0) push({op_kind::truncate, inode, {}, {}, size, {}});
}

// fsync and fdatasync: the model treats both as making the file's data and
// size durable (fdatasync flushes the size when a read needs it), never its
// directory entry.
int flushed(int fd, int (*real)(int)) {
  recorder& r = rec();
  if (r.on) {
    const auto it = r.fds.find(fd);
    if (it != r.fds.end()) {
      if (it->second == dir_fd_mark)
        push({op_kind::dir_flush, -1, {}, {}, 0, {}});
      else
        push({op_kind::flush, it->second, {}, {}, 0, {}});
    }
  }
  if (r.skip_flushes) return 0;
  return real(fd);
}

// rename(from, to) about to be made: the inode it moves, or -1 if it is not
// a change inside the directory.
int rename_inode(const char* from, const char* to, const char* call) {
  recorder& r = rec();
  if (!r.on) return -1;
  const errno_keeper keep;
  const auto a = name_in_dir(from);
  const auto b = name_in_dir(to);
  if (!a && !b) return -1;
  if (a && b && volatile_name(*a) && volatile_name(*b)) return -1;
  if (!a || !b) {
    unmodelled(std::string(call) + " into or out of the recorded directory: " + from + " -> " + to);
    return -1;
  }
  const auto it = r.names.find(*a);
  if (it == r.names.end()) {
    unmodelled(std::string(call) + " of " + *a + ", a file not created while recording");
    return -1;
  }
  return it->second;
}

void renamed(const char* from, const char* to, int inode, bool keep_from) {
  recorder& r = rec();
  const errno_keeper keep;
  const std::string a = *name_in_dir(from), b = *name_in_dir(to);
  if (a == b) return;  // rename onto itself changes nothing
  r.names[b] = inode;
  r.t.inode_names[static_cast<std::size_t>(inode)] = b;
  if (keep_from) {
    push({op_kind::link, inode, a, b, 0, {}});
  } else {
    r.names.erase(a);
    push({op_kind::rename, inode, a, b, 0, {}});
  }
}

void unlinked(const char* path) {
  recorder& r = rec();
  if (!r.on) return;
  const errno_keeper keep;
  const auto name = name_in_dir(path);
  if (!name || volatile_name(*name)) return;
  r.names.erase(*name);
  push({op_kind::unlink, -1, *name, {}, 0, {}});
}

bool at_cwd(int dirfd, const char* path) { return dirfd == AT_FDCWD || (path && path[0] == '/'); }

}  // namespace

void start_recording(const std::filesystem::path& dir) {
  recorder& r = rec();
  struct stat sb;
  if (::stat(dir.c_str(), &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    std::fprintf(stderr, "powerloss recorder: %s is not a directory\n", dir.c_str());
    std::abort();
  }
  r.dir_dev = sb.st_dev;
  r.dir_ino = sb.st_ino;
  r.fds.clear();
  r.names.clear();
  r.t = trace{};
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_regular_file()) {
      std::fprintf(stderr, "powerloss recorder: %s is not a regular file\n", e.path().c_str());
      std::abort();
    }
    const std::string name = e.path().filename().string();
    if (volatile_name(name)) continue;
    const int inode = static_cast<int>(r.t.inode_names.size());
    std::string bytes(static_cast<std::size_t>(e.file_size()), '\0');
    const int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::pread(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
      std::fprintf(stderr, "powerloss recorder: cannot read %s\n", e.path().c_str());
      std::abort();
    }
    ::close(fd);
    r.t.inode_names.push_back(name);
    r.names[name] = inode;
    r.t.initial.push_back({inode, name, std::move(bytes)});
  }
  r.on = true;
}

trace stop_recording() {
  recorder& r = rec();
  r.on = false;
  r.fds.clear();
  r.names.clear();
  return std::move(r.t);
}

std::size_t recorded_ops() { return rec().t.ops.size(); }

void skip_flushes(bool skip) { rec().skip_flushes = skip; }

std::string describe(const trace& t, std::size_t i) {
  if (i >= t.ops.size()) return "the end of the run";
  const op& o = t.ops[i];
  auto file = [&] { return o.name; };
  char buf[96];
  switch (o.kind) {
    case op_kind::create: return "create " + o.name;
    case op_kind::link: return "link " + o.name + " -> " + o.to;
    case op_kind::rename: return "rename " + o.name + " -> " + o.to;
    case op_kind::unlink: return "unlink " + o.name;
    case op_kind::write:
      std::snprintf(buf, sizeof buf, " @%llu +%zu", static_cast<unsigned long long>(o.offset),
                    o.data.size());
      return "write " + file() + buf;
    case op_kind::truncate:
      return "truncate " + file() + " to " + std::to_string(o.offset);
    case op_kind::flush: return "fsync " + file();
    case op_kind::dir_flush: return "fsync of the directory";
  }
  return "?";
}

}  // namespace fl_powerloss

// ---- the definitions the library's calls bind to -----------------------------

using namespace fl_powerloss;

namespace {

mode_t mode_arg(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? static_cast<mode_t>(va_arg(ap, int))
                                                              : 0;
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  FL_REAL(open);
  const int fd = real(path, flags, mode);
  if (fd >= 0) opened(path, flags, fd);
  return fd;
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  FL_REAL(open64);
  const int fd = real(path, flags, mode);
  if (fd >= 0) opened(path, flags, fd);
  return fd;
}

int __open_2(const char* path, int flags) { return open(path, flags); }
int __open64_2(const char* path, int flags) { return open64(path, flags); }

int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  FL_REAL(openat);
  const int fd = real(dirfd, path, flags, mode);
  if (fd >= 0) {
    if (at_cwd(dirfd, path))
      opened(path, flags, fd);
    else if (rec().on && file_inode(dirfd) == -2)
      unmodelled(std::string("openat relative to the recorded directory: ") + path);
  }
  return fd;
}

int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return openat(dirfd, path, flags, mode);
}

int creat(const char* path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char* path, mode_t mode) {
  return open64(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

int close(int fd) {
  FL_REAL(close);
  rec().fds.erase(fd);
  return real(fd);
}

ssize_t write(int fd, const void* data, size_t n) {
  FL_REAL(write);
  const bool tracked = rec().on && file_inode(fd) >= 0;
  const std::uint64_t at = tracked ? position(fd) : 0;
  const ssize_t w = real(fd, data, n);
  if (tracked && w > 0) wrote(fd, at, data, static_cast<std::size_t>(w));
  return w;
}

ssize_t pwrite(int fd, const void* data, size_t n, off_t off) {
  FL_REAL(pwrite);
  const ssize_t w = real(fd, data, n, off);
  if (w > 0) wrote(fd, static_cast<std::uint64_t>(off), data, static_cast<std::size_t>(w));
  return w;
}

ssize_t pwrite64(int fd, const void* data, size_t n, off64_t off) {
  FL_REAL(pwrite64);
  const ssize_t w = real(fd, data, n, off);
  if (w > 0) wrote(fd, static_cast<std::uint64_t>(off), data, static_cast<std::size_t>(w));
  return w;
}

ssize_t writev(int fd, const iovec* iov, int count) {
  FL_REAL(writev);
  const bool tracked = rec().on && file_inode(fd) >= 0;
  const std::uint64_t at = tracked ? position(fd) : 0;
  const ssize_t w = real(fd, iov, count);
  if (tracked) wrote_v(fd, at, iov, count, w);
  return w;
}

ssize_t pwritev(int fd, const iovec* iov, int count, off_t off) {
  FL_REAL(pwritev);
  const ssize_t w = real(fd, iov, count, off);
  wrote_v(fd, static_cast<std::uint64_t>(off), iov, count, w);
  return w;
}

ssize_t pwritev64(int fd, const iovec* iov, int count, off64_t off) {
  FL_REAL(pwritev64);
  const ssize_t w = real(fd, iov, count, off);
  wrote_v(fd, static_cast<std::uint64_t>(off), iov, count, w);
  return w;
}

ssize_t pwritev2(int fd, const iovec* iov, int count, off_t off, int flags) {
  FL_REAL(pwritev2);
  const ssize_t w = real(fd, iov, count, off, flags);
  if (off < 0 && rec().on && file_inode(fd) >= 0) unmodelled("pwritev2 at the file position");
  if (off >= 0) wrote_v(fd, static_cast<std::uint64_t>(off), iov, count, w);
  return w;
}

int ftruncate(int fd, off_t size) noexcept {
  FL_REAL(ftruncate);
  const int rc = real(fd, size);
  if (rc == 0) resized(fd, static_cast<std::uint64_t>(size));
  return rc;
}

int ftruncate64(int fd, off64_t size) noexcept {
  FL_REAL(ftruncate64);
  const int rc = real(fd, size);
  if (rc == 0) resized(fd, static_cast<std::uint64_t>(size));
  return rc;
}

// mode 0 sets the size to cover the range (read back with fstat); KEEP_SIZE
// changes nothing a reader sees; a punched hole reads as zeros.
static void fallocated(int fd, int mode, off_t off, off_t len) {
  if (!rec().on || file_inode(fd) < 0) return;
  const errno_keeper keep;
  if (mode == 0) {
    struct stat sb;
    if (::fstat(fd, &sb) == 0) resized(fd, static_cast<std::uint64_t>(sb.st_size));
  } else if (mode == FALLOC_FL_KEEP_SIZE) {
  } else if (mode == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)) {
    struct stat sb;
    if (::fstat(fd, &sb) != 0 || off >= sb.st_size) return;
    const std::size_t n = static_cast<std::size_t>(std::min<off_t>(len, sb.st_size - off));
    const std::string zeros(n, '\0');
    wrote(fd, static_cast<std::uint64_t>(off), zeros.data(), zeros.size());
  } else {
    unmodelled("fallocate mode " + std::to_string(mode));
  }
}

int fallocate(int fd, int mode, off_t off, off_t len) {
  FL_REAL(fallocate);
  const int rc = real(fd, mode, off, len);
  if (rc == 0) fallocated(fd, mode, off, len);
  return rc;
}

int fallocate64(int fd, int mode, off64_t off, off64_t len) {
  FL_REAL(fallocate64);
  const int rc = real(fd, mode, off, len);
  if (rc == 0) fallocated(fd, mode, off, len);
  return rc;
}

int posix_fallocate(int fd, off_t off, off_t len) {
  FL_REAL(posix_fallocate);
  const int rc = real(fd, off, len);
  if (rc == 0) fallocated(fd, 0, off, len);
  return rc;
}

int posix_fallocate64(int fd, off64_t off, off64_t len) {
  FL_REAL(posix_fallocate64);
  const int rc = real(fd, off, len);
  if (rc == 0) fallocated(fd, 0, off, len);
  return rc;
}

int fsync(int fd) {
  FL_REAL(fsync);
  return flushed(fd, real);
}

int fdatasync(int fd) {
  FL_REAL(fdatasync);
  return flushed(fd, real);
}

int rename(const char* from, const char* to) noexcept {
  FL_REAL(rename);
  const int inode = rename_inode(from, to, "rename");
  const int rc = real(from, to);
  if (rc == 0 && inode >= 0) renamed(from, to, inode, false);
  return rc;
}

int renameat(int fromfd, const char* from, int tofd, const char* to) noexcept {
  FL_REAL(renameat);
  int inode = -1;
  if (at_cwd(fromfd, from) && at_cwd(tofd, to))
    inode = rename_inode(from, to, "renameat");
  else if (rec().on)
    unmodelled(std::string("renameat relative to a directory descriptor: ") + from);
  const int rc = real(fromfd, from, tofd, to);
  if (rc == 0 && inode >= 0) renamed(from, to, inode, false);
  return rc;
}

// RENAME_NOREPLACE succeeds only where `to` does not exist: a rename then.
int renameat2(int fromfd, const char* from, int tofd, const char* to, unsigned flags) noexcept {
  FL_REAL(renameat2);
  int inode = -1;
  if (rec().on && (flags & ~static_cast<unsigned>(RENAME_NOREPLACE)) != 0)
    unmodelled(std::string("renameat2 with flags ") + std::to_string(flags) + ": " + from);
  else if (at_cwd(fromfd, from) && at_cwd(tofd, to))
    inode = rename_inode(from, to, "renameat2");
  else if (rec().on)
    unmodelled(std::string("renameat2 relative to a directory descriptor: ") + from);
  const int rc = real(fromfd, from, tofd, to, flags);
  if (rc == 0 && inode >= 0) renamed(from, to, inode, false);
  return rc;
}

int link(const char* from, const char* to) noexcept {
  FL_REAL(link);
  const int inode = rename_inode(from, to, "link");
  const int rc = real(from, to);
  if (rc == 0 && inode >= 0) renamed(from, to, inode, true);
  return rc;
}

int linkat(int fromfd, const char* from, int tofd, const char* to, int flags) noexcept {
  FL_REAL(linkat);
  int inode = -1;
  if (at_cwd(fromfd, from) && at_cwd(tofd, to))
    inode = rename_inode(from, to, "linkat");
  else if (rec().on)
    unmodelled(std::string("linkat relative to a directory descriptor: ") + from);
  const int rc = real(fromfd, from, tofd, to, flags);
  if (rc == 0 && inode >= 0) renamed(from, to, inode, true);
  return rc;
}

int unlink(const char* path) noexcept {
  FL_REAL(unlink);
  const int rc = real(path);
  if (rc == 0) unlinked(path);
  return rc;
}

int unlinkat(int dirfd, const char* path, int flags) noexcept {
  FL_REAL(unlinkat);
  const int rc = real(dirfd, path, flags);
  if (rc == 0 && rec().on) {
    if (!at_cwd(dirfd, path) && file_inode(dirfd) == -2)
      unmodelled(std::string("unlinkat relative to the recorded directory: ") + path);
    else if (at_cwd(dirfd, path) && !(flags & AT_REMOVEDIR))
      unlinked(path);
  }
  return rc;
}

void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) noexcept {
  FL_REAL(mmap);
  const int type = flags & MAP_TYPE;
  if (rec().on && (prot & PROT_WRITE) && (type == MAP_SHARED || type == MAP_SHARED_VALIDATE) &&
      file_inode(fd) >= 0)
    unmodelled("a writable shared mapping of a recorded file");
  return real(addr, len, prot, flags, fd, off);
}

void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off64_t off) noexcept {
  return mmap(addr, len, prot, flags, fd, off);
}

int msync(void* addr, size_t len, int flags) {
  FL_REAL(msync);
  if (rec().on) unmodelled("msync");
  return real(addr, len, flags);
}

int sync_file_range(int fd, off64_t off, off64_t n, unsigned flags) {
  FL_REAL(sync_file_range);
  if (rec().on && file_inode(fd) != -1) unmodelled("sync_file_range");
  return real(fd, off, n, flags);
}

int syncfs(int fd) noexcept {
  FL_REAL(syncfs);
  if (rec().on) unmodelled("syncfs");
  return real(fd);
}

void sync() noexcept {
  FL_REAL(sync);
  if (rec().on) unmodelled("sync");
  real();
}

}  // extern "C"
