// src/find_avx2.cpp: the 32-byte AVX2 search kernels; compiled with -mavx2 and
// entered only after the dispatcher in src/find.cpp has seen AVX2 on the CPU.
// Ranges shorter than 32 positions fall to the 16-byte instantiation (VEX
// encoded here), then to scalar code.
//
// This file includes no standard header with inline functions beyond the C
// ones, so no AVX2-compiled copy of a shared inline function can be picked by
// the linker for code that runs on other CPUs.
#include <fl/detail/find_simd.hpp>

#include <immintrin.h>

namespace fl::detail {
namespace {

struct v256 {
  using reg = __m256i;
  using half = v128;
  static constexpr std::size_t width = 32;
  static constexpr std::uint32_t full = 0xFFFFFFFFu;
  static constexpr bool has_lookup = true;
  static reg splat(uchar c) noexcept { return _mm256_set1_epi8(static_cast<char>(c)); }
  static reg load(const uchar* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static reg eq(reg a, reg b) noexcept { return _mm256_cmpeq_epi8(a, b); }
  static reg and_(reg a, reg b) noexcept { return _mm256_and_si256(a, b); }
  static reg or_(reg a, reg b) noexcept { return _mm256_or_si256(a, b); }
  static reg xor_(reg a, reg b) noexcept { return _mm256_xor_si256(a, b); }
  static std::uint32_t mask(reg a) noexcept { return static_cast<std::uint32_t>(_mm256_movemask_epi8(a)); }
  // The 16 bytes at p in both 128-bit lanes (vpshufb shuffles within a lane).
  static reg broadcast16(const uchar* p) noexcept {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static reg shuffle(reg table, reg idx) noexcept { return _mm256_shuffle_epi8(table, idx); }
  // Each byte shifted right by 4 in its 16-bit lane; callers mask to 3 bits.
  static reg srl4(reg v) noexcept { return _mm256_srli_epi16(v, 4); }
};

}  // namespace

std::size_t find_avx2(const char* hay, std::size_t n, const char* needle, std::size_t m, std::size_t pos) noexcept {
  return find_simd<v256>(hay, n, needle, m, pos);
}

std::size_t rfind_avx2(const char* hay, std::size_t end, const char* needle, std::size_t m) noexcept {
  return rfind_simd<v256>(hay, end, needle, m);
}

std::size_t first_of_avx2(const char* hay, std::size_t n, const char* set, std::size_t k, std::size_t pos,
                          bool negate) noexcept {
  return first_of_simd<v256>(hay, n, set, k, pos, negate);
}

std::size_t last_of_avx2(const char* hay, std::size_t end, const char* set, std::size_t k, bool negate) noexcept {
  return last_of_simd<v256>(hay, end, set, k, negate);
}

}  // namespace fl::detail
