// src/find/find_avx2.cpp: the 32-byte AVX2 search kernels; compiled with the flags
// of the avx2 level of src/simd/isa_levels.def and entered only after the
// run-time check of that level (src/simd/isa.hpp).
// Ranges shorter than 32 positions fall to the 16-byte instantiation (VEX
// encoded here), then to scalar code.
//
// This file includes no standard header with inline functions beyond the C
// ones, so no AVX2-compiled copy of a shared inline function can be picked by
// the linker for code that runs on other CPUs.
#include "find/find_simd.hpp"

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

constinit const kernel_set avx2_kernels = simd_kernels<v256>;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
