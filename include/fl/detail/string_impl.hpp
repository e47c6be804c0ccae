// fl/detail/string_impl.hpp: the template bodies of fl::basic_string that are
// too big to sit in the class (growth, replace with aliasing, streams).
// Included at the bottom of fl/string.hpp only.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS
#include <fl/string.hpp>         // the class whose bodies these are (this file is its bottom half)

#include <functional>

namespace fl {
inline namespace FL_ABI_NS {

namespace detail {

// True when p lies in [first, last]; std::less gives a total order even for
// pointers into unrelated objects.
inline bool points_into(const char* p, const char* first, const char* last) noexcept {
  return !std::less<const char*>{}(p, first) && !std::less<const char*>{}(last, p);
}

}  // namespace detail

// ---- construction, append and compare (declared in the class) ----

template <class A>
inline basic_string<A>::basic_string(const basic_string& other)
    : alloc_(alloc_traits::select_on_container_copy_construction(other.alloc_)) {
  if (!other.core_.is_heap()) [[likely]] {
    core_ = other.core_;  // an inline string is its 24 bytes
  } else {
    init_copy(other.core_.ptr, other.core_.size);
  }
}
template <class A>
inline basic_string<A>::basic_string(const basic_string& other, const A& a) : alloc_(a) {
  if (!other.core_.is_heap()) {
    core_ = other.core_;
  } else {
    init_copy(other.core_.ptr, other.core_.size);
  }
}
template <class A>
inline basic_string<A>::basic_string(basic_string&& other) noexcept
    : alloc_(std::move(other.alloc_)) {
  core_.copy_words(other.core_);
  other.core_.set_empty();
}
template <class A>
inline basic_string<A>::basic_string(basic_string&& other, const A& a) : alloc_(a) {
  if (!other.core_.is_heap() || alloc_traits::is_always_equal::value || alloc_ == other.alloc_) {
    core_ = other.core_;
    other.core_.set_empty();
  } else {
    init_copy(other.core_.ptr, other.core_.size);
  }
}

template <class A>
inline basic_string<A>& basic_string<A>::append(const char* s, size_type count) {
  if (core_.is_heap()) {
    const size_type sz = core_.size;
    const size_type cap_low = core_.heap_capacity_low();
    if (count <= cap_low - sz && sz <= cap_low) [[likely]] {
      char* p = core_.ptr;
      detail::copy_bytes(p + sz, s, count);
      p[sz + count] = '\0';
      core_.size = sz + count;
      return *this;
    }
  } else {
    const size_type left = core_.tag();
    if (left > core::inline_capacity) __builtin_unreachable();
    if (count <= left) [[likely]] {
      const size_type sz = core::inline_capacity - left;
      detail::copy_short(core_.bytes() + sz, s, count);
      core_.set_inline_size(sz + count);
      return *this;
    }
  }
  return append_slow(s, count);
}

template <class A>
inline int basic_string<A>::compare(const basic_string& str) const noexcept {
  if (core::both_heap(core_, str.core_)) [[likely]] {
    if (core_.size >= 8 && str.core_.size >= 8) {
      std::uint64_t x, y;
      std::memcpy(&x, core_.ptr, 8);
      std::memcpy(&y, str.core_.ptr, 8);
      if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
    }
    return std::string_view(core_.ptr, core_.size)
        .compare(std::string_view(str.core_.ptr, str.core_.size));
  }
  return view().compare(str.view());
}

template <class A>
inline void basic_string<A>::init_copy(const char* s, size_type n) {
  if (n <= core::inline_capacity) [[likely]] {
    core_.set_inline_copy(s, n);
  } else {
    init_heap_copy(s, n);
  }
}

template <class A>
inline void basic_string<A>::erase_raw(size_type pos, size_type n) noexcept {
  const size_type sz = size();
  char* p = data();
  const size_type tail = sz - pos - n;
  if (n && tail) std::memmove(p + pos, p + pos + n, tail);
  core_.set_size_any(sz - n);
}

// Erases every ch / every char satisfying pred; returns how many. O(n).
template <class A, class U>
typename basic_string<A>::size_type erase(basic_string<A>& s, const U& value) {
  const auto it = std::remove(s.begin(), s.end(), value);
  const auto n = static_cast<typename basic_string<A>::size_type>(s.end() - it);
  s.erase(it, s.end());
  return n;
}
template <class A, class Pred>
typename basic_string<A>::size_type erase_if(basic_string<A>& s, Pred pred) {
  const auto it = std::remove_if(s.begin(), s.end(), pred);
  const auto n = static_cast<typename basic_string<A>::size_type>(s.end() - it);
  s.erase(it, s.end());
  return n;
}

template <class A>
inline auto basic_string<A>::copy(char* dest, size_type count, size_type pos) const -> size_type {
  const std::string_view sv = substr_view(pos, count, "fl::string::copy");
  if (!sv.empty()) std::memcpy(dest, sv.data(), sv.size());
  return sv.size();
}

template <class A>
inline void basic_string<A>::resize(size_type count, char ch) {
  const size_type sz = size();
  if (count > sz) {
    append(count - sz, ch);
  } else {
    core_.set_size_any(count);
  }
}

// ---- sizing ----

// Bytes of the block that holds min_capacity chars and the terminator. With
// the pool, the request is rounded up to its size class so the whole block
// becomes capacity; other allocators get multiples of 16 (what malloc-like
// resources hand out anyway). Callers keep min_capacity <= max_size() < 2^63.
template <class A>
auto basic_string<A>::block_bytes(size_type min_capacity) noexcept -> size_type {
  if constexpr (detail::is_pool_allocator_v<A>) {
    return detail::pool_block_capacity(min_capacity) + 1;
  } else {
    return (min_capacity + 16) & ~size_type{15};
  }
}

// Growth for appends: detail::grown_capacity (string_core.hpp), the policy of
// every fl text container. Throws std::length_error if new_size > max_size().
template <class A>
auto basic_string<A>::grown_capacity(size_type new_size) const -> size_type {
  const size_type max = max_size();
  if (new_size > max) [[unlikely]]
    detail::throw_string_length_error("fl::string: length exceeds max_size()");
  return detail::grown_capacity(capacity(), new_size, max);
}

// A block for at least min_capacity chars and the terminator (min_capacity
// <= max_size()), with the capacity it really has (at most max_size()). With
// the pool, one class lookup gives the block and its size
// (pool_allocate_at_least): a lookup of the size and then of the block made a
// chain of dependent loads that the construction of short heap strings waited
// on (alloc/token_stream/1, perf: the most sampled instructions of
// init_heap_copy). Throws what the allocator throws.
template <class A>
auto basic_string<A>::allocate_block(size_type min_capacity) -> detail::heap_block {
  if constexpr (detail::is_pool_allocator_v<A>) {
    const detail::pool_block b = detail::pool_allocate_at_least(min_capacity + 1);
    const size_type cap = b.bytes - 1;
    return {static_cast<char*>(b.p), 0, cap < max_size() ? cap : max_size()};
  } else {
    size_type bytes = block_bytes(min_capacity);
    if (bytes - 1 > max_size()) bytes = max_size() + 1;
    return {alloc_traits::allocate(alloc_, bytes), 0, bytes - 1};
  }
}

// Moves the content [0, size()] to a block of at least new_size + 1 bytes
// (geometric), returning the new data(). If src points into the old content it
// is moved along. Strong guarantee: on std::bad_alloc nothing changed.
template <class A>
char* basic_string<A>::grow_keep(size_type new_size, const char*& src) {
  const size_type sz = size();
  const char* old = data();
  const bool rebase = src != nullptr && detail::points_into(src, old, old + sz);
  const size_type offset = rebase ? static_cast<size_type>(src - old) : 0;
  size_type bytes = block_bytes(grown_capacity(new_size));
  if (bytes - 1 > max_size()) bytes = max_size() + 1;
  char* p;
  if constexpr (detail::is_pool_allocator_v<A>) {
    if (core_.is_heap()) {
      // Large blocks grow in place when malloc can extend them.
      p = static_cast<char*>(detail::pool_reallocate(core_.ptr, heap_capacity() + 1, bytes));
      core_.set_heap(p, sz, bytes - 1);
      if (rebase) src = p + offset;
      return p;
    }
  }
  p = alloc_traits::allocate(alloc_, bytes);
  std::memcpy(p, old, sz + 1);
  if (core_.is_heap()) deallocate_block(core_.ptr, heap_capacity());
  core_.set_heap(p, sz, bytes - 1);
  if (rebase) src = p + offset;
  return p;
}

template <class A>
void basic_string<A>::reserve_slow(size_type new_cap) {
  if (new_cap > max_size()) detail::throw_string_length_error("fl::string::reserve");
  const size_type sz = size();
  const size_type bytes = block_bytes(new_cap);
  char* p;
  if constexpr (detail::is_pool_allocator_v<A>) {
    if (core_.is_heap()) {
      p = static_cast<char*>(detail::pool_reallocate(core_.ptr, heap_capacity() + 1, bytes));
      core_.set_heap(p, sz, bytes - 1);
      return;
    }
  }
  p = alloc_traits::allocate(alloc_, bytes);
  std::memcpy(p, data(), sz + 1);
  if (core_.is_heap()) deallocate_block(core_.ptr, heap_capacity());
  core_.set_heap(p, sz, bytes - 1);
}

template <class A>
void basic_string<A>::shrink_to_fit() {
  if (!core_.is_heap()) return;
  const size_type sz = core_.size;
  if (sz <= core::inline_capacity) {
    char* old = core_.ptr;
    const size_type cap = heap_capacity();
    core r;
    r.set_empty();
    std::memcpy(r.bytes(), old, sz);
    r.set_inline_size(sz);
    deallocate_block(old, cap);
    core_ = r;
    return;
  }
  if (block_bytes(sz) < heap_capacity() + 1) {
    try {
      const size_type bytes = block_bytes(sz);
      char* p = alloc_traits::allocate(alloc_, bytes);
      std::memcpy(p, core_.ptr, sz + 1);
      deallocate_block(core_.ptr, heap_capacity());
      core_.set_heap(p, sz, bytes - 1);
    } catch (...) {
      // Non-binding request: keep the larger block.
    }
  }
}

// ---- construction ----

// Inline: a short heap string (24 to 64 chars) costs a pop, two moves and
// three stores here, and a call around them would cost about as much again.
template <class A>
inline void basic_string<A>::init_heap_copy(const char* s, size_type n) {
  if (n > max_size()) detail::throw_string_length_error("fl::string::basic_string");
  const detail::heap_block b = allocate_block(n);
  detail::copy_bytes(b.data, s, n);
  b.data[n] = '\0';
  core_.set_heap(b.data, n, b.capacity);
}

template <class A>
void basic_string<A>::init_fill(size_type n, char ch) {
  if (n <= core::inline_capacity) {
    core_.set_empty();
    std::memset(core_.bytes(), static_cast<unsigned char>(ch), n);
    core_.set_inline_size(n);
    return;
  }
  if (n > max_size()) detail::throw_string_length_error("fl::string::basic_string");
  const size_type bytes = block_bytes(n);
  char* p = alloc_traits::allocate(alloc_, bytes);
  std::memset(p, static_cast<unsigned char>(ch), n);
  p[n] = '\0';
  core_.set_heap(p, n, bytes - 1);
}

// The C++23 rvalue-substring constructors: reuse other's buffer when the
// allocators allow it, so s = std::move(t).substr(1) does not allocate.
template <class A>
void basic_string<A>::init_from_rvalue(basic_string&& other, size_type pos, size_type count) {
  const size_type sz = other.size();
  if (pos > sz)
    detail::throw_out_of_range("fl::string::basic_string", "pos", pos, ">", "size()", sz);
  const size_type len = std::min(count, sz - pos);
  if (!other.core_.is_heap() || alloc_traits::is_always_equal::value || alloc_ == other.alloc_) {
    core_ = other.core_;
    other.core_.set_empty();
    char* p = data();
    if (pos && len) std::memmove(p, p + pos, len);
    core_.set_size_any(len);
  } else {
    init_copy(other.data() + pos, len);
  }
}

template <class A>
template <class E>
void basic_string<A>::init_expr(const E& e) {
  const size_type n = static_cast<size_type>(e.size());
  if (n <= core::inline_capacity) {
    core_.set_empty();
    e.write(core_.bytes());
    core_.set_inline_size(n);
    return;
  }
  if (n > max_size()) detail::throw_string_length_error("fl::string::basic_string");
  const size_type bytes = block_bytes(n);
  char* p = alloc_traits::allocate(alloc_, bytes);
  e.write(p);
  p[n] = '\0';
  core_.set_heap(p, n, bytes - 1);
}

// ---- assignment ----

// With an allocator that propagates on copy assignment, *this ends with
// other's allocator: when the two differ, copy_with_allocator; when they are
// equal, the text is copied first and the allocator after, so a throw leaves
// both as they were.
template <class A>
basic_string<A>& basic_string<A>::operator=(const basic_string& other) {
  if (this == &other) return *this;
  if constexpr (alloc_traits::propagate_on_container_copy_assignment::value) {
    if constexpr (!alloc_traits::is_always_equal::value) {
      if (alloc_ != other.alloc_) return copy_with_allocator(other);
    }
    copy_text(other);
    alloc_ = other.alloc_;
    return *this;
  } else {
    return copy_text(other);
  }
}

// The old block belongs to the old allocator and the new text must live in
// other's: the new block is taken from a copy of other's allocator before
// anything changes (if that throws, *this is as it was), then the old block
// goes back to the old allocator and the new allocator is adopted.
template <class A>
basic_string<A>& basic_string<A>::copy_with_allocator(const basic_string& other) {
  A a = other.alloc_;
  core fresh = other.core_;  // an inline string is its 24 bytes
  if (other.core_.is_heap()) {
    const size_type n = other.core_.size;
    const size_type bytes = block_bytes(n);
    char* p = alloc_traits::allocate(a, bytes);
    std::memcpy(p, other.core_.ptr, n + 1);
    fresh.set_heap(p, n, bytes - 1);
  }
  free_storage();
  alloc_ = std::move(a);
  core_ = fresh;
  return *this;
}

// Two distinct strings never overlap, so a plain copy is enough here. The
// common case of a kept string (capacity that fits) falls through to a copy
// without a library call for up to 64 bytes.
template <class A>
inline basic_string<A>& basic_string<A>::copy_text(const basic_string& other) {
  if (core_.is_heap()) [[likely]] {
    const size_type n = other.size();
    if (n <= heap_capacity()) [[likely]] {
      char* p = core_.ptr;
      detail::copy_bytes(p, other.data(), n);
      p[n] = '\0';
      core_.size = n;
      return *this;
    }
  } else if (!other.core_.is_heap()) {
    core_ = other.core_;  // inline to inline: 24 bytes
    return *this;
  }
  return assign(other.data(), other.size());
}

template <class A>
basic_string<A>& basic_string<A>::operator=(basic_string&& other) noexcept(
    alloc_traits::propagate_on_container_move_assignment::value ||
    alloc_traits::is_always_equal::value) {
  if (this == &other) return *this;
  if constexpr (alloc_traits::propagate_on_container_move_assignment::value ||
                alloc_traits::is_always_equal::value) {
    free_storage();
    if constexpr (alloc_traits::propagate_on_container_move_assignment::value)
      alloc_ = std::move(other.alloc_);
    core_.copy_words(other.core_);
    other.core_.set_empty();
  } else {
    if (!other.core_.is_heap() || alloc_ == other.alloc_) {
      free_storage();
      core_.copy_words(other.core_);
      other.core_.set_empty();
    } else {
      assign(other.data(), other.size());  // different resources: copy
    }
  }
  return *this;
}

// Reuses the buffer when it is big enough (the source may lie inside it:
// memmove); otherwise allocates exactly (rounded to the size class), copies,
// and only then frees the old block.
template <class A>
basic_string<A>& basic_string<A>::assign(const char* s, size_type n) {
  if (n <= capacity()) {
    char* p = data();
    if (n) std::memmove(p, s, n);
    core_.set_size_any(n);
    return *this;
  }
  return assign_fresh(n, "fl::string::assign", [s, n](char* dest) { std::memcpy(dest, s, n); });
}

// The expression may read *this (s = s + "x"), so it is written to a fresh
// place first: the stack for a short result, a new block otherwise.
template <class A>
basic_string<A>& basic_string<A>::assign_expr(const auto& e) {
  const size_type n = static_cast<size_type>(e.size());
  if (n <= core::inline_capacity) {
    char tmp[core::inline_capacity + 1];
    e.write(tmp);
    return assign(tmp, n);
  }
  return assign_fresh(n, "fl::string::operator=", [&e](char* dest) { e.write(dest); });
}

// The content becomes the n chars that write(dest) puts in a fresh block of
// exactly n chars (rounded up to the size class) and the terminator; the old
// block is freed only after, so write may read it. Throws std::length_error
// naming `fn` if n > max_size(); *this is unchanged after a throw.
template <class A>
basic_string<A>& basic_string<A>::assign_fresh(size_type n, const char* fn, const auto& write) {
  if (n > max_size()) detail::throw_string_length_error(fn);
  const size_type bytes = block_bytes(n);
  char* p = alloc_traits::allocate(alloc_, bytes);
  write(p);
  p[n] = '\0';
  if (core_.is_heap()) deallocate_block(core_.ptr, heap_capacity());
  core_.set_heap(p, n, bytes - 1);
  return *this;
}

// In place when the capacity suffices (the expression then reads only
// [0, size()), which the write does not touch), with one fast path per mode as
// in append(const char*, n); otherwise append_expr_grow.
template <class A>
template <class E>
inline basic_string<A>& basic_string<A>::append_expr(const E& e) {
  const size_type n = static_cast<size_type>(e.size());
  if (core_.is_heap()) {
    const size_type sz = core_.size;
    if (n <= core_.heap_capacity() - sz) [[likely]] {
      // Room in a real block: below 2^62 bytes, past any 64-bit address
      // space (48 or 57 bits). Saying so spares GCC's -Wrestrict false alarms
      // about the huge writes it imagines for a view of max_size() chars.
      if (n >= (std::size_t{1} << 62)) __builtin_unreachable();
      char* p = core_.ptr;
      e.write(p + sz);
      p[sz + n] = '\0';
      core_.size = sz + n;
      return *this;
    }
  } else {
    const size_type left = core_.tag();  // inline: the room
    if (left > core::inline_capacity) __builtin_unreachable();
    if (n <= left) [[likely]] {
      const size_type sz = core::inline_capacity - left;
      e.write(core_.bytes() + sz);
      core_.set_inline_size(sz + n);
      return *this;
    }
  }
  return append_expr_grow(e, n);
}

template <class A>
template <class E>
basic_string<A>& basic_string<A>::append_expr_grow(const E& e, size_type n) {
  const size_type sz = size();
  if (n > max_size() - sz) detail::throw_string_length_error("fl::string::append");
  return append_fresh(grown_capacity(sz + n), n, [&e](char* dest) { e.write(dest); });
}

// Growth by a fresh block for at least `capacity` chars (grown_capacity): it
// receives the old content and then the n new chars, written by
// write(dest), before the old block is freed, so the new chars may come from
// the old content. On a cached pool class this is two inline list operations
// (pop, push) around the copies. Callers have checked that size() + n <=
// max_size(). Strong guarantee.
template <class A>
basic_string<A>& basic_string<A>::append_fresh(size_type capacity, size_type n, const auto& write) {
  const size_type sz = size();
  const detail::heap_block b = allocate_block(capacity);
  detail::copy_bytes(b.data, data(), sz);
  write(b.data + sz);
  b.data[sz + n] = '\0';
  if (core_.is_heap()) deallocate_block(core_.ptr, heap_capacity());
  core_.set_heap(b.data, sz + n, b.capacity);
  return *this;
}

// ---- replace: the one general edit ----

// Replaces [pos, pos + n1) by [s, s + n2). Callers have checked pos <= size()
// and clamped n1 <= size() - pos. The source may lie inside *this (before or
// after growth: grow_keep moves s along), and may straddle the replaced part.
template <class A>
basic_string<A>& basic_string<A>::replace_raw(size_type pos, size_type n1, const char* s,
                                              size_type n2) {
  const size_type sz = size();
  if (n2 > n1 && n2 - n1 > max_size() - sz)
    detail::throw_string_length_error("fl::string::replace");
  const size_type new_size = sz - n1 + n2;
  char* p = data();
  if (new_size > capacity()) p = grow_keep(new_size, s);
  char* d = p + pos;
  const size_type tail = sz - pos - n1;
  const bool alias = n2 != 0 && detail::points_into(s, p, p + sz);
  if (!alias) {
    if (tail && n1 != n2) std::memmove(d + n2, d + n1, tail);
    if (n2) std::memcpy(d, s, n2);
  } else if (n2 <= n1) {
    // Shrinking or same size: copy the source first (it is read before the
    // tail moves left over it), then close the gap.
    std::memmove(d, s, n2);
    if (tail && n1 != n2) std::memmove(d + n2, d + n1, tail);
  } else {
    // Growing: open the gap first; source bytes at or after d + n1 have moved
    // right by n2 - n1.
    if (tail) std::memmove(d + n2, d + n1, tail);
    if (s + n2 <= d + n1) {
      std::memmove(d, s, n2);
    } else if (s >= d + n1) {
      std::memcpy(d, s + (n2 - n1), n2);
    } else {
      const size_type left = static_cast<size_type>((d + n1) - s);
      std::memmove(d, s, left);
      std::memcpy(d + left, d + n2, n2 - left);
    }
  }
  core_.set_size_any(new_size);
  return *this;
}

template <class A>
basic_string<A>& basic_string<A>::replace_fill(size_type pos, size_type n1, size_type n2, char ch) {
  const size_type sz = size();
  if (n2 > n1 && n2 - n1 > max_size() - sz)
    detail::throw_string_length_error("fl::string::replace");
  const size_type new_size = sz - n1 + n2;
  char* p = data();
  if (new_size > capacity()) {
    const char* none = nullptr;
    p = grow_keep(new_size, none);
  }
  char* d = p + pos;
  const size_type tail = sz - pos - n1;
  if (tail && n1 != n2) std::memmove(d + n2, d + n1, tail);
  if (n2) std::memset(d, static_cast<unsigned char>(ch), n2);
  core_.set_size_any(new_size);
  return *this;
}

// Reached when append's inline test fails: the string must grow (or is so
// large that its capacity does not fit the 32 bits the fast path reads). A
// source inside *this lies in [data(), data() + size()): append_fresh copies
// it before it frees the old block, grow_keep (for blocks past the pool's
// cached classes) moves it along with the text, and in place it never
// overlaps the bytes written after size().
template <class A>
basic_string<A>& basic_string<A>::append_slow(const char* s, size_type n) {
  const size_type sz = size();
  if (n > max_size() - sz) [[unlikely]]
    detail::throw_string_length_error("fl::string::append");
  char* p;
  const size_type cap = n <= capacity() - sz ? 0 : grown_capacity(sz + n);
  if (cap == 0) [[unlikely]] {
    p = data();  // room to spare in a string of 4 GiB or more
  } else if (detail::is_pool_allocator_v<A> && cap >= detail::pool_max_cached_bytes) {
    p = grow_keep(sz + n, s);  // pool_reallocate may extend the block in place
  } else {
    return append_fresh(cap, n, [s, n](char* dest) { detail::copy_bytes(dest, s, n); });
  }
  detail::copy_bytes(p + sz, s, n);
  core_.set_size_any(sz + n);
  return *this;
}

template <class A>
void basic_string<A>::push_back_slow(char ch) {
  // push_back tests the full capacity word in both modes, so only a full
  // string gets here.
  const size_type sz = size();
  const char* none = nullptr;
  char* p = grow_keep(sz + 1, none);
  p[sz] = ch;
  core_.set_size_any(sz + 1);
}

// Contiguous char ranges go straight to replace_raw (which handles a source
// inside *this); anything else is first collected into a temporary, which
// also makes iterators into *this safe.
template <class A>
template <detail::legacy_input_iterator InputIt>
basic_string<A>& basic_string<A>::replace(const_iterator first, const_iterator last, InputIt first2,
                                          InputIt last2) {
  if constexpr (std::contiguous_iterator<InputIt> &&
                std::is_same_v<std::iter_value_t<InputIt>, char>) {
    const auto n = static_cast<size_type>(last2 - first2);
    return replace_iters(first, last, n ? std::to_address(first2) : nullptr, n);
  } else {
    basic_string tmp(alloc_);
    if constexpr (std::is_convertible_v<typename std::iterator_traits<InputIt>::iterator_category,
                                        std::forward_iterator_tag>) {
      tmp.reserve(static_cast<size_type>(std::distance(first2, last2)));
    }
    for (; first2 != last2; ++first2) tmp.push_back(static_cast<char>(*first2));
    return replace_iters(first, last, tmp.data(), tmp.size());
  }
}

template <class A>
template <detail::char_range R>
basic_string<A>& basic_string<A>::replace_with_range(const_iterator first, const_iterator last,
                                                     R&& rg) {
  if constexpr (std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                std::is_same_v<std::ranges::range_value_t<R>, char>) {
    const auto n = static_cast<size_type>(std::ranges::size(rg));
    return replace_iters(first, last, n ? std::ranges::data(rg) : nullptr, n);
  } else {
    basic_string tmp(alloc_);
    if constexpr (std::ranges::sized_range<R>)
      tmp.reserve(static_cast<size_type>(std::ranges::size(rg)));
    for (auto&& c : rg) tmp.push_back(static_cast<char>(c));
    return replace_iters(first, last, tmp.data(), tmp.size());
  }
}

template <class A>
template <class Operation>
void basic_string<A>::resize_and_overwrite(size_type count, Operation op) {
  if (count > capacity()) reserve_slow(count);
  char* p = data();
  const auto r = std::move(op)(p, count);
  core_.set_size_any(static_cast<size_type>(r));
}

}  // namespace FL_ABI_NS
}  // namespace fl
