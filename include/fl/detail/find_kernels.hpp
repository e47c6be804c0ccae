// fl/detail/find_kernels.hpp: the signatures of the search kernels that
// <fl/find.hpp> calls through the dispatch pointers of fl/detail/find_impl.hpp.
// Not part of the public API. Also read by the kernels themselves (src/), so
// it includes no C++ standard header with inline functions (see
// src/find/find_avx2.cpp).
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <cstddef>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

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

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
