// src/text_count_simd.hpp: the counting kernels of src/text_count.hpp written
// once over a vector type V (src/simd_vec.hpp); included by src/text_count.cpp
// (V = SSE2) and src/text_count_avx2.cpp (V = AVX2). Internal linkage (unnamed
// namespace), so an AVX2-compiled body can never stand in for an SSE2 caller.
//
// Counting is a byte compare turned into 0/-1 lanes and subtracted from byte
// accumulators (so each lane counts up by one per hit), folded into 64-bit
// sums by psadbw every 255 vectors, before a byte lane can wrap.
#pragma once

#include "simd_vec.hpp"
#include "text_count_word.hpp"

#include <immintrin.h>

#include <stddef.h>
#include <stdint.h>

namespace fl::detail {
namespace {

inline size_t popcount32(uint32_t x) noexcept { return static_cast<size_t>(__builtin_popcount(x)); }

// Per-byte predicates, shared by the scalar tails.
inline bool is_char(uchar b) noexcept { return (b & 0xC0) != 0x80; }
inline size_t utf16_units(uchar b) noexcept { return is_char(b) ? 1u + (b >= 0xF0 ? 1u : 0u) : 0u; }

// Lanes: non-continuation bytes are those > 0xBF as signed (-65): 0x00..0x7F
// and 0xC0..0xFF. Astral bytes are those with max(b, 0xF0) == b.
template <class V>
void count_text_simd(const uchar* p, size_t n, size_t& chars, size_t& newlines,
                     size_t& astral) noexcept {
  using reg = typename V::reg;
  const reg nl = V::splat('\n'), cont = V::splat(0xBF), top = V::splat(0xF0);
  size_t i = 0;
  while (n - i >= V::width) {
    size_t vecs = (n - i) / V::width;
    if (vecs > 255) vecs = 255;
    reg a = V::zero(), b = V::zero(), c = V::zero();
    for (size_t j = 0; j < vecs; ++j, i += V::width) {
      const reg v = V::load(p + i);
      a = V::sub(a, V::gt(v, cont));
      b = V::sub(b, V::eq(v, nl));
      c = V::sub(c, V::eq(V::max_u(v, top), v));
    }
    chars += V::sum(a);
    newlines += V::sum(b);
    astral += V::sum(c);
  }
  // Short ranges and tails (metric updates count a few bytes per edit):
  // 16 bytes at a time through the lane masks before going byte by byte.
  for (; n - i >= 16; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    chars +=
        popcount32(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(-65)))));
    newlines += popcount32(
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')))));
    const __m128i top16 = _mm_set1_epi8(static_cast<char>(0xF0));
    astral += popcount32(
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, top16), v))));
  }
  // The last 0..15 bytes in 64-bit words.
  const text_counts t = count_short(p + i, n - i);
  chars += t.chars;
  newlines += t.newlines;
  astral += t.astral;
}

template <class V>
size_t count_byte_simd(const uchar* p, size_t n, uchar ch) noexcept {
  using reg = typename V::reg;
  const reg x = V::splat(ch);
  size_t i = 0, total = 0;
  while (n - i >= V::width) {
    size_t vecs = (n - i) / V::width;
    if (vecs > 255) vecs = 255;
    reg a = V::zero();
    for (size_t j = 0; j < vecs; ++j, i += V::width) a = V::sub(a, V::eq(V::load(p + i), x));
    total += V::sum(a);
  }
  for (; i < n; ++i) total += p[i] == ch;
  return total;
}

// Scans whole vectors while the item sought lies beyond them (popcount of
// the lane masks), then finishes byte by byte inside one vector.
template <class V>
size_t nth_item_simd(const uchar* p, size_t n, int metric, size_t k, size_t& skipped) noexcept {
  using reg = typename V::reg;
  const reg nl = V::splat('\n'), cont = V::splat(0xBF), top = V::splat(0xF0);
  size_t i = 0, seen = 0;
  for (; n - i >= V::width; i += V::width) {
    const reg v = V::load(p + i);
    size_t w;
    if (metric == 1) {
      w = popcount32(V::mask(V::eq(v, nl)));
    } else {
      w = popcount32(V::mask(V::gt(v, cont)));
      if (metric == 2) w += popcount32(V::mask(V::eq(V::max_u(v, top), v)));
    }
    if (seen + w > k) break;
    seen += w;
  }
  for (; i < n; ++i) {
    const uchar b = p[i];
    const size_t w = metric == 1   ? (b == '\n' ? 1u : 0u)
                     : metric == 0 ? (is_char(b) ? 1u : 0u)
                                   : utf16_units(b);
    if (seen + w > k) break;
    seen += w;
  }
  skipped = seen;
  return i;
}

}  // namespace
}  // namespace fl::detail
