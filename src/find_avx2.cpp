// src/find_avx2.cpp: the 32-byte AVX2 search kernels; compiled with -mavx2 and
// entered only after the dispatcher in src/find.cpp has seen AVX2 on the CPU.
// Ranges shorter than 32 positions fall to the 16-byte instantiation (VEX
// encoded here), then to scalar code.
//
// This file includes no standard header with inline functions beyond the C
// ones, so no AVX2-compiled copy of a shared inline function can be picked by
// the linker for code that runs on other CPUs.
#include "find_simd.hpp"

namespace fl::detail {

std::size_t find_avx2(const char* hay, std::size_t n, const char* needle, std::size_t m,
                      std::size_t pos) noexcept {
  return find_simd<v256>(hay, n, needle, m, pos);
}

std::size_t rfind_avx2(const char* hay, std::size_t end, const char* needle,
                       std::size_t m) noexcept {
  return rfind_simd<v256>(hay, end, needle, m);
}

std::size_t first_of_avx2(const char* hay, std::size_t n, const char* set, std::size_t k,
                          std::size_t pos, bool negate) noexcept {
  return first_of_simd<v256>(hay, n, set, k, pos, negate);
}

std::size_t last_of_avx2(const char* hay, std::size_t end, const char* set, std::size_t k,
                         bool negate) noexcept {
  return last_of_simd<v256>(hay, end, set, k, negate);
}

}  // namespace fl::detail
