// src/find/find_kernel_set.hpp: the search kernels of one instruction-set level as
// a set, the SIMD sets (src/find/find_sse2.cpp, src/find/find_avx2.cpp), and the scalar
// fallbacks every set reaches (src/find/find.cpp). Private to src/ and the tests.
// Read by the AVX2 kernel file, so it includes no C++ standard header with
// inline functions (see src/find/find_avx2.cpp).
#pragma once

#include <fl/detail/find_kernels.hpp>

#include <cstddef>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// The kernels of one instruction-set level.
struct kernel_set {
  find_fn find;
  rfind_fn rfind;
  first_of_fn first_of;
  last_of_fn last_of;
};

#ifndef FL_NO_SIMD
// The SIMD sets, constant-initialized in their kernel files.
extern const kernel_set sse2_kernels;
extern const kernel_set avx2_kernels;
#endif

// The guaranteed-linear fallbacks, exposed so tests can check them directly.
// find_twoway: requires 1 <= m and pos + m <= n; the first match start >= pos.
std::size_t find_twoway(const char* hay, std::size_t n, const char* needle, std::size_t m,
                        std::size_t pos) noexcept;
// rfind_twoway: requires 1 <= m <= end; the last start j with j + m <= end.
std::size_t rfind_twoway(const char* hay, std::size_t end, const char* needle,
                         std::size_t m) noexcept;
// The scalar set kernels (byte table), with the preconditions of first_of_fn
// and last_of_fn; the SIMD kernels use them for ranges shorter than a vector.
std::size_t first_of_scalar(const char* hay, std::size_t n, const char* set, std::size_t k,
                            std::size_t pos, bool negate) noexcept;
std::size_t last_of_scalar(const char* hay, std::size_t end, const char* set, std::size_t k,
                           bool negate) noexcept;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
