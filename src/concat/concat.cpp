// src/concat/concat.cpp
// fl::concat's number formatting: the shortest round-trip text of a double,
// with a fast path for the values programs mostly print (a few significant
// digits, magnitudes 1e-5 to 1e15) and std::to_chars for everything else.
#include <fl/concat.hpp>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace {

// Exact powers of ten (all up to 1e22 are exact doubles).
constexpr double pow10_table[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// Two decimal digits of 0 <= v < 100.
char* put2(char* out, int v) noexcept {
  std::memcpy(out, two_digits + 2 * v, 2);
  return out + 2;
}

// One step of stripping trailing zeros: when m ends in Z zeros, drops them
// and adds Z to the exponent. Steps of 8, 4, 2 and 1 (at most 15 zeros, as
// m < 10^15) strip them all; Z is a constant, so each division is a multiply.
template <int Z>
void drop_zeros(std::uint64_t& m, int& e10) noexcept {
  constexpr std::uint64_t p = static_cast<std::uint64_t>(pow10_table[Z]);
  if (m % p == 0) {
    m /= p;
    e10 += Z;
  }
}

// `d` (negative set) as std::to_chars prints v.
void to_slow(double_operand& d, double v) noexcept {
  d.f = double_operand::form::slow;
  d.len = static_cast<std::uint8_t>(std::to_chars(d.slow, d.slow + sizeof d.slow, v).ptr - d.slow);
}

}  // namespace

// Why the fast path is exact. Let a = |v| in [1e-5, 1e15) and k the number of
// decimal places that gives n = round(a * 10^k) at most 15 digits. If n / 10^k
// (one correctly rounded division of two exact doubles) equals a, the decimal
// n * 10^-k rounds to a. Any two different decimals of at most 15 significant
// digits round to different doubles (DBL_DIG = 15), so n * 10^-k without its
// trailing zeros is the only decimal of at most 15 digits that reads back as
// a: it is the shortest round-trip text, the digits std::to_chars chooses.
// Between fixed and scientific notation, std::to_chars takes the shorter,
// fixed on a tie; so does this code. Anything else goes to std::to_chars.
// Every path returns the one object `d`, so it is built in the caller's
// result (NRVO), which fl::concat makes its operand in place
// (concat_expression's in_place constructor): a copy of it, here or there,
// reads it with 16-byte loads right after the narrow stores that built it,
// which the CPU cannot forward to.
double_operand plan_double(double v) noexcept {
  double_operand d{};
  const bool negative = std::signbit(v);
  d.negative = negative;
  const double a = negative ? -v : v;
  if (!(a >= 1e-5 && a < 1e15)) {
    if (a == 0) {  // "0" or "-0": the integer form of m = 0
      d.f = double_operand::form::integer;
      d.digits = 1;
      d.len = static_cast<std::uint8_t>(1 + (negative ? 1 : 0));
    } else {
      to_slow(d, v);
    }
    return d;
  }
  int k;  // decimal places so that a * 10^k < 1e15
  if (a >= 1) {
    // Truncating a < 1e15 to an integer is exact in its integer part.
    k = 15 - decimal_digits(static_cast<std::uint64_t>(a));
  } else {
    int zeros = 0;  // zeros right after the decimal point
    constexpr double neg_pow10[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5};
    while (zeros < 4 && a < neg_pow10[zeros]) ++zeros;
    // 1e-j is not exact; a k one off makes n one digit shorter (still
    // correct when it reads back) or too long (caught below).
    k = 15 + zeros;
  }
  const double p = pow10_table[k];
  const double scaled = a * p;
  if (!(scaled < 1e15)) {
    to_slow(d, v);
    return d;
  }
  // Signed conversions: the unsigned ones take several instructions.
  const std::int64_t rounded = static_cast<std::int64_t>(scaled + 0.5);
  if (static_cast<double>(rounded) / p != a) {
    to_slow(d, v);
    return d;
  }
  std::uint64_t m = static_cast<std::uint64_t>(rounded);
  // a = m * 10^e10 with m free of trailing zeros.
  int e10 = -k;
  drop_zeros<8>(m, e10);
  drop_zeros<4>(m, e10);
  drop_zeros<2>(m, e10);
  drop_zeros<1>(m, e10);
  const int s = decimal_digits(m);
  const int sci_len = s + (s > 1 ? 1 : 0) + 4;  // d.ddde+XX: |exponent| < 100 here
  d.m = m;
  d.e10 = static_cast<std::int16_t>(e10);
  d.digits = static_cast<std::uint8_t>(s);
  int len;
  if (e10 >= 0) {
    d.f = double_operand::form::integer;  // digits, then zeros
    len = s + e10;
  } else if (s > -e10) {
    d.f = double_operand::form::point;  // whole.fraction
    len = s + 1;
  } else {
    d.f = double_operand::form::leading_zero;  // 0.000ddd
    len = 2 - e10;
  }
  if (len > sci_len) {
    d.f = double_operand::form::scientific;
    len = sci_len;
  }
  d.len = static_cast<std::uint8_t>(len + (negative ? 1 : 0));
  return d;
}

char* double_operand::write(char* out) const noexcept {
  if (f == form::slow) {
    std::memcpy(out, slow, len);
    return out + len;
  }
  if (negative) *out++ = '-';
  const int s = digits;
  switch (f) {
    case form::integer:
      put_digits(out, m, s);
      std::memset(out + s, '0', static_cast<std::size_t>(e10));
      return out + s + e10;
    case form::point: {
      // From the right: the fraction's digits, the point, then the whole
      // part, so every digit is written once and every division is by a
      // constant (a multiply).
      int frac = -e10;
      std::uint64_t rest = m;
      char* p = out + s + 1;
      for (; frac >= 2; frac -= 2) {
        p -= 2;
        std::memcpy(p, two_digits + 2 * (rest % 100), 2);
        rest /= 100;
      }
      if (frac != 0) {
        *--p = static_cast<char>('0' + rest % 10);
        rest /= 10;
      }
      *--p = '.';
      put_digits(out, rest, static_cast<int>(p - out));
      return out + s + 1;
    }
    case form::leading_zero:
      out[0] = '0';
      out[1] = '.';
      put_digits(out + 2, m, -e10);
      return out + 2 - e10;
    case form::scientific:
    case form::slow: break;
  }
  // d.ddde+XX
  const int sci_exp = s - 1 + e10;
  put_digits(out + 1, m, s);
  out[0] = out[1];
  if (s > 1) {
    out[1] = '.';
    out += s + 1;
  } else {
    out += 1;
  }
  *out++ = 'e';
  *out++ = sci_exp < 0 ? '-' : '+';
  return put2(out, sci_exp < 0 ? -sci_exp : sci_exp);
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
