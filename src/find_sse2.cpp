// src/find_sse2.cpp: the 16-byte SSE2 search kernels (baseline x86-64), for
// CPUs without AVX2. The kernels themselves are in src/find_simd.hpp.
#ifndef FL_NO_SIMD

#include "find_simd.hpp"

namespace fl::detail {

std::size_t find_sse2(const char* hay, std::size_t n, const char* needle, std::size_t m,
                      std::size_t pos) noexcept {
  return find_simd<v128>(hay, n, needle, m, pos);
}

std::size_t rfind_sse2(const char* hay, std::size_t end, const char* needle,
                       std::size_t m) noexcept {
  return rfind_simd<v128>(hay, end, needle, m);
}

std::size_t first_of_sse2(const char* hay, std::size_t n, const char* set, std::size_t k,
                          std::size_t pos, bool negate) noexcept {
  return first_of_simd<v128>(hay, n, set, k, pos, negate);
}

std::size_t last_of_sse2(const char* hay, std::size_t end, const char* set, std::size_t k,
                         bool negate) noexcept {
  return last_of_simd<v128>(hay, end, set, k, negate);
}

}  // namespace fl::detail

#endif  // FL_NO_SIMD
