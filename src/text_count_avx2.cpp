// src/text_count_avx2.cpp: the 32-byte AVX2 counting kernels; compiled with
// -mavx2 and entered only after src/text_count.cpp has seen AVX2 on the CPU.
// Includes no C++ standard header with inline functions (see find_avx2.cpp).
#include "text_count_simd.hpp"

namespace fl::inline FL_ABI_NS::detail {

void count_text_avx2(const char* p, size_t n, size_t& chars, size_t& newlines,
                     size_t& astral) noexcept {
  count_text_simd<v256>(reinterpret_cast<const uchar*>(p), n, chars, newlines, astral);
}

size_t count_byte_avx2(const char* p, size_t n, char ch) noexcept {
  return count_byte_simd<v256>(reinterpret_cast<const uchar*>(p), n, static_cast<uchar>(ch));
}

size_t nth_item_avx2(const char* p, size_t n, int metric, size_t k, size_t& skipped) noexcept {
  return nth_item_simd<v256>(reinterpret_cast<const uchar*>(p), n, metric, k, skipped);
}

size_t nth_item_back_avx2(const char* p, size_t n, int metric, size_t k) noexcept {
  return nth_item_back_simd<v256>(reinterpret_cast<const uchar*>(p), n, metric, k);
}

}  // namespace fl::inline FL_ABI_NS::detail
