// src/text_count_avx2.cpp: the 32-byte AVX2 counting kernels; compiled with
// the flags of the avx2 level (src/simd/isa_levels.def) and entered only
// after the run-time check of that level. Includes no C++ standard header
// with inline functions (see find_avx2.cpp).
#include "text_count_simd.hpp"

namespace fl::inline FL_ABI_NS::detail {

constinit const text_count_kernel_set avx2_text_count_kernels = text_count_kernels<v256>;

}  // namespace fl::inline FL_ABI_NS::detail
