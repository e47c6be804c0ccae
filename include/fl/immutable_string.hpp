// fl/immutable_string.hpp: fl::immutable_string, text that never changes once
// made, shared between copies by a biased reference count.
//
// Use it for values that are copied far more often than built: keys, names,
// configuration, message fields passed between threads. On the thread that
// made the text a copy or a destruction is a plain increment or decrement (no
// locked instruction); on any other thread it is one atomic read-modify-write
// (texts of up to 15 bytes are stored in the handle itself and copy as 16
// plain bytes). The text, its length, its hash (computed once, on first use)
// and the counts live in one pool block; detail/immutable_rep.hpp describes
// the counting.
// For text you edit, use fl::string; to build text piece by piece,
// fl::string_builder or fl::concat.
//
// Threads: an immutable_string is a value. Copies of one text may be made,
// read and destroyed on any threads at once without locking, also after the
// thread that made the text has exited; the thread that frees the block sees
// every other holder's reads finished. A text whose last copy other threads
// drop while its making thread still lives may stay allocated until that
// thread makes its next long immutable_string or exits. As with any value,
// one immutable_string object must not be assigned on one thread while
// another thread reads or copies that same object.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/detail/immutable_rep.hpp>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <string_view>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {

namespace detail {
// Types an immutable_string can be made from or compared with: anything that
// converts to std::string_view, except immutable_string itself.
template <class T, class Self>
concept immutable_text_like = std::is_convertible_v<const T&, std::string_view> &&
    !std::is_same_v<std::remove_cvref_t<T>, Self>;
}  // namespace detail

class immutable_string {
 public:
  using value_type = char;
  using size_type = std::size_t;
  using const_iterator = const char*;
  using iterator = const char*;
  static constexpr size_type npos = std::string_view::npos;
  // Texts of up to this many bytes live inside the 16-byte handle and never
  // allocate.
  static constexpr size_type inline_capacity = detail::immutable_inline_max;

  // The empty text. Never allocates.
  immutable_string() noexcept { set_empty(); }

  // A copy of the C string `s` (s must not be null). Allocates once if
  // strlen(s) > inline_capacity; throws std::bad_alloc.
  immutable_string(const char* s)
      : immutable_string(s, std::strlen(s)) {}  // NOLINT: implicit by design
  // A copy of [s, s + n). Throws std::bad_alloc, or std::length_error when n
  // exceeds max_size().
  immutable_string(const char* s, size_type n) { init(s, n); }
  // A copy of any string-view-like text: std::string_view, std::string,
  // fl::string, ... Explicit because it may allocate.
  template <class T>
  requires detail::immutable_text_like<T, immutable_string> &&
      (!std::is_convertible_v<const T&, const char*>)explicit immutable_string(const T& text) {
    const std::string_view v = text;
    init(v.data(), v.size());
  }
  immutable_string(std::nullptr_t) = delete;

