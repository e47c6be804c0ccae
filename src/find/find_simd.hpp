// src/find/find_simd.hpp: the SIMD search kernels, written once over a vector
// type V and instantiated by src/find/find_sse2.cpp (V = 16-byte SSE2) and
// src/find/find_avx2.cpp (32-byte AVX2). Included only by those files; never by a
// public header. The vector types are in src/simd/vec.hpp (the AVX2 one only
// where the translation unit is compiled for it). (A 64-byte AVX-512BW
// instantiation was measured on the AMD EPYC development machine and was
// slower than AVX2, so there is none.)
//
// Everything here has internal linkage (an unnamed namespace): each ISA's
// translation unit gets its own copy, so the linker can never substitute an
// AVX2-compiled body for an SSE2 caller.
//
// Invariant of every kernel: a vector load at address a covers [a, a + width)
// and is issued only when that range lies inside the haystack or needle. Tails
// are done by re-reading an earlier, overlapping full block and masking the
// positions already examined, or, when the whole range is shorter than one
// vector, by the next narrower kernel or a scalar loop.
#pragma once

#include "find/find_kernel_set.hpp"

#include "simd/vec.hpp"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace {

constexpr std::size_t simd_npos = static_cast<std::size_t>(-1);

template <class V>
concept has_half = requires {
  typename V::half;
};

// Lowest and highest set bit of a non-zero lane mask (32 or 64 lanes).
inline unsigned low_bit(std::uint32_t x) noexcept {
  return static_cast<unsigned>(__builtin_ctz(x));
}
inline unsigned low_bit(std::uint64_t x) noexcept {
  return static_cast<unsigned>(__builtin_ctzll(x));
}
inline unsigned high_bit(std::uint32_t x) noexcept {
  return 31u - static_cast<unsigned>(__builtin_clz(x));
}
inline unsigned high_bit(std::uint64_t x) noexcept {
  return 63u - static_cast<unsigned>(__builtin_clzll(x));
}

// The length of the common prefix of a[0, len) and b[0, len).
template <class V>
inline std::size_t common_prefix(const uchar* a, const uchar* b, std::size_t len) noexcept {
  std::size_t k = 0;
  for (; k + V::width <= len; k += V::width) {
    const typename V::mask_t eq = V::mask(V::eq(V::load(a + k), V::load(b + k)));
    if (eq != V::full) return k + low_bit(~eq);
  }
  for (; k + 8 <= len; k += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, a + k, 8);
    std::memcpy(&y, b + k, 8);
    if (x != y) return k + static_cast<std::size_t>(__builtin_ctzll(x ^ y)) / 8;  // little-endian
  }
  while (k < len && a[k] == b[k]) ++k;
  return k;
}

// The needle offsets whose bytes the filter compares. o0 is the last byte; o1
// the last byte that differs from it (so runs of one letter, the usual
// periodic input, do not make every position a candidate); o2 the first byte,
// or the middle one when o1 already is the first. For m == 2, o2 == o1.
struct probe_set {
  std::size_t o0, o1, o2;
};
inline probe_set choose_probes(const uchar* x, std::size_t m) noexcept {
  probe_set p{m - 1, 0, 0};
  std::size_t d = m - 1;
  while (d > 0 && x[d - 1] == x[m - 1]) --d;
  p.o1 = d > 0 ? d - 1 : 0;
  if (m == 2) {
    p.o2 = p.o1;
  } else {
    p.o2 = p.o1 != 0 ? 0 : m / 2;  // m >= 3, so m / 2 is neither 0 nor m - 1
  }
  return p;
}

// Verification budget. Every candidate costs its compared bytes plus
// candidate_cost; the filter hands over to Two-Way once the total exceeds
// budget_per_byte per position passed plus a slack that covers a few full
// verifications of the needle. Both kernels together stay O(n + m).
constexpr std::size_t candidate_cost = 8;
constexpr std::size_t budget_per_byte = 4;
constexpr std::size_t budget_slack = 512;

