// fl/detail/find_impl.hpp: what the inline functions of <fl/find.hpp> call:
// the out-of-line substring search and the kernel pointers. Not part of the
// public API. The kernels, their choice per instruction-set level and the
// test hooks are private to the library (src/find/find_kernel_set.hpp,
// src/simd/isa.hpp).
//
// Dispatch: each kernel pointer starts out (constant-initialized, so it is
// valid even inside other translation units' static initializers) pointing at
// a resolver. The first call of any kernel installs the kernels of the active
// instruction-set level in all pointers and forwards the call; later calls
// jump straight to the kernel. The pointers are relaxed atomics, which on
// x86-64 are plain loads, so concurrent first calls are race-free and cost
// nothing afterwards.
#pragma once

#include <fl/detail/find_kernels.hpp>

#include <atomic>
#include <cstddef>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// fl::find past the inline short path: memchr for one byte, else the
// installed kernel. Requires 1 <= m and pos + m <= n.
std::size_t find_long(const char* hay, std::size_t n, const char* needle, std::size_t m,
                      std::size_t pos) noexcept;

extern std::atomic<find_fn> find_kernel;
extern std::atomic<rfind_fn> rfind_kernel;
extern std::atomic<first_of_fn> first_of_kernel;
extern std::atomic<last_of_fn> last_of_kernel;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
