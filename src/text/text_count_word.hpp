// src/text/text_count_word.hpp: the text metrics of src/text/text_count.hpp counted in
// 64-bit words (SWAR), for ranges too short for a vector loop: the tails of
// the SIMD kernels (src/text/text_count_simd.hpp) and the inline path of
// count_text for ranges of at most 16 bytes, which is what an edit counts
// (the bytes it inserts and the bytes it removes).
//
// Internal linkage (an unnamed namespace) and C headers only, like the
// kernels that include it: the AVX2 translation unit gets its own copy, so
// the linker can never hand an AVX2-compiled body to a baseline caller.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <stddef.h>
#include <stdint.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// The three counts of a range (definitions in src/text/text_count.hpp), which
// every counting path returns, the word-wise ones below included.
struct text_counts {
  size_t chars = 0;
  size_t newlines = 0;
  size_t astral = 0;
};

namespace {

// The high bit of each byte of w that is a continuation byte (bit 7 set,
// bit 6 clear), a '\n' (a zero byte of w ^ 0x0A..; exact: the low 7 bits
// are added below the high bit, so no carry crosses a byte) or an astral
// lead byte (bits 7..4 all set).
struct word_marks {
  uint64_t continuation, newlines, astral;
};
inline word_marks mark_word(uint64_t w) noexcept {
  constexpr uint64_t high = 0x8080808080808080ULL, low7 = 0x7F7F7F7F7F7F7F7FULL;
  const uint64_t x = w ^ 0x0A0A0A0A0A0A0A0AULL;
  return {w & ~(w << 1) & high, ~(((x & low7) + low7) | x) & high,
          w & (w << 1) & (w << 2) & (w << 3) & high};
}

// The number of bytes of m with the high bit set, m having no other bits:
// the bits moved to bit 0 of each byte are summed into the top byte by one
// multiply (at most 8, so no byte overflows). Unlike __builtin_popcountll it
// needs no POPCNT, which the baseline x86-64 callers (src/rope/) lack and
// would get as a libgcc call.
inline size_t count_high_bits(uint64_t m) noexcept {
  return static_cast<size_t>(((m >> 7) * 0x0101010101010101ULL) >> 56);
}

// The counts of the bytes of w whose high bit is set in `valid`.
inline text_counts count_word(uint64_t w, uint64_t valid) noexcept {
  const word_marks m = mark_word(w);
  return {count_high_bits(valid & ~m.continuation), count_high_bits(valid & m.newlines),
          count_high_bits(valid & m.astral)};
}

inline uint64_t load8(const unsigned char* p) noexcept {
  uint64_t w;
  __builtin_memcpy(&w, p, 8);
  return w;
}
inline uint32_t load4(const unsigned char* p) noexcept {
  uint32_t w;
  __builtin_memcpy(&w, p, 4);
  return w;
}

// The counts of [p, p + n), n <= 16, with fixed-size loads only (a
// variable-length copy would be a call): two overlapping words for 8..16
// bytes, two overlapping halves of one word for 4..7, the first, middle and
// last byte for 1..3; `valid` drops the bytes read twice.
inline text_counts count_short(const unsigned char* p, size_t n) noexcept {
  constexpr uint64_t high = 0x8080808080808080ULL;
  if (n >= 8) {
    const text_counts a = count_word(load8(p), high);
    if (n == 8) return a;
    // The last word's bytes [16 - n, 8) are p[8, n), the ones not yet counted.
    const text_counts b = count_word(load8(p + n - 8), high << (8 * (16 - n)));
    return {a.chars + b.chars, a.newlines + b.newlines, a.astral + b.astral};
  }
  if (n >= 4) {
    // Bytes 0..3 are p[0, 4), bytes 4..7 are p[n - 4, n): of those, the
    // bytes [12 - n, 8) are p[4, n).
    const uint64_t w = load4(p) | (uint64_t{load4(p + n - 4)} << 32);
    const uint64_t tail = n == 4 ? 0 : high << (8 * (12 - n));
    return count_word(w, 0x80808080ULL | tail);
  }
  if (n == 0) return {0, 0, 0};
  // Bytes 0..2 are p[0], p[n / 2], p[n - 1]: for n = 1..3 the first n of
  // them are p[0, n).
  const uint64_t w = p[0] | (uint64_t{p[n / 2]} << 8) | (uint64_t{p[n - 1]} << 16);
  return count_word(w, high >> (8 * (8 - n)));
}

}  // namespace
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
