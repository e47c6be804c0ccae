// src/persist/value_file.cpp: fl::persist_error and the value file of fl::persist<T>
// (format in persist_format.hpp).
#include <fl/persist.hpp>

#include "persist/persist_format.hpp"

#include "persist/posix.hpp"

#include <memory>
#include <string>
#include <vector>

#include <cstdio>

#include <csignal>
#include <cstdlib>

#include <sys/file.h>
#include <sys/stat.h>

namespace fl {
inline namespace FL_ABI_NS {

namespace {

std::string error_text(const std::filesystem::path& path, const std::string& reason) {
  std::string s = "fl::persist: \"";
  s += path.native();
  s += "\": ";
  s += reason;
  return s;
}

}  // namespace


persist_error::persist_error(const std::filesystem::path& path, const std::string& reason)
    : std::runtime_error(error_text(path, reason)), path_(path), reason_(reason) {}

namespace detail {

struct persist_file::state {
  std::filesystem::path path;
  std::uint64_t type_tag;
  bool untagged_ok;  // files of tag 0 (written before default tags) load too
  std::size_t value_size;
  unique_fd dir;  // the directory, kept open for the fsync after each rename
  bool swept = false;  // leftover temporaries removed (by the first save)
};

persist_file::persist_file(const std::filesystem::path& path, std::uint64_t type_tag,
                           std::size_t value_size, bool untagged_ok)
    : st_(std::make_unique<state>()) {
  st_->path = path;
  st_->type_tag = type_tag;
  st_->untagged_ok = untagged_ok;
  st_->value_size = value_size;
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  st_->dir = unique_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!st_->dir) throw_errno(path, "open of the directory", errno);
}

persist_file::persist_file(persist_file&&) noexcept = default;
persist_file& persist_file::operator=(persist_file&&) noexcept = default;
persist_file::~persist_file() = default;

const std::filesystem::path& persist_file::path() const noexcept { return st_->path; }

namespace {

using state = persist_file::state;

// Checks the file open as `fd` and reads its value into `out` (value_size
// bytes), which changes only for a valid file. Throws persist_error.
void read_value(const state& s, int fd, void* out) {
  struct stat sb;
  if (::fstat(fd, &sb) != 0) throw_errno(s.path, "fstat", errno);
  if (!S_ISREG(sb.st_mode)) throw persist_error(s.path, "not a regular file");
  const auto file_size = static_cast<std::uint64_t>(sb.st_size);
  const std::uint64_t want = sizeof(value_header) + s.value_size;
  if (file_size == 0) throw persist_error(s.path, "empty file (0 bytes)");
  if (file_size < sizeof(value_header))
    throw persist_error(s.path, "truncated: " + std::to_string(file_size) +
                                    " bytes, shorter than the 40-byte header");
  value_header h;
  if (pread_full(fd, &h, sizeof h, 0) != static_cast<long long>(sizeof h))
    throw_errno(s.path, "read", errno ? errno : EIO);
  if (std::memcmp(h.magic, value_magic, sizeof h.magic) != 0)
    throw persist_error(s.path, "not an fl::persist file (bad magic)");
  if (h.byte_order != byte_order_mark)
    throw persist_error(s.path, "written on a machine of the other byte order");
  if (h.format_version != value_format_version)
    throw persist_error(
        s.path, "format version " + std::to_string(h.format_version) +
                    (h.format_version > value_format_version ? " is newer than" : " is not") +
                    " the supported version " + std::to_string(value_format_version));
  if (h.value_size != s.value_size)
    throw persist_error(s.path, "holds a value of " + std::to_string(h.value_size) +
                                    " bytes, expected " + std::to_string(s.value_size) +
                                    " (another type's file)");
  if (h.type_tag != s.type_tag && !(s.untagged_ok && h.type_tag == 0))
    throw persist_error(s.path, "type tag " + hex(h.type_tag) + ", expected " + hex(s.type_tag) +
                                    " (another type's file, or the type was renamed: an "
                                    "explicit type_tag keeps a file across a rename)");
  if (file_size != want)
    throw persist_error(s.path, (file_size < want ? "truncated: " : "trailing bytes: ") +
                                    std::to_string(file_size) + " bytes, expected " +
                                    std::to_string(want));
  // Read into a scratch buffer first: `out` changes only for a valid file.
  std::vector<unsigned char> buf(s.value_size);
  const long long got = pread_full(fd, buf.data(), buf.size(), sizeof h);
  if (got < 0) throw_errno(s.path, "read", static_cast<int>(-got));
  if (static_cast<std::uint64_t>(got) != s.value_size)
    throw persist_error(s.path, "truncated while reading");
  std::uint32_t crc = crc32c(&h, value_crc_span);
  crc = crc32c(buf.data(), buf.size(), crc);
  if (crc != h.crc || h.reserved != 0)
    throw persist_error(s.path, "checksum mismatch (file damaged)");
  if (s.value_size != 0) std::memcpy(out, buf.data(), s.value_size);
}

// The lock of the file the path names now: a descriptor holding flock
// (LOCK_EX, waiting for it), taken when the path still names that file
// afterwards (a save that renamed over it meanwhile makes this open again).
// Empty if there is no file.
unique_fd lock_current(const state& s) {
  for (;;) {
    unique_fd fd(::open(s.path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) {
      if (errno == ENOENT) return {};
      throw_errno(s.path, "open", errno);
    }
    while (::flock(fd.get(), LOCK_EX) != 0) {
      if (errno != EINTR) throw_errno(s.path, "flock", errno);
    }
    if (names_file(s.path, fd.get())) return fd;
  }
}

// A new file beside the path, under a name of its own, holding `value` with
// its header, written in one write and flushed. Returns its name.
std::filesystem::path write_temp(const state& s, const void* value) {
  // Header and value go out in one write of one buffer; small values (the
  // usual case) use the stack.
  const std::size_t total = sizeof(value_header) + s.value_size;
  unsigned char small[512];
  std::vector<unsigned char> big;
  unsigned char* buf = small;
  if (total > sizeof small) {
    big.resize(total);
    buf = big.data();
  }
  value_header h{};
  stamp_marks(h, value_magic, value_format_version);
  h.value_size = s.value_size;
  h.type_tag = s.type_tag;
  h.crc = crc32c(value, s.value_size, crc32c(&h, value_crc_span));
  std::memcpy(buf, &h, sizeof h);
  if (s.value_size != 0) std::memcpy(buf + sizeof h, value, s.value_size);

  const std::filesystem::path tmp = unique_sibling(s.path, "tmp");
  unique_fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (!fd) throw_errno(tmp, "open of the temporary file", errno);
  const char* step = "write of the temporary file";
  int e = pwrite_all(fd.get(), buf, total, 0);
  if (e == 0) {
    step = "fdatasync of the temporary file";
    e = sync_data(fd.get());
  }
  if (e != 0) {
    ::unlink(tmp.c_str());
    throw_errno(tmp, step, e);
  }
  return tmp;
}

// Puts the temporary file `tmp` at the path: over the file `held` locks
// (rename), or, with no file held, only where none exists (false then if
// one appeared meanwhile; `tmp` is removed). The rename is made durable.
bool install(const state& s, const std::filesystem::path& tmp, const unique_fd& held) {
  int r;
  if (held) {
    r = ::rename(tmp.c_str(), s.path.c_str());
  } else {
    r = ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, s.path.c_str(), RENAME_NOREPLACE);
    if (r != 0 && (errno == EINVAL || errno == ENOSYS)) {
      // A file system without RENAME_NOREPLACE: link fails on an existing name too.
      r = ::link(tmp.c_str(), s.path.c_str());
      if (r == 0) ::unlink(tmp.c_str());
    }
  }
  if (r != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    if (!held && e == EEXIST) return false;
    throw_errno(s.path, "rename of the temporary file", e);
  }
  // The rename is durable once the directory is.
  while (::fsync(s.dir.get()) != 0) {
    if (errno != EINTR) throw_errno(s.path, "fsync of the directory", errno);
  }
  return true;
}

// Removes the temporary files ("<name>.tmp-<pid>-<n>") that saves of
// processes no longer running left beside the file (a crash between writing
// one and renaming it). Called by the first save of a handle, while it holds
// the file's lock: a running saver's temporary belongs to a live pid and is
// left alone. One pass over the directory.
void sweep_temporaries(state& s) {
  s.swept = true;
  const std::string prefix = s.path.filename().string() + ".tmp-";
  std::error_code ec;
  std::filesystem::path dir = s.path.parent_path();
  if (dir.empty()) dir = ".";
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    char* rest = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &rest, 10);
    if (pid <= 0 || rest == nullptr || *rest != '-') continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) ::unlink(it->path().c_str());
  }
}

}  // namespace

bool persist_file::load(void* out) const {
  const state& s = *st_;
  unique_fd fd(::open(s.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return false;
    throw_errno(s.path, "open", errno);
  }
  read_value(s, fd.get(), out);
  return true;
}

void persist_file::save(const void* value) const {
  state& s = *st_;
  for (;;) {
    const unique_fd held = lock_current(s);
    if (held && !s.swept) sweep_temporaries(s);
    if (install(s, write_temp(s, value), held)) return;
  }
}

void persist_file::update(void* value, void (*apply)(void*, void*), void* ctx) const {
  state& s = *st_;
  for (;;) {
    const unique_fd held = lock_current(s);
    if (!held) {
      // Nothing to lock yet: the value-initialized value (what a missing
      // file means) becomes the file, unless another process creates it first.
      (void)install(s, write_temp(s, value), held);
      continue;
    }
    if (!s.swept) sweep_temporaries(s);
    read_value(s, held.get(), value);
    apply(ctx, value);
    install(s, write_temp(s, value), held);
    return;
  }
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
