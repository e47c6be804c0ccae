// fl/detail/find_short.hpp: inline searches for short haystacks (at most
// short_hay_max bytes), used by fl::find and fl::basic_string::find before the
// dispatched kernels of find_impl.hpp. Not part of the public API.
//
// Why: most searches in parsers and servers look for a literal in a line or a
// field. There, the indirect call into a SIMD kernel and its set-up cost more
// than the search, and std::string gets ahead by calling memchr. These loops
// are inline, so a literal needle's length and bytes are constants, and they
// use SSE2 only, which every x86-64 CPU has (no dispatch needed).
//
// Cost: a block of 16 candidate starts is tested with two compares (the
// needle's first and last bytes); only starts matching both are compared in
// full. The worst case is O(n * m) with n <= short_hay_max, a bounded multiple
// of m, so fl::find stays linear.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <cstddef>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// Haystacks up to this size take the inline paths. Past it, the kernels'
// wider vectors and Two-Way fallback win (bench string/find_1k_13).
inline constexpr std::size_t short_hay_max = 128;

#if defined(__SSE2__)
// Bit i set when start p + i matches the needle's first byte (at p + i) and
// last byte (at p + i + m - 1). Reads [p, p + 16) and [p + m - 1, p + m + 15).
[[gnu::always_inline]] inline unsigned short_candidates(const char* p, std::size_t m, __m128i first,
                                                        __m128i last) noexcept {
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + m - 1));
  return static_cast<unsigned>(
      _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last))));
}
#endif

// The first start i >= pos of needle[0, m) in hay[0, n), or npos. Requires
// 2 <= m, pos + m <= n <= short_hay_max. Reads only hay[0, n).
[[gnu::always_inline]] inline std::size_t find_short(const char* hay, std::size_t n,
                                                     const char* needle, std::size_t m,
                                                     std::size_t pos) noexcept {
  constexpr std::size_t npos = static_cast<std::size_t>(-1);
  const std::size_t starts_end = n - m + 1;  // candidate starts are [pos, starts_end)
  std::size_t i = pos;
#if defined(__SSE2__)
  const __m128i first = _mm_set1_epi8(needle[0]);
  const __m128i last = _mm_set1_epi8(needle[m - 1]);
  // Whole blocks: the loads of starts [i, i + 16) end at i + m + 15 <= n.
  for (; i + 16 <= starts_end; i += 16) {
    for (unsigned mask = short_candidates(hay + i, m, first, last); mask != 0; mask &= mask - 1) {
      const std::size_t at = i + static_cast<std::size_t>(__builtin_ctz(mask));
      if (std::memcmp(hay + at + 1, needle + 1, m - 2) == 0) return at;
    }
  }
  // The rest, fewer than 16 starts: one block ending at the last start when
  // the haystack is long enough for it, with the starts already tested masked.
  if (i < starts_end && starts_end >= 16) {
    const std::size_t base = starts_end - 16;
    unsigned mask = short_candidates(hay + base, m, first, last) & (0xffffu << (i - base));
    for (; mask != 0; mask &= mask - 1) {
      const std::size_t at = base + static_cast<std::size_t>(__builtin_ctz(mask));
      if (std::memcmp(hay + at + 1, needle + 1, m - 2) == 0) return at;
    }
    return npos;
  }
#endif
  for (; i < starts_end; ++i) {
    if (hay[i] == needle[0] && hay[i + m - 1] == needle[m - 1] &&
        std::memcmp(hay + i + 1, needle + 1, m - 2) == 0)
      return i;
  }
  return npos;
}

// The first i >= pos with hay[i] == ch, or npos. Requires pos < n <=
// short_hay_max.
[[gnu::always_inline]] inline std::size_t find_char_short(const char* hay, std::size_t n, char ch,
                                                          std::size_t pos) noexcept {
  constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::size_t i = pos;
#if defined(__SSE2__)
  if (n >= 16) {
    const __m128i c = _mm_set1_epi8(ch);
    for (; i + 16 <= n; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(hay + i));
      const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, c)));
      if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(mask));
    }
    if (i < n) {  // the last 16 bytes, with those already tested masked
      const std::size_t base = n - 16;
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(hay + base));
      const unsigned mask =
          static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, c))) & (0xffffu << (i - base));
      if (mask != 0) return base + static_cast<std::size_t>(__builtin_ctz(mask));
    }
    return npos;
  }
#endif
  for (; i < n; ++i) {
    if (hay[i] == ch) return i;
  }
  return npos;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
