// fl/persist.hpp: values that live in files. fl::persist<T> binds one
// trivially copyable value to one file; fl/mapped_space.hpp (included here)
// holds whole object graphs in a mapped file.
//
//   fl::persist<std::uint64_t> runs("/var/lib/app/runs");  // 0 if missing
//   *runs += 1;
//   runs.flush();                                          // atomic, durable
//   runs.update([](std::uint64_t& n) { ++n; });            // no update lost
//
// File: a 40-byte header (magic "fl.pval\0", format version, byte-order mark,
// sizeof(T), the type tag, CRC-32C of header and value) then the value's
// bytes; layout in docs/design.md ("persist<T>"). A save writes a temporary file
// of its own ("<path>.tmp-<pid>-<n>"), fdatasyncs it, renames it over the
// file and fsyncs the directory, so a crash at any moment leaves the old value
// or the new one, whole, and a reader (another persist<T>, another process)
// never sees an empty or partial file. A crash during a save may leave its
// temporary file behind; the first save of a later persist<T> of that path
// removes the temporaries of processes no longer running. A load checks every header field and the checksum;
// a damaged, truncated, foreign or mismatched file (other sizeof(T), other
// type tag, newer format, other byte order) throws fl::persist_error naming
// the path and the reason and is left untouched. Only a missing file gives a
// value-initialized T.
//
// Type check. By default the type tag is derived from T (detail::
// persist_type_tag): arithmetic types by kind (signed or unsigned integer,
// floating point, bool, character) and size, arrays by their element's tag
// and extent, enums, classes and unions by their qualified name as the
// compiler spells it. So a file of another T of the same size is refused
// when the two differ in kind, signedness, element type or count, or name;
// it is not refused when a class kept its name and size but changed its
// members (give such a change its own explicit tag). Renaming T (or moving it
// to another namespace) makes its old files refuse to load: an explicit
// type_tag keeps a file across a rename. Files written with tag 0 (the
// default before tags were derived) load under the derived tag, and the next
// save writes the derived one.
//
// Threads and processes: every save (flush(), the destructor, update()) waits
// for and holds an exclusive lock (flock) on the file while it replaces it, so saves from
// any number of processes are serialized and each leaves a whole file: the
// last one wins. update(fn) runs a read-modify-write under that lock, so
// concurrent updates from any number of processes lose nothing. A persist<T>
// is not synchronized itself (use it from one thread at a time, like a T).
#pragma once

#include <fl/detail/config.hpp>

#include <fl/mapped_space.hpp>
#include <fl/persist_error.hpp>

#include <concepts>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {

namespace detail {

// The file a persist<T> is bound to: load and locked, atomic save of raw
// bytes, with the header docs/design.md describes. Keeps the directory
// open so that a save costs one open (of the temporary), one write, one
// fdatasync, one rename and one fsync of the directory, plus the lock.
class persist_file {
 public:
  // `untagged_ok`: a file of type tag 0 loads too (the tag a default
  // persist<T> wrote before tags were derived from T).
  persist_file(const std::filesystem::path& path, std::uint64_t type_tag, std::size_t value_size,
               bool untagged_ok = false);
  persist_file(persist_file&&) noexcept;
  persist_file& operator=(persist_file&&) noexcept;
  ~persist_file();

  // Reads the value into `out` (value_size bytes). False if the file does
  // not exist; throws persist_error if it exists but does not hold a valid
  // value of this size and tag.
  bool load(void* out) const;
  // Atomically replaces the file with `value`, holding the file's lock
  // while it does. Throws persist_error.
  void save(const void* value) const;
  // Under the file's lock: reads the file into `value` (which holds the
  // value-initialized value, used as the file's if there is none), calls
  // apply(ctx, value) once, and saves the result. Throws persist_error, or
  // what apply throws (the file is then unchanged).
  void update(void* value, void (*apply)(void*, void*), void* ctx) const;
  const std::filesystem::path& path() const noexcept;
  // False after being moved from.
  bool valid() const noexcept { return st_ != nullptr; }

  struct state;

