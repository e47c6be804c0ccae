// src/simd/vec.hpp: the x86 vector types the SIMD kernels are written over
// (src/find/find_simd.hpp, src/text/text_count_simd.hpp): v128, SSE2 (baseline on
// x86-64), and v256, AVX2, which exists only in translation units compiled
// with -mavx2. Each kernel uses the operations it needs; the types hold the
// union of them, one thin inline wrapper per instruction.
//
// Internal linkage (an unnamed namespace), like the kernels: each ISA's
// translation unit gets its own copy, so the linker can never substitute an
// AVX2-compiled body for an SSE2 caller. Includes only C headers (see
// src/find/find_avx2.cpp).
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <immintrin.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace {

using uchar = unsigned char;

// The byte-lane operations both widths share, written once on GCC's vector
// types (which is what the SSE2 and AVX2 intrinsics for them expand to: one
// pcmpeqb/pcmpgtb/psubb/pand/por/pxor, or its VEX form, each).
template <size_t Width>
struct register_of;
template <>
struct register_of<16> {
  using type = __m128i;
};
#if defined(__AVX2__)
template <>
struct register_of<32> {
  using type = __m256i;
};
#endif

template <size_t Width>
struct byte_lanes {
  using reg = typename register_of<Width>::type;
  typedef signed char sbytes __attribute__((vector_size(Width)));
  typedef unsigned char ubytes __attribute__((vector_size(Width)));
  using mask_t = uint32_t;  // one bit per lane, from movemask
  static constexpr size_t width = Width;
  static constexpr mask_t full = static_cast<mask_t>((uint64_t{1} << width) - 1);
  static reg zero() noexcept { return reg{}; }
  static reg splat(uchar c) noexcept { return (reg)(ubytes{} + c); }  // broadcast
  static reg load(const uchar* p) noexcept {
    reg r;
    memcpy(&r, p, sizeof r);  // an unaligned load (movdqu / vmovdqu)
    return r;
  }
  static reg eq(reg a, reg b) noexcept { return (reg)((sbytes)a == (sbytes)b); }
  static reg gt(reg a, reg b) noexcept { return (reg)((sbytes)a > (sbytes)b); }  // signed
  static reg sub(reg a, reg b) noexcept { return (reg)((ubytes)a - (ubytes)b); }
  static reg and_(reg a, reg b) noexcept { return a & b; }
  static reg or_(reg a, reg b) noexcept { return a | b; }
  static reg xor_(reg a, reg b) noexcept { return a ^ b; }
};

// The 16-byte SSE2 vector.
struct v128 : byte_lanes<16> {
  static constexpr bool has_lookup = false;  // pshufb needs SSSE3
  static reg max_u(reg a, reg b) noexcept { return _mm_max_epu8(a, b); }
  static uint32_t mask(reg a) noexcept { return static_cast<uint32_t>(_mm_movemask_epi8(a)); }
  // The sum of the 16 bytes (psadbw against zero).
  static size_t sum(reg a) noexcept {
    const __m128i s = _mm_sad_epu8(a, _mm_setzero_si128());
    return static_cast<size_t>(_mm_cvtsi128_si64(s)) + static_cast<size_t>(_mm_extract_epi16(s, 4));
  }
};

#if defined(__AVX2__)
// The 32-byte AVX2 vector; `half` is the next narrower kernel's type.
struct v256 : byte_lanes<32> {
  using half = v128;
  static constexpr bool has_lookup = true;
  static reg max_u(reg a, reg b) noexcept { return _mm256_max_epu8(a, b); }
  static uint32_t mask(reg a) noexcept { return static_cast<uint32_t>(_mm256_movemask_epi8(a)); }
  // The sum of the 32 bytes (psadbw against zero).
  static size_t sum(reg a) noexcept {
    const __m256i s = _mm256_sad_epu8(a, _mm256_setzero_si256());
    return static_cast<size_t>(_mm256_extract_epi64(s, 0)) +
           static_cast<size_t>(_mm256_extract_epi64(s, 1)) +
           static_cast<size_t>(_mm256_extract_epi64(s, 2)) +
           static_cast<size_t>(_mm256_extract_epi64(s, 3));
  }
  // The 16 bytes at p in both 128-bit lanes (vpshufb shuffles within a lane).
  static reg broadcast16(const uchar* p) noexcept {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static reg shuffle(reg table, reg idx) noexcept { return _mm256_shuffle_epi8(table, idx); }
  // Each byte shifted right by 4 in its 16-bit lane; callers mask to 3 bits.
  static reg srl4(reg v) noexcept { return _mm256_srli_epi16(v, 4); }
};
#endif

}  // namespace
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