  // O(1): shares the text (a plain increment on the thread that made it, one
  // relaxed atomic increment on others).
  immutable_string(const immutable_string& other) noexcept {
    std::memcpy(raw_, other.raw_, sizeof raw_);
    if (is_shared()) detail::immutable_acquire(rep());
  }
  // O(1), never allocates; `other` becomes empty.
  immutable_string(immutable_string&& other) noexcept {
    std::memcpy(raw_, other.raw_, sizeof raw_);
    other.set_empty();
  }
  immutable_string& operator=(const immutable_string& other) noexcept {
    immutable_string copy(other);
    swap(copy);
    return *this;
  }
  immutable_string& operator=(immutable_string&& other) noexcept {
    immutable_string moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~immutable_string() { release(); }

  void swap(immutable_string& other) noexcept {
    unsigned char tmp[sizeof raw_];
    std::memcpy(tmp, raw_, sizeof raw_);
    std::memcpy(raw_, other.raw_, sizeof raw_);
    std::memcpy(other.raw_, tmp, sizeof raw_);
  }
  friend void swap(immutable_string& a, immutable_string& b) noexcept { a.swap(b); }

  size_type size() const noexcept {
    return is_shared() ? static_cast<size_type>(word1() & ~detail::immutable_shared_tag)
                       : inline_capacity - raw_[15];
  }
  size_type length() const noexcept { return size(); }
  bool empty() const noexcept { return size() == 0; }
  static constexpr size_type max_size() noexcept { return detail::immutable_max_size; }

  // Always null-terminated; valid as long as any copy of this text lives.
  const char* data() const noexcept {
    return is_shared() ? rep()->bytes() : reinterpret_cast<const char*>(raw_);
  }
  const char* c_str() const noexcept { return data(); }
  std::string_view view() const noexcept { return {data(), size()}; }
  operator std::string_view() const noexcept { return view(); }  // NOLINT: implicit by design

  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  // Precondition: i < size().
  char operator[](size_type i) const noexcept { return data()[i]; }
  // Throws std::out_of_range if i >= size().
  char at(size_type i) const;
  char front() const noexcept { return data()[0]; }
  char back() const noexcept { return data()[size() - 1]; }

  bool starts_with(std::string_view s) const noexcept { return view().starts_with(s); }
  bool ends_with(std::string_view s) const noexcept { return view().ends_with(s); }
  bool contains(std::string_view s) const noexcept { return view().find(s) != npos; }
  size_type find(std::string_view s, size_type pos = 0) const noexcept {
    return view().find(s, pos);
  }

  // std::hash<std::string_view>{}(view()): computed on first use and cached in
  // the shared block (texts of up to 15 bytes are hashed each time; that is
  // cheaper than a cache line miss).
  std::size_t hash() const noexcept {
    if (!is_shared())
      return detail::immutable_hash_bytes(reinterpret_cast<const char*>(raw_), size());
    detail::immutable_rep* r = rep();
    std::size_t h = r->hash.load(std::memory_order_relaxed);
    if (h == 0) {
      // Two threads may both compute it; they store the same value.
      h = detail::immutable_hash_bytes(r->bytes(), r->size);
      r->hash.store(h, std::memory_order_relaxed);
    }
    return h;
  }

  // How many immutable_string objects share this text (1 for an inline text).
  // A snapshot for diagnostics and tests: other threads may change it.
  std::size_t use_count() const noexcept {
    if (!is_shared()) return 1;
    const detail::immutable_rep* r = rep();
    const std::int64_t n = static_cast<std::int64_t>(r->local.load(std::memory_order_relaxed)) +
                           (r->shared.load(std::memory_order_relaxed) >> 2);
    return n > 0 ? static_cast<std::size_t>(n) : 1;
  }
  // True when the text lives in the handle (size() <= inline_capacity).
  bool is_inline() const noexcept { return !is_shared(); }

  friend bool operator==(const immutable_string& a, const immutable_string& b) noexcept {
    if (std::memcmp(a.raw_, b.raw_, sizeof a.raw_) == 0)
      return true;                                     // same inline bytes or same block
    if (a.is_shared() != b.is_shared()) return false;  // lengths differ (<= 15 vs > 15)
    return a.view() == b.view();
  }
  friend std::strong_ordering operator<=>(const immutable_string& a,
                                          const immutable_string& b) noexcept {
    return a.view().compare(b.view()) <=> 0;
  }
  template <class T>
  requires detail::immutable_text_like<T, immutable_string>
  friend bool operator==(const immutable_string& a, const T& b) noexcept {
    return a.view() == std::string_view(b);
  }
  template <class T>
  requires detail::immutable_text_like<T, immutable_string>
  friend std::strong_ordering operator<=>(const immutable_string& a, const T& b) noexcept {
    return a.view().compare(std::string_view(b)) <=> 0;
  }

  friend std::ostream& operator<<(std::ostream& os, const immutable_string& s);

 private:
  // See detail/immutable_rep.hpp for the layout.
  alignas(8) unsigned char raw_[16];

  bool is_shared() const noexcept { return (raw_[15] & 0x80) != 0; }
  std::uint64_t word1() const noexcept {
    std::uint64_t w;
    std::memcpy(&w, raw_ + 8, 8);
    return w;
  }
  detail::immutable_rep* rep() const noexcept {
    detail::immutable_rep* r;
    std::memcpy(&r, raw_, sizeof r);
    return r;
  }
  void set_empty() noexcept {
    std::memset(raw_, 0, sizeof raw_);
    raw_[15] = static_cast<unsigned char>(inline_capacity);
  }
  void init(const char* s, size_type n) {
    if (n <= inline_capacity) {
      std::memset(raw_, 0, sizeof raw_);
      if (n != 0) std::memcpy(raw_, s, n);
      raw_[15] = static_cast<unsigned char>(inline_capacity - n);
    } else {
      detail::immutable_rep* r = detail::immutable_make_rep(s, n);
      const std::uint64_t w = static_cast<std::uint64_t>(n) | detail::immutable_shared_tag;
      std::memcpy(raw_, &r, sizeof r);
      std::memcpy(raw_ + 8, &w, 8);
    }
  }
  void release() noexcept {
    if (is_shared()) detail::immutable_release(rep());
  }
};
static_assert(sizeof(immutable_string) == 16, "the handle is two words");

// Transparent hash and equality: std::unordered_map<fl::immutable_string, V,
// fl::immutable_string_hash, fl::immutable_string_equal> can find() by
// std::string_view, fl::string or a C string without making a key.
struct immutable_string_hash {
  using is_transparent = void;
  std::size_t operator()(const immutable_string& s) const noexcept { return s.hash(); }
  template <class T>
  requires detail::immutable_text_like<T, immutable_string> std::size_t operator()(
      const T& s) const noexcept {
    return std::hash<std::string_view>{}(std::string_view(s));
  }
};
struct immutable_string_equal {
  using is_transparent = void;
  template <class A, class B>
  requires std::is_convertible_v<const A&, std::string_view> &&
      std::is_convertible_v<const B&, std::string_view>
  bool operator()(const A& a, const B& b) const noexcept {
    if constexpr (std::is_same_v<A, immutable_string> && std::is_same_v<B, immutable_string>) {
      return a == b;
    } else {
      return std::string_view(a) == std::string_view(b);
    }
  }
};

inline char immutable_string::at(size_type i) const {
  if (i >= size())
    detail::throw_out_of_range("fl::immutable_string::at", "pos", i, ">=", "size()", size());
  return data()[i];
}

}  // namespace FL_ABI_NS
}  // namespace fl

// Equal to std::hash<std::string_view> of the same text, so a map keyed by
// immutable_string can be probed with views.
template <>
struct std::hash<fl::immutable_string> {
  std::size_t operator()(const fl::immutable_string& s) const noexcept { return s.hash(); }
};
