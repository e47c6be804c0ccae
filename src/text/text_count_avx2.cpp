// src/text/text_count_avx2.cpp: the 32-byte AVX2 counting kernels; compiled with
// the flags of the avx2 level (src/simd/isa_levels.def) and entered only
// after the run-time check of that level. Includes no C++ standard header
// with inline functions (see find_avx2.cpp).
#include "text/text_count_simd.hpp"

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

constinit const text_count_kernel_set avx2_text_count_kernels = text_count_kernels<v256>;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
