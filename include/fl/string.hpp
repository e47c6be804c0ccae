// fl/string.hpp: fl::basic_string, a drop-in for std::string (the whole C++23
// std::basic_string<char> interface) in 24 bytes with 23 chars inline, over the
// thread-local pool (fl::string) or any standard allocator (fl::pmr::string).
//
// Differences from std::string that users can observe: sizeof is 24 (with a
// stateless allocator), capacity() of a short string is 23, growth lands on the
// pool's size classes, and nothing is constexpr. docs/porting.md lists every
// difference with its one-line fix.
// For text edited by splicing in the middle, use fl::rope; for shared
// immutable text, fl::immutable_string.
//
// Threads: like std::string: concurrent const calls are safe, anything else on
// one string needs external synchronization. A string may be destroyed on any
// thread (the pool accepts frees from any thread).
#pragma once

#include <fl/detail/string_fwd.hpp>  // first: config, concat_fwd, find, pool, the traits

#include <fl/detail/string_core.hpp>
#include <fl/detail/string_iterator.hpp>

#include <algorithm>
#include <compare>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {

// The source forms that assign() and append() both take, as std::string has
// them, written once for both: op(str, pos, count), op(s), op(first, last),
// op({chars}), op(view), op(view, pos, count) and op_range(r). Each reduces
// its source to (pointer, size) for op(const char*, size_type), or hands an
// iterator pair or a range to replace over [first, last): the whole string
// for assign, its empty end for append. Out-of-range positions throw
// std::out_of_range naming fl::string::<op>. Defined in the class below.
#define FL_STRING_SOURCE_FORMS_(op, first, last)                                         \
  basic_string& op(const basic_string& str, size_type pos, size_type count = npos) {     \
    return op(str.substr_view(pos, count, "fl::string::" #op));                          \
  }                                                                                      \
  basic_string& op(const char* s) { return op(s, traits_type::length(s)); }              \
  template <detail::legacy_input_iterator InputIt>                                       \
  basic_string& op(InputIt i, InputIt j) {                                               \
    return replace(first, last, i, j);                                                   \
  }                                                                                      \
  basic_string& op(std::initializer_list<char> il) { return op(il.begin(), il.size()); } \
  template <detail::string_view_like T>                                                  \
  basic_string& op(const T& t) {                                                         \
    const std::string_view sv = t;                                                       \
    return op(sv.data(), sv.size());                                                     \
  }                                                                                      \
  template <detail::string_view_like T>                                                  \
  basic_string& op(const T& t, size_type pos, size_type count = npos) {                  \
    return op(checked_sub(t, pos, count, "fl::string::" #op));                           \
  }                                                                                      \
  template <detail::char_range R>                                                        \
  basic_string& op##_range(R&& rg) {                                                     \
    return replace_with_range(first, last, std::forward<R>(rg));                         \
  }

// A byte string with the interface of std::basic_string<char>. See the file
// comment for what differs; every member below has std::string's contract
// (effects, complexity, exceptions) unless its comment says more.
// Exception safety: a member that throws leaves *this unchanged.
template <class Allocator>
class basic_string {
  using alloc_traits = std::allocator_traits<Allocator>;
  static_assert(std::is_same_v<typename alloc_traits::value_type, char>,
                "fl::basic_string holds char");
  static_assert(std::is_same_v<typename alloc_traits::pointer, char*>,
                "fancy pointers are not supported");
  using core = detail::string_core;

 public:
  using traits_type = std::char_traits<char>;
  using value_type = char;
  using allocator_type = Allocator;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = char&;
  using const_reference = const char&;
  using pointer = char*;
  using const_pointer = const char*;
  using iterator = detail::string_iterator<char>;
  using const_iterator = detail::string_iterator<const char>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  static constexpr size_type npos = static_cast<size_type>(-1);

  // ---- construction (never allocates for <= 23 chars) ----
  basic_string() noexcept(noexcept(Allocator())) : basic_string(Allocator()) {}
  explicit basic_string(const Allocator& a) noexcept : alloc_(a) { core_.set_empty(); }
  basic_string(size_type count, char ch, const Allocator& a = Allocator()) : alloc_(a) {
    init_fill(count, ch);
  }
  basic_string(const basic_string& other, size_type pos, const Allocator& a = Allocator())
      : alloc_(a) {
    init_copy(other.substr_view(pos, npos, "fl::string::basic_string"));
  }
  basic_string(basic_string&& other, size_type pos, const Allocator& a = Allocator()) : alloc_(a) {
    init_from_rvalue(std::move(other), pos, npos);
  }
  basic_string(const basic_string& other, size_type pos, size_type count,
               const Allocator& a = Allocator())
      : alloc_(a) {
    init_copy(other.substr_view(pos, count, "fl::string::basic_string"));
  }
  basic_string(basic_string&& other, size_type pos, size_type count,
               const Allocator& a = Allocator())
      : alloc_(a) {
    init_from_rvalue(std::move(other), pos, count);
  }
  basic_string(const char* s, size_type count, const Allocator& a = Allocator()) : alloc_(a) {
    init_copy(s, count);
  }
  basic_string(const char* s, const Allocator& a = Allocator()) : alloc_(a) {
    init_copy(s, traits_type::length(s));
  }
  template <detail::legacy_input_iterator InputIt>
  basic_string(InputIt first, InputIt last, const Allocator& a = Allocator()) : alloc_(a) {
    core_.set_empty();
    append(first, last);
  }
  basic_string(const basic_string& other);
  basic_string(const basic_string& other, const Allocator& a);
  basic_string(basic_string&& other) noexcept;
  basic_string(basic_string&& other, const Allocator& a);
  basic_string(std::initializer_list<char> il, const Allocator& a = Allocator()) : alloc_(a) {
    init_copy(il.begin(), il.size());
  }
  template <detail::string_view_like T>
  requires(!detail::std_string_based<T>) explicit basic_string(const T& t,
                                                               const Allocator& a = Allocator())
      : alloc_(a) {
    const std::string_view sv = t;
    init_copy(sv.data(), sv.size());
  }
  // From std::string, implicitly, so that code written for std::string ports
  // unchanged (`fl::string s = std::to_string(n);`). Copies the text.
  // A template, so that a braced list (`fl::string s({p, n});`) cannot reach
  // it: as in std::string (LWG 2946), such a list builds an fl string, not a
  // std::string, and picks the same overload it picks there.
  template <detail::std_string_based S>
  basic_string(const S& s, const Allocator& a = Allocator()) : alloc_(a) {
    init_copy(s.data(), s.size());
  }
  template <detail::string_view_convertible T>
  basic_string(const T& t, size_type pos, size_type n, const Allocator& a = Allocator())
      : alloc_(a) {
    const std::string_view sv = t;
    init_copy(checked_sub(sv, pos, n, "fl::string::basic_string"));
  }
  basic_string(std::nullptr_t) = delete;
  // A planned concatenation (detail/concat_fwd.hpp: fl::concat, operator+):
  // one allocation at most.
  template <detail::concat_expr E>
  basic_string(const E& e, const Allocator& a = Allocator()) : alloc_(a) {
    init_expr(e);
  }

  ~basic_string() {
    if (core_.is_heap()) {
      if constexpr (detail::is_pool_allocator_v<Allocator>) {
        detail::pool_deallocate(core_.ptr, heap_capacity() + 1);
      } else {
        destroy_heap();  // out of line: GCC otherwise "sees" inline bytes freed
      }
    }
  }

  // ---- assignment ----
  // When the allocator propagates on copy assignment, *this takes other's
  // allocator, and its new block comes from that allocator; after a throw,
  // *this keeps its text and its allocator.
  basic_string& operator=(const basic_string& other);
  basic_string& operator=(basic_string&& other) noexcept(
      alloc_traits::propagate_on_container_move_assignment::value ||
      alloc_traits::is_always_equal::value);
  basic_string& operator=(const char* s) { return assign(s, traits_type::length(s)); }
  basic_string& operator=(char ch) { return assign(size_type{1}, ch); }
  basic_string& operator=(std::initializer_list<char> il) { return assign(il.begin(), il.size()); }
  template <detail::string_view_like T>
  basic_string& operator=(const T& t) {
    return assign(t);
  }
  basic_string& operator=(std::nullptr_t) = delete;
  template <detail::concat_expr E>
  basic_string& operator=(const E& e) {
    return assign_expr(e);
  }

  basic_string& assign(size_type count, char ch) { return replace_fill(0, size(), count, ch); }
  basic_string& assign(const basic_string& str) {
    if (this != &str) assign(str.data(), str.size());
    return *this;
  }
  basic_string& assign(basic_string&& str) noexcept(
      noexcept(std::declval<basic_string&>() = std::move(str))) {
    return *this = std::move(str);
  }
  basic_string& assign(const char* s, size_type count);
  FL_STRING_SOURCE_FORMS_(assign, cbegin(), cend())

  allocator_type get_allocator() const noexcept { return alloc_; }

  // ---- element access ----
  reference at(size_type pos) {
    if (pos >= size()) [[unlikely]]
      detail::throw_out_of_range("fl::string::at", "pos", pos, ">=", "size()", size());
    return data()[pos];
  }
  const_reference at(size_type pos) const {
    if (pos >= size()) [[unlikely]]
      detail::throw_out_of_range("fl::string::at", "pos", pos, ">=", "size()", size());
    return data()[pos];
  }
  reference operator[](size_type pos) noexcept { return data()[pos]; }
  const_reference operator[](size_type pos) const noexcept { return data()[pos]; }
  reference front() noexcept { return data()[0]; }
  const_reference front() const noexcept { return data()[0]; }
  reference back() noexcept { return data()[size() - 1]; }
  const_reference back() const noexcept { return data()[size() - 1]; }
  char* data() noexcept { return core_.data_any(); }
  const char* data() const noexcept { return core_.data_any(); }
  const char* c_str() const noexcept { return core_.data_any(); }
  operator std::string_view() const noexcept { return std::string_view(data(), size()); }
  // A copy as a std::string, for the many APIs that take `const std::string&`
  // (std::stoi, std::istringstream, ...). Implicit so that such calls port
  // unchanged; each use allocates like any std::string copy (over 15 chars).
  operator std::string() const { return std::string(data(), size()); }

  // ---- iterators ----
  iterator begin() noexcept { return iterator(data()); }
  const_iterator begin() const noexcept { return const_iterator(data()); }
  const_iterator cbegin() const noexcept { return begin(); }
  iterator end() noexcept { return iterator(data() + size()); }
  const_iterator end() const noexcept { return const_iterator(data() + size()); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator crbegin() const noexcept { return rbegin(); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
  const_reverse_iterator crend() const noexcept { return rend(); }

  // ---- capacity ----
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  size_type size() const noexcept { return core_.size_any(); }
  size_type length() const noexcept { return size(); }
  // The capacity word keeps its top bit as the mode flag, so capacities stay
  // below 2^63; the allocator may allow less.
  size_type max_size() const noexcept {
    return detail::string_max_size(alloc_traits::max_size(alloc_));
  }
  // Grows the capacity to at least new_cap (rounded up to the pool's size
  // class); never shrinks (C++20). Throws std::length_error if
  // new_cap > max_size(). The deprecated no-argument form is not provided:
  // it was a non-binding shrink request; use shrink_to_fit().
  void reserve(size_type new_cap) {
    if (new_cap > capacity()) reserve_slow(new_cap);
  }
  size_type capacity() const noexcept { return core_.capacity_any(); }
  // Returns to inline storage when size() <= 23, else to the smallest block
  // that holds size() + 1 bytes. Non-binding like std::string's: a failed
  // allocation leaves the string as it was.
  void shrink_to_fit();

  // ---- modifiers ----
  void clear() noexcept { core_.set_size_any(0); }

  basic_string& insert(size_type index, size_type count, char ch) {
    check_pos(index, "fl::string::insert");
    return replace_fill(index, 0, count, ch);
  }
  basic_string& insert(size_type index, const char* s) {
    return insert(index, s, traits_type::length(s));
  }
  basic_string& insert(size_type index, const char* s, size_type count) {
    check_pos(index, "fl::string::insert");
    return replace_raw(index, 0, s, count);
  }
  basic_string& insert(size_type index, const basic_string& str) {
    return insert(index, str.data(), str.size());
  }
  basic_string& insert(size_type index, const basic_string& str, size_type index_str,
                       size_type count = npos) {
    check_pos(index, "fl::string::insert");
    const std::string_view sv = str.substr_view(index_str, count, "fl::string::insert");
    return replace_raw(index, 0, sv.data(), sv.size());
  }
  iterator insert(const_iterator pos, char ch) {
    const size_type i = index_of(pos);
    replace_fill(i, 0, 1, ch);
    return begin() + static_cast<difference_type>(i);
  }
  iterator insert(const_iterator pos, size_type count, char ch) {
    const size_type i = index_of(pos);
    replace_fill(i, 0, count, ch);
    return begin() + static_cast<difference_type>(i);
  }
  template <detail::legacy_input_iterator InputIt>
  iterator insert(const_iterator pos, InputIt first, InputIt last) {
    const size_type i = index_of(pos);
    replace(pos, pos, first, last);
    return begin() + static_cast<difference_type>(i);
  }
  iterator insert(const_iterator pos, std::initializer_list<char> il) {
    const size_type i = index_of(pos);
    replace_raw(i, 0, il.begin(), il.size());
    return begin() + static_cast<difference_type>(i);
  }
  template <detail::string_view_like T>
  basic_string& insert(size_type index, const T& t) {
    const std::string_view sv = t;
    return insert(index, sv.data(), sv.size());
  }
  template <detail::string_view_like T>
  basic_string& insert(size_type index, const T& t, size_type index_str, size_type count = npos) {
    check_pos(index, "fl::string::insert");
    const std::string_view sv = checked_sub(t, index_str, count, "fl::string::insert");
    return replace_raw(index, 0, sv.data(), sv.size());
  }
  template <detail::char_range R>
  iterator insert_range(const_iterator pos, R&& rg) {
    const size_type i = index_of(pos);
    replace_with_range(pos, pos, std::forward<R>(rg));
    return begin() + static_cast<difference_type>(i);
  }

  basic_string& erase(size_type index = 0, size_type count = npos) {
    const size_type sz = size();
    check_pos(index, "fl::string::erase");
    erase_raw(index, std::min(count, sz - index));
    return *this;
  }
  iterator erase(const_iterator pos) {
    const size_type i = index_of(pos);
    erase_raw(i, 1);
    return begin() + static_cast<difference_type>(i);
  }
  iterator erase(const_iterator first, const_iterator last) {
    const size_type i = index_of(first);
    erase_raw(i, static_cast<size_type>(last - first));
    return begin() + static_cast<difference_type>(i);
  }

  // Amortized O(1): string_core::push_back_fits, then growth when full.
  void push_back(char ch) {
    if (core_.push_back_fits(ch)) [[likely]]
      return;
    push_back_slow(ch);
  }
  void pop_back() noexcept { core_.set_size_any(size() - 1); }

  basic_string& append(size_type count, char ch) { return replace_fill(size(), 0, count, ch); }
  basic_string& append(const basic_string& str) { return append(str.data(), str.size()); }
  // The fast paths copy into spare capacity, one per mode (as in
  // push_back); a source inside *this lies in [data(), data() + size()) and so
  // never overlaps the bytes written.
  basic_string& append(const char* s, size_type count);
  FL_STRING_SOURCE_FORMS_(append, cend(), cend())
  template <detail::concat_expr E>
  basic_string& append(const E& e) {
    return append_expr(e);
  }

  basic_string& operator+=(const basic_string& str) { return append(str.data(), str.size()); }
  basic_string& operator+=(char ch) {
    push_back(ch);
    return *this;
  }
  basic_string& operator+=(const char* s) { return append(s, traits_type::length(s)); }
  basic_string& operator+=(std::initializer_list<char> il) { return append(il.begin(), il.size()); }
  template <detail::string_view_like T>
  basic_string& operator+=(const T& t) {
    return append(t);
  }
  template <detail::concat_expr E>
  basic_string& operator+=(const E& e) {
    return append_expr(e);
  }

  basic_string& replace(size_type pos, size_type count, const basic_string& str) {
    return replace(pos, count, str.data(), str.size());
  }
  basic_string& replace(const_iterator first, const_iterator last, const basic_string& str) {
    return replace_iters(first, last, str.data(), str.size());
  }
  basic_string& replace(size_type pos, size_type count, const basic_string& str, size_type pos2,
                        size_type count2 = npos) {
    check_pos(pos, "fl::string::replace");
    const std::string_view sv = str.substr_view(pos2, count2, "fl::string::replace");
    return replace_raw(pos, std::min(count, size() - pos), sv.data(), sv.size());
  }
  template <detail::legacy_input_iterator InputIt>
  basic_string& replace(const_iterator first, const_iterator last, InputIt first2, InputIt last2);
  basic_string& replace(size_type pos, size_type count, const char* s, size_type count2) {
    check_pos(pos, "fl::string::replace");
    return replace_raw(pos, std::min(count, size() - pos), s, count2);
  }
  basic_string& replace(const_iterator first, const_iterator last, const char* s,
                        size_type count2) {
    return replace_iters(first, last, s, count2);
  }
  basic_string& replace(size_type pos, size_type count, const char* s) {
    return replace(pos, count, s, traits_type::length(s));
  }
  basic_string& replace(const_iterator first, const_iterator last, const char* s) {
    return replace_iters(first, last, s, traits_type::length(s));
  }
  basic_string& replace(size_type pos, size_type count, size_type count2, char ch) {
    check_pos(pos, "fl::string::replace");
    return replace_fill(pos, std::min(count, size() - pos), count2, ch);
  }
  basic_string& replace(const_iterator first, const_iterator last, size_type count2, char ch) {
    return replace_fill(index_of(first), static_cast<size_type>(last - first), count2, ch);
  }
  basic_string& replace(const_iterator first, const_iterator last, std::initializer_list<char> il) {
    return replace_iters(first, last, il.begin(), il.size());
  }
  template <detail::string_view_like T>
  basic_string& replace(size_type pos, size_type count, const T& t) {
    const std::string_view sv = t;
    return replace(pos, count, sv.data(), sv.size());
  }
  template <detail::string_view_like T>
  basic_string& replace(const_iterator first, const_iterator last, const T& t) {
    const std::string_view sv = t;
    return replace_iters(first, last, sv.data(), sv.size());
  }
  template <detail::string_view_like T>
  basic_string& replace(size_type pos, size_type count, const T& t, size_type pos2,
                        size_type count2 = npos) {
    check_pos(pos, "fl::string::replace");
    const std::string_view sv = checked_sub(t, pos2, count2, "fl::string::replace");
    return replace_raw(pos, std::min(count, size() - pos), sv.data(), sv.size());
  }
  template <detail::char_range R>
  basic_string& replace_with_range(const_iterator first, const_iterator last, R&& rg);

  // Copies [pos, pos + min(count, size() - pos)) to dest (no terminator).
  // Throws std::out_of_range if pos > size().
  size_type copy(char* dest, size_type count, size_type pos = 0) const;

  void resize(size_type count) { resize(count, '\0'); }
  void resize(size_type count, char ch);
  // Makes room for count chars, lets op write them, and keeps the first
  // op(data(), count) of them. Chars past the old size() are indeterminate
  // when op sees them. Throws std::length_error if count > max_size().
  template <class Operation>
  void resize_and_overwrite(size_type count, Operation op);

  void swap(basic_string& other) noexcept(
      std::allocator_traits<Allocator>::propagate_on_container_swap::value ||
      std::allocator_traits<Allocator>::is_always_equal::value) {
    if constexpr (alloc_traits::propagate_on_container_swap::value) {
      using std::swap;
      swap(alloc_, other.alloc_);
    }
    std::swap(core_, other.core_);
  }

  // ---- search (fl::find and friends; std::string's semantics) ----
  // find is always inlined: a literal needle's strlen folds to a constant and
  // short haystacks are searched in place (detail/find_short.hpp), at -O2 too.
  [[gnu::always_inline]] size_type find(const basic_string& str, size_type pos = 0) const noexcept {
    return fl::find(*this, str, pos);
  }
  [[gnu::always_inline]] size_type find(const char* s, size_type pos,
                                        size_type count) const noexcept {
    return fl::find(*this, {s, count}, pos);
  }
  [[gnu::always_inline]] size_type find(const char* s, size_type pos = 0) const noexcept {
    return fl::find(*this, s, pos);
  }
  [[gnu::always_inline]] size_type find(char ch, size_type pos = 0) const noexcept {
    return fl::find(*this, std::string_view(&ch, 1), pos);
  }
  template <detail::string_view_like T>
  [[gnu::always_inline]] size_type find(const T& t, size_type pos = 0) const
      noexcept(std::is_nothrow_convertible_v<const T&, std::string_view>) {
    return fl::find(*this, t, pos);
  }
  size_type rfind(const basic_string& str, size_type pos = npos) const noexcept {
    return fl::rfind(*this, str, pos);
  }
  size_type rfind(const char* s, size_type pos, size_type count) const noexcept {
    return fl::rfind(*this, {s, count}, pos);
  }
  size_type rfind(const char* s, size_type pos = npos) const noexcept {
    return fl::rfind(*this, s, pos);
  }
  size_type rfind(char ch, size_type pos = npos) const noexcept {
    return fl::rfind(*this, {&ch, 1}, pos);
  }
  template <detail::string_view_like T>
  size_type rfind(const T& t, size_type pos = npos) const
      noexcept(std::is_nothrow_convertible_v<const T&, std::string_view>) {
    return fl::rfind(*this, t, pos);
  }
#define FL_STRING_SET_SEARCH(name, dflt)                                          \
  size_type name(const basic_string& str, size_type pos = dflt) const noexcept {  \
    return fl::name(*this, str, pos);                                             \
  }                                                                               \
  size_type name(const char* s, size_type pos, size_type count) const noexcept {  \
    return fl::name(*this, {s, count}, pos);                                      \
  }                                                                               \
  size_type name(const char* s, size_type pos = dflt) const noexcept {            \
    return fl::name(*this, s, pos);                                               \
  }                                                                               \
  size_type name(char ch, size_type pos = dflt) const noexcept {                  \
    return fl::name(*this, {&ch, 1}, pos);                                        \
  }                                                                               \
  template <detail::string_view_like T>                                           \
  size_type name(const T& t, size_type pos = dflt)                                \
      const noexcept(std::is_nothrow_convertible_v<const T&, std::string_view>) { \
    return fl::name(*this, t, pos);                                               \
  }
  FL_STRING_SET_SEARCH(find_first_of, 0)
  FL_STRING_SET_SEARCH(find_last_of, npos)
  FL_STRING_SET_SEARCH(find_first_not_of, 0)
  FL_STRING_SET_SEARCH(find_last_not_of, npos)
#undef FL_STRING_SET_SEARCH

  // ---- operations ----
  // memcmp of the common length, then the lengths (std::string_view's
  // result). Two heap strings, the case where the memcmp matters, take one
  // combined mode test and read ptr and size directly; when their first 8
  // bytes differ (the common case when sorting or probing distinct keys)
  // those bytes, read as big-endian words, decide without calling memcmp.
  int compare(const basic_string& str) const noexcept;
  int compare(size_type pos1, size_type count1, const basic_string& str) const {
    return substr_view(pos1, count1, "fl::string::compare").compare(str.view());
  }
  int compare(size_type pos1, size_type count1, const basic_string& str, size_type pos2,
              size_type count2 = npos) const {
    const std::string_view a = substr_view(pos1, count1, "fl::string::compare");
    return a.compare(str.substr_view(pos2, count2, "fl::string::compare"));
  }
  int compare(const char* s) const { return view().compare(s); }
  int compare(size_type pos1, size_type count1, const char* s) const {
    return substr_view(pos1, count1, "fl::string::compare").compare(s);
  }
  int compare(size_type pos1, size_type count1, const char* s, size_type count2) const {
    return substr_view(pos1, count1, "fl::string::compare").compare(std::string_view(s, count2));
  }
  template <detail::string_view_like T>
  int compare(const T& t) const
      noexcept(std::is_nothrow_convertible_v<const T&, std::string_view>) {
    return view().compare(std::string_view(t));
  }
  template <detail::string_view_like T>
  int compare(size_type pos1, size_type count1, const T& t) const {
    return substr_view(pos1, count1, "fl::string::compare").compare(std::string_view(t));
  }
  template <detail::string_view_like T>
  int compare(size_type pos1, size_type count1, const T& t, size_type pos2,
              size_type count2 = npos) const {
    const std::string_view a = substr_view(pos1, count1, "fl::string::compare");
    return a.compare(checked_sub(t, pos2, count2, "fl::string::compare"));
  }

  bool starts_with(std::string_view sv) const noexcept { return view().starts_with(sv); }
  bool starts_with(char ch) const noexcept { return !empty() && front() == ch; }
  bool starts_with(const char* s) const { return view().starts_with(s); }
  bool ends_with(std::string_view sv) const noexcept { return view().ends_with(sv); }
  bool ends_with(char ch) const noexcept { return !empty() && back() == ch; }
  bool ends_with(const char* s) const { return view().ends_with(s); }
  bool contains(std::string_view sv) const noexcept { return find(sv) != npos; }
  bool contains(char ch) const noexcept { return find(ch) != npos; }
  bool contains(const char* s) const { return find(s) != npos; }

  // As in C++23, the result has a default-constructed allocator.
  basic_string substr(size_type pos = 0, size_type count = npos) const& {
    return basic_string(substr_view(pos, count, "fl::string::substr"));
  }
  basic_string substr(size_type pos = 0, size_type count = npos) && {
    return basic_string(std::move(*this), pos, count);
  }

  // ---- fl extensions ----
  // The same copy as the conversion above, spelled out.
  std::string to_std() const { return std::string(data(), size()); }

  template <class A>
  friend class basic_string;
  friend struct detail::string_access;

 private:
  std::string_view view() const noexcept { return std::string_view(data(), size()); }
  size_type heap_capacity() const noexcept { return core_.heap_capacity(); }
  void check_pos(size_type pos, const char* what) const {
    if (pos > size()) [[unlikely]]
      detail::throw_out_of_range(what, "pos", pos, ">", "size()", size());
  }
  std::string_view substr_view(size_type pos, size_type count, const char* what) const {
    return checked_sub(view(), pos, count, what);
  }
  static std::string_view checked_sub(std::string_view sv, size_type pos, size_type count,
                                      const char* what) {
    if (pos > sv.size()) [[unlikely]]
      detail::throw_out_of_range(what, "pos", pos, ">", "size()", sv.size());
    return sv.substr(pos, count);
  }
  size_type index_of(const_iterator it) const noexcept {
    return static_cast<size_type>(it.base() - data());
  }
  void init_copy(std::string_view sv) { init_copy(sv.data(), sv.size()); }
  void init_copy(const char* s, size_type n);
  basic_string& replace_iters(const_iterator first, const_iterator last, const char* s,
                              size_type n) {
    return replace_raw(index_of(first), static_cast<size_type>(last - first), s, n);
  }
  void erase_raw(size_type pos, size_type n) noexcept;

  // Cold and heavy paths (fl/detail/string_impl.hpp).
  void init_heap_copy(const char* s, size_type n);
  void init_fill(size_type n, char ch);
  void init_from_rvalue(basic_string&& other, size_type pos, size_type count);
  template <class E>
  void init_expr(const E& e);
  basic_string& assign_expr(const auto& e);
  template <class E>
  basic_string& append_expr(const E& e);
  template <class E>
  [[gnu::noinline]] basic_string& append_expr_grow(const E& e, size_type n);
  basic_string& replace_raw(size_type pos, size_type n1, const char* s, size_type n2);
  basic_string& replace_fill(size_type pos, size_type n1, size_type n2, char ch);
  [[gnu::noinline]] basic_string& append_slow(const char* s, size_type n);
  [[gnu::noinline]] void push_back_slow(char ch);
  [[gnu::noinline]] void reserve_slow(size_type new_cap);
  char* grow_keep(size_type new_size, const char*& src);
  size_type grown_capacity(size_type new_size) const;
  detail::heap_block allocate_block(size_type min_capacity);
  basic_string& assign_fresh(size_type n, const char* fn, const auto& write);
  basic_string& copy_text(const basic_string& other);
  basic_string& copy_with_allocator(const basic_string& other);
  basic_string& append_fresh(size_type capacity, size_type n, const auto& write);
  static size_type block_bytes(size_type min_capacity) noexcept;
  void deallocate_block(char* p, size_type capacity) noexcept {
    alloc_traits::deallocate(alloc_, p, capacity + 1);
  }
  [[gnu::noinline]] void destroy_heap() noexcept { deallocate_block(core_.ptr, heap_capacity()); }
  void free_storage() noexcept {
    if (core_.is_heap()) deallocate_block(core_.ptr, heap_capacity());
    core_.set_empty();
  }

  // The string whose representation is c (string_access::from_core).
  struct from_core_tag {};
  basic_string(from_core_tag, const core& c) noexcept : core_(c) {}

  // First, so the string's bytes are its first 24; a stateless allocator takes no space.
  core core_;
  [[no_unique_address]] Allocator alloc_;
};
#undef FL_STRING_SOURCE_FORMS_

// ---- non-member functions ----

template <class A>
bool operator==(const basic_string<A>& a, const basic_string<A>& b) noexcept {
  const std::size_t n = a.size();
  return n == b.size() && std::memcmp(a.data(), b.data(), n) == 0;
}
template <class A>
bool operator==(const basic_string<A>& a, const char* b) {
  return std::string_view(a) == std::string_view(b);
}
template <class A, detail::string_view_like T>
requires(!std::is_same_v<T, basic_string<A>>) bool operator==(
    const basic_string<A>& a,
    const T& b) noexcept(std::is_nothrow_convertible_v<const T&, std::string_view>) {
  return std::string_view(a) == std::string_view(b);
}
template <class A>
std::strong_ordering operator<=>(const basic_string<A>& a, const basic_string<A>& b) noexcept {
  return std::string_view(a) <=> std::string_view(b);
}
template <class A>
std::strong_ordering operator<=>(const basic_string<A>& a, const char* b) {
  return std::string_view(a) <=> std::string_view(b);
}
template <class A, detail::string_view_like T>
requires(!std::is_same_v<T, basic_string<A>>) std::strong_ordering operator<=>(
    const basic_string<A>& a,
    const T& b) noexcept(std::is_nothrow_convertible_v<const T&, std::string_view>) {
  return std::string_view(a) <=> std::string_view(b);
}

// ---- operator+ ----
// std::string's operator+, overload for overload (fl/detail/string_plus.hpp,
// included below): every + returns a new string that owns its text, so
// `auto x = a + b;` is a value; an rvalue operand (the result of an earlier +)
// is appended to in place, so a + b + c + ... grows one buffer on the pool.
// Beside an fl string may stand another string of the same type, a C string, a
// char, or any string_view-like value; a number does not compile (`s + 42`):
// write fl::concat(s, 42), or s + char(42) when a char is meant.

template <class A>
void swap(basic_string<A>& a, basic_string<A>& b) noexcept(noexcept(a.swap(b))) {
  a.swap(b);
}

// fl::erase(s, ch), fl::erase_if(s, pred): std::erase and std::erase_if for
// fl strings (fl/detail/string_impl.hpp).
template <class A, class U>
typename basic_string<A>::size_type erase(basic_string<A>& s, const U& value);
template <class A, class Pred>
typename basic_string<A>::size_type erase_if(basic_string<A>& s, Pred pred);

// Streams behave exactly like std::string's (width, padding, skipws, failbit).
// Only <iosfwd> is included here: operator<< writes through std::string_view's
// inserter, and the extractors are compiled into libfl for fl::string and
// fl::pmr::string (see the extern templates below); for another allocator,
// include <fl/string_stream.hpp>, which holds their definitions.
template <class A>
std::ostream& operator<<(std::ostream& os, const basic_string<A>& s) {
  return os << std::string_view(s);
}
template <class A>
std::istream& operator>>(std::istream& is, basic_string<A>& s);
template <class A>
std::istream& getline(std::istream& is, basic_string<A>& s, char delim);
template <class A>
std::istream& getline(std::istream&& is, basic_string<A>& s, char delim) {
  return getline(is, s, delim);
}
template <class A>
std::istream& getline(std::istream& is, basic_string<A>& s);
template <class A>
std::istream& getline(std::istream&& is, basic_string<A>& s) {
  return getline(is, s);
}

// Compiled once, in src/string/string.cpp: fl::string's cold paths and both library
// types' extractors. Only cold members are extern: GCC does not inline the
// members of a class declared `extern template`, and hot paths must inline.
// (S names the members by the template-id: a member's explicit
// instantiation may not be qualified by a typedef such as fl::string, which
// clang's -Wpedantic reports in every user's build.)
#define FL_STRING_COLD_INSTANCES_(S, EXTERN)                   \
  EXTERN template S& S::append_slow(const char*, std::size_t); \
  EXTERN template void S::push_back_slow(char);                \
  EXTERN template void S::reserve_slow(std::size_t);           \
  EXTERN template void S::shrink_to_fit();                     \
  EXTERN template void S::init_from_rvalue(S&&, std::size_t, std::size_t);
FL_STRING_COLD_INSTANCES_(basic_string<>, extern)
#define FL_STRING_STREAM_INSTANCES_(S, EXTERN)                    \
  EXTERN template std::istream& operator>>(std::istream&, S&);    \
  EXTERN template std::istream& getline(std::istream&, S&, char); \
  EXTERN template std::istream& getline(std::istream&, S&);
FL_STRING_STREAM_INSTANCES_(string, extern)
FL_STRING_STREAM_INSTANCES_(pmr::string, extern)

namespace literals {
// "text"_fs is an fl::string (embedded NULs kept).
inline string operator""_fs(const char* s, std::size_t n) { return string(s, n); }
}  // namespace literals

}  // namespace FL_ABI_NS
}  // namespace fl

// Hashes exactly like std::string_view, so a map keyed by fl::string can be
// probed with a view.
template <class A>
struct std::hash<fl::basic_string<A>> {
  std::size_t operator()(const fl::basic_string<A>& s) const noexcept {
    return std::hash<std::string_view>{}(std::string_view(s));
  }
};

namespace fl {
inline namespace FL_ABI_NS {

// A transparent hash for unordered containers of fl strings: with
// std::equal_to<>, `std::unordered_map<fl::string, V, fl::string_hash,
// std::equal_to<>>` finds by std::string_view, const char* and std::string
// without making an fl::string. Equal to std::hash<std::string_view>.
struct string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

}  // namespace FL_ABI_NS
}  // namespace fl

#include <fl/detail/string_impl.hpp>
#include <fl/detail/string_plus.hpp>
#include <fl/detail/string_access.hpp>
