// fl/detail/find_impl.hpp: the kernels behind <fl/find.hpp> and the hooks the
// tests and benchmarks use to reach each of them. Not part of the public API.
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

#include <atomic>
#include <cstddef>

namespace fl::detail {

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

}  // namespace fl::detail
