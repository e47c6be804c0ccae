// src/find/find_sse2.cpp: the 16-byte SSE2 search kernels (baseline x86-64), for
// CPUs without AVX2. The kernels themselves are in src/find/find_simd.hpp.
#ifndef FL_NO_SIMD

#include "find/find_simd.hpp"

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

constinit const kernel_set sse2_kernels = simd_kernels<v128>;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl

#endif  // FL_NO_SIMD