// Short ranges, w to 2w candidate positions: two blocks (the second one
// overlapping the first), candidates verified in place, no budget (at most 2w
// verifications of m bytes). Kept apart from the long loop, which has more
// set-up and saves more registers: on the 62-byte haystack of find/short_62
// the general kernel took up to 1.5x longer, depending on addresses.
template <class V>
std::size_t find_simd_short(const uchar* h, std::size_t last, const uchar* x, std::size_t m,
                            std::size_t pos) noexcept {
  constexpr std::size_t w = V::width;
  const probe_set pr = choose_probes(x, m);
  const std::size_t b1 = last + 1 - w;  // >= pos
  auto block = [&](std::size_t b) noexcept -> typename V::mask_t {
    const auto e0 = V::eq(V::load(h + b + pr.o0), V::splat(x[pr.o0]));
    const auto e1 = V::eq(V::load(h + b + pr.o1), V::splat(x[pr.o1]));
    const auto e2 = V::eq(V::load(h + b + pr.o2), V::splat(x[pr.o2]));
    return V::mask(V::and_(V::and_(e0, e1), e2));
  };
  typename V::mask_t c = block(pos);
  while (c != 0) {
    const std::size_t j = pos + low_bit(c);
    if (common_prefix<V>(h + j, x, m) == m) return j;
    c &= c - 1;
  }
  // Second block: only the positions the first did not cover.
  const std::size_t covered = pos + w - b1;  // leading positions of block b1 already seen
  c = covered >= w ? 0 : block(b1) & (V::full << covered) & V::full;
  while (c != 0) {
    const std::size_t j = b1 + low_bit(c);
    if (common_prefix<V>(h + j, x, m) == m) return j;
    c &= c - 1;
  }
  return simd_npos;
}

template <class V>
std::size_t find_simd_long(const char* hay, std::size_t n, const char* needle, std::size_t m,
                           std::size_t pos) noexcept;

// The entry: only range checks and tail calls, so it saves no registers, and
// short calls run without stack traffic (see find_simd_short).
template <class V>
std::size_t find_simd(const char* hay, std::size_t n, const char* needle, std::size_t m,
                      std::size_t pos) noexcept {
  constexpr std::size_t w = V::width;
  const auto* h = reinterpret_cast<const uchar*>(hay);
  const auto* x = reinterpret_cast<const uchar*>(needle);
  const std::size_t last = n - m;  // the highest candidate start

  if (last - pos + 1 < w) {
    if constexpr (has_half<V>) {
      return find_simd<typename V::half>(hay, n, needle, m, pos);
    } else {
      const probe_set pr = choose_probes(x, m);
      // Fewer than w positions: at most w - 1 verifications of m bytes.
      for (std::size_t j = pos; j <= last; ++j) {
        if (h[j + pr.o0] == x[pr.o0] && h[j + pr.o1] == x[pr.o1] && h[j + pr.o2] == x[pr.o2] &&
            std::memcmp(h + j, x, m) == 0) {
          return j;
        }
      }
      return simd_npos;
    }
  }
  if (last - pos + 1 <= 2 * w) return find_simd_short<V>(h, last, x, m, pos);
  return find_simd_long<V>(hay, n, needle, m, pos);
}

