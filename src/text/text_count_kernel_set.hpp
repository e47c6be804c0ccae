// src/text/text_count_kernel_set.hpp: the counting kernels of one instruction-set
// level as a set (the functions of src/text/text_count.hpp, with the metric as an
// int), for src/text/text_count.cpp to choose from by the level of
// src/simd/isa.hpp. The SIMD sets are defined by src/text/text_count_sse2.cpp and
// src/text/text_count_avx2.cpp; C headers only (see src/find/find_avx2.cpp).
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <stddef.h>

#include "text/text_count_word.hpp"

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

struct text_count_kernel_set {
  text_counts (*count_text)(const char* p, size_t n) noexcept;
  size_t (*count_byte)(const char* p, size_t n, char ch) noexcept;
  size_t (*nth_item)(const char* p, size_t n, int metric, size_t k, size_t& skipped) noexcept;
  size_t (*nth_item_back)(const char* p, size_t n, int metric, size_t k) noexcept;
};

#ifndef FL_NO_SIMD
extern const text_count_kernel_set sse2_text_count_kernels;
extern const text_count_kernel_set avx2_text_count_kernels;
#endif

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
