// fl/detail/utf8.hpp: the byte rules of UTF-8, in one place, for every layer
// that reads or writes text: the rope's metrics and the text-counting kernels
// (what a char is, what takes two UTF-16 units, what value a char has),
// fl::fmt's fill characters, and the JSON layer's strict validation and \u
// escapes.
//
// Every function is always_inline: no out-of-line copy is ever emitted, so a
// kernel file compiled for AVX2 (src/simd/isa_levels.def) that includes this
// header cannot leave a copy that the linker might pick for code running on
// another CPU (the hazard src/find/find_avx2.cpp describes). For the same
// reason the header includes only C headers.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// A continuation byte (10xxxxxx) starts no char; every other byte starts one
// (a stray lead or an invalid byte counts as a char of its own, so that any
// bytes have a char count).
[[gnu::always_inline]] constexpr bool utf8_continuation(unsigned char b) noexcept {
  return (b & 0xC0) == 0x80;
}

// A byte >= 0xF0 leads a 4-byte sequence: a code point above U+FFFF, two
// UTF-16 code units (a stray such byte also counts two).
[[gnu::always_inline]] constexpr bool utf8_astral_lead(unsigned char b) noexcept {
  return b >= 0xF0;
}

// UTF-16 code units of the char led by b: 0 for a continuation byte.
[[gnu::always_inline]] constexpr unsigned utf8_utf16_units(unsigned char b) noexcept {
  return utf8_continuation(b) ? 0u : utf8_astral_lead(b) ? 2u : 1u;
}

// Bytes of the sequence led by b, from the lead byte alone (1 for a byte that
// leads none, so that a walk over any bytes makes progress).
[[gnu::always_inline]] constexpr unsigned utf8_lead_length(unsigned char b) noexcept {
  return b >= 0xF0 ? 4u : b >= 0xE0 ? 3u : b >= 0xC0 ? 2u : 1u;
}

// Length of the well-formed UTF-8 sequence starting at p, before e (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF), or 0.
[[gnu::always_inline]] inline size_t utf8_sequence(const unsigned char* p,
                                                   const unsigned char* e) noexcept {
  const unsigned c = p[0];
  if (c < 0x80) return 1;
  // The sequence's length from its lead byte, and the range of its second
  // byte: E0 would be overlong below A0, ED would encode a surrogate above
  // 9F, F0 would be overlong below 90, F4 would pass U+10FFFF above 8F.
  size_t len;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (static_cast<size_t>(e - p) < len || p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < len; ++i)
    if (!utf8_continuation(p[i])) return 0;
  return len;
}

// The byte where [p, p + n) stops being well-formed UTF-8, or n. Runs of
// ASCII (most keys and text) are passed eight bytes at a time: a JSON edit
// checks every key it adds (callgrind of an add of a 9-byte key: its check
// about 100 instructions byte by byte, about 35 so).
[[gnu::always_inline]] inline size_t utf8_valid_prefix(const unsigned char* p, size_t n) noexcept {
  size_t i = 0;
  while (i < n) {
    for (uint64_t w; n - i >= 8; i += 8) {
      memcpy(&w, p + i, 8);
      if (w & 0x8080808080808080u) break;
    }
    if (i == n) break;
    const size_t k = utf8_sequence(p + i, p + n);
    if (k == 0) return i;
    i += k;
  }
  return n;
}

// U+FFFD REPLACEMENT CHARACTER: the value of a char that is not well-formed.
inline constexpr uint32_t utf8_replacement = 0xFFFD;

// The value of a char whose bytes are [p, p + n) (n >= 1: its lead byte and
// the continuation bytes after it): the code point when they are exactly one
// well-formed sequence (utf8_sequence), else utf8_replacement. So any bytes
// decode to one value per char, and a char count is a code point count.
[[gnu::always_inline]] inline uint32_t utf8_char_value(const unsigned char* p, size_t n) noexcept {
  if (n > 4 || utf8_sequence(p, p + n) != n) return utf8_replacement;
  // Well-formed: the lead keeps 7, 5, 4 or 3 payload bits by length, each
  // continuation byte 6.
  static constexpr unsigned char lead_bits[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t cp = p[0] & lead_bits[n];
  for (size_t i = 1; i < n; ++i) cp = (cp << 6) | (p[i] & 0x3Fu);
  return cp;
}

// Writes code point cp (at most U+10FFFF, not a surrogate) to out as UTF-8;
// returns the byte count (1-4).
[[gnu::always_inline]] inline unsigned utf8_encode(uint32_t cp, char* out) noexcept {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