 private:
  std::unique_ptr<state> st_;
};

// FNV-1a, 64 bits: the derived type tags' hash of a name.
constexpr std::uint64_t persist_fnv1a(std::string_view s, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

// The compiler's spelling of T (GCC and Clang: "... [with T = name]" or
// "... [T = name]").
template <class T>
constexpr const char* persist_type_signature() {
  return __PRETTY_FUNCTION__;
}
template <class T>
constexpr std::string_view persist_type_name() {
  const std::string_view sig = persist_type_signature<T>();
  const std::size_t at = sig.find("T = ");
  const std::size_t end = sig.rfind(']');
  if (at == std::string_view::npos || end == std::string_view::npos || end < at + 4) return sig;
  return sig.substr(at + 4, end - at - 4);
}

// The default type tag of persist<T> (see the file comment): never 0.
template <class T>
constexpr std::uint64_t persist_type_tag() {
  using U = std::remove_cv_t<T>;
  std::uint64_t h;
  if constexpr (std::is_array_v<U>) {
    h = persist_fnv1a("array", persist_type_tag<std::remove_extent_t<U>>() ^
                                   (std::uint64_t{std::extent_v<U>} * 0x9E3779B97F4A7C15ull));
  } else if constexpr (std::is_same_v<U, bool>) {
    h = persist_fnv1a("bool");
  } else if constexpr (std::is_floating_point_v<U>) {
    h = persist_fnv1a("float") + sizeof(U);
  } else if constexpr (std::is_same_v<U, char> || std::is_same_v<U, char8_t> ||
                       std::is_same_v<U, char16_t> || std::is_same_v<U, char32_t> ||
                       std::is_same_v<U, wchar_t>) {
    h = persist_fnv1a("char") + sizeof(U);
  } else if constexpr (std::is_integral_v<U>) {
    h = persist_fnv1a(std::is_signed_v<U> ? "int" : "uint") + sizeof(U);
  } else if constexpr (std::is_pointer_v<U> || std::is_member_pointer_v<U>) {
    h = persist_fnv1a("pointer") + sizeof(U);
  } else {
    h = persist_fnv1a(persist_type_name<U>(), persist_fnv1a("named"));
  }
  h = persist_fnv1a("fl.persist", h);
  return h == 0 ? 1 : h;
}

}  // namespace detail

template <class T>
class persist {
  static_assert(std::is_trivially_copyable_v<T>,
                "fl::persist<T> stores T's bytes: T must be trivially copyable");

 public:
  // Loads the value from `path`; a missing file gives T{} (nothing is
  // written until flush() or destruction). The file's type tag must be T's
  // derived tag (see the file comment) or 0. Throws persist_error.
  explicit persist(const std::filesystem::path& path)
      : file_(path, detail::persist_type_tag<T>(), sizeof(T), true) {
    load();
  }
  // The same with an explicit `type_tag`, stored in the file and required to
  // match exactly at load: for a file that must survive renaming T, or to
  // tell apart versions of a class that kept its name and size.
  persist(const std::filesystem::path& path, std::uint64_t type_tag)
      : file_(path, type_tag, sizeof(T)) {
    load();
  }
  persist(persist&&) noexcept = default;
  // Saves this value as the destructor would (but reports a failure: this
  // persist<T> is then unchanged), then takes over `other`'s file and value.
  persist& operator=(persist&& other) {
    if (this != &other) {
      if (file_.valid()) flush();
      std::memcpy(&value_, &other.value_, sizeof(T));
      std::memcpy(&saved_, &other.saved_, sizeof(T));
      on_disk_ = other.on_disk_;
      file_ = std::move(other.file_);
    }
    return *this;
  }
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
  // A read-modify-write that loses no update between processes: under the
  // file's lock, reads the value the file holds now (T{} if there is none),
  // calls fn(T&) once on it, saves the result and makes it this persist<T>'s
  // value. Concurrent update() and flush() calls in any processes are
  // serialized by the lock. Cost: a save plus a load and the lock. Throws
  // persist_error, or what fn throws; the file and *this are then unchanged.
  template <class F>
  requires std::invocable<F&, T&>
  void update(F fn) {
    T v{};
    file_.update(
        &v, [](void* ctx, void* p) { (*static_cast<F*>(ctx))(*static_cast<T*>(p)); }, &fn);
    std::memcpy(&value_, &v, sizeof(T));
    std::memcpy(&saved_, &v, sizeof(T));
    on_disk_ = true;
  }
  const std::filesystem::path& path() const noexcept { return file_.path(); }

 private:
  void load() {
    on_disk_ = file_.load(&value_);
    if (on_disk_) std::memcpy(&saved_, &value_, sizeof(T));
  }

  T value_{};
  T saved_{};  // the bytes the file holds, when on_disk_
  bool on_disk_ = false;
  detail::persist_file file_;
};

}  // namespace FL_ABI_NS
}  // namespace fl
