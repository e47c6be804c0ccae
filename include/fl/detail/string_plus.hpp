// fl/detail/string_plus.hpp: fl::basic_string's operator+ (included at the
// bottom of fl/string.hpp only; the contract is stated there).
#pragma once

#include <fl/detail/concat_fwd.hpp>
#include <fl/string.hpp>  // the class whose operator+ this is (this file ends it)

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {

// ---- operator+ ----
// std::string's operator+, overload for overload: every + returns a new string
// that owns its text, so `auto x = a + b;` is a value and no operand is read
// after the + that named it has returned. When an operand is an rvalue string
// (the result of an earlier +), the other text is appended to it (or, on the
// right, inserted in front) in place, so a chain a + b + c + ... grows one
// buffer geometrically on the pool. fl::concat(...) (<fl/concat.hpp>) is the
// one-allocation form, and formats numbers too.
//
// What may stand beside an fl string: another string of the same type, a C
// string (char arrays decay to one), a char, and any string_view-like value
// (std::string, std::string_view, fl::immutable_string, ...). A number is not
// text: `s + 42` does not compile (std::string appends the char '*' there),
// nor does `s + 0` (std::string rejects it too); write fl::concat(s, 42), or
// s + char(42) when a char is meant.
namespace detail {

template <class T>
concept plus_c_string = std::is_same_v<T, const char*> || std::is_same_v<T, char*>;
template <class T>
concept plus_char = std::is_same_v<T, char>;
template <class T>
concept plus_view = string_view_like<T> && !is_fl_string_v<T>;

// A text, as basic_string's one-allocation constructor, assignment and
// append read it (the protocol of detail/concat_fwd.hpp): size(), then
// write(out) copies exactly size() bytes. An empty view's data() may be null,
// and memcpy must not see a null pointer even for 0 bytes. fl::concat's plan
// (detail/concat_expr.hpp) is made of these too.
struct view_operand {
  std::string_view text;
  std::size_t size() const noexcept { return text.size(); }
  char* write(char* out) const noexcept {
    if (!text.empty()) std::memcpy(out, text.data(), text.size());
    return out + text.size();
  }
};

// l then r: the plan of `lvalue + lvalue`.
struct joined_views {
  view_operand l, r;
  std::size_t size() const noexcept { return l.size() + r.size(); }
  char* write(char* out) const noexcept { return r.write(l.write(out)); }
};
template <>
struct is_concat_expr<joined_views> : std::true_type {};

// The result of an lvalue + lvalue: one block of exactly the joined size (or
// none, up to 23 chars), with the allocator a copy of the string operand's
// would get, as std::string does.
template <class A>
basic_string<A> plus_new(std::string_view l, std::string_view r, const A& alloc) {
  return basic_string<A>(joined_views{{l}, {r}},
                         std::allocator_traits<A>::select_on_container_copy_construction(alloc));
}

}  // namespace detail

template <class A>
basic_string<A> operator+(const basic_string<A>& l, const basic_string<A>& r) {
  return detail::plus_new<A>(l, r, l.get_allocator());
}
template <class A, detail::plus_c_string P>
basic_string<A> operator+(const basic_string<A>& l, P r) {
  return detail::plus_new<A>(l, std::string_view(r), l.get_allocator());
}
template <class A, detail::plus_char C>
basic_string<A> operator+(const basic_string<A>& l, C r) {
  return detail::plus_new<A>(l, std::string_view(&r, 1), l.get_allocator());
}
template <class A, detail::plus_view T>
basic_string<A> operator+(const basic_string<A>& l, const T& r) {
  return detail::plus_new<A>(l, std::string_view(r), l.get_allocator());
}
template <class A, detail::plus_c_string P>
basic_string<A> operator+(P l, const basic_string<A>& r) {
  return detail::plus_new<A>(std::string_view(l), r, r.get_allocator());
}
template <class A, detail::plus_char C>
basic_string<A> operator+(C l, const basic_string<A>& r) {
  return detail::plus_new<A>(std::string_view(&l, 1), r, r.get_allocator());
}
template <class A, detail::plus_view T>
basic_string<A> operator+(const T& l, const basic_string<A>& r) {
  return detail::plus_new<A>(std::string_view(l), r, r.get_allocator());
}

// An rvalue on the left: append to it and hand it on.
template <class A>
basic_string<A> operator+(basic_string<A>&& l, const basic_string<A>& r) {
  l.append(r);
  return std::move(l);
}
template <class A, detail::plus_c_string P>
basic_string<A> operator+(basic_string<A>&& l, P r) {
  l.append(r);
  return std::move(l);
}
template <class A, detail::plus_char C>
basic_string<A> operator+(basic_string<A>&& l, C r) {
  l.push_back(r);
  return std::move(l);
}
template <class A, detail::plus_view T>
basic_string<A> operator+(basic_string<A>&& l, const T& r) {
  l.append(std::string_view(r));
  return std::move(l);
}

// An rvalue on the right: insert in front of it and hand it on.
template <class A>
basic_string<A> operator+(const basic_string<A>& l, basic_string<A>&& r) {
  r.insert(0, l);
  return std::move(r);
}
template <class A, detail::plus_c_string P>
basic_string<A> operator+(P l, basic_string<A>&& r) {
  r.insert(0, l);
  return std::move(r);
}
template <class A, detail::plus_char C>
basic_string<A> operator+(C l, basic_string<A>&& r) {
  r.insert(r.begin(), l);
  return std::move(r);
}
template <class A, detail::plus_view T>
basic_string<A> operator+(const T& l, basic_string<A>&& r) {
  r.insert(0, std::string_view(l));
  return std::move(r);
}

// Two rvalues: reuse whichever block already holds the result (the left one
// unless only the right one is big enough), as std::string does.
template <class A>
basic_string<A> operator+(basic_string<A>&& l, basic_string<A>&& r) {
  using traits = std::allocator_traits<A>;
  const bool same_alloc = traits::is_always_equal::value || l.get_allocator() == r.get_allocator();
  const std::size_t n = l.size() + r.size();
  if (same_alloc && n > l.capacity() && n <= r.capacity()) {
    r.insert(0, l);
    return std::move(r);
  }
  l.append(r);
  return std::move(l);
}

}  // namespace FL_ABI_NS
}  // namespace fl
