// fl::concat's number formatting: the shortest round-trip text of a double,
// with a fast path for the values programs mostly print (a few significant
// digits, magnitudes 1e-5 to 1e15) and std::to_chars for everything else.
#include <fl/concat.hpp>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace fl::detail {
namespace {

// Exact powers of ten (all up to 1e22 are exact doubles).
constexpr double pow10_table[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

constexpr std::uint64_t pow10_int[] = {1ULL,
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
                                       10000000000000000ULL};

// Digits of 0 < v < 10^16: log10 from the bit width (1233/4096 ~ log10(2)),
// corrected by one comparison.
int decimal_digits(std::uint64_t v) noexcept {
  const int t = (static_cast<int>(std::bit_width(v)) * 1233) >> 12;
  return t + (v >= pow10_int[t] ? 1 : 0);
}

constexpr char two_digits[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Writes v as exactly `len` digits (zero-padded on the left) at out.
void put_digits(char* out, std::uint64_t v, int len) noexcept {
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

// Two decimal digits of 0 <= v < 100.
char* put2(char* out, int v) noexcept {
  std::memcpy(out, two_digits + 2 * v, 2);
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
  // Signed conversions: the unsigned ones take several instructions.
  const std::int64_t rounded = static_cast<std::int64_t>(scaled + 0.5);
  if (static_cast<double>(rounded) / p != a) return std::to_chars(out, out + 32, v).ptr;
  std::uint64_t m = static_cast<std::uint64_t>(rounded);
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
  const int s = decimal_digits(m);
  const int sci_exp = s - 1 + e10;  // |sci_exp| < 100 here
  const int sci_len = s + (s > 1 ? 1 : 0) + 4;
  const int fixed_len = e10 >= 0 ? s + e10 : (s > -e10 ? s + 1 : 2 - e10);
  if (negative) *out++ = '-';
  if (fixed_len <= sci_len) {
    if (e10 >= 0) {  // an integer: digits, then zeros
      put_digits(out, m, s);
      std::memset(out + s, '0', static_cast<std::size_t>(e10));
      return out + s + e10;
    }
    const int frac = -e10;
    if (s > frac) {  // whole.fraction: the digits, then the fraction moved one
                     // place right by two fixed 16-byte copies (no division,
                     // no memmove call; the caller's buffer has the room)
      const int whole = s - frac;
      put_digits(out, m, s);
      char tail[16];
      std::memcpy(tail, out + whole, 16);
      out[whole] = '.';
      std::memcpy(out + whole + 1, tail, 16);
      return out + s + 1;
    }
    out[0] = '0';  // 0.000ddd
    out[1] = '.';
    put_digits(out + 2, m, frac);
    return out + 2 + frac;
  }
  // d.ddde+XX
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

}  // namespace fl::detail
