// fl/detail/find_kernels.hpp: the search kernels' signatures, a kernel set
// (one of each), and the scalar fallbacks every set reaches. Not part of the
// public API. Shared by fl/detail/find_impl.hpp (dispatch, tests and
// benchmarks) and src/find_simd.hpp (the SIMD kernels), so it includes no C++
// standard header with inline functions (see src/find_avx2.cpp).
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <cstddef>

namespace fl::inline FL_ABI_NS::detail {

// Substring kernel. Requires 2 <= m and pos + m <= n. Returns the first match
// start >= pos, or npos.
using find_fn = std::size_t (*)(const char* hay, std::size_t n, const char* needle, std::size_t m,
                                std::size_t pos) noexcept;
// Reverse substring kernel. Requires 1 <= m <= end. Returns the last start j
// with j + m <= end, or npos. Reads only hay[0, end).
using rfind_fn = std::size_t (*)(const char* hay, std::size_t end, const char* needle,
                                 std::size_t m) noexcept;
// Set kernels. first: requires pos < n and k >= 1; returns the first i >= pos
// whose byte is in set[0, k) (or not in it, when `negate`), else npos.
// last: requires end >= 1 and k >= 1; the same for the last i < end.
using first_of_fn = std::size_t (*)(const char* hay, std::size_t n, const char* set, std::size_t k,
                                    std::size_t pos, bool negate) noexcept;
using last_of_fn = std::size_t (*)(const char* hay, std::size_t end, const char* set, std::size_t k,
                                   bool negate) noexcept;

// The kernels of one instruction set.
struct kernel_set {
  find_fn find;
  rfind_fn rfind;
  first_of_fn first_of;
  last_of_fn last_of;
};

#ifndef FL_NO_SIMD
// The SIMD sets, defined (constant-initialized) by src/find_sse2.cpp and
// src/find_avx2.cpp.
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

}  // namespace fl::inline FL_ABI_NS::detail
