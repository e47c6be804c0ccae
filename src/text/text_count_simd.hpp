// src/text/text_count_simd.hpp: the counting kernels of src/text/text_count.hpp written
// once over a vector type V (src/simd/vec.hpp); included by
// src/text/text_count_sse2.cpp (V = SSE2) and src/text/text_count_avx2.cpp (V = AVX2). Internal linkage (unnamed
// namespace), so an AVX2-compiled body can never stand in for an SSE2 caller.
//
// Counting is a byte compare turned into 0/-1 lanes and subtracted from byte
// accumulators (so each lane counts up by one per hit), folded into 64-bit
// sums by psadbw every 255 vectors, before a byte lane can wrap.
#pragma once

#include <fl/detail/utf8.hpp>

#include "simd/vec.hpp"
#include "text/text_count_kernel_set.hpp"
#include "text/text_count_word.hpp"

#include <immintrin.h>

#include <stddef.h>
#include <stdint.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace {

inline size_t popcount32(uint32_t x) noexcept { return static_cast<size_t>(__builtin_popcount(x)); }

// Per-byte predicates of the scalar tails: fl/detail/utf8.hpp's.
inline bool is_char(uchar b) noexcept { return !utf8_continuation(b); }
inline size_t utf16_units(uchar b) noexcept { return utf8_utf16_units(b); }

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

// Item masks of one vector: bit j set where byte j starts an item (a char,
// a '\n'); for UTF-16 also the astral mask (a subset of the char starts:
// those chars take two units).
template <class V, int Metric>
struct item_masks {
  uint32_t items, astral;
  static item_masks of(typename V::reg v) noexcept {
    if constexpr (Metric == 1) {
      return {V::mask(V::eq(v, V::splat('\n'))), 0};
    } else {
      const uint32_t c = V::mask(V::gt(v, V::splat(0xBF)));
      if constexpr (Metric == 2) return {c, V::mask(V::eq(V::max_u(v, V::splat(0xF0)), v))};
      return {c, 0};
    }
  }
  size_t weight() const noexcept { return popcount32(items) + popcount32(astral); }
};

// Position (within the vector) of the item holding unit `rem` of the masks
// (rem < weight()), and the units before it in `before`.
template <int Metric>
inline size_t select_in(uint32_t items, uint32_t astral, size_t rem, size_t& before) noexcept {
  // Narrow to the 16-, 8- and 4-bit part holding the unit by popcounts (the
  // item is often far into a vector of ASCII, where stepping bit by bit took
  // up to 31 steps). A char's two UTF-16 units (an astral lead) both sit at
  // its lead bit, so a window always holds whole items.
  size_t seen = 0;
  unsigned shift = 0;
  for (unsigned w = 16; w >= 4; w /= 2) {
    const uint32_t window = (1u << w) - 1u;
    size_t c = popcount32((items >> shift) & window);
    if constexpr (Metric == 2) c += popcount32((astral >> shift) & window);
    if (rem >= seen + c) {
      seen += c;
      shift += w;
    }
  }
  uint32_t x = items >> shift;
  if constexpr (Metric != 2) {
    // One unit per item: clear the at most 3 before it.
    for (; seen < rem; ++seen) x &= x - 1;
    before = rem;
    return shift + static_cast<size_t>(__builtin_ctz(x));
  } else {
    const uint32_t a = astral >> shift;
    for (;;) {
      const uint32_t b = static_cast<uint32_t>(__builtin_ctz(x));
      const size_t units = 1u + ((a >> b) & 1u);
      if (rem < seen + units) {
        before = seen;
        return shift + b;
      }
      seen += units;
      x &= x - 1;
    }
  }
}

// Scans four vectors per step while the item sought lies beyond them (one
// compare per step: the four popcounts are independent), then one vector
// at a time, then selects the item's bit within its vector; bytes past the
// last whole vector go one by one.
template <class V, int Metric>
size_t nth_item_fixed(const uchar* p, size_t n, size_t k, size_t& skipped) noexcept {
  using M = item_masks<V, Metric>;
  constexpr size_t W = V::width;
  size_t i = 0, seen = 0;
  // Chars and UTF-16 units come at least one per four bytes of UTF-8: when
  // fewer than two vectors' worth remain to be passed, the item is a vector
  // or two away, and single vectors get there without counting four.
  // Newlines may be far apart whatever their number.
  for (; n - i >= 4 * W && (Metric == 1 || k - seen >= 2 * W); i += 4 * W) {
    const size_t w = M::of(V::load(p + i)).weight() + M::of(V::load(p + i + W)).weight() +
                     M::of(V::load(p + i + 2 * W)).weight() +
                     M::of(V::load(p + i + 3 * W)).weight();
    if (seen + w > k) break;
    seen += w;
  }
  for (; n - i >= W; i += W) {
    const M m = M::of(V::load(p + i));
    const size_t w = m.weight();
    if (seen + w > k) {
      size_t before = 0;
      const size_t j = select_in<Metric>(m.items, m.astral, k - seen, before);
      skipped = seen + before;
      return i + j;
    }
    seen += w;
  }
  for (; i < n; ++i) {
    const uchar b = p[i];
    const size_t w = Metric == 1   ? (b == '\n' ? 1u : 0u)
                     : Metric == 0 ? (is_char(b) ? 1u : 0u)
                                   : utf16_units(b);
    if (seen + w > k) break;
    seen += w;
  }
  skipped = seen;
  return i;
}

