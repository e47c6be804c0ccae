// fl/concat.hpp: fl::concat(args...) and fl::append(s, args...), which join
// text and numbers with exactly one allocation (none for a result of up to 23
// chars). operator+ (<fl/string.hpp>) joins text too, one step at a time.
//
// How: every number is first formatted into a small stack buffer with
// std::to_chars, then all lengths are summed, the string is allocated once and
// each piece is copied into place. Use fl::string_builder (<fl/builder.hpp>)
// when the pieces arrive over time.
//
// Arguments, and how each is written:
//   text      fl::basic_string, std::string, std::string_view and anything else
//             convertible to std::string_view, C strings (a null pointer is
//             written as nothing): their bytes
//   char      that one character
//   bool      "true" or "false" (as std::format writes it)
//   integers  every standard width, signed and unsigned, including signed char
//             and unsigned char (numbers, as std::format treats them): decimal
//   floating  float, double, long double: the shortest text that reads back to
//             the same value (std::to_chars), e.g. 0.1 -> "0.1", 1e+100 ->
//             "1e+100", and "inf", "-inf", "nan", "-nan"
// Other types (wchar_t, char8_t, pointers, enums, ...) are a compile error
// with a message saying what is accepted.
//
// Threads: pure functions of their arguments.
#pragma once

#include <fl/string.hpp>
#include <fl/detail/concat_expr.hpp>
#include <fl/detail/number_text.hpp>

#include <charconv>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {

namespace detail {

template <class T>
concept concat_char_type = std::is_same_v<T, wchar_t> || std::is_same_v<T, char8_t> ||
    std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

// Integers formatted as numbers: every integral type but bool, char and the
// wide/Unicode character types.
template <class T>
concept concat_integer = std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                         !std::is_same_v<T, char> && !concat_char_type<T>;

// Text arguments: fl strings, C strings and string_view-like values.
template <class T>
concept concat_text = is_fl_string_v<T> || c_string_operand<T> || view_like_operand<T>;

// A number that std::to_chars formats into its own buffer: float, long
// double and integers wider than 64 bits (ints and doubles, the common
// cases, have operands in detail/number_text.hpp that write straight into the
// result). Sizes: float 15 chars, x87 long double 29, 128-bit integers 40.
struct number_operand {
  char buf[48];
  unsigned char len;
  std::size_t size() const noexcept { return len; }
  char* write(char* out) const noexcept {
    std::memcpy(out, buf, len);
    return out + len;
  }
};

// The piece that writes `arg`; a static_assert explains a rejected type.
template <class T>
auto concat_piece(const T& arg) noexcept {
  if constexpr (std::is_same_v<T, bool>) {
    return view_operand{arg ? std::string_view("true") : std::string_view("false")};
  } else if constexpr (std::is_same_v<T, char>) {
    return char_operand{arg};
  } else if constexpr (concat_integer<T> && sizeof(T) <= sizeof(std::uint64_t)) {
    return integer_operand::of(arg);
  } else if constexpr (std::is_same_v<T, double>) {
    return plan_double(arg);
  } else if constexpr (concat_integer<T> || std::is_floating_point_v<T>) {
    number_operand n;
    // The buffer fits the longest text of T, so to_chars cannot fail.
    const auto r = std::to_chars(n.buf, n.buf + sizeof n.buf, arg);
    n.len = static_cast<unsigned char>(r.ptr - n.buf);
    return n;
  } else if constexpr (concat_text<T>) {
    return text_operand(arg);
  } else {
    static_assert(
        concat_text<T>,
        "fl::concat/fl::append/fl::string_builder::append take text (fl::string, std::string, "
        "std::string_view-like, C strings), char, bool, integers and floating-point numbers; "
        "convert this argument first (wide and Unicode character types, pointers and enums are "
        "not formatted implicitly)");
    return char_operand{'\0'};
  }
}

template <class T>
concept concat_argument = std::is_same_v<T, bool> || std::is_same_v<T, char> || concat_integer<T> ||
    std::is_floating_point_v<T> || concat_text<T>;

// concat_piece(arg), made when the expression's operand is initialized from
// it (concat_expression's in_place constructor), not made and then copied.
template <class T>
struct piece_maker {
  const T& arg;
  operator decltype(concat_piece(std::declval<const T&>()))() const noexcept {
    return concat_piece(arg);
  }
};

template <class... Args>
auto concat_pieces(const Args&... args) noexcept {
  return concat_expression<decltype(concat_piece(args))...>(std::in_place,
                                                            piece_maker<Args>{args}...);
}

}  // namespace detail

// The text of every argument, in order, as one new string: one allocation, or
// none if the result fits inline (23 chars). Throws std::bad_alloc or
// std::length_error (result longer than max_size()).
template <class... Args>
[[nodiscard]] string concat(const Args&... args) {
  static_assert(
      (detail::concat_argument<Args> && ...),
      "fl::concat: every argument must be text, char, bool, an integer or a floating-point number");
  return string(detail::concat_pieces(args...));
}

// Appends the text of every argument to `s`: at most one allocation (none if
// the capacity suffices). Arguments may refer to `s` itself. Returns s. Throws
// like basic_string::append; s is unchanged after a throw.
template <class A, class... Args>
basic_string<A>& append(basic_string<A>& s, const Args&... args) {
  static_assert(
      (detail::concat_argument<Args> && ...),
      "fl::append: every argument must be text, char, bool, an integer or a floating-point number");
  s.append(detail::concat_pieces(args...));
  return s;
}

}  // namespace FL_ABI_NS
}  // namespace fl
