// fl::concat's number formatting: the shortest round-trip text of a double,
// with a fast path for the values programs mostly print (a few significant
// digits, magnitudes 1e-5 to 1e15) and std::to_chars for everything else.
#include <fl/concat.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace fl::detail {
namespace {

// Exact powers of ten (all up to 1e22 are exact doubles).
constexpr double pow10_table[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

int decimal_digits(std::uint64_t v) noexcept {
  int n = 1;
  while (v >= 10000) {
    v /= 10000;
    n += 4;
  }
  if (v >= 100) return v >= 1000 ? n + 3 : n + 2;
  return v >= 10 ? n + 1 : n;
}

// Two decimal digits of 0 <= v < 100.
char* put2(char* out, int v) noexcept {
  out[0] = static_cast<char>('0' + v / 10);
  out[1] = static_cast<char>('0' + v % 10);
  return out + 2;
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
char* format_double(char* out, double v) noexcept {
  const bool negative = std::signbit(v);
  const double a = negative ? -v : v;
  if (!(a >= 1e-5 && a < 1e15)) {
    if (a == 0) {  // "0" or "-0"
      if (negative) *out++ = '-';
      *out++ = '0';
      return out;
    }
    return std::to_chars(out, out + 32, v).ptr;
  }
  int k;  // decimal places so that a * 10^k < 1e15
  if (a >= 1) {
    int int_digits = 1;
    while (int_digits < 15 && a >= pow10_table[int_digits]) ++int_digits;
    k = 15 - int_digits;
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
  if (!(scaled < 1e15)) return std::to_chars(out, out + 32, v).ptr;
  std::uint64_t m = static_cast<std::uint64_t>(scaled + 0.5);
  if (static_cast<double>(m) / p != a) return std::to_chars(out, out + 32, v).ptr;
  // a = m * 10^e10 with m free of trailing zeros.
  int e10 = -k;
  if (m % 100000000 == 0) {
    m /= 100000000;
    e10 += 8;
  }
  if (m % 10000 == 0) {
    m /= 10000;
    e10 += 4;
  }
  if (m % 100 == 0) {
    m /= 100;
    e10 += 2;
  }
  if (m % 10 == 0) {
    m /= 10;
    e10 += 1;
  }
  char digits[16];
  const int s = decimal_digits(m);
  std::to_chars(digits, digits + sizeof digits, m);
  const int sci_exp = s - 1 + e10;  // |sci_exp| < 100 here
  const int sci_len = s + (s > 1 ? 1 : 0) + 4;
  const int fixed_len = e10 >= 0 ? s + e10 : (s > -e10 ? s + 1 : 2 - e10);
  if (negative) *out++ = '-';
  if (fixed_len <= sci_len) {
    if (e10 >= 0) {
      std::memcpy(out, digits, static_cast<std::size_t>(s));
      std::memset(out + s, '0', static_cast<std::size_t>(e10));
      return out + s + e10;
    }
    const int frac = -e10;
    if (s > frac) {
      const int whole = s - frac;
      std::memcpy(out, digits, static_cast<std::size_t>(whole));
      out[whole] = '.';
      std::memcpy(out + whole + 1, digits + whole, static_cast<std::size_t>(frac));
      return out + s + 1;
    }
    out[0] = '0';
    out[1] = '.';
    std::memset(out + 2, '0', static_cast<std::size_t>(frac - s));
    std::memcpy(out + 2 + (frac - s), digits, static_cast<std::size_t>(s));
    return out + 2 + frac;
  }
  *out++ = digits[0];
  if (s > 1) {
    *out++ = '.';
    std::memcpy(out, digits + 1, static_cast<std::size_t>(s - 1));
    out += s - 1;
  }
  *out++ = 'e';
  *out++ = sci_exp < 0 ? '-' : '+';
  return put2(out, sci_exp < 0 ? -sci_exp : sci_exp);
}

}  // namespace fl::detail
