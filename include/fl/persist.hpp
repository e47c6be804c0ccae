// fl/persist.hpp: values that live in files. fl::persist<T> binds one
// trivially copyable value to one file; fl/mapped_space.hpp (included here)
// holds whole object graphs in a mapped file.
//
//   fl::persist<std::uint64_t> runs("/var/lib/app/runs");  // 0 if missing
//   *runs += 1;
//   runs.flush();                                          // atomic, durable
//
// File: a 40-byte header (magic "fl.pval\0", format version, byte-order mark,
// sizeof(T), the type tag, CRC-32C of header and value) then the value's
// bytes; layout in detail/persist_file.hpp. A save writes "<path>.tmp",
// fdatasyncs it, renames it over the file and fsyncs the directory, so a
// crash at any moment leaves the old value or the new one, whole. A load
// checks every header field and the checksum; a damaged, truncated, foreign or
// mismatched file (other sizeof(T), other type tag, newer format, other byte
// order) throws fl::persist_error naming the path and the reason and is left
// untouched. Only a missing file gives a value-initialized T.
//
// Threads and processes: one persist<T> per file at a time; a persist<T> is
// not synchronized (use it from one thread at a time, like a T).
#pragma once

#include <fl/detail/config.hpp>

#include <fl/mapped_space.hpp>
#include <fl/persist_error.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <type_traits>

namespace fl {

namespace detail {

// The file a persist<T> is bound to: load and atomic save of raw bytes, with
// the header of detail/persist_file.hpp. Keeps the directory open so that a
// save costs one open (of the temporary), one write, one fdatasync, one
// rename and one fsync of the directory.
class persist_file {
 public:
  persist_file(const std::filesystem::path& path, std::uint64_t type_tag, std::size_t value_size);
  persist_file(persist_file&&) noexcept;
  persist_file& operator=(persist_file&&) noexcept;
  ~persist_file();

  // Reads the value into `out` (value_size bytes). False if the file does
  // not exist; throws persist_error if it exists but does not hold a valid
  // value of this size and tag.
  bool load(void* out) const;
  // Atomically replaces the file with `value`. Throws persist_error.
  void save(const void* value) const;
  const std::filesystem::path& path() const noexcept;
  // False after being moved from.
  bool valid() const noexcept { return st_ != nullptr; }

 private:
  struct state;
  std::unique_ptr<state> st_;
};

}  // namespace detail

template <class T>
class persist {
  static_assert(std::is_trivially_copyable_v<T>,
                "fl::persist<T> stores T's bytes: T must be trivially copyable");

 public:
  // Loads the value from `path`; a missing file gives T{} (nothing is
  // written until flush() or destruction). `type_tag` is stored in the file
  // and must match at load: give different value types of one size
  // different tags to tell their files apart. Throws persist_error.
  explicit persist(const std::filesystem::path& path, std::uint64_t type_tag = 0)
      : file_(path, type_tag, sizeof(T)) {
    on_disk_ = file_.load(&value_);
    if (on_disk_) std::memcpy(&saved_, &value_, sizeof(T));
  }
  persist(persist&&) noexcept = default;
  persist& operator=(persist&&) = delete;
  persist(const persist&) = delete;
  persist& operator=(const persist&) = delete;
  // Saves if the value differs from the file (or there is no file yet).
  // Errors cannot escape a destructor and are dropped: call flush() first
  // where a failed save must be seen.
  ~persist() {
    if (!file_.valid()) return;
    try {
      flush();
    } catch (...) {}
  }

  T& operator*() noexcept { return value_; }
  const T& operator*() const noexcept { return value_; }
  T* operator->() noexcept { return &value_; }
  const T* operator->() const noexcept { return &value_; }
  T& get() noexcept { return value_; }
  const T& get() const noexcept { return value_; }
  persist& operator=(const T& v) noexcept(std::is_nothrow_copy_assignable_v<T>) {
    value_ = v;
    return *this;
  }

  // Saves the value atomically and durably (see the file comment), unless
  // the file already holds exactly these bytes. Throws persist_error; the
  // file then still holds the previous value.
  void flush() {
    if (on_disk_ && std::memcmp(&saved_, &value_, sizeof(T)) == 0) return;
    file_.save(&value_);
    std::memcpy(&saved_, &value_, sizeof(T));
    on_disk_ = true;
  }
  const std::filesystem::path& path() const noexcept { return file_.path(); }

 private:
  T value_{};
  T saved_{};  // the bytes the file holds, when on_disk_
  bool on_disk_ = false;
  detail::persist_file file_;
};

}  // namespace fl
