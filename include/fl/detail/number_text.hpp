// fl/detail/number_text.hpp: decimal text of integers and doubles for
// fl::concat, fl::append and fl::string_builder. Not a public interface.
//
// A number is measured first (its length decides the one allocation of the
// result) and written later, straight into the result. Formatting it into a
// side buffer and copying that on would read the digits back with wide loads
// right after narrow stores, which defeats store forwarding and costs more
// than the formatting itself.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

inline constexpr std::uint64_t pow10_u64[] = {1ULL,
                                              10ULL,
                                              100ULL,
                                              1000ULL,
                                              10000ULL,
                                              100000ULL,
                                              1000000ULL,
                                              10000000ULL,
                                              100000000ULL,
                                              1000000000ULL,
                                              10000000000ULL,
                                              100000000000ULL,
                                              1000000000000ULL,
                                              10000000000000ULL,
                                              100000000000000ULL,
                                              1000000000000000ULL,
                                              10000000000000000ULL,
                                              100000000000000000ULL,
                                              1000000000000000000ULL,
                                              10000000000000000000ULL};

// Decimal digits of v (1 for 0): floor(log10) from the bit width (1233/4096
// is log10(2) to within 1e-5, close enough below 2^64), then one comparison.
// Powers of ten are even, so `v | 1` changes no comparison but makes 0 count
// as one digit.
inline int decimal_digits(std::uint64_t v) noexcept {
  const int t = (static_cast<int>(std::bit_width(v | 1)) * 1233) >> 12;
  return t + ((v | 1) >= pow10_u64[t] ? 1 : 0);
}

inline constexpr char two_digits[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Writes v as exactly `len` digits (zero-padded on the left) at out, two
// digits per step from the right.
inline void put_digits(char* out, std::uint64_t v, int len) noexcept {
  char* p = out + len;
  while (v >= 100) {
    p -= 2;
    std::memcpy(p, two_digits + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) {
    p -= 2;
    std::memcpy(p, two_digits + 2 * v, 2);
  } else {
    *--p = static_cast<char>('0' + v);
  }
  while (p > out) *--p = '0';
}

// An integer of at most 64 bits, measured; write() puts its text at out.
struct integer_operand {
  std::uint64_t magnitude;
  std::uint8_t digits;
  bool negative;

  template <class T>
  static integer_operand of(T v) noexcept {
    integer_operand o;
    if constexpr (static_cast<T>(-1) < T(0)) {
      o.negative = v < 0;
      // Negating in unsigned arithmetic is exact for the most negative value.
      o.magnitude = o.negative ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    } else {
      o.negative = false;
      o.magnitude = static_cast<std::uint64_t>(v);
    }
    o.digits = static_cast<std::uint8_t>(decimal_digits(o.magnitude));
    return o;
  }
  std::size_t size() const noexcept { return digits + (negative ? 1u : 0u); }
  char* write(char* out) const noexcept {
    if (negative) *out++ = '-';
    put_digits(out, magnitude, digits);
    return out + digits;
  }
};

// How a double prints, decided before anything is written (see
// src/concat/concat.cpp for the fast path and why it is exact). Doubles the fast
// path does not take are formatted by std::to_chars into `slow`.
struct double_operand {
  enum class form : std::uint8_t { integer, point, leading_zero, scientific, slow };
  std::uint64_t m;  // significant digits: the value is m * 10^e10
  std::int16_t e10;
  std::uint8_t digits;  // decimal digits of m
  std::uint8_t len;     // characters written in all
  form f;
  bool negative;
  char slow[32];  // the text, for form::slow only (at most 24 chars)

  std::size_t size() const noexcept { return len; }
  char* write(char* out) const noexcept;
};

// Measures v; out of line in src/concat/concat.cpp.
double_operand plan_double(double v) noexcept;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