// More than 2w candidate positions: the filter loop with the verification
// budget and the hand-over to Two-Way.
template <class V>
[[gnu::noinline]] std::size_t find_simd_long(const char* hay, std::size_t n, const char* needle,
                                             std::size_t m, std::size_t pos) noexcept {
  using reg = typename V::reg;
  constexpr std::size_t w = V::width;
  const auto* h = reinterpret_cast<const uchar*>(hay);
  const auto* x = reinterpret_cast<const uchar*>(needle);
  const std::size_t last = n - m;
  const probe_set pr = choose_probes(x, m);
  const reg p0 = V::splat(x[pr.o0]);
  const reg p1 = V::splat(x[pr.o1]);
  const reg p2 = V::splat(x[pr.o2]);
  // Positions b .. b + w - 1 whose three probe bytes match. Reads up to
  // h[b + w - 1 + (m - 1)], inside the haystack because b + w - 1 <= last.
  auto lanes = [&](std::size_t b) noexcept -> reg {
    const reg e0 = V::eq(V::load(h + b + pr.o0), p0);
    const reg e1 = V::eq(V::load(h + b + pr.o1), p1);
    const reg e2 = V::eq(V::load(h + b + pr.o2), p2);
    return V::and_(V::and_(e0, e1), e2);
  };
  auto block = [&](std::size_t b) noexcept -> typename V::mask_t { return V::mask(lanes(b)); };

  std::size_t work = 0;
  std::size_t result = simd_npos;
  // Verifies the candidates of one block in increasing order; true when the
  // search is decided (result holds the answer).
  auto verify = [&](std::size_t b, typename V::mask_t cands) noexcept -> bool {
    while (cands != 0) {
      const std::size_t c = b + low_bit(cands);
      const std::size_t k = common_prefix<V>(h + c, x, m);
      if (k == m) {
        result = c;
        return true;
      }
      work += k + candidate_cost;
      if (work > budget_per_byte * (c - pos) + 2 * m + budget_slack) {
        result = c < last ? find_twoway(hay, n, needle, m, c + 1) : simd_npos;
        return true;
      }
      cands &= cands - 1;
    }
    return false;
  };

  std::size_t j = pos;
  // The bandwidth loop: four blocks, one lane-mask extraction when none of
  // them has a candidate (the common case on text).
  while (j + 4 * w <= last + 1) {
    const reg l0 = lanes(j);
    const reg l1 = lanes(j + w);
    const reg l2 = lanes(j + 2 * w);
    const reg l3 = lanes(j + 3 * w);
    if (V::mask(V::or_(V::or_(l0, l1), V::or_(l2, l3))) != 0) {
      const typename V::mask_t a0 = V::mask(l0);
      const typename V::mask_t a1 = V::mask(l1);
      const typename V::mask_t a2 = V::mask(l2);
      const typename V::mask_t a3 = V::mask(l3);
      if (a0 != 0 && verify(j, a0)) return result;
      if (a1 != 0 && verify(j + w, a1)) return result;
      if (a2 != 0 && verify(j + 2 * w, a2)) return result;
      if (a3 != 0 && verify(j + 3 * w, a3)) return result;
    }
    j += 4 * w;
  }
  if (j + 2 * w <= last + 1) {
    const typename V::mask_t a = block(j);
    const typename V::mask_t b = block(j + w);
    if ((a | b) != 0) {
      if (a != 0 && verify(j, a)) return result;
      if (b != 0 && verify(j + w, b)) return result;
    }
    j += 2 * w;
  }
  if (j + w <= last + 1) {
    const typename V::mask_t a = block(j);
    if (a != 0 && verify(j, a)) return result;
    j += w;
  }
  if (j <= last) {
    // Re-read the last full block and drop the positions before j.
    const std::size_t b = last + 1 - w;
    const typename V::mask_t a = block(b) & (V::full << (j - b)) & V::full;
    if (a != 0 && verify(b, a)) return result;
  }
  return simd_npos;
}

template <class V>
std::size_t rfind_simd(const char* hay, std::size_t end, const char* needle,
                       std::size_t m) noexcept {
  using reg = typename V::reg;
  constexpr std::size_t w = V::width;
  const auto* h = reinterpret_cast<const uchar*>(hay);
  const auto* x = reinterpret_cast<const uchar*>(needle);
  const std::size_t last = end - m;
  if (m == 1) {
    const void* p = ::memrchr(h, x[0], end);
    return p ? static_cast<std::size_t>(static_cast<const uchar*>(p) - h) : simd_npos;
  }
  const probe_set pr = choose_probes(x, m);

  if (last + 1 < w) {
    if constexpr (has_half<V>) {
      return rfind_simd<typename V::half>(hay, end, needle, m);
    } else {
      for (std::size_t j = last + 1; j-- > 0;) {
        if (h[j + pr.o0] == x[pr.o0] && h[j + pr.o1] == x[pr.o1] && h[j + pr.o2] == x[pr.o2] &&
            std::memcmp(h + j, x, m) == 0) {
          return j;
        }
      }
      return simd_npos;
    }
  }

  const reg p0 = V::splat(x[pr.o0]);
  const reg p1 = V::splat(x[pr.o1]);
  const reg p2 = V::splat(x[pr.o2]);
  auto block = [&](std::size_t b) noexcept -> typename V::mask_t {
    const auto e0 = V::eq(V::load(h + b + pr.o0), p0);
    const auto e1 = V::eq(V::load(h + b + pr.o1), p1);
    const auto e2 = V::eq(V::load(h + b + pr.o2), p2);
    return V::mask(V::and_(V::and_(e0, e1), e2));
  };

  std::size_t work = 0;
  std::size_t result = simd_npos;
  // Candidates of one block in decreasing order.
  auto verify = [&](std::size_t b, typename V::mask_t cands) noexcept -> bool {
    while (cands != 0) {
      const unsigned bit = high_bit(cands);
      const std::size_t c = b + bit;
      const std::size_t k = common_prefix<V>(h + c, x, m);
      if (k == m) {
        result = c;
        return true;
      }
      work += k + candidate_cost;
      if (work > budget_per_byte * (last - c) + 2 * m + budget_slack) {
        // The last match starting before c lies inside hay[0, c - 1 + m).
        result = c > 0 ? rfind_twoway(hay, c - 1 + m, needle, m) : simd_npos;
        return true;
      }
      cands &= ~(typename V::mask_t{1} << bit);
    }
    return false;
  };

  std::size_t hi = last + 1;  // starts [hi, last] are done
  while (hi >= 2 * w) {
    const typename V::mask_t a = block(hi - w);
    const typename V::mask_t b = block(hi - 2 * w);
    if ((a | b) != 0) {
      if (a != 0 && verify(hi - w, a)) return result;
      if (b != 0 && verify(hi - 2 * w, b)) return result;
    }
    hi -= 2 * w;
  }
  if (hi >= w) {
    const typename V::mask_t a = block(hi - w);
    if (a != 0 && verify(hi - w, a)) return result;
    hi -= w;
  }
  if (hi > 0) {
    // Re-read the first full block and keep only the starts below hi.
    const typename V::mask_t a = block(0) & ((typename V::mask_t{1} << hi) - 1);
    if (a != 0 && verify(0, a)) return result;
  }
  return simd_npos;
}

