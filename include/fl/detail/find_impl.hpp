// fl/detail/find_impl.hpp: the kernels behind <fl/find.hpp> and the hooks the
// tests and benchmarks use to reach each of them (the kernel signatures and
// fallbacks are in fl/detail/find_kernels.hpp). Not part of the public API.
//
// Dispatch: each kernel pointer starts out (constant-initialized, so it is
// valid even inside other translation units' static initializers) pointing at
// a resolver. The first call of any kernel checks the CPU once, stores the best
// kernel set in all pointers and forwards the call; later calls jump straight
// to the kernel. The pointers are relaxed atomics, which on x86-64 are plain
// loads, so concurrent first calls are race-free and cost nothing afterwards.
//
// The environment variable FL_FIND_ISA=scalar|sse2|avx2, read by the resolver,
// caps the kernel set (for measuring the portable paths).
#pragma once

#include <fl/detail/find_kernels.hpp>

#include <atomic>
#include <cstddef>

namespace fl::inline FL_ABI_NS::detail {

// fl::find past the inline short path: memchr for one byte, else the
// installed kernel. Requires 1 <= m and pos + m <= n.
std::size_t find_long(const char* hay, std::size_t n, const char* needle, std::size_t m,
                      std::size_t pos) noexcept;

extern std::atomic<find_fn> find_kernel;
extern std::atomic<rfind_fn> rfind_kernel;
extern std::atomic<first_of_fn> first_of_kernel;
extern std::atomic<last_of_fn> last_of_kernel;

// Kernel sets, in increasing order of capability.
enum class find_isa { scalar = 0, sse2 = 1, avx2 = 2 };

// Whether this build and this CPU can run the given kernel set.
bool find_isa_supported(find_isa isa) noexcept;
// Installs the given kernel set for the whole process if supported, returning
// whether it did. For tests and benchmarks; not to be called while another
// thread is searching with an expectation of a particular kernel.
bool set_find_isa(find_isa isa) noexcept;
// The installed kernel set (resolving it first if no search has run yet).
find_isa current_find_isa() noexcept;

}  // namespace fl::inline FL_ABI_NS::detail