// Position (within the vector) of the item holding unit `rem` counted
// from the vector's end (rem < weight(): 0 is the last unit).
template <int Metric>
inline size_t select_back_in(uint32_t items, uint32_t astral, size_t rem) noexcept {
  size_t seen = 0;
  for (;;) {
    const uint32_t b = 31u - static_cast<uint32_t>(__builtin_clz(items));
    const size_t units = Metric == 2 ? 1u + ((astral >> b) & 1u) : 1u;
    if (rem < seen + units) return b;
    seen += units;
    items &= ~(1u << b);
  }
}

// nth_item counted from the end: the position of the item holding unit
// `k` counted back from the end of [p, p + n) (0: the last unit), or n when
// the range holds k units or fewer. Mirrors nth_item_fixed: four vectors per
// step from the end, then one, then the bit; bytes before the first whole
// vector (from the front) go one by one.
template <class V, int Metric>
size_t nth_item_back_fixed(const uchar* p, size_t n, size_t k) noexcept {
  using M = item_masks<V, Metric>;
  constexpr size_t W = V::width;
  size_t i = n, seen = 0;  // bytes [i, n) are scanned
  for (; i >= 4 * W; i -= 4 * W) {
    const size_t w = M::of(V::load(p + i - W)).weight() + M::of(V::load(p + i - 2 * W)).weight() +
                     M::of(V::load(p + i - 3 * W)).weight() +
                     M::of(V::load(p + i - 4 * W)).weight();
    if (seen + w > k) break;
    seen += w;
  }
  for (; i >= W; i -= W) {
    const M m = M::of(V::load(p + i - W));
    const size_t w = m.weight();
    if (seen + w > k) return i - W + select_back_in<Metric>(m.items, m.astral, k - seen);
    seen += w;
  }
  while (i > 0) {
    const uchar b = p[--i];
    const size_t w = Metric == 1   ? (b == '\n' ? 1u : 0u)
                     : Metric == 0 ? (is_char(b) ? 1u : 0u)
                                   : utf16_units(b);
    if (seen + w > k) return i;
    seen += w;
  }
  return n;
}

template <class V>
size_t nth_item_back_simd(const uchar* p, size_t n, int metric, size_t k) noexcept {
  if (metric == 0) return nth_item_back_fixed<V, 0>(p, n, k);
  if (metric == 1) return nth_item_back_fixed<V, 1>(p, n, k);
  return nth_item_back_fixed<V, 2>(p, n, k);
}

template <class V>
size_t nth_item_simd(const uchar* p, size_t n, int metric, size_t k, size_t& skipped) noexcept {
  if (metric == 0) return nth_item_fixed<V, 0>(p, n, k, skipped);
  if (metric == 1) return nth_item_fixed<V, 1>(p, n, k, skipped);
  return nth_item_fixed<V, 2>(p, n, k, skipped);
}

// The kernels over V as one set, for src/text/text_count_sse2.cpp and
// src/text/text_count_avx2.cpp to export.
template <class V>
struct text_count_entries {
  static text_counts count_text(const char* p, size_t n) noexcept {
    text_counts r;
    count_text_simd<V>(reinterpret_cast<const uchar*>(p), n, r.chars, r.newlines, r.astral);
    return r;
  }
  static size_t count_byte(const char* p, size_t n, char ch) noexcept {
    return count_byte_simd<V>(reinterpret_cast<const uchar*>(p), n, static_cast<uchar>(ch));
  }
  static size_t nth_item(const char* p, size_t n, int metric, size_t k, size_t& skipped) noexcept {
    return nth_item_simd<V>(reinterpret_cast<const uchar*>(p), n, metric, k, skipped);
  }
  static size_t nth_item_back(const char* p, size_t n, int metric, size_t k) noexcept {
    return nth_item_back_simd<V>(reinterpret_cast<const uchar*>(p), n, metric, k);
  }
};
template <class V>
constexpr text_count_kernel_set text_count_kernels{
    &text_count_entries<V>::count_text, &text_count_entries<V>::count_byte,
    &text_count_entries<V>::nth_item, &text_count_entries<V>::nth_item_back};

}  // namespace
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