// Membership of up to three bytes: one compare per byte.
template <class V>
struct small_set {
  typename V::reg a, b, c;
  small_set(const uchar* s, std::size_t k) noexcept
      : a(V::splat(s[0])), b(V::splat(s[k > 1 ? 1 : 0])), c(V::splat(s[k > 2 ? 2 : 0])) {}
  typename V::mask_t hits(const uchar* p) const noexcept {
    const typename V::reg v = V::load(p);
    return V::mask(V::or_(V::or_(V::eq(v, a), V::eq(v, b)), V::eq(v, c)));
  }
};

// Membership of any set through a 256-bit table split by nibbles: row[lo]
// holds one bit per high nibble. lo_rows covers high nibbles 0-7, hi_rows
// 8-15. A byte's row comes from a byte shuffle on its low nibble (the shuffle
// yields 0 when the index has its top bit set, which picks the right table),
// and the bit from a second shuffle on its high nibble.
template <class V>
struct table_set {
  typename V::reg lo_rows, hi_rows, bit_of, low_nibble_top, top_bit, seven;
  table_set(const uchar* s, std::size_t k) noexcept {
    alignas(16) uchar lo[16] = {};
    alignas(16) uchar hi[16] = {};
    for (std::size_t i = 0; i < k; ++i) {
      const unsigned c = s[i];
      if (c < 0x80) {
        lo[c & 15] = static_cast<uchar>(lo[c & 15] | (1u << (c >> 4)));
      } else {
        hi[c & 15] = static_cast<uchar>(hi[c & 15] | (1u << ((c >> 4) - 8)));
      }
    }
    alignas(16) static constexpr uchar bits[16] = {1, 2, 4, 8, 16, 32, 64, 128,
                                                   1, 2, 4, 8, 16, 32, 64, 128};
    lo_rows = V::broadcast16(lo);
    hi_rows = V::broadcast16(hi);
    bit_of = V::broadcast16(bits);
    low_nibble_top = V::splat(0x8F);
    top_bit = V::splat(0x80);
    seven = V::splat(0x07);
  }
  typename V::mask_t hits(const uchar* p) const noexcept {
    const typename V::reg v = V::load(p);
    const typename V::reg idx = V::and_(v, low_nibble_top);
    const typename V::reg row =
        V::or_(V::shuffle(lo_rows, idx), V::shuffle(hi_rows, V::xor_(idx, top_bit)));
    const typename V::reg bit = V::shuffle(bit_of, V::and_(V::srl4(v), seven));
    return V::mask(V::eq(V::and_(row, bit), bit));
  }
};

