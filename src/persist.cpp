// src/persist.cpp: fl::persist_error and the value file of fl::persist<T>
// (format in fl/detail/persist_format.hpp).
#include <fl/persist.hpp>

#include <fl/detail/persist_format.hpp>

#include "persist_posix.hpp"

#include <memory>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace fl {

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
  std::filesystem::path tmp;  // "<path>.tmp", renamed over path by a save
  std::uint64_t type_tag;
  std::size_t value_size;
  unique_fd dir;  // the directory, kept open for the fsync after each rename
};

persist_file::persist_file(const std::filesystem::path& path, std::uint64_t type_tag,
                           std::size_t value_size)
    : st_(std::make_unique<state>()) {
  st_->path = path;
  st_->tmp = path;
  st_->tmp += ".tmp";
  st_->type_tag = type_tag;
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

bool persist_file::load(void* out) const {
  const state& s = *st_;
  unique_fd fd(::open(s.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return false;
    throw_errno(s.path, "open", errno);
  }
  struct stat sb;
  if (::fstat(fd.get(), &sb) != 0) throw_errno(s.path, "fstat", errno);
  if (!S_ISREG(sb.st_mode)) throw persist_error(s.path, "not a regular file");
  const auto file_size = static_cast<std::uint64_t>(sb.st_size);
  const std::uint64_t want = sizeof(value_header) + s.value_size;
  if (file_size == 0) throw persist_error(s.path, "empty file (0 bytes)");
  if (file_size < sizeof(value_header))
    throw persist_error(s.path, "truncated: " + std::to_string(file_size) +
                                    " bytes, shorter than the 40-byte header");
  value_header h;
  if (pread_full(fd.get(), &h, sizeof h, 0) != static_cast<long long>(sizeof h))
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
  if (h.type_tag != s.type_tag)
    throw persist_error(s.path, "type tag " + std::to_string(h.type_tag) + ", expected " +
                                    std::to_string(s.type_tag) + " (another type's file)");
  if (file_size != want)
    throw persist_error(s.path, (file_size < want ? "truncated: " : "trailing bytes: ") +
                                    std::to_string(file_size) + " bytes, expected " +
                                    std::to_string(want));
  // Read into a scratch buffer first: `out` changes only for a valid file.
  std::vector<unsigned char> buf(s.value_size);
  const long long got = pread_full(fd.get(), buf.data(), buf.size(), sizeof h);
  if (got < 0) throw_errno(s.path, "read", static_cast<int>(-got));
  if (static_cast<std::uint64_t>(got) != s.value_size)
    throw persist_error(s.path, "truncated while reading");
  std::uint32_t crc = crc32c(&h, value_crc_span);
  crc = crc32c(buf.data(), buf.size(), crc);
  if (crc != h.crc || h.reserved != 0)
    throw persist_error(s.path, "checksum mismatch (file damaged)");
  if (s.value_size != 0) std::memcpy(out, buf.data(), s.value_size);
  return true;
}

void persist_file::save(const void* value) const {
  const state& s = *st_;
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

  unique_fd fd(::open(s.tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  if (!fd) throw_errno(s.tmp, "open of the temporary file", errno);
  if (const int e = pwrite_all(fd.get(), buf, total, 0)) {
    ::unlink(s.tmp.c_str());
    throw_errno(s.tmp, "write", e);
  }
  if (const int e = sync_data(fd.get())) {
    ::unlink(s.tmp.c_str());
    throw_errno(s.tmp, "fdatasync", e);
  }
  fd.reset();
  if (::rename(s.tmp.c_str(), s.path.c_str()) != 0) {
    const int e = errno;
    ::unlink(s.tmp.c_str());
    throw_errno(s.path, "rename of the temporary file", e);
  }
  // The rename is durable once the directory is.
  while (::fsync(s.dir.get()) != 0) {
    if (errno != EINTR) throw_errno(s.path, "fsync of the directory", errno);
  }
}

}  // namespace detail
}  // namespace fl
