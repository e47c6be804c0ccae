// src/text/text_count_sse2.cpp: the 16-byte SSE2 counting kernels (baseline
// x86-64), for CPUs without AVX2. The kernels are in src/text/text_count_simd.hpp.
#ifndef FL_NO_SIMD

#include "text/text_count_simd.hpp"

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

constinit const text_count_kernel_set sse2_text_count_kernels = text_count_kernels<v128>;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl

#endif  // FL_NO_SIMD