template <class V, class Set>
std::size_t first_of_scan(const uchar* h, std::size_t n, std::size_t pos, const Set& set,
                          bool negate) noexcept {
  constexpr std::size_t w = V::width;
  const typename V::mask_t flip = negate ? V::full : 0;
  std::size_t i = pos;
  for (; i + w <= n; i += w) {
    const typename V::mask_t a = set.hits(h + i) ^ flip;
    if (a != 0) return i + low_bit(a);
  }
  if (i < n) {
    const std::size_t b = n - w;  // n - pos >= w, so b >= pos
    const typename V::mask_t a = ((set.hits(h + b) ^ flip) & (V::full << (i - b))) & V::full;
    if (a != 0) return b + low_bit(a);
  }
  return simd_npos;
}

template <class V, class Set>
std::size_t last_of_scan(const uchar* h, std::size_t end, const Set& set, bool negate) noexcept {
  constexpr std::size_t w = V::width;
  const typename V::mask_t flip = negate ? V::full : 0;
  std::size_t hi = end;  // [hi, end) is done
  for (; hi >= w; hi -= w) {
    const typename V::mask_t a = set.hits(h + hi - w) ^ flip;
    if (a != 0) return hi - w + high_bit(a);
  }
  if (hi > 0) {
    const typename V::mask_t a = (set.hits(h) ^ flip) & ((typename V::mask_t{1} << hi) - 1);
    if (a != 0) return high_bit(a);
  }
  return simd_npos;
}

template <class V>
std::size_t first_of_simd(const char* hay, std::size_t n, const char* set, std::size_t k,
                          std::size_t pos, bool negate) noexcept {
  const auto* h = reinterpret_cast<const uchar*>(hay);
  const auto* s = reinterpret_cast<const uchar*>(set);
  if (n - pos < V::width) {
    if constexpr (has_half<V>) {
      return first_of_simd<typename V::half>(hay, n, set, k, pos, negate);
    } else {
      return first_of_scalar(hay, n, set, k, pos, negate);
    }
  }
  if (k <= 3) return first_of_scan<V>(h, n, pos, small_set<V>(s, k), negate);
  if constexpr (V::has_lookup) {
    return first_of_scan<V>(h, n, pos, table_set<V>(s, k), negate);
  } else {
    return first_of_scalar(hay, n, set, k, pos, negate);
  }
}

template <class V>
std::size_t last_of_simd(const char* hay, std::size_t end, const char* set, std::size_t k,
                         bool negate) noexcept {
  const auto* h = reinterpret_cast<const uchar*>(hay);
  const auto* s = reinterpret_cast<const uchar*>(set);
  if (end < V::width) {
    if constexpr (has_half<V>) {
      return last_of_simd<typename V::half>(hay, end, set, k, negate);
    } else {
      return last_of_scalar(hay, end, set, k, negate);
    }
  }
  if (k <= 3) return last_of_scan<V>(h, end, small_set<V>(s, k), negate);
  if constexpr (V::has_lookup) {
    return last_of_scan<V>(h, end, table_set<V>(s, k), negate);
  } else {
    return last_of_scalar(hay, end, set, k, negate);
  }
}

// The four kernels over V as one kernel_set, for src/find/find_sse2.cpp and
// src/find/find_avx2.cpp to export. Each entry is a plain function that the
// kernel is inlined into (or tail-called from), as the dispatcher calls it
// through a pointer.
template <class V>
struct simd_entries {
  static std::size_t find(const char* hay, std::size_t n, const char* needle, std::size_t m,
                          std::size_t pos) noexcept {
    return find_simd<V>(hay, n, needle, m, pos);
  }
  static std::size_t rfind(const char* hay, std::size_t end, const char* needle,
                           std::size_t m) noexcept {
    return rfind_simd<V>(hay, end, needle, m);
  }
  static std::size_t first_of(const char* hay, std::size_t n, const char* set, std::size_t k,
                              std::size_t pos, bool negate) noexcept {
    return first_of_simd<V>(hay, n, set, k, pos, negate);
  }
  static std::size_t last_of(const char* hay, std::size_t end, const char* set, std::size_t k,
                             bool negate) noexcept {
    return last_of_simd<V>(hay, end, set, k, negate);
  }
};
template <class V>
constexpr kernel_set simd_kernels{&simd_entries<V>::find, &simd_entries<V>::rfind,
                                  &simd_entries<V>::first_of, &simd_entries<V>::last_of};

}  // namespace
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
