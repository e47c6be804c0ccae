// src/persist/crc32c_avx512.cpp: CRC-32C by carry-less multiplication on
// 512-bit vectors (VPCLMULQDQ; this file is compiled with the flags of the
// avx512 level of src/simd/isa_levels.def and entered only after the run-time
// check of that level, from src/persist/crc32c.cpp). Texts under 256 bytes,
// and the last bytes of any text, go to the SSE4.2 kernel.
//
// Folding. The crc32 instruction's register after a text M, started at 0,
// is M(x) * x^32 mod P (bit-reflected). Four 512-bit accumulators hold the
// text's first 256 bytes, the starting register XORed into its first four
// bytes (which the instruction does too); each next 256 bytes are added
// after each accumulator's 128-bit lanes are moved forward by 2048 bits:
// a lane L of two 64-bit halves (low half first in memory) becomes
// clmul(L.lo, K.lo) ^ clmul(L.hi, K.hi), with K.lo = x^(D+31) mod P and
// K.hi = x^(D-33) mod P (reflected) for a move of D bits, a value of the same
// remainder. The accumulators then fold into one, its four lanes into one
// 128-bit lane L, and the register for all bytes so far is that of the 16
// bytes of L, started at 0: two crc32 instructions.
#ifndef FL_NO_SIMD

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

std::uint32_t crc32c_sse42(const void* data, std::size_t n, std::uint32_t crc) noexcept;

namespace {

// x^e mod P, P the Castagnoli polynomial (x^32 + 0x1EDC6F41), bit i the
// coefficient of x^i.
constexpr std::uint64_t x_pow_mod(unsigned e) {
  std::uint64_t r = 1;
  for (unsigned i = 0; i < e; ++i) {
    r <<= 1;
    if (r >> 32) r ^= 0x11EDC6F41u;
  }
  return r;
}

// The 32 coefficients in the order of the reflected register (x^0 at bit 31).
constexpr std::uint64_t reflect32(std::uint64_t v) {
  std::uint64_t r = 0;
  for (unsigned i = 0; i < 32; ++i)
    if (v >> i & 1) r |= std::uint64_t{1} << (31 - i);
  return r;
}

// The two factors that move a 128-bit lane forward by `bits`.
struct fold_constants {
  std::uint64_t lo, hi;
};
constexpr fold_constants fold_by(unsigned bits) {
  return {reflect32(x_pow_mod(bits + 31)), reflect32(x_pow_mod(bits - 33))};
}
// The distances the kernel moves lanes by (constants: computed here, at
// compile time).
constexpr fold_constants by_128 = fold_by(128), by_256 = fold_by(256), by_384 = fold_by(384),
                         by_512 = fold_by(512), by_2048 = fold_by(2048);
// The published constants of a 128-bit fold (as in Intel's white paper "Fast
// CRC Computation for Generic Polynomials Using PCLMULQDQ", for CRC-32C).
static_assert(by_128.lo == 0xF20C0DFE && by_128.hi == 0x493C7D27);
static_assert(by_512.lo == 0x740EEF02 && by_512.hi == 0x9E4ADDF8);

// (No _mm512_broadcast_i32x4, _mm512_extracti32x4_epi32 or
// _mm512_castsi128_si512: GCC 12 builds them on an undefined vector and warns
// that it may be used uninitialized.)
inline __m512i broadcast(fold_constants k) noexcept {
  const auto lo = static_cast<long long>(k.lo), hi = static_cast<long long>(k.hi);
  return _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo);
}

// Lane i (0: the first in memory) of x.
template <int i>
inline __m128i lane(__m512i x) noexcept {
  return _mm512_maskz_extracti32x4_epi32(0xF, x, i);
}

// Each lane of x moved forward by k's distance, plus d.
inline __m512i fold(__m512i x, __m512i k, __m512i d) noexcept {
  const __m512i lo = _mm512_clmulepi64_epi128(x, k, 0x00);
  const __m512i hi = _mm512_clmulepi64_epi128(x, k, 0x11);
  return _mm512_ternarylogic_epi64(lo, hi, d, 0x96);  // lo ^ hi ^ d
}

inline __m128i fold(__m128i x, fold_constants k) noexcept {
  const __m128i kv = _mm_set_epi64x(static_cast<long long>(k.hi), static_cast<long long>(k.lo));
  return _mm_xor_si128(_mm_clmulepi64_si128(x, kv, 0x00), _mm_clmulepi64_si128(x, kv, 0x11));
}

inline __m512i load(const unsigned char* p) noexcept { return _mm512_loadu_si512(p); }

}  // namespace

std::uint32_t crc32c_avx512(const void* data, std::size_t n, std::uint32_t crc) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  if (n < 256) return crc32c_sse42(p, n, crc);
  __m512i x0 =
      _mm512_xor_si512(load(p), _mm512_maskz_set1_epi32(1, static_cast<int>(~crc)));
  __m512i x1 = load(p + 64), x2 = load(p + 128), x3 = load(p + 192);
  p += 256;
  n -= 256;
  const __m512i k2048 = broadcast(by_2048);
  for (; n >= 256; n -= 256, p += 256) {
    x0 = fold(x0, k2048, load(p));
    x1 = fold(x1, k2048, load(p + 64));
    x2 = fold(x2, k2048, load(p + 128));
    x3 = fold(x3, k2048, load(p + 192));
  }
  const __m512i k512 = broadcast(by_512);
  x1 = fold(x0, k512, x1);
  x2 = fold(x1, k512, x2);
  x3 = fold(x2, k512, x3);
  for (; n >= 64; n -= 64, p += 64) x3 = fold(x3, k512, load(p));
  // The four lanes, first in memory first, into the last.
  const __m128i l = _mm_xor_si128(
      _mm_xor_si128(fold(lane<0>(x3), by_384), fold(lane<1>(x3), by_256)),
      _mm_xor_si128(fold(lane<2>(x3), by_128), lane<3>(x3)));
  std::uint64_t c = _mm_crc32_u64(0, static_cast<std::uint64_t>(_mm_cvtsi128_si64(l)));
  c = _mm_crc32_u64(c, static_cast<std::uint64_t>(_mm_extract_epi64(l, 1)));
  // The rest (under 64 bytes) continues from that register.
  return crc32c_sse42(p, n, ~static_cast<std::uint32_t>(c));
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl

#endif  // FL_NO_SIMD
